"""Runner, resume, report and CLI with an injected fake answer function (no store needed)."""

from __future__ import annotations

import json
import threading

from eval.questions import parse_questions
from eval.report import summary_table, summarize, to_html, to_markdown, write_report
from eval.runner import read_answers, run

QUESTIONS = parse_questions([
    json.dumps({"id": "n1", "question": "Best X?", "expected": {"kind": "number", "value": 1136100},
                "tags": ["best"], "lang": "en"}),
    json.dumps({"id": "c1", "question": "Hur många?", "expected": {"kind": "count", "value": 33},
                "tags": ["count"], "lang": "sv"}),
    json.dumps({"id": "r1", "question": "v3.5?", "expected": {"kind": "refusal"}, "needs": "none",
                "tags": ["refusal"]}),
    json.dumps({"id": "f1", "question": "And Server?", "history": ["Best X?"],
                "expected": {"kind": "entity", "must_include": ["CoreWeave"]}, "tags": ["follow-up"]}),
])

CANNED = {
    "Best X?": {"answer": "1,136,100 Tokens/s", "status": "answered", "latency_ms": 10, "prompt_tokens": 5},
    "Hur många?": {"answer": "33 inskickare", "status": "answered", "latency_ms": 20},
    "v3.5?": {"answer": "anything", "status": "no_data", "latency_ms": 5},
    "And Server?": {"answer": "Nebius", "status": "answered", "latency_ms": 30},
}


class Fake:
    def __init__(self, fail_on: str | None = None):
        self.calls: list[str] = []
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def __call__(self, question):
        with self.lock:
            self.calls.append(question.id)
        if question.id == self.fail_on:
            raise RuntimeError("backend down")
        return dict(CANNED[question.question], question=question.question)


def test_run_scores_each_line_and_resumes(tmp_path):
    out = tmp_path / "answers.jsonl"
    fake = Fake()
    records = run(QUESTIONS, fake, out, progress=False)
    assert [r["id"] for r in records] == ["n1", "c1", "r1", "f1"]
    assert [r["score"]["pass"] for r in records] == [True, True, True, False]
    assert records[3]["history"] == ["Best X?"] and records[1]["eval"]["lang"] == "sv"
    assert len(read_answers(out)) == 4

    again = Fake()
    assert len(run(QUESTIONS, again, out, progress=False)) == 4
    assert again.calls == []  # everything cached
    fresh = Fake()
    run(QUESTIONS, fresh, out, fresh=True, progress=False)
    assert sorted(fresh.calls) == ["c1", "f1", "n1", "r1"]
    assert len(read_answers(out)) == 4


def test_interrupted_file_and_errors_are_survived(tmp_path):
    out = tmp_path / "answers.jsonl"
    run(QUESTIONS[:2], Fake(), out, progress=False)
    with out.open("a") as fh:
        fh.write('{"id": "r1", "answer": "torn')  # a write cut short by Ctrl-C
    fake = Fake(fail_on="f1")
    records = run(QUESTIONS, fake, out, jobs=2, progress=False)
    assert sorted(fake.calls) == ["f1", "r1"]
    f1 = next(r for r in records if r["id"] == "f1")
    assert f1["status"] == "error" and "backend down" in f1["answer"] and not f1["score"]["pass"]


def test_limit_answers_only_the_first_questions(tmp_path):
    fake = Fake()
    assert len(run(QUESTIONS, fake, tmp_path / "a.jsonl", limit=2, progress=False)) == 2
    assert fake.calls == ["n1", "c1"]


def test_summary_and_reports_side_by_side(tmp_path):
    records = run(QUESTIONS, Fake(), tmp_path / "a.jsonl", progress=False)
    summary = summarize(records)
    assert (summary["total"], summary["passed"]) == (4, 3)
    assert summary["facets"]["lang"]["sv"] == {"n": 1, "passed": 1, "accuracy": 1.0}
    assert summary["facets"]["tag"]["follow-up"]["passed"] == 0
    assert summary["latency_ms"]["max"] == 30
    baseline = [dict(r, score={"pass": False, "why": "x"}) for r in records]
    md = to_markdown(records, baseline)
    assert "| **overall** | 3/4 (75.0%) | 0/4 (0.0%) |" in md
    assert "| f1 | And Server? |" in md and "Nebius" in md
    page = to_html(records, baseline)
    assert page.count("<svg") == 6 and "<script" not in page and "http" not in page.split("<body>")[1][:200]
    paths = write_report(records, tmp_path / "rep")
    assert all(p.stat().st_size > 0 for p in paths)


def test_the_summary_counts_which_reading_each_model_answer_used(tmp_path):
    records = run(QUESTIONS, Fake(), tmp_path / "a.jsonl", progress=False)
    assert summarize(records)["readings"] == {}  # the offline answerer has one reading
    notes = ["Reading used: the model's (its checks pass; the parser's returned no rows).",
             "Reading used: the parser's (tie).", "Reading used: the parser's (the model proposed no other).", None]
    for record, note in zip(records, notes):
        record["notes"] = [note] if note else []
    summary = summarize(records)
    passed = {r["id"]: r["score"]["pass"] for r in records}
    assert summary["readings"]["model"] == {"n": 1, "passed": int(passed[records[0]["id"]])}
    assert summary["readings"]["parser"]["n"] == 2
    assert "reading used: model's 1" in summary_table(summary)


def test_recall_finds_a_gold_document_named_as_check_gold_names_it():
    """Question files name a PDF relative to the commentary folder ("official/…"), as
    eval/check_gold reads it; a passage id carries only the file name. Both are the same document."""
    from eval.runner import retrieved_gold

    answer = {"passages": [{"id": "doc:v6.0_amd_vendor-blog.md:0"},
                           {"id": "doc:v6.0_mlcommons_supplemental-discussion.pdf:14"}]}
    assert retrieved_gold(answer, "official/v6.0_mlcommons_supplemental-discussion.pdf")
    assert retrieved_gold(answer, "v6.0_mlcommons_supplemental-discussion.pdf")
    assert not retrieved_gold(answer, "official/v5.1_mlcommons_supplemental-discussion.pdf")
    assert not retrieved_gold(answer, "official/v6.0_mlcommons_supplemental-discussion.pdf", k=1)
