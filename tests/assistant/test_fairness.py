"""A question on whether a comparison or a figure is fair ("is that legit?", "kan man jämföra det
rakt av?") is answered by the guide's entry on what it doubts, led by a plain "not directly", in the
question's language, whatever sizes or names it states."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question


@pytest.mark.parametrize("question, lead, entry", [
    ("my boss took the total tokens/s of a 72 gpu rack, divided by 72 and wants to put it on a slide as the "
     "'official mlperf per-gpu score'. is that legit?", "Not as an official figure", "not an official MLPerf metric"),
    ("is it fair to compare a 72 gpu rack with an 8 gpu server?", "Not directly: a system with more accelerators",
     "multi-node cluster"),
    ("crusoe hade typ 512 mi355x i 6.1. kan man jämföra det rakt av med nån som körde 8 gpuer?",
     "Inte rakt av: ett system med fler acceleratorer", "kluster"),
    # a ranking it draws from a big system's total is what it doubts
    ("nvidia had the highest llama 2 70b result with 72 gpus in 6.1, does that mean that nvidia's chip is the best?",
     "Not directly: a system with more accelerators", "rack-scale"),
    # the sizes it states are no filter on the table
    ("hur kan ett rack med 72 gpuer slå en server med 8, är inte det orättvist att jämföra dom??",
     "Inte rakt av: ett system med fler acceleratorer", "kluster"),
])
def test_a_question_on_fairness_gets_the_entry_on_what_it_doubts(engine, question, lead, entry):
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    assert answer.status == "answered" and answer.answer.startswith(lead) and entry in answer.answer, answer.answer


def test_a_request_to_compare_is_no_question_on_fairness(engine):
    """"can i compare h100 and h200 on llama 2 offline in v5.1" asks for the comparison itself."""
    question = "can i compare h100 and h200 on llama 2 offline in v5.1"
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    assert answer.rows and not answer.answer.startswith("Not"), answer.answer
