"""The reader's lexicon: word lists as data, one tagger for every language.

A question is read in two passes. The catalog finds entity names (benchmarks, chips,
submitters, systems, rounds) from the table itself; this module tags every other word with
what it says about the question: a measure, an operation, a direction, a grouping noun, a
scope, a cue, an attribute of a result, a numeric comparator or a unit. The words live in
`en.toml`, and each other language is a set of changes over English (`sv.toml`), the way a
sqlglot dialect is a table of changes over one grammar. Nothing here knows what a tag means;
`assistant.reader` and `assistant.shapes` decide that.

Why tags and not one regular expression per intent: the order of the `if`s decided which
pattern won, so every new wording risked breaking an old one. Tags are facts about the
question ("it says 'most'", "it names a company noun"), and shape functions combine them.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ingest.dataset_card import ROUTING_KINDS

HERE = Path(__file__).resolve().parent
BASE_LANGUAGE = "en"
# A word this long one slip away from a word of the lexicon reads as that word.
TYPO_MIN_LEN = 6
_FOLD = str.maketrans("åäöéü", "aaoeu")


def fold(text: str) -> str:
    """Swedish typed without å, ä, ö ("samsta", "hur manga foretag"): the same words folded."""
    return text.translate(_FOLD)


_ABBREVIATION = re.compile(r"\b(?:[A-Za-z]{1,2}\.)+[A-Za-z]{1,2}\b\.?")  # "Ph.D.", "U.S.", "e.g."


def undotted(text: str) -> str:
    """Abbreviations written without their dots ("Ph.D." is "PhD"), as a question types them: for
    matching a question's words against a document's, never for display."""
    return _ABBREVIATION.sub(lambda m: m.group().replace(".", ""), text)


KINDS = ("measure", "operation", "direction", "grouping", "scope", "cue", "attribute", "comparator", "unit")
GAP = 8  # words a "…" may skip (a name such as "the agentic edge benchmark in 6.1" is several)
TAG_CACHE = 64  # questions whose tags a lexicon remembers
SLIP_CACHE = 4096  # typed words whose correction the lexicons remember

_TOKEN = re.compile(
    r"\d{1,3}(?:[,\u00a0\u202f]\d{3})+(?:\.\d+)?"  # 1,136,100 (one number)
    r"|\d{1,3}(?: \d{3})+(?![\d,.])"  # Swedish 1 136 100
    r"|[<>]=?|=|#\d+|%"  # "=": "rgat = ?", "sdxl = image generation?"; "%": "what % of the best"
    r"|[\w]+(?:[.:'’/][\w]+)*")
_NUMBER = re.compile(r"^\d[\d,\u00a0\u202f ]*(?:\.\d+)?$")
_ROUND = re.compile(r"^v?\d{1,2}\.\d{1,2}$")
_SCALED = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)$")


@dataclass(frozen=True)
class Token:
    text: str  # lower case, ’ as '
    start: int  # character offsets in the question
    end: int


@dataclass(frozen=True)
class Tag:
    """One lexicon phrase found in a question: `kind.value` over tokens [first, last)."""

    kind: str
    value: str
    first: int
    last: int
    start: int  # character offsets
    end: int
    phrase: str


def tokenize(text: str) -> list[Token]:
    """Words, numbers and round labels of `text`, lower-cased, with their character offsets."""
    return [Token(m.group(0).lower().replace("’", "'"), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def number_value(token: str, words: dict[str, float], scales: dict[str, float] | None = None) -> float | None:
    """The number a token states ("1,000", "64", "2.5", "ten", and with `scales` "1.5m", "2k"),
    or None."""
    if token in words:
        return float(words[token])
    if _NUMBER.match(token):
        try:
            return float(re.sub(r"[,\u00a0\u202f ]", "", token))
        except ValueError:
            return None
    m = _SCALED.match(token) if scales else None
    if m and m.group(2) in scales:
        return float(m.group(1)) * float(scales[m.group(2)])
    return None


@dataclass(frozen=True)
class _Phrase:
    kind: str
    value: str
    parts: tuple[str, ...]  # word patterns, "…" for a gap
    at_start: bool
    at_end: bool
    text: str


def _compile(kind: str, value: str, text: str) -> _Phrase:
    pieces = text.replace("...", "…").split()
    at_start = bool(pieces) and pieces[0] == "^"
    at_end = bool(pieces) and pieces[-1] == "$"
    parts: list[str] = []
    for piece in pieces[1 if at_start else 0: len(pieces) - (1 if at_end else 0)]:
        if piece == "…" or piece.startswith("<") and piece.endswith(">") and len(piece) > 2 or "*" in piece:
            parts.append(piece)
        else:
            parts.extend(t.text for t in tokenize(piece))
    if not parts:
        raise ValueError(f"lexicon phrase {text!r} ({kind}.{value}) has no words")
    return _Phrase(kind, value, tuple(parts), at_start, at_end, text)


class Lexicon:
    """The tag table of one language, indexed by first word for speed."""

    def __init__(self, language: str, table: dict[str, dict[str, list[str]]], numbers: dict[str, float],
                 markers: list[str], strong: list[str], unit_names: dict[str, str] | None = None,
                 scales: dict[str, float] | None = None):
        self.language = language
        self.unit_names = dict(unit_names or {})
        self.scales = dict(scales or {})
        self.table = table
        self.numbers = numbers
        self.markers = set(markers)
        self.strong = set(strong)
        self._by_word: dict[str, list[_Phrase]] = {}
        self._open: list[_Phrase] = []  # phrases whose first part is a pattern
        words: set[str] = set()  # every plain word of every phrase: what a typo may be corrected to
        for kind, values in table.items():
            for value, phrases in values.items():
                # folded spellings, and contractions typed without the apostrophe ("didnt", "isnt")
                variants = [fold(p) for p in phrases] + [p.replace("'", "") for p in phrases if "n't" in p]
                for text in dict.fromkeys(phrases + variants):
                    p = _compile(kind, value, text)
                    first = p.parts[0]
                    if first == "…" or first.startswith("<") or "*" in first:
                        self._open.append(p)
                    else:
                        self._by_word.setdefault(first, []).append(p)
                    words.update(w for w in p.parts if w.isalpha())
        self._words = words
        self._typo_words = sorted(w for w in words if len(w) >= TYPO_MIN_LEN)
        self._tagged: dict[tuple, list[Tag]] = {}

    def word_matches(self, part: str, token: str) -> bool:
        if part == "<num>":
            return number_value(token, self.numbers) is not None
        if part == "<round>":
            return bool(_ROUND.match(token))
        if "*" in part:
            return fnmatch.fnmatchcase(token, part)
        return part == token

    def _match(self, parts: tuple[str, ...], tokens: list[Token], i: int) -> int | None:
        """End index (exclusive) of `parts` matched from token i, shortest gaps first."""
        if not parts:
            return i
        head, rest = parts[0], parts[1:]
        if head == "…":
            for skip in range(0, GAP + 1):
                end = self._match(rest, tokens, i + skip)
                if end is not None:
                    return end
            return None
        if i >= len(tokens) or not self.word_matches(head, tokens[i].text):
            return None
        return self._match(rest, tokens, i + 1)

    def tag(self, tokens: list[Token]) -> list[Tag]:
        """Every phrase of the table found in `tokens` (tags may overlap; readers decide).

        Remembered for the last few questions: the router and the reader tag the same question
        with the same lexicon, and tagging is most of the reading's cost."""
        key = tuple((t.text, t.start, t.end) for t in tokens)
        hit = self._tagged.get(key)
        if hit is None:
            hit = self._tagged[key] = self._tag(tokens)
            if len(self._tagged) > TAG_CACHE:
                try:  # oldest first; another thread may have evicted it already
                    del self._tagged[next(iter(self._tagged))]
                except (KeyError, RuntimeError, StopIteration):
                    pass
        return list(hit)

    def _tag(self, tokens: list[Token]) -> list[Tag]:
        return sorted(self._phrases(self.corrected(tokens)), key=lambda t: (t.first, -t.last))

    def _phrases(self, tokens: list[Token]) -> list[Tag]:
        found: list[Tag] = []
        seen: set[tuple[str, str, int, int]] = set()
        for i, tok in enumerate(tokens):
            for p in self._by_word.get(tok.text, []) + self._open:
                if p.at_start and i != 0:
                    continue
                end = self._match(p.parts, tokens, i)
                if end is None or end == i or (p.at_end and end != len(tokens)):
                    continue
                key = (p.kind, p.value, i, end)
                if key in seen:
                    continue
                seen.add(key)
                found.append(Tag(p.kind, p.value, i, end, tokens[i].start, tokens[end - 1].end, p.text))
        return found

    def corrected(self, tokens: list[Token]) -> list[Token]:
        """The tokens with each word one slip away from a word of the lexicon read as that word
        ("resutls", "fastets", "diffrent", "expain"), so it counts inside longer phrases too ("how is
        … diffrent from", which a "diff*" pattern alone would not read). Only words the lexicon does
        not hold, of TYPO_MIN_LEN letters or more, with the same first letter, and never into a shorter
        form of itself (an ending added is a form, not a slip)."""
        return [tok if (word := self._slip(tok.text)) == tok.text else Token(word, tok.start, tok.end)
                for tok in tokens]

    @lru_cache(maxsize=SLIP_CACHE)
    def _slip(self, word: str) -> str:
        """The lexicon word a typed word is a slip for, else the word itself. Remembered: the reader
        corrects a question's tokens and then tags them, and tagging corrects again for its other
        callers, so without it every unknown word of every question was searched for twice."""
        if word in self._words or len(word) < TYPO_MIN_LEN or not word.isalpha():
            return word
        from rapidfuzz import process
        from rapidfuzz.distance import DamerauLevenshtein

        hit = process.extractOne(word, self._typo_words, scorer=DamerauLevenshtein.distance, score_cutoff=1)
        # ... but not a longer form of it: "created" is no slip for "create" ("försvan" is one)
        return hit[0] if hit is not None and hit[0][0] == word[0] and not word.startswith(hit[0]) else word

    def phrases(self, kind: str, value: str) -> list[str]:
        return list(self.table.get(kind, {}).get(value, []))


def _read(name: str) -> dict:
    with (HERE / f"{name}.toml").open("rb") as fh:
        return tomllib.load(fh)


@lru_cache(maxsize=8)
def load(language: str = BASE_LANGUAGE) -> Lexicon:
    """English as written; another language as English plus its `[add.*]` minus its `[remove.*]`."""
    base = _read(BASE_LANGUAGE)
    table = {kind: {v: list(p) for v, p in base.get(kind, {}).items()} for kind in KINDS}
    numbers = dict(base.get("numbers", {}))
    scales = dict(base.get("scales", {}))
    markers = list(base.get("language", {}).get("markers", []))
    strong: list[str] = []
    if language != BASE_LANGUAGE:
        dialect = _read(language)
        for kind, values in dialect.get("add", {}).items():
            if kind in ("numbers", "scales"):
                (numbers if kind == "numbers" else scales).update(values)
                continue
            if kind not in KINDS:
                raise ValueError(f"{language}.toml: unknown tag kind [add.{kind}]")
            for value, phrases in values.items():
                table[kind].setdefault(value, []).extend(phrases)
        for kind, values in dialect.get("remove", {}).items():
            for value, phrases in values.items():
                table[kind][value] = [p for p in table[kind].get(value, []) if p not in set(phrases)]
        markers = list(dialect.get("language", {}).get("markers", []))
        strong = list(dialect.get("language", {}).get("strong", []))
    return Lexicon(language, table, numbers, markers, strong, base.get("unit_names", {}), scales)


@lru_cache(maxsize=1)
def topics() -> dict[str, tuple[str, ...]]:
    """The guide's words for each topic cue (topics.toml; every language's cue names the same
    English sections)."""
    return {value: tuple(words) for value, words in _read("topics").items()}


# A dataset card's new measure or unit tag ("measure.time_to_train", "unit.result_min") names the
# table's own measure: the reader reads it as the headline result ("how fast" in Inference).
OWN_MEASURE = {"measure": "throughput", "unit": "result"}


def extend(base: Lexicon, additions: dict[str, dict[str, Any]]) -> Lexicon:
    """`base` plus a dataset card's words for one language (`[lexicon.<language>.<kind>]`).

    Why a copy and not a change to `load`'s result: the card's words hold only for questions
    about its table ("longest" is a direction in Training, not in Inference)."""
    table = {kind: {v: list(p) for v, p in values.items()} for kind, values in base.table.items()}
    for kind, values in additions.items():
        if kind not in (*KINDS, *ROUTING_KINDS):  # `unit_names` are display names, not words
            continue
        for value, phrases in values.items():
            if kind in OWN_MEASURE and value not in table.get(kind, {}):
                value = OWN_MEASURE[kind]
            table.setdefault(kind, {}).setdefault(value, []).extend(phrases)
    return Lexicon(base.language, table, base.numbers, list(base.markers), list(base.strong), base.unit_names,
                   base.scales)


def languages() -> list[str]:
    """Every language with a lexicon file."""
    return sorted(p.stem for p in HERE.glob("*.toml"))


@lru_cache(maxsize=None)
def _own_words(language: str) -> frozenset[str]:
    """The plain words a dialect's tag table has and English's has not ("skickade", "fler", "eller"),
    folded: evidence of the dialect that grows with its lexicon, beside its hand-picked markers."""
    def words(lex: Lexicon) -> set[str]:
        return {fold(w) for values in lex.table.values() for phrases in values.values() for phrase in phrases
                for w in phrase.lower().split() if w.isalpha()}
    return frozenset(words(load(language)) - words(load(BASE_LANGUAGE)))


def detect_language(tokens: list[Token], text: str) -> str:
    """The dialect whose markers the question uses more than English's ("sv" or "en"). Two words only
    the dialect's lexicon has count as one strong marker ("skickade dell eller hpe in fler resultat")."""
    english = load(BASE_LANGUAGE).markers
    words = [t.text for t in tokens]
    folded = [fold(w) for w in words]
    en_count = sum(1 for w in words if w in english)
    for lang in languages():
        if lang == BASE_LANGUAGE:
            continue
        lex = load(lang)
        strong_words = lex.strong | {fold(w) for w in lex.strong}
        marker_words = lex.markers | {fold(w) for w in lex.markers}
        strong = sum(1 for w in folded if w in strong_words) + len(re.findall(r"[åäö]", text.lower()))
        marked = sum(1 for w in folded if w in marker_words)
        own = sum(1 for w in folded if w in _own_words(lang) and w not in marker_words and w not in strong_words)
        if (strong >= 1 or own >= 2) and strong + marked + own > en_count:
            return lang
    return BASE_LANGUAGE


__all__ = ["Lexicon", "Tag", "Token", "load", "tokenize", "detect_language", "number_value", "KINDS", "languages"]
