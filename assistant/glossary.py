"""The English words a question's own-language words stand for, for matching documents.

Most documents are English and a Swedish question's words ("skalningseffektivitet", "regioner")
share no letters with the sentence that answers it ("94% performance scaling across two
regions"). An English question may say it in other words too ("who skipped v6.0": "Absentees:
Google …"). The glossary (`lexicon/glossary/<language>.toml`, English in `en.toml`) is data: a
language's word starts and compound ends, each with the English words a document writes. The
reader's tags are not involved; only the choice of passage and sentence uses it.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent / "lexicon" / "glossary"  # one file per language: sv.toml
KEY_MIN = 4  # a shorter key would match inside unrelated words


@lru_cache(maxsize=None)
def _table(language: str) -> dict[str, tuple[str, ...]]:
    path = GLOSSARY / f"{language}.toml"
    if not path.is_file():  # a language with no glossary
        return {}
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return {k.lower(): tuple(v) for k, v in data.items() if len(k) >= KEY_MIN}


def english(word: str, language: str) -> set[str]:
    """The English words `word` stands for: every key it starts with, or, as a compound, ends with
    ("tokengenomströmning": throughput). Empty for English or an unknown word."""
    word = word.lower()
    return {e for key, words in _table(language).items() if word.startswith(key) or word.endswith(key)
            for e in words}
