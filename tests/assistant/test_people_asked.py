"""The people of an organisation and their positions are named in documents, never in results:
"the two people from stevens institute … who are they and what are their positions?"."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline import answer_question


@pytest.mark.parametrize("question, wanted", [
    ("the two people from stevens institute who submitted together with lambda in 6.0 - who are they and what "
     "are their positions?", ["Yide Ran", "Zhaozhuo Xu", "assistant professor"]),
    ("de två forskarna från stevens institute som lämnade in med lambda i 6.0, vad heter de och vilka roller har "
     "de?", ["Yide Ran", "Zhaozhuo Xu"]),
    # "the people behind" a submission: its statement's people, not the table's rows for its partner
    ("stevens institute of technology was new in v6.0 together with lambda. who were the people behind that "
     "submission?", ["Yide Ran", "Zhaozhuo Xu"]),
    ("stevens institute of technology var nya i v6.0 tillsammans med lambda. vilka var personerna bakom det "
     "bidraget?", ["Yide Ran", "Zhaozhuo Xu"]),
    # a role said in Swedish finds the English sentence that names it ("medordförande": co-chair)
    ("en nyhetssajt om v6.0 skrev att en av medordförandena kallade det den största omarbetningen av sviten. "
     "vem var det?", ["Frank Han"]),
])
def test_the_people_of_an_organisation_are_quoted_from_its_statement(engine, question, wanted):
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    assert answer.status == "answered" and all(w in answer.answer for w in wanted), answer.answer
