"""The question format: the loader accepts a user's own file and names broken lines."""

from __future__ import annotations

import json

import pytest

from eval.questions import GOLD_PATH, QuestionFileError, load_questions, parse_questions, spread_sample


def test_minimal_user_question_parses_with_defaults():
    q = parse_questions(['{"id": "u1", "question": "How many?", "expected": {"kind": "count", "value": 3}}'])[0]
    assert (q.needs, q.lang, q.history, q.expected.rel_tol) == ("table", "en", [], 0.01)


@pytest.mark.parametrize("line, message", [
    ('{"id": "a", "question": "x"', "not valid JSON"),
    ('{"id": "a", "question": "x", "expected": {"kind": "number"}}', "needs 'value'"),
    ('{"id": "a", "question": "x", "expected": {"kind": "guess"}}', "expected.kind"),
    ('{"id": "a", "question": "x", "expected": {"kind": "entity"}}', "must_include"),
    ('{"id": "a", "question": "x", "expected": {"kind": "refusal"}, "colour": 1}', "colour"),
])
def test_broken_lines_are_reported_with_line_number(line, message):
    with pytest.raises(QuestionFileError) as info:
        parse_questions(["", line], source="mine.jsonl")
    assert "mine.jsonl:2" in str(info.value) and message in str(info.value)


def test_duplicate_ids_are_refused():
    line = '{"id": "a", "question": "x", "expected": {"kind": "refusal"}}'
    with pytest.raises(QuestionFileError, match="duplicate id 'a'"):
        parse_questions([line, line])


def test_gold_set_covers_what_the_issue_asks_for():
    questions = load_questions(GOLD_PATH)
    assert len(questions) >= 150
    tags = {t for q in questions for t in q.tags}
    for tag in ("lookup", "best", "worst", "per-accelerator", "count", "set-difference", "round-over-round",
                "comparison", "latency", "power", "availability", "claim-check", "follow-up", "refusal"):
        assert tag in tags, tag
    assert sum(q.lang == "sv" for q in questions) >= 15
    assert any(q.history for q in questions)
    assert {q.needs for q in questions} >= {"table", "commentary", "both", "none"}
    text = GOLD_PATH.read_text(encoding="utf-8")
    for round_name in ("v4.1", "v5.1", "v6.0", "v6.1"):
        assert round_name in text
    assert all(json.loads(line).get("check") for line in text.splitlines() if line.strip())


def test_spread_sample_covers_the_whole_file():
    qs = parse_questions([json.dumps({"id": f"q{i}", "question": "x", "expected": {"kind": "refusal"}})
                          for i in range(10)])
    assert [q.id for q in spread_sample(qs, 5)] == ["q0", "q2", "q4", "q6", "q8"]
    assert len(spread_sample(qs, 50)) == 10 and spread_sample(qs, 0) == qs
