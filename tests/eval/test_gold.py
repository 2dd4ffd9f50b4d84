"""Every gold answer holds against the raw official files, read by eval/check_gold.py alone.

check_gold must stay independent of the product: a test below greps its imports. A few
facts are also pinned by hand from the data's README ("Five facts recomputed"), so a broken
raw reader cannot silently agree with a broken gold file.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from eval import check_gold, check_gold_training
from eval.questions import GOLD_PATH, HELDOUT_PATH


@pytest.fixture(scope="module")
def raw_rows(shared_data):
    return check_gold.load_raw(shared_data)


@pytest.mark.parametrize("path", [GOLD_PATH, HELDOUT_PATH], ids=["gold", "heldout"])
def test_every_gold_answer_is_verified_against_the_raw_files(shared_data, path):
    failures = check_gold.check_file(path, shared_data)
    assert failures == {}


def test_raw_reader_agrees_with_facts_stated_in_the_data_readme(raw_rows):
    v61 = [r for r in raw_rows if r["version"] == "v6.1"]
    assert len(v61) == 492
    assert len({r["Submitter"] for r in v61}) == 33
    assert sum(r["Availability"] == "preview" for r in v61) == 8
    best = check_gold.compute({"op": "max", "filters": {"version": "v6.1", "Model": "llama2-70b-99.9",
                                                        "Scenario": "Offline"}}, raw_rows)
    assert best["value"] == 1136100 and "CoreWeave" in best["texts"]
    gpt = check_gold.compute({"op": "max", "filters": {"version": "v6.1", "Model": "gpt-oss-120b",
                                                       "Scenario": "Offline"}}, raw_rows)
    assert gpt["value"] == 5749440 and "Crusoe" in gpt["texts"]
    assert sum(r["version"] == "v4.1" and r["Power_Result"] is not None for r in raw_rows) == 31
    assert sum(r["version"] == "v5.1" and r["Power_Result"] is not None for r in raw_rows) == 24


def test_a_wrong_gold_value_is_caught(raw_rows, shared_data):
    line = next(line for line in GOLD_PATH.read_text().splitlines() if '"best-v61-l2-off"' in line)
    question = json.loads(line)
    assert check_gold.verify(question, raw_rows, shared_data) == []
    question["expected"]["value"] = 1136000
    assert check_gold.verify(question, raw_rows, shared_data)
    question["expected"]["value"] = 1136100
    question["expected"]["must_include"] = ["Crusoe"]
    assert check_gold.verify(question, raw_rows, shared_data)


def test_refusal_recipe_fails_when_data_exists(raw_rows, shared_data):
    question = {"id": "x", "question": "?", "expected": {"kind": "refusal"},
                "check": {"op": "absent", "filters": {"version": "v6.1", "Submitter": "Crusoe"}}}
    assert check_gold.verify(question, raw_rows, shared_data)


def test_filters_cover_bounds_substrings_and_case():
    rows = [{"A": "NVIDIA GB300", "N": 18.0}, {"A": "AMD Instinct MI355X", "N": 1.0}]
    assert check_gold.select(rows, {"A~": "mi355"}) == [rows[1]]
    assert check_gold.select(rows, {"A!~": "mi355"}) == [rows[0]]
    assert check_gold.select(rows, {"N>=": 2}) == [rows[0]]
    assert check_gold.select(rows, {"A": ["nvidia gb300", "x"]}) == [rows[0]]


@pytest.mark.parametrize("checker", [check_gold, check_gold_training], ids=lambda m: m.__name__)
def test_checker_imports_nothing_from_the_product(checker):
    tree = ast.parse(Path(checker.__file__).read_text())
    modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    # eval.gold_compare is the comparison both checkers share; it imports only the standard library.
    assert not {m for m in modules if m.split(".")[0] in {"ingest", "assistant", "ui", "eval", "pandas"}} - {
        "eval.gold_compare"}
    shared = ast.parse(Path(check_gold.__file__).with_name("gold_compare.py").read_text())
    imported = {a.name for n in ast.walk(shared) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(shared) if isinstance(n, ast.ImportFrom) and n.module}
    assert {m.split(".")[0] for m in imported} <= set(sys.stdlib_module_names), imported
