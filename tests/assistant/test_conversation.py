"""What a conversation remembers for the next turn: the last turn that ran a query, including one
answered from two tables (a query with one spec per part)."""

from __future__ import annotations

from assistant.answer import Answer
from assistant.conversation import Conversation

SPEC = {"op": "aggregate", "filters": {"round": ["v5.1"]}, "group_by": ["submitter"], "aggregate": "count"}
STATE = {"intent": "count_rank", "explicit": {"round": ["v5.1"]}, "shape": "count_rank"}


def _answer(query, status="answered") -> Answer:
    return Answer(question="q", answer="a", status=status, query=query)


def test_a_turn_answered_from_two_tables_is_remembered():
    c = Conversation()
    c.add("Which submitter had the most results in v5.1?", _answer({"parts": [SPEC, dict(SPEC)], "parsed": STATE}))
    assert c.last_state == STATE
    assert c.last_spec is not None and c.last_spec.group_by == ["submitter"]


def test_a_turn_that_ran_nothing_does_not_reset_the_context():
    c = Conversation()
    c.add("q1", _answer(dict(SPEC, parsed=STATE)))
    c.add("what does offline mean", _answer({"parsed": {"intent": "define"}}))
    c.add("q3", _answer({"parts": [], "parsed": {"intent": "x"}}))
    c.add("q4", _answer(dict(SPEC, parsed={"intent": "y"}), status="no_data"))
    assert c.last_state == STATE
