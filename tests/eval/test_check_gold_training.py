"""Every MLPerf Training gold answer holds against the published table, read by eval/check_gold_training.py alone.

The question set was written before resultsqa supported Training and is frozen; its checker must
stay independent of the product (a test below reads its imports). A few facts are pinned by hand
from the data's README, so a broken CSV reader cannot silently agree with a broken gold file.
"""

from __future__ import annotations

import json

import pytest

from eval import check_gold_training as gold
from eval.questions import load_questions

TRAINING_PATH = gold.DEFAULT_QUESTIONS


@pytest.fixture(scope="module")
def rows(shared_data):
    return gold.load_rows(shared_data)


def test_every_training_gold_answer_is_verified(shared_data):
    assert gold.check_file(TRAINING_PATH, shared_data) == {}
    assert gold.main([str(TRAINING_PATH), "--data", str(shared_data)]) == 0


def test_question_file_is_a_valid_eval_file_with_the_promised_mix():
    questions = load_questions(TRAINING_PATH)
    assert len(questions) >= 64
    assert all(q.id.startswith("t-") for q in questions)
    swedish = sum(q.lang == "sv" for q in questions)
    assert 0.15 <= swedish / len(questions) <= 0.3
    tags = {t for q in questions for t in q.tags}
    for tag in ("best", "worst", "top-n", "count", "list", "set-difference", "round-over-round", "submitter-best",
                "scale", "comparison", "count-ranking", "refusal", "no-suite", "follow-up"):
        assert tag in tags, tag
    assert all(json.loads(line).get("check") for line in TRAINING_PATH.read_text().splitlines() if line.strip())


def test_reader_agrees_with_facts_stated_in_the_data_readme(rows):
    assert len(rows) == 716
    per_round = {r: sum(row["round"] == r for row in rows) for r in ("v4.0", "v4.1", "v5.0", "v5.1")}
    assert per_round == {"v4.0": 178, "v4.1": 153, "v5.0": 201, "v5.1": 184}
    assert [len({row["submitter"] for row in rows if row["round"] == r}) for r in per_round] == [17, 17, 19, 20]
    for bench, minutes in (("llama31_8b", 5.2187), ("llama31_405b", 9.9946), ("llama2_70b_lora", 0.4034),
                           ("flux1", 12.5135)):
        best = gold.compute({"op": "min", "filters": {"round": "v5.1", "benchmark": bench}}, rows)
        assert round(best["value"], 4) == minutes and "NVIDIA" in best["texts"]
    gpt3 = gold.compute({"op": "min", "filters": {"round": "v4.0", "benchmark": "gpt3"}, "report": "total_accelerators"}, rows)
    assert gpt3["value"] == 11616


def test_a_wrong_gold_value_or_name_is_caught(rows):
    line = next(line for line in TRAINING_PATH.read_text().splitlines() if '"t-best-v51-405b"' in line)
    question = json.loads(line)
    assert gold.verify(question, rows) == []
    question["expected"]["value"] *= 1.001
    assert gold.verify(question, rows)
    question = json.loads(line)
    question["expected"]["must_include"] = ["AMD"]
    assert gold.verify(question, rows)
    question = json.loads(line)
    question["check"]["op"] = "max"  # time to train is lower-is-better: "fastest" must stay min
    assert gold.verify(question, rows)


def test_refusal_recipe_fails_when_data_exists(rows):
    question = {"id": "x", "question": "?", "expected": {"kind": "refusal"},
                "check": {"op": "absent", "filters": {"round": "v5.1", "benchmark": "flux1"}}}
    assert gold.verify(question, rows)
    question["check"] = {"op": "absent", "filters": {"round": "v6.0"}, "no_column": ["time_to_train"]}
    assert gold.verify(question, rows)


def test_a_misspelled_column_and_a_tied_ranking_are_errors(rows):
    with pytest.raises(KeyError):
        gold.select(rows, {"benchmarks": "bert"})
    with pytest.raises(AssertionError, match="tie"):  # Dell and Supermicro both have 8 such rows
        gold.compute({"op": "most", "filters": {"round": "v5.1", "benchmark": "llama2_70b_lora"},
                      "field": "submitter"}, rows)


def test_filters_cover_bounds_substrings_and_case():
    rows = [{"accelerator": "NVIDIA Blackwell GPU (GB200)", "total_accelerators": 72.0},
            {"accelerator": "AMD Instinct MI355X", "total_accelerators": 8.0}]
    assert gold.select(rows, {"accelerator~": "mi355"}) == [rows[1]]
    assert gold.select(rows, {"accelerator!~": "mi355"}) == [rows[0]]
    assert gold.select(rows, {"total_accelerators>=": 9}) == [rows[0]]
    assert gold.select(rows, {"total_accelerators": 8}) == [rows[1]]
    assert gold.select(rows, {"accelerator": ["nvidia blackwell gpu (gb200)", "x"]}) == [rows[0]]
