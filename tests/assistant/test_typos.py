"""A typo reads as its word everywhere, inside longer phrases and cues too; another form of a word
is no typo."""

from __future__ import annotations

import pytest

from assistant import lexicon
from assistant.parse import parse


@pytest.mark.parametrize("typed, read", [
    ("how is interactive diffrent from server", "how is interactive different from server"),
    ("expain the offline scenario", "explain the offline scenario"),
    ("whos got the fastets resutls", "whos got the fastest results"),
    ("which newly created benchmark", "which newly created benchmark"),  # "create" is a word, "created" its form
    ("how many submissions", "how many submissions"),
])
def test_a_slip_reads_as_the_word(typed, read):
    lex = lexicon.load("en")
    assert " ".join(t.text for t in lex.corrected(lexicon.tokenize(typed))) == read


@pytest.mark.parametrize("question", [
    "how is Interactive diffrent from Server? both seem to be about latency",
    "samples/s vs queries/s — whats the diference? same system shows both",
])
def test_a_definition_asked_with_a_typo_is_a_definition(catalog, question):
    assert parse(question, catalog).intent == "define"


def test_a_swedish_verb_is_no_company_and_a_genitive_no_unknown_name(catalog):
    """"kan man bara dela systemets resultat …": "dela" (divide) is no misspelt Dell, and "systemets"
    is the system's, not a name the data lacks."""
    parsed = parse("kan man bara dela systemets resultat med antalet gpu:er för att få en siffra per gpu?", catalog)
    assert parsed.status != "no_data" and not any(m.values[:1] == ["Dell"] for m in parsed.entities)
