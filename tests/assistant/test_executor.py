"""The executor on small inline tables (one rule per test) and on the real table (gold values
read by hand from the README or independently from the raw official files)."""

from __future__ import annotations

import csv
import itertools

import pandas as pd
import pytest

from assistant import executor as ex
from assistant.executor import QueryTimeout, SpecError, execute, validate
from assistant.semantics import DERIVED_NOTE
from assistant.spec import Filters, QuerySpec, Range
from ingest.schema import COLUMNS

_ids = itertools.count(1)


def row(**kw):
    """One table row with neutral defaults; every test names only what it is about."""
    n = next(_ids)
    base = {
        "round": "v6.1", "round_order": 601, "result_id": f"r-{n:04d}", "division": "closed",
        "availability": "available", "system_type": "datacenter", "submitter": "Acme", "system_name": f"sys{n}",
        "platform": f"plat{n}", "number_of_nodes": 1, "accelerator": "Chip X", "accelerator_vendor": "ChipCo",
        "accelerator_family": "X1", "accelerators_per_node": 8, "total_accelerators": 8,
        "benchmark": "llama2-70b-99.9", "scenario": "Offline", "result": 100.0, "units": "Tokens/s",
        "power_result": None, "power_units": None, "has_power": False, "framework": "fw", "precision": "fp8",
        "result_url": None,
    }
    base.update(kw)
    if base["result_url"] is None:
        base["result_url"] = f"https://example.org/{base['result_id']}"
    base["lower_is_better"] = base["units"].startswith("Latency")
    return base


def table(*rows):
    df = pd.DataFrame(list(rows))
    for c in COLUMNS:
        if c.name not in df.columns:
            df[c.name] = pd.Series([None] * len(df), dtype="object")
    for c in COLUMNS:
        if c.dtype in ("Int64", "float64", "boolean"):
            df[c.name] = df[c.name].astype(c.dtype)
        else:
            df[c.name] = df[c.name].astype("string")
    return df


def run(df, **spec):
    filters = spec.pop("filters", {})
    return execute(QuerySpec(filters=Filters(**filters), **spec), df)


# --- rows: ranking rules ----------------------------------------------------------------

def test_throughput_best_is_the_maximum():
    df = table(row(result=10.0), row(result=30.0), row(result=20.0))
    res = run(df)
    assert res.rows["value"].tolist() == [30.0, 20.0, 10.0]
    assert res.unit == "Tokens/s" and res.lower_is_better is False


def test_latency_best_is_the_minimum_and_worst_the_maximum():
    df = table(row(result=5.0, units="Latency (ms)", scenario="SingleStream"),
               row(result=2.0, units="Latency (ms)", scenario="SingleStream"),
               row(result=9.0, units="Latency (ms)", scenario="SingleStream"))
    best = run(df)
    assert best.rows["value"].tolist() == [2.0, 5.0, 9.0]
    assert best.lower_is_better is True
    assert any("lower is better" in n for n in best.notes)
    worst = run(df, order="worst", limit=1)
    assert worst.rows["value"].tolist() == [9.0]


def test_asc_and_desc_are_literal_even_for_latency():
    df = table(row(result=5.0, units="Latency (ms)"), row(result=2.0, units="Latency (ms)"))
    assert run(df, order="desc").rows["value"].tolist() == [5.0, 2.0]
    assert run(df, order="asc").rows["value"].tolist() == [2.0, 5.0]


def test_limit_and_dedupe_keep_the_best_row_per_system_result():
    df = table(row(platform="p", result=10.0), row(platform="p", result=50.0), row(platform="q", result=20.0))
    res = run(df)
    assert res.rows["value"].tolist() == [50.0, 20.0]
    assert run(df, dedupe=False).rows["value"].tolist() == [50.0, 20.0, 10.0]
    assert run(df, dedupe=False, limit=2).rows["value"].tolist() == [50.0, 20.0]


def test_never_ranks_across_units():
    df = table(row(result=1000.0, units="Samples/s", benchmark="resnet"),
               row(result=10.0, units="Tokens/s"), row(result=20.0, units="Tokens/s"))
    res = run(df)
    assert set(res.rows["units"]) == {"Tokens/s"}
    assert res.rows["value"].tolist() == [20.0, 10.0]
    assert any("mixed units" in n and "Samples/s" in n for n in res.notes)


def test_unit_filter_picks_the_minority_unit():
    df = table(row(result=1000.0, units="Samples/s", benchmark="resnet"),
               row(result=10.0, units="Tokens/s"), row(result=20.0, units="Tokens/s"))
    res = run(df, filters={"units": ["Samples/s"]})
    assert res.rows["value"].tolist() == [1000.0]
    assert not any("mixed units" in n for n in res.notes)


def test_default_division_is_closed_and_said():
    df = table(row(division="closed", result=10.0), row(division="open", result=99.0))
    res = run(df)
    assert res.rows["value"].tolist() == [10.0]
    assert res.spec.filters.division == ["closed"]
    assert any("Closed division assumed" in n for n in res.notes)
    explicit = run(df, filters={"division": ["open"]})
    assert explicit.rows["value"].tolist() == [99.0]
    assert not any("assumed" in n for n in explicit.notes)


def test_default_division_not_applied_when_the_named_submitter_is_only_in_open():
    df = table(row(division="closed", submitter="Big", result=10.0),
               row(division="open", submitter="Tiny", result=3.0))
    res = run(df, filters={"submitter": ["Tiny"]})
    assert res.rows["value"].tolist() == [3.0]
    assert any("no closed-division results match" in n for n in res.notes)


def test_default_division_setting_can_be_switched_off():
    df = table(row(division="closed", result=10.0), row(division="open", result=99.0))
    res = execute(QuerySpec(), df, default_division=None)
    assert res.rows["value"].tolist() == [99.0, 10.0]


def test_per_accelerator_is_derived_labelled_and_skips_latency():
    df = table(row(result=800.0, total_accelerators=8), row(result=300.0, total_accelerators=2),
               row(result=1.0, units="Latency (ms)", benchmark="resnet", scenario="SingleStream"))
    res = run(df, metric="result_per_accelerator")
    assert res.rows["value"].tolist() == [150.0, 100.0]
    assert res.derived is True
    assert res.unit == "Tokens/s per accelerator"
    assert DERIVED_NOTE in res.notes


def test_efficiency_uses_watts_rows_only():
    df = table(row(result=1000.0, power_result=500.0, power_units="Watts", has_power=True),
               row(result=1000.0, power_result=100.0, power_units="millijoules", has_power=True),
               row(result=5000.0))
    res = run(df, metric="efficiency")
    assert res.rows["value"].tolist() == [2.0]
    assert res.derived and res.unit == "Tokens/s per Watt"


def test_power_metric_lower_is_better():
    df = table(row(result=1.0, power_result=700.0, power_units="Watts", has_power=True),
               row(result=1.0, power_result=300.0, power_units="Watts", has_power=True))
    res = run(df, metric="power")
    assert res.rows["value"].tolist() == [300.0, 700.0]
    assert res.lower_is_better and res.unit == "Watts"


def test_power_on_a_table_without_power_columns_has_no_rows():
    """A card's table may have no power at all (MLPerf Training): asked for power, no rows, no KeyError."""
    df = table(row(result=1.0), row(result=2.0)).drop(columns=["power_result", "power_units", "has_power"])
    res = run(df, metric="power", group_by=["round", "benchmark"], dedupe=True)
    assert res.rows.empty


def test_range_and_bool_filters():
    df = table(row(number_of_nodes=1, result=1.0), row(number_of_nodes=4, total_accelerators=32, result=2.0),
               row(number_of_nodes=18, total_accelerators=72, result=3.0, has_power=True))
    res = run(df, filters={"number_of_nodes": {"min": 2, "max": 10}})
    assert res.rows["value"].tolist() == [2.0]
    assert run(df, filters={"has_power": True}).rows["value"].tolist() == [3.0]
    assert run(df, filters={"total_accelerators": {"min": 32}}).rows["value"].tolist() == [3.0, 2.0]


# --- citations, caps, pandas text ---------------------------------------------------------

def test_citations_follow_the_rows():
    df = table(row(result_id="a", result=2.0), row(result_id="b", result=1.0))
    res = run(df)
    assert res.result_ids == ["a", "b"]
    assert res.urls == ["https://example.org/a", "https://example.org/b"]


def test_row_cap_and_truncated_flag():
    df = table(*[row(result=float(i)) for i in range(30)])
    res = execute(QuerySpec(limit=100), df, max_rows=5)
    assert len(res.rows) == 5 and res.truncated
    assert not execute(QuerySpec(limit=3), df, max_rows=5).truncated
    count = execute(QuerySpec(op="aggregate", aggregate="count"), df, max_rows=5)
    assert count.value == 30 and count.matched == 30 and len(count.rows) == 5 and count.truncated


def test_time_box(monkeypatch):
    df = table(row(), row())
    ticks = itertools.count(0, 10.0)  # every clock read is 10 s later
    monkeypatch.setattr(ex.time, "perf_counter", lambda: next(ticks))
    with pytest.raises(QueryTimeout):
        execute(QuerySpec(), df, timeout_ms=1000)


def test_pandas_text_is_plain_method_calls():
    df = table(row(round="v6.1"), row(round="v6.0", round_order=600))
    res = run(df, filters={"round": ["v6.1"]})
    assert "df['round'].isin(['v6.1'])" in res.pandas
    assert "sort_values" in res.pandas
    for banned in ("eval(", "exec(", ".query("):
        assert banned not in res.pandas


def test_empty_match_is_flagged_not_an_error():
    df = table(row(round="v6.1", accelerator_family="A"), row(round="v6.0", round_order=600, accelerator_family="B"))
    res = run(df, filters={"round": ["v6.1"], "accelerator_family": ["B"]})
    assert res.empty and res.rows.empty
    assert any("no rows match" in n for n in res.notes)


def test_empty_match_says_which_filter_emptied_it():
    df = table(row(round="v6.0", round_order=600, accelerator_family="B"),
               row(round="v6.1", round_order=601, accelerator_family="B"),
               row(round="v5.1", round_order=501, accelerator_family="A"))
    res = run(df, filters={"round": ["v5.1"], "accelerator_family": ["B"]})
    assert res.empty
    assert any("round v5.1" in n and "match round v6.0, v6.1" in n for n in res.notes)


# --- validation -----------------------------------------------------------------------------

def test_values_are_matched_to_the_real_table_values():
    df = table(row(scenario="Offline"), row(benchmark="llama2-70b-99.9"))
    spec = validate(QuerySpec(filters=Filters(scenario=["offline"], benchmark=["Llama2 70B 99.9"])), df)
    assert spec.filters.scenario == ["Offline"]
    assert spec.filters.benchmark == ["llama2-70b-99.9"]


def test_ambiguous_normalised_match_is_refused():
    df = table(row(benchmark="llama2-70b-99"), row(benchmark="llama2-70b-99.9"), row(benchmark="llama2.70b.99"))
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(filters=Filters(benchmark=["llama2 70b 99"])), df)
    assert "llama2-70b-99" in err.value.suggestions["benchmark"]


def test_unknown_value_gets_close_suggestions_and_a_one_line_message():
    df = table(row(accelerator_family="MI355X"), row(accelerator_family="B200"), row(accelerator_family="H100"))
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(filters=Filters(accelerator_family=["MI35X"])), df)
    assert err.value.suggestions["accelerator_family"][0] == "MI355X"
    assert "\n" not in str(err.value) and "MI35X" in str(err.value)


def test_value_from_another_column_is_pointed_out():
    df = table(row(submitter="CoreWeave", accelerator_vendor="NVIDIA"))
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(filters=Filters(accelerator_vendor=["CoreWeave"])), df)
    assert "submitter" in str(err.value)


def test_unknown_columns_are_refused_with_the_valid_ones():
    df = table(row())
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(op="aggregate", aggregate="count", group_by=["colour"]), df)
    assert "submitter" in err.value.suggestions["group_by"]
    with pytest.raises(SpecError):
        validate(QuerySpec(op="aggregate", aggregate="nunique", column="colour"), df)


@pytest.mark.parametrize("spec", [
    QuerySpec(op="aggregate"),
    QuerySpec(op="aggregate", aggregate="nunique"),
    QuerySpec(op="difference", column="benchmark"),
    QuerySpec(op="difference", other=Filters(round=["v6.1"])),
    QuerySpec(op="compare", sides=[Filters(round=["v6.1"])]),
    QuerySpec(filters=Filters(number_of_nodes=Range(min=5, max=2))),
])
def test_incomplete_op_shapes_are_refused(spec):
    with pytest.raises(SpecError):
        validate(spec, table(row()))


def test_a_model_json_dict_is_accepted_and_schema_errors_are_spec_errors():
    df = table(row(result=1.0), row(result=2.0))
    res = execute({"op": "rows", "filters": {"scenario": ["offline"]}, "limit": 1}, df)
    assert res.rows["value"].tolist() == [2.0]
    with pytest.raises(SpecError) as err:
        execute({"op": "rows", "filters": {"colour": ["red"]}, "limit": 0}, df)
    assert "colour" in str(err.value) and "limit" in str(err.value)


# --- aggregate ----------------------------------------------------------------------------

def test_count_and_nunique_count_every_division():
    df = table(row(submitter="A"), row(submitter="B"), row(submitter="B", division="open"),
               row(round="v6.0", round_order=600, submitter="C"))
    count = run(df, op="aggregate", aggregate="count", filters={"round": ["v6.1"]})
    assert count.value == 3.0
    subs = run(df, op="aggregate", aggregate="nunique", column="submitter", filters={"round": ["v6.1"]})
    assert subs.value == 2.0
    per_round = run(df, op="aggregate", aggregate="count", group_by=["round"])
    assert dict(zip(per_round.groups["round"], per_round.groups["value"])) == {"v6.1": 3, "v6.0": 1}


def test_a_power_filter_on_a_table_without_power_matches_nothing():
    """Dropping the filter would count every row as one with a power result."""
    df = table(row(submitter="A"), row(submitter="B")).drop(columns=["has_power"], errors="ignore")
    count = run(df, op="aggregate", aggregate="count", filters={"round": ["v6.1"], "has_power": True})
    assert count.value == 0.0


def test_a_count_over_several_divisions_gives_each_division():
    """"How many" differs by division; with none named, the answer gives the total and each."""
    df = table(row(submitter="A"), row(submitter="B"), row(submitter="B", division="open"),
               row(round="v6.0", round_order=600, submitter="C"))
    count = run(df, op="aggregate", aggregate="count", filters={"round": ["v6.1"]})
    assert count.by_division == {"closed": 2.0, "open": 1.0}
    subs = run(df, op="aggregate", aggregate="nunique", column="submitter", filters={"round": ["v6.1"]})
    assert subs.by_division == {"closed": 2.0, "open": 1.0}
    one = run(df, op="aggregate", aggregate="count", filters={"round": ["v6.0"]})
    assert one.by_division == {}  # one division: nothing to split
    named = run(df, op="aggregate", aggregate="count", filters={"round": ["v6.1"], "division": ["closed"]})
    assert named.value == 2.0 and named.by_division == {}


def test_max_per_group_cites_the_row_that_holds_it():
    df = table(row(submitter="A", result=5.0, result_id="a1"), row(submitter="A", result=7.0, result_id="a2"),
               row(submitter="B", result=6.0, result_id="b1"))
    res = run(df, op="aggregate", aggregate="max", group_by=["submitter"])
    got = {r["submitter"]: (r["value"], r["result_id"]) for r in res.groups.to_dict("records")}
    assert got == {"A": (7.0, "a2"), "B": (6.0, "b1")}
    single = run(df, op="aggregate", aggregate="max")
    assert single.value == 7.0 and single.result_ids == ["a2"]


def test_metric_aggregates_split_mixed_units():
    df = table(row(result=10.0), row(result=20.0), row(result=300.0, units="Samples/s", benchmark="resnet"))
    res = run(df, op="aggregate", aggregate="mean", group_by=["round"])
    got = {r["value_unit"]: r["value"] for r in res.groups.to_dict("records")}
    assert got == {"Tokens/s": 15.0, "Samples/s": 300.0}
    assert any("split by unit" in n for n in res.notes)


# --- difference, compare, trend -----------------------------------------------------------

def test_difference_returns_sorted_values_missing_from_the_other_set():
    df = table(row(round="v6.1", benchmark="zeta"), row(round="v6.1", benchmark="alpha"),
               row(round="v6.1", benchmark="both"), row(round="v6.0", round_order=600, benchmark="both"))
    res = run(df, op="difference", column="benchmark", filters={"round": ["v6.1"]}, other={"round": ["v6.0"]})
    assert res.items == ["alpha", "zeta"]
    assert set(res.rows["benchmark"]) == {"alpha", "zeta"}


def test_compare_takes_the_best_row_of_each_side_with_counts_in_notes():
    df = table(row(accelerator_family="A", result=10.0, number_of_nodes=2, total_accelerators=16),
               row(accelerator_family="A", result=30.0, number_of_nodes=9, total_accelerators=72),
               row(accelerator_family="B", result=20.0, availability="preview"))
    res = run(df, op="compare", sides=[{"accelerator_family": ["A"]}, {"accelerator_family": ["B"]}])
    assert res.rows["value"].tolist() == [30.0, 20.0]
    assert res.rows["side"].tolist() == [1, 2]
    assert len(res.sides) == 2 and res.sides[1].rows["availability"].iloc[0] == "preview"
    assert any(n.startswith("side 1") and "9 nodes" in n and "72×" in n for n in res.notes)
    assert any(n.startswith("side 2") and "preview" in n for n in res.notes)


def test_compare_refuses_different_units():
    df = table(row(benchmark="a", units="Tokens/s"), row(benchmark="b", units="Samples/s"))
    with pytest.raises(SpecError) as err:
        run(df, op="compare", sides=[{"benchmark": ["a"]}, {"benchmark": ["b"]}])
    assert "units" in str(err.value)


def test_trend_is_the_best_row_per_round_in_round_order():
    df = table(row(round="v6.1", round_order=601, result=9.0), row(round="v6.1", round_order=601, result=4.0),
               row(round="v5.1", round_order=501, result=5.0), row(round="v6.0", round_order=600, result=7.0))
    res = run(df, op="trend")
    assert [(b["round"], b["value"]) for b in res.by_round] == [("v5.1", 5.0), ("v6.0", 7.0), ("v6.1", 9.0)]


# --- the real table -----------------------------------------------------------------------

def test_real_best_llama2_70b_offline_v61(results_table):
    res = execute(QuerySpec(filters=Filters(round=["v6.1"], benchmark=["llama2-70b-99.9"], scenario=["Offline"]),
                            limit=1), results_table)
    best = res.best
    # Gold from /work/shared/data/mlperf/README.md "Five facts", checked by hand there.
    assert best["value"] == 1136100.0 and best["result_id"] == "v6.1-csvrow-0104"
    assert best["submitter"] == "CoreWeave" and int(best["total_accelerators"]) == 72
    assert res.unit == "Tokens/s"


def test_real_best_gpt_oss_offline_v61(results_table):
    res = execute(QuerySpec(filters=Filters(round=["v6.1"], benchmark=["gpt-oss-120b"], scenario=["Offline"]),
                            limit=1), results_table)
    assert res.best["value"] == 5749440.0 and res.best["result_id"] == "v6.1-csvrow-0110"
    assert int(res.best["total_accelerators"]) == 512


def test_real_counts_v61(results_table):
    count = execute(QuerySpec(op="aggregate", aggregate="count", filters=Filters(round=["v6.1"])), results_table)
    subs = execute(QuerySpec(op="aggregate", aggregate="nunique", column="submitter",
                             filters=Filters(round=["v6.1"])), results_table)
    preview = execute(QuerySpec(op="aggregate", aggregate="count",
                                filters=Filters(round=["v6.1"], availability=["preview"])), results_table)
    assert (count.value, subs.value, preview.value) == (492.0, 33.0, 8.0)


def _raw_v61(shared_data):
    with open(shared_data / "mlperf" / "raw" / "v6.1" / "summary.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_real_latency_ranking_picks_the_minimum(results_table, shared_data):
    raw = [r for r in _raw_v61(shared_data)
           if r["Division"] == "closed" and r["MlperfModel"] == "agentic edge" and r["Units"] == "Latency (ms)"]
    assert raw, "gold rows for the agentic edge benchmark not found in the raw file"
    gold = min(float(r["Result"]) for r in raw)
    res = execute(QuerySpec(filters=Filters(round=["v6.1"], benchmark=["qwen3.6-27b"], units=["Latency (ms)"]),
                            limit=3), results_table)
    assert res.lower_is_better
    assert res.rows["value"].iloc[0] == pytest.approx(gold, rel=1e-12)
    assert res.rows["value"].is_monotonic_increasing


def test_real_unknown_chip_suggests_the_close_one(results_table):
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(filters=Filters(accelerator_family=["MI35X"])), results_table)
    assert "MI355X" in err.value.suggestions["accelerator_family"][:3]


def test_real_round_that_does_not_exist(results_table):
    with pytest.raises(SpecError) as err:
        validate(QuerySpec(filters=Filters(round=["v7.0"])), results_table)
    assert "round" in err.value.suggestions


def test_real_new_benchmarks_in_v61(results_table, shared_data):
    rounds: dict[str, set[str]] = {}
    res = execute(QuerySpec(op="difference", column="benchmark", filters=Filters(round=["v6.1"]),
                            other=Filters(round=["v6.0"])), results_table)
    # Independent gold: benchmark keys per round from the tidy CSV the README documents.
    with open(shared_data / "mlperf" / "mlperf_inference_all_rounds_results.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            rounds.setdefault(r["round"], set()).add(r["benchmark"])
    assert res.items == sorted(rounds["v6.1"] - rounds["v6.0"])


def test_size_aggregates_count_each_system_once():
    # One system with three results: its 8 accelerators are summed once, not three times.
    df = table(row(platform="p1", total_accelerators=8, benchmark="a"), row(platform="p1", total_accelerators=8,
               benchmark="b"), row(platform="p1", total_accelerators=8, benchmark="c"),
               row(platform="p2", total_accelerators=4))
    res = run(df, op="aggregate", aggregate="sum", metric="total_accelerators")
    assert res.value == 12.0
    assert "drop_duplicates(['round', 'submitter', 'platform'])" in res.pandas


# --- exclusions ("not NVIDIA") ------------------------------------------------------------

def test_excluded_values_leave_their_rows_out_and_say_so_in_the_pandas():
    df = table(row(submitter="Acme", accelerator_vendor="ChipCo", result=300.0),
               row(submitter="Bolt", accelerator_vendor="OtherCo", result=200.0),
               row(submitter="Cove", accelerator_vendor="ChipCo+OtherCo", result=100.0))
    spec = validate(QuerySpec(filters=Filters(exclude={"accelerator_vendor": ["chipco", "ChipCo+OtherCo"]})), df)
    assert spec.filters.exclude.accelerator_vendor == ["ChipCo", "ChipCo+OtherCo"]  # real table values
    result = execute(spec, df)
    assert list(result.rows["submitter"]) == ["Bolt"]
    assert "~df['accelerator_vendor'].isin(['ChipCo', 'ChipCo+OtherCo'])" in result.pandas


def test_an_unknown_excluded_value_is_a_spec_error_with_suggestions():
    df = table(row(submitter="Acme"))
    with pytest.raises(SpecError, match=r"no submitter 'Acmee' \(excluded\)") as err:
        validate(QuerySpec(filters=Filters(exclude={"submitter": ["Acmee"]})), df)
    assert "Acme" in err.value.suggestions["submitter"]
