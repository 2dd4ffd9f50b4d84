"""Units, number formatting and the caveats stated with rows."""

from __future__ import annotations

import pandas as pd
import pytest

from assistant import semantics as sem


@pytest.mark.parametrize("unit,expected", [
    ("Latency (ms)", True), ("Latency (s)", True), ("Latency (us)", True), ("millijoules", True),
    ("Tokens/s", False), ("Samples/s", False), ("Queries/s", False), ("Tasks/s", False), (None, False), ("", False),
])
def test_is_latency(unit, expected):
    assert sem.is_latency(unit) is expected


def test_direction_per_metric():
    assert sem.lower_is_better("Latency (ms)") is True
    assert sem.lower_is_better("Tokens/s") is False
    assert sem.lower_is_better("Tokens/s", "power") is True
    assert sem.lower_is_better("Tokens/s", "result_per_accelerator") is False


def test_derived_units_never_wear_the_official_unit():
    assert sem.metric_unit("result", "Tokens/s") == "Tokens/s"
    assert sem.metric_unit("result_per_accelerator", "Tokens/s") == "Tokens/s per accelerator"
    assert sem.metric_unit("efficiency", "Samples/s") == "Samples/s per Watt"
    assert sem.metric_unit("power", "Tokens/s", "Watts") == "Watts"
    assert sem.is_derived("result_per_accelerator") and not sem.is_derived("result")
    assert sem.derived_note("result_per_accelerator") == sem.DERIVED_NOTE
    assert "not an official MLPerf metric" in sem.DERIVED_NOTE


@pytest.mark.parametrize("value,unit,expected", [
    (1136100.0, "Tokens/s", "1,136,100 Tokens/s"),
    (5749440, "Tokens/s", "5,749,440 Tokens/s"),
    (9297.78, "Queries/s", "9,297.78 Queries/s"),
    (1466.007675716981, "Latency (ms)", "1,466.007675716981 ms"),
    (20.6, "Latency (s)", "20.6 s"),
    (0.056501, "Samples/s", "0.056501 Samples/s"),
    (-1234.5, None, "-1,234.5"),
    (None, "Tokens/s", "n/a Tokens/s"),
])
def test_format_value_exact(value, unit, expected):
    assert sem.format_value(value, unit) == expected


def test_format_value_rounds_only_when_asked():
    assert sem.format_value(16634.861111, "Tokens/s per accelerator", exact=False) == "16,634.9 Tokens/s per accelerator"
    assert sem.format_number(15.574309, exact=False) == "15.57"
    assert sem.format_number(0.0123456, exact=False) == "0.0123"


def _rows(**cols):
    return pd.DataFrame(cols)


def test_caveats_name_round_division_availability_scenario_and_counts():
    rows = _rows(round=["v6.1", "v6.0"], division=["closed", "open"], availability=["preview", "rdi"],
                 scenario=["Offline", "Server"], number_of_nodes=[18, 1], total_accelerators=[72, 8],
                 units=["Tokens/s", "Tokens/s"])
    notes = " | ".join(sem.describe_caveats(rows))
    for word in ("v6.1", "v6.0", "open", sem.PREVIEW_NOTE, sem.RDI_NOTE, "Offline", "Server", "18 nodes", "8–72"):
        assert word in notes


def test_caveats_are_quiet_for_a_homogeneous_closed_single_node_set():
    rows = _rows(round=["v6.1"] * 2, division=["closed"] * 2, availability=["available"] * 2,
                 scenario=["Offline"] * 2, number_of_nodes=[1, 1], total_accelerators=[8, 8], units=["Tokens/s"] * 2)
    assert sem.describe_caveats(rows) == []
    assert sem.describe_caveats(rows.head(0)) == []


def test_caveats_warn_when_benchmarks_are_mixed():
    rows = _rows(benchmark=["gpt-oss-120b", "deepseek-r1", "gpt-oss-120b"])
    assert any("2 benchmarks" in n and "not comparable" in n for n in sem.describe_caveats(rows))
    assert sem.describe_caveats(rows.head(1)) == []


def test_caveats_for_latency_and_open_division():
    rows = _rows(division=["open"], units=["Latency (ms)"])
    notes = sem.describe_caveats(rows)
    assert sem.LATENCY_NOTE in notes
    assert any("open division" in n for n in notes)


def test_describe_row_states_counts_and_context():
    row = {"submitter": "CoreWeave", "system_name": "GB300 NVL72", "number_of_nodes": 18, "total_accelerators": 72,
           "accelerator_family": "GB300", "round": "v6.1", "division": "closed", "availability": "available",
           "scenario": "Offline"}
    text = sem.describe_row(row)
    assert text == 'CoreWeave "GB300 NVL72" (18 nodes, 72× GB300) v6.1, closed, available, Offline'
