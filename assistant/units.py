"""The unit vocabulary (`assistant/lexicon/units.toml`): display names, bounds, and unit words.

Units are data, like the reader's words: a results table brings its own units in its rows and
its card, and the words that name them in text live in one file, so no module spells a unit
(and a table with other units needs a data change, not a code change).
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

FILE = Path(__file__).resolve().parent / "lexicon" / "units.toml"


@lru_cache(maxsize=1)
def vocabulary() -> dict:
    with FILE.open("rb") as fh:
        return tomllib.load(fh)


def short(unit: str) -> str:
    """The unit as shown after a number."""
    return vocabulary()["short"].get(unit, unit)


def bound_unit(tag: str) -> str | None:
    """The table unit a bound tagged `tag` applies to (None: a column's own bound, or any unit)."""
    return vocabulary()["bounds"].get(tag) or None


def is_result_bound(tag: str) -> bool:
    """Whether a unit tag bounds the result column ("under 2 ms") rather than a column of its name."""
    return tag in vocabulary()["bounds"]


def power_unit() -> str:
    return vocabulary()["power"]["unit"]


def kind_of_word(word: str) -> str | None:
    return vocabulary()["kinds"].get(word)


def key(word: str) -> str:
    return vocabulary()["keys"].get(word, word)


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=1)
def unit_pattern() -> re.Pattern[str]:
    """A unit written after a number: a rate (with "per accelerator" / "per watt"), or a word of [kinds]."""
    words = vocabulary()["words"]
    per = _alternation([*words["per_accelerator"], *words["per_power"]])
    rate = rf"(?:{_alternation(words['rate'])})\s*(?:/\s*s|per second)(?:\s+per\s+(?:{per})\b)?"
    plain = [w for w in vocabulary()["kinds"] if w not in ("x", "×", "%")]
    word_units = "|".join(rf"{re.escape(w)}\b" for w in sorted(plain, key=len, reverse=True))
    return re.compile(rf"\s*(?P<unit>{rate}|{word_units}|%|[x×](?=\s|$|[A-Z]))", re.IGNORECASE)


@lru_cache(maxsize=1)
def rate_pattern() -> str:
    """A rate written in text ("tokens/s", "samples per second"), as a regex source."""
    return rf"\b(?:{_alternation(vocabulary()['words']['rate'])})\s*(?:/\s*s|per second)\b"


def per_words() -> tuple[list[str], list[str]]:
    words = vocabulary()["words"]
    return list(words["per_accelerator"]), list(words["per_power"])
