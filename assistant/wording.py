"""How a sentence says what a number is, who said it, and which words are ours, not the reader's.

The rules the wording checks apply to a model's text, kept as data (word patterns per kind)
so a language is an addition to the tables, not new code:

- **measure words**: "accuracy", "power", "drew", "latency", "per GPU", "relative", ... say what
  kind of figure the number next to them is. A throughput called accuracy or power, or a total
  called per-GPU, is a false statement the number check alone passes.
- **attribution**: "according to NVIDIA", "AMD claimed", "enligt ..." say who stated a figure.
- **internal words**: tool names, "TOOL RESULTS", tags and JSON keys are how our code talks to
  the model; a reader must never see them.
"""

from __future__ import annotations

import re
from typing import Iterator

from assistant import units
from assistant.facts import UNIT, unit_kinds
from assistant.numbers import stated_spans

# Kind of figure -> the pattern of the words that say it. Order matters: a longer phrase is
# read first and its words are not read again ("power efficiency" is efficiency, not power).
_MEASURE_PATTERNS = [
    ("efficiency", r"\bpower[- ]efficien\w*|\befficien\w*|\bper[- ]watt\b|\bper W\b|\beffektivitet\w*"),
    ("per_accelerator", r"\bper[- ](?:gpu|accelerator|chip|card)s?\b|\bper[- ]accelerat\w*"),
    ("per_node", r"\bper[- ]nod(?:e|en)?\b"),
    ("relative", r"\brelative\b|\brelativ\w*|\b(?:times|gånger)\b|\bspeed-?ups?\b|\bratios?\b|"
                 r"[x×]\s+(?:faster|slower|higher|lower|better|more)\b"),
    ("energy", r"\benerg\w*|\b(?:milli)?joules?\b|\bmJ\b"),
    ("accuracy", r"\baccura\w*|\brouge\w*|\bnoggrann\w*"),
    ("latency", r"\blatenc\w*|\blatens\w*|\bms\b|\bmilliseconds?\b|\bresponse times?\b|\bsvarstid\w*"),
    ("power", r"\bpower\b|\bwatts?\b|\bdr[ae]w(?:s|n|ing)?\b|\bconsum\w*|\beffekt(?:en)?\b|\bförbruk\w*|\bW\b"),
    ("throughput", rf"\bthroughput\b|{units.rate_pattern()}|\bgenomströmning\w*"),
]
MEASURE_WORDS = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _MEASURE_PATTERNS]
# Kind of figure -> the measure words that may describe it.
ALLOWED: dict[str, set[str]] = {
    "throughput": {"throughput"},
    "latency": {"latency"},
    "power": {"power"},
    "energy": {"energy", "power"},
    "per_accelerator": {"per_accelerator", "throughput"},
    "efficiency": {"efficiency", "throughput"},
    "accuracy": {"accuracy"},
    "relative": {"relative"},
    "result": {"throughput", "latency"},  # a headline result whose unit is not known here
}

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÅÄÖ\"'(])|\n+")
_CLAUSE = re.compile(r"[;:]\s|,?\s+(?:and|but|while|whereas|och|men|medan)\s+", re.IGNORECASE)
BEFORE_WORDS = 12  # how far back a measure word still speaks of the number


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def clauses(sentence: str) -> list[str]:
    """A sentence's clauses: split at ";", ":" and the conjunctions that start a new statement."""
    return [c for c in _CLAUSE.split(sentence) if c.strip()]


def measure_kinds(text: str) -> set[str]:
    """The kinds of figure the words of `text` say, each phrase read once."""
    found: set[str] = set()
    for kind, pattern in MEASURE_WORDS:
        if pattern.search(text):
            found.add(kind)
            text = pattern.sub(" ", text)
    return found


def number_contexts(sentence: str, is_figure: object) -> Iterator[tuple[str, str, str, str]]:
    """(number as written, its unit, the words before it, the word after its unit) for each
    number in `sentence` that `is_figure(token)` says is a figure. The words before reach back
    to the clause start or the previous figure (with its unit), at most BEFORE_WORDS words; the
    word after counts only after a measure unit ("22.6141 Samples/s accuracy")."""
    previous_end = 0
    for start, end, token in stated_spans(sentence):
        if not is_figure(token):  # type: ignore[operator]
            continue
        unit_match = UNIT.match(sentence, end)
        unit = unit_match.group("unit") if unit_match else ""
        stop = unit_match.end() if unit_match else end
        clause_start = max([previous_end] + [m.end() for m in _CLAUSE.finditer(sentence, 0, start)])
        before = " ".join(sentence[clause_start:start].split()[-BEFORE_WORDS:])
        after = ""
        if unit and unit_kinds(unit) - {"count"}:
            following = re.match(r"\s+([^\W\d_][\w-]*)", sentence[stop:])
            after = following.group(1) if following else ""
        previous_end = stop
        yield token, unit, before, after


# --- who said it ----------------------------------------------------------------------------------------

_SAY = (r"claim(?:s|ed)?|says?|said|announc(?:es|ed)|states?|stated|boast(?:s|ed)?|touts?|touted|asserts?|"
        r"asserted|hävdar|hävdade|påstår|påstod|uppger|uppgav|säger|meddelade")
ATTRIBUTION: list[re.Pattern[str]] = [
    re.compile(r"\b(?:according to|as (?:reported|stated|claimed) by|enligt)\s+(?P<src>[^,.;:]{2,60})", re.IGNORECASE),
    re.compile(r"(?P<src>\b[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})(?:'s|’s)?\s+(?:own\s+)?"
               r"(?:(?:press release|blog(?: post)?|article|announcement)\s+)?(?:" + _SAY + r")\b"),
    re.compile(r"(?P<src>\b[A-Z][\w&.\-]*)(?:'s|’s)\s+(?:claim|press release|blog(?: post)?|announcement)\b"),
]
# Sources that are not someone's claim: the results themselves, or a pronoun.
NOT_A_CLAIM = re.compile(r"^(?:the\s+)?(?:official\s+)?(?:mlperf\s+|mlcommons\s+)?(?:table|tables|results?|data|"
                         r"datan|tabellen|resultaten|mlperf|mlcommons|it|this|that|they|he|she|det|den|de|"
                         r"officiella resultaten)\b", re.IGNORECASE)
GENERIC_DOCUMENT = re.compile(r"\b(?:article|press release|blog|report|announcement|document|source|artikel\w*|"
                              r"pressmeddelande\w*)\b", re.IGNORECASE)


def attributions(sentence: str) -> list[str]:
    """Who the sentence says stated something (not the table): "NVIDIA", "the article"."""
    found = []
    for pattern in ATTRIBUTION:
        for match in pattern.finditer(sentence):
            src = match.group("src").strip()
            if src and not NOT_A_CLAIM.match(src) and src not in found:
                found.append(src)
    return found


# --- our own words ------------------------------------------------------------------------------------------

_JSON_KEYS = ("result_id", "result_url", "system_name", "total_accelerators", "number_of_nodes",
              "accelerators_per_node", "accelerator_family", "accelerator_vendor", "value_unit", "power_result",
              "power_units", "lower_is_better", "row_count", "item_count", "by_round", "group_by",
              "result_per_accelerator", "search_query", "system_type", "has_power")
INTERNAL = re.compile(r"\btool[ _-]?results?\b|\bchecked summary\b|"
                      r"\bcorrect answer (?:to )?reword(?:ed|ing)?\b|\breworded answer\b|"
                      r"\bparser(?:'s)? reading\b|\bour parser\b|"
                      r"</?\s*document\b|<\s*/?\s*[a-z_]+\s*/?>|\b(?:query_results|search_commentary|list_values|"
                      r"describe_data)\b|\"[a-z_]+\"\s*:|\b(?:" + "|".join(_JSON_KEYS) + r")\b", re.IGNORECASE)


def internal_words(text: str) -> list[str]:
    """Words of our code's conversation with the model that appear in `text`."""
    return list(dict.fromkeys(m.group(0).strip() for m in INTERNAL.finditer(text)))


# --- which language a wording is in ----------------------------------------------------------------------

# Small words each language writes in almost every sentence and the other never does ("in",
# "av" and names are left out). A Swedish question answered in English is no better answer.
LANGUAGE_WORDS = {
    "en": frozenset("the is was were of and with by for has had have best highest lowest result results achieved "
                    "which this that than its their from to on".split()),
    "sv": frozenset("och är var det den som med på för bästa högsta lägsta resultat resultatet uppnådde vilket "
                    "detta att än dess deras från till hade har inte".split()),
}
LANGUAGE_NAMES = {"en": "English", "sv": "Swedish"}
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|”[^”]*”|«[^»]*»|\([^)]*\)")
MIN_OTHER_WORDS = 3  # fewer of the other language's words than this and the text is not judged


def other_language(text: str, language: str | None) -> str | None:
    """The language `text` is written in when it is not `language` (quotes, bracketed names and
    citations left out), or None: at least MIN_OTHER_WORDS of the other language's small words,
    and more of them than of its own."""
    if language not in LANGUAGE_WORDS:
        return None
    words = re.findall(r"[^\W\d_]+", _QUOTED.sub(" ", text).lower())
    own = sum(w in LANGUAGE_WORDS[language] for w in words)
    for other, vocabulary in LANGUAGE_WORDS.items():
        if other != language:
            count = sum(w in vocabulary for w in words)
            if count >= MIN_OTHER_WORDS and count > own:
                return other
    return None
