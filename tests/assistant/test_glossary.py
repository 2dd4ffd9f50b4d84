"""The glossary lets a Swedish question's words find the English words of a document."""

from __future__ import annotations

import tomllib

from assistant.glossary import GLOSSARY, KEY_MIN, english


def test_inflections_and_compounds_find_their_english_words():
    assert {"scaling", "efficiency"} <= english("skalningseffektivitet", "sv")  # a compound's start and end
    assert "regions" in english("regioner", "sv")  # an inflection
    assert "throughput" in english("tokengenomströmning", "sv")
    assert english("observera", "sv") == set()  # "server" inside another word is no server
    assert english("regions", "en") == set()  # an English word a document writes as it is
    assert "absentees" in english("skipped", "en")  # ... or one a question says in other words
    assert "co-chair" in english("medordförandena", "sv") and "overhaul" in english("omarbetningen", "sv")


def test_every_glossary_key_is_long_enough_to_be_used():
    """A key shorter than KEY_MIN is skipped at load (it would match inside unrelated words), so the
    file must not hold one that silently does nothing."""
    for path in GLOSSARY.glob("*.toml"):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        short = [k for k in table if len(k) < KEY_MIN]
        assert not short, f"{path.name}: keys shorter than {KEY_MIN} letters: {short}"
        assert all(isinstance(v, list) and v and all(w == w.lower() for w in v) for v in table.values()), path.name
