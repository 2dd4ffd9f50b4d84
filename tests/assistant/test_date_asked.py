"""A date asked ("what date do they say 5.1 was released?") is one a document states: the sentence
that gives it is quoted, led by the date, as the author's claim. No result records a date."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question
from assistant.parse import parse


@pytest.mark.parametrize("question", [
    "what date was mlperf inference 5.1 released?",
    "vilket datum släpptes mlperf inference 5.1?",
    "what year did the mi355x launch",
])
def test_a_date_asked_needs_the_documents(catalog, question):
    assert parse(question, catalog).needs_commentary


def test_the_sentence_that_states_the_date_leads(engine):
    question = "in amd's own blog post about its 5.1 submission, what date do they say 5.1 was released?"
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    lead = answer.answer.split("”")[0]
    assert lead.startswith("According to") and "September 9th 2025" in lead, answer.answer
