"""The baseline plumbing with a stand-in worker script (no model, no baseline venv needed):
answers come back in the Answer shape, and a question that hangs is timed out and the
worker restarted for the next one."""

from __future__ import annotations

import sys
import textwrap

import pytest

from eval import baseline
from eval.questions import parse_questions


@pytest.fixture
def fake_worker(tmp_path, monkeypatch):
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent('''
        import json, sys, time
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            req = json.loads(line)
            if "hang" in req["question"]:
                time.sleep(60)
            print(json.dumps({"question": req["question"], "answer": "42 " + " | ".join(req["history"]),
                              "status": "answered", "backend": "baseline"}), flush=True)
    '''))
    monkeypatch.setattr(baseline, "WORKER", script)
    worker = baseline.BaselineWorker("http://127.0.0.1:9/v1", python=sys.executable, csv_path="x.csv")
    yield worker
    worker.stop()


def test_worker_answers_and_survives_a_timeout(fake_worker):
    qs = parse_questions([
        '{"id": "a", "question": "q1", "history": ["earlier"], "expected": {"kind": "number", "value": 42}}',
        '{"id": "b", "question": "please hang", "expected": {"kind": "number", "value": 42}}',
        '{"id": "c", "question": "q3", "expected": {"kind": "number", "value": 42}}',
    ])
    answer = baseline.baseline_answer_fn(fake_worker, timeout_s=5)
    first = answer(qs[0])
    assert first["answer"] == "42 earlier" and first["backend"] == "baseline"
    pid = fake_worker.process.pid
    hung = baseline.baseline_answer_fn(fake_worker, timeout_s=1)(qs[1])
    assert hung["status"] == "error" and "timed out" in hung["answer"]
    assert answer(qs[2])["answer"] == "42 " and fake_worker.process.pid != pid


def test_missing_baseline_venv_is_reported(tmp_path):
    with pytest.raises(baseline.BaselineError, match="make baseline"):
        baseline.BaselineWorker("http://x", python=tmp_path / "nope")
