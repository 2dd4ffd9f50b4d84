"""A round's totals as MLCommons' releases and the press state them, beside the table's (real
store): they count organisations their own way, so a user comparing with the news sees both."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question


def _ask(engine, question):
    return answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)


@pytest.mark.parametrize("question, table, stated", [
    ("How many organisations submitted to MLPerf Inference v6.0?", "25 distinct submitters", "24"),
    ("how many submitters took part in mlperf inference v5.1?", "32 distinct submitters", "27"),
    ("hur många organisationer var med i mlperf inference v6.1 och hur många resultat blev det?",
     "33 olika inskickare", "30"),
])
def test_a_rounds_published_count_is_quoted_beside_the_tables(engine, question, table, stated):
    answer = _ask(engine, question)
    assert answer.answer.startswith(("There are " + table, "Det finns " + table)), answer.answer
    lead = "According to " if answer.answer.startswith("There") else "Enligt "
    assert lead in answer.answer and f", {stated}: " in answer.answer, answer.answer
    assert any(c.kind == "doc" for c in answer.citations) and any(c.kind == "row" for c in answer.citations)


def test_one_companys_count_is_no_rounds_total(engine):
    """"Google Cloud submitted nine results" counts one company's results, not the round's."""
    answer = _ask(engine, "how many results were there in v4.1?")
    assert "937 results" in answer.answer and "nine" not in answer.answer, answer.answer


def test_a_count_with_more_than_a_round_quotes_nothing(engine):
    answer = _ask(engine, "how many results did nvidia submit in v6.0?")
    assert not any(c.kind == "doc" for c in answer.citations), answer.answer
