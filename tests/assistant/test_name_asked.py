"""A name asked of a thing no column holds ("whats their optimizer tool called") is asked of the
documents, wherever the question word stands; a name the table holds, or one the question gives,
is not."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question
from assistant.parse import parse
from assistant.shapes.words import unread_named


@pytest.mark.parametrize("question, noun", [
    ("thestage ai - whats their optimizer tool called", "tool"),
    ("what was the lab called where juniper tested", "lab"),
    ("whats the name of thestage ai's optimizer tool", "optimizer"),
    ("vad heter thestage ais optimeringsverktyg?", "ais"),
    ("whats the name of the system that won llama 2 in 6.1", None),
    ("a startup in 5.1 made an auto-optimizer for sdxl. what's the startup's name", "startup"),  # asked last
    ("whats the winning system's name", None),  # a possessive of a column's noun: the table's
    ("dell in v4.1 - what was their rugged edge box called?", None),  # a system's name: the table's
    ("In the results table one scenario is called 'Offline'. Does that mean it was unplugged?", None),
    ("There's a new one called qwen3-vl. What does the VL stand for?", None),
])
def test_the_noun_whose_name_is_asked(catalog, question, noun):
    assert unread_named(parse(question, catalog).reading) == noun


def test_a_name_asked_is_no_definition(catalog):
    parsed = parse("there was a small startup in 5.1 that made an auto-optimizer for stable diffusion xl. "
                   "what's the tool called", catalog)
    assert parsed.intent != "define" and parsed.needs_commentary


@pytest.mark.parametrize("question, wanted", [
    ("what was the lab called where juniper tested", ["Ops4AI"]),
    # two asks, the second the name: each ask's sentence keeps the naming one
    ("theres a small startup in the 5.1 vendor write-ups that made some automatic speed-vs-quality slider "
     "thing and used sdxl to show it off. whats their tool called", ["ANNA"]),
    # a person's name asked last, of a company the sentence before only describes
    ("the immersion-cooling gpu cloud by firmus had an exec quoted in the v4.1 supplemental discussion. "
     "whats the guys name", ["Kearney"]),
    ("firmus immersionskylda moln citerade en chef i v4.1-diskussionen. vad heter killen?", ["Kearney"]),
    # the table answers the images a second; the part asking the name gets the documents' sentence
    ("there was a small startup in 5.1 that made some auto-optimizer for stable diffusion xl. what's the tool "
     "called and how many images a second did it get on one 8x h100 node?", ["ANNA", "18.1"]),
])
def test_the_name_is_quoted_from_the_documents(engine, question, wanted):
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    assert answer.status == "answered" and all(w in answer.answer for w in wanted), answer.answer
