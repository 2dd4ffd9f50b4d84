"""Entity cards: one per system / accelerator family / benchmark / submitter / round, stable ids,
common names that let retrieval resolve "Vera Rubin" or "Blackwell Ultra" to table values."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from ingest.cards import build_cards
from ingest.tables import read_table

HEADER = ("Organization,Availability,Division,SystemType,SystemName,Platform,Model,MlperfModel,Scenario,"
          "Result,Accuracy,number_of_nodes,host_processor_model_name,host_processors_per_node,"
          "host_processor_core_count,accelerator_model_name,accelerators_per_node,total_accelerators,"
          "Location,framework,operating_system,notes,compliance,errors,version,inferred,has_power,Units,"
          "weight_data_types,design_power_watts,PrivateID")


def _row(org, system, model, label, scenario, result, acc, nodes, per_node, version, units="Tokens/s",
         avail="available"):
    loc = f"./closed/{org}/results/{system}/{model}/{scenario}/performance/run_1"
    return (f"{org},{avail},closed,datacenter,{system},{system},{model},{label},{scenario},{result},acc,{nodes},"
            f"Grace,2,72,{acc},{per_node},{nodes * per_node},{loc},TRT,,,,,{version},0,False,{units},fp4,,")


ROWS = [
    _row("NVIDIA", "VR NVL72", "deepseek-r1", "deepseek-r1", "Offline", 987654.5, "NVIDIA Vera Rubin", 18, 4,
         "v6.1", avail="preview"),
    _row("Nebius", "Nebius VR200 NVL72", "deepseek-r1", "deepseek-r1", "Server", 111.25, "NVIDIA VR200", 18, 4, "v6.1",
         avail="preview"),
    _row("CoreWeave", "CW GB300 NVL72", "llama2-70b-99.9", "llama2-70b-99.9", "Offline", 1136100.0, "NVIDIA GB300",
         18, 4, "v6.1"),
    _row("CoreWeave", "CW GB300 NVL72", "qwen3-vl-235b-a22b", "VLM", "Offline", 42.5, "NVIDIA GB300", 18, 4, "v6.1",
         units="Samples/s"),
    _row("Dell", "XE9685L", "llama2-70b-99.9", "llama2-70b-99.9", "Offline", 33333.0,
         "AMD Instinct MI355X 288GB HBM3e (x8)", 1, 8, "v6.0"),
    _row("Dell", "XE9680", "llama2-70b-99.9", "llama2-70b-99.9", "Offline", 22222.0, "NVIDIA B300-SXM-270GB", 1, 8,
         "v6.0"),
    _row("Dell", "XE9680", "llama2-70b-99", "llama2-70b-99", "Server", 21111.0, "NVIDIA B300-SXM-270GB", 1, 8, "v6.0"),
    _row("Intel", "1-node-2S-GNR", "whisper", "whisper", "Offline", 55.5, "N/A", 1, 0, "v6.0", units="Samples/s"),
]


def _table(tmp_path: Path, rows=ROWS) -> pd.DataFrame:
    path = tmp_path / "summary.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return read_table(path)


def _by_value(cards, card_type):
    return {c.metadata["value"]: c for c in cards if c.metadata["card_type"] == card_type}


def test_one_card_per_entity_with_metadata(tmp_path):
    df = _table(tmp_path)
    cards = build_cards(df)
    kinds = Counter(c.metadata["card_type"] for c in cards)
    assert kinds == {"system": 6, "accelerator": 5, "benchmark": 5, "submitter": 5, "round": 2}
    for card in cards:
        meta = card.metadata
        assert meta["kind"] == "card"
        assert meta["column"] in df.columns
        assert meta["value"] in set(df[meta["column"]].astype(str))
        assert meta["rounds"] and set(meta["rounds"].split(",")) <= {"v6.0", "v6.1"}
        assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())  # Chroma-storable
    assert len({c.id for c in cards}) == len(cards)


def test_ids_and_texts_are_deterministic_and_order_independent(tmp_path):
    df = _table(tmp_path)
    first = build_cards(df)
    shuffled = build_cards(df.sample(frac=1.0, random_state=3).reset_index(drop=True))
    assert [(c.id, c.text, c.metadata) for c in first] == [(c.id, c.text, c.metadata) for c in shuffled]


def test_common_names_resolve_to_families(tmp_path):
    cards = build_cards(_table(tmp_path))
    families = _by_value(cards, "accelerator")
    assert set(families) == {"VR200", "GB300", "B300", "MI355X", "none"}
    # both spellings of Vera Rubin end up in one family card that names them
    vr = families["VR200"].text
    assert "Vera Rubin" in vr and "NVIDIA Vera Rubin" in vr and "NVIDIA VR200" in vr and "Nebius" in vr
    assert "Blackwell Ultra" in families["GB300"].text and "Blackwell Ultra" in families["B300"].text
    assert "Blackwell Ultra" not in families["MI355X"].text
    assert "Instinct" in families["MI355X"].text
    assert "CPU" in families["none"].text
    system = _by_value(cards, "system")["Nebius VR200 NVL72"].text
    assert "Vera Rubin" in system and "Nodes: 18; total accelerators: 72" in system


def test_benchmark_card_states_labels_units_and_direction(tmp_path):
    cards = _by_value(build_cards(_table(tmp_path)), "benchmark")
    qwen = cards["qwen3-vl-235b-a22b"].text
    assert "Official label: VLM" in qwen and "Offline: Samples/s (higher is better)" in qwen
    assert cards["llama2-70b-99.9"].metadata["rounds"] == "v6.1,v6.0"


def test_round_card_counts_and_new_benchmarks(tmp_path):
    rounds = _by_value(build_cards(_table(tmp_path)), "round")
    v61 = rounds["v6.1"].text
    assert "Results: 4; submitters: 3" in v61
    assert "New since v6.0: deepseek-r1, qwen3-vl-235b-a22b" in v61
    assert "not run since v6.0: llama2-70b-99, whisper" in v61
    assert "preview 2" in v61
    assert "New since" not in rounds["v6.0"].text  # no earlier round in this table


def test_cards_carry_no_result_numbers(tmp_path):
    df = _table(tmp_path)
    text = "\n".join(c.text for c in build_cards(df))
    for value in ["987654", "1136100", "111.25", "42.5", "33333", "22222", "21111", "55.5"]:
        assert value not in text


def test_empty_table_gives_no_cards(tmp_path):
    df = _table(tmp_path)
    assert build_cards(df.iloc[0:0]) == []


def test_full_data_cards(results_table):
    cards = build_cards(results_table)
    assert 100 < len(cards) < 1000
    kinds = Counter(c.metadata["card_type"] for c in cards)
    assert kinds["system"] == results_table["system_name"].nunique()
    assert kinds["round"] == 4
    assert len({c.id for c in cards}) == len(cards)
    assert max(len(c.text) for c in cards) < 2000  # short enough to embed as one passage
    accel = _by_value(cards, "accelerator")
    ultra = {v for v, c in accel.items() if "Blackwell Ultra" in c.text}
    assert ultra == {"B300", "GB300"}
    assert {v for v, c in accel.items() if "Vera Rubin" in c.text} == {"VR200"}
    v61 = _by_value(cards, "round")["v6.1"].text
    assert "Results: 492; submitters: 33" in v61 and "preview 8" in v61  # README facts
