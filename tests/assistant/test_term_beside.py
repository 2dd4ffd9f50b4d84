"""A term asked about beside a document's subject: the guide's definition comes first (real store)."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question


@pytest.mark.parametrize("question, language", [
    ("vera rubin showed up as a 'preview' in v6.1, what does that mean? can i compare it with systems i can buy",
     "en"),
    ("vera rubin var en förhandsvisning i v6.1, vad betyder det? kan jag jämföra med system man kan köpa", "sv"),
])
def test_what_a_term_means_beside_a_documents_subject_starts_with_the_guide(engine, question, language):
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    first = answer.citations[0]
    assert answer.status == "answered" and first.id.startswith("doc:divisions-and-availability"), answer.citations
    assert answer.answer.lstrip("“”\"").lower().startswith("preview"), answer.answer


def test_a_question_with_no_definition_asked_gets_no_guide_entry(engine):
    answer = answer_question("what did the studio global article say about vera rubin preview in v6.1?",
                             engine=engine, conversation=Conversation(), settings=engine.settings)
    assert not any(c.id.startswith("doc:divisions-and-availability") for c in answer.citations[:1]), answer.citations
