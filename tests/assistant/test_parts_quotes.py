"""A two-part question whose first part the documents answer: the passages quoted for the whole
question are others than those the part quoted (real store)."""

from __future__ import annotations

from assistant.conversation import Conversation
from assistant.offline import answer_question


def test_a_passage_a_part_quoted_is_not_quoted_again_for_the_whole_question(engine):
    question = ("according to google cloud's v4.1 supplemental discussion statement, how much faster was trillium "
                "than tpu v5e on stable diffusion xl? and how many results did google cloud submit in total")
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    statement = "Trillium delivering a 3.1x"  # Google Cloud's sentence in the v4.1 Supplemental Discussion
    # once as the figure and once in the part's context; not a third time for the whole question
    assert answer.status == "answered" and answer.answer.count(statement) == 2, answer.answer
