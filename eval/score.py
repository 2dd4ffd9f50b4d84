"""Judge one answer the way a reader would: is the right number (or name) in the text?

Numbers are read the way people write them — `1,136,100`, `1 136 100` (also with a
no-break or thin space), Swedish `1 136 100,5` or `5,7 miljoner`, `1.14 million`, `5.7M`,
`12k` — and compared within a relative tolerance, because an answer may round. A lone
`1,136` is ambiguous (thousands or decimal comma), so both readings are kept: being strict
about formatting would measure typography, not correctness.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from eval.questions import Expected, Question

_SEP = r"[,.\u00a0\u202f\u2009 ]"
_NUMBER = re.compile(
    r"(?<![\d.,])(?P<sign>[-−–]?)"
    r"(?P<num>\d{1,3}(?:" + _SEP + r"\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)?)"
    r"(?:\s?(?P<suffix>miljarder|miljard|miljoner|miljon|milj\.?|million|millions|billion|billions|thousand|tusen|"
    r"mn|bn|k|K|M|B)(?![A-Za-zåäöÅÄÖ]))?"
)
_SUFFIX = {
    "k": 1e3, "K": 1e3, "thousand": 1e3, "tusen": 1e3,
    "M": 1e6, "mn": 1e6, "million": 1e6, "millions": 1e6, "miljon": 1e6, "miljoner": 1e6, "milj": 1e6, "milj.": 1e6,
    "B": 1e9, "bn": 1e9, "billion": 1e9, "billions": 1e9, "miljard": 1e9, "miljarder": 1e9,
}
_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "noll": 0, "en": 1, "ett": 1, "två": 2, "tre": 3, "fyra": 4, "fem": 5,
    "sex": 6, "sju": 7, "åtta": 8, "nio": 9, "tio": 10, "elva": 11, "tolv": 12,
}
_REFUSAL = [
    "no data", "not in the data", "no results", "no result ", "no matching", "not available in", "isn't in the",
    "is not in the", "are not in the", "does not exist", "doesn't exist", "did not exist", "don't have", "do not have",
    "did not submit", "didn't submit", "never submitted", "no submission", "cannot answer", "can't answer",
    "not found", "there is no", "there are no", "not covered", "doesn't cover", "does not cover", "no such",
    "unknown round", "not part of", "has no ", "have no ",
    "inga data", "ingen data", "finns inte", "finns ej", "saknas", "har inga", "har ingen", "inga resultat",
    "kan inte svara", "lämnade aldrig", "inte med i", "ingen sådan", "inga sådana",
    # declining a comparison that would be wrong is the right answer to some questions
    "different units", "not comparable", "cannot compare", "can't compare", "cannot be compared",
    "olika enheter", "inte jämförbara", "kan inte jämföra", "går inte att jämföra",
]


@dataclass(frozen=True)
class Reading:
    """One way of reading a number written in the text."""

    value: float
    text: str


def _group_readings(num: str) -> list[float]:
    """Values a written numeral can mean (both readings when `1,136` is ambiguous)."""
    compact = num.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")
    # One separator throughout the groups (backreference): `6,280.214` is 6280.214, not two groupings.
    grouped = re.fullmatch(r"(\d{1,3}(?:([,. ])\d{3})(?:\2\d{3})*)(?:([.,])(\d+))?", compact)
    if grouped:
        int_part, sep, dec_sep, dec = grouped.group(1), grouped.group(2), grouped.group(3), grouped.group(4)
        seps = set(re.findall(r"[,. ]", int_part))
        if len(seps) == 1:
            whole = float(re.sub(r"[,. ]", "", int_part) + ("." + dec if dec else ""))
            if dec_sep is None and sep in ",." and int_part.count(sep) == 1:
                return [whole, float(int_part.replace(sep, "."))]
            if dec_sep == sep:  # `1,136,100,5` is not a number people write; read the plain parts
                return [whole]
            readings = [whole]
            if sep == " ":  # `8 512` may just be two numbers next to each other
                readings += [float(p) for p in int_part.split(" ")]
            return readings
    plain = compact.replace(",", ".")
    try:
        return [float(plain)]
    except ValueError:
        return []


def find_numbers(text: str) -> list[Reading]:
    """Every number a reader would see in `text`, with multipliers (`million`, `M`, `k`) applied."""
    readings: list[Reading] = []
    for match in _NUMBER.finditer(text or ""):
        sign = -1.0 if match.group("sign") else 1.0
        suffix = match.group("suffix")
        factor = _SUFFIX.get(suffix or "", 1.0)
        for value in _group_readings(match.group("num")):
            readings.append(Reading(sign * value, match.group(0)))
            if factor != 1.0:
                readings.append(Reading(sign * value * factor, match.group(0)))
    for word in re.findall(r"[A-Za-zåäöÅÄÖ]+", (text or "").lower()):
        if word in _WORDS:
            readings.append(Reading(float(_WORDS[word]), word))
    return readings


def close_enough(found: float, wanted: float, rel_tol: float) -> bool:
    if wanted == 0:
        return abs(found) <= 1e-9
    return math.isclose(found, wanted, rel_tol=rel_tol, abs_tol=0.0)


def _find(readings: list[Reading], wanted: float, rel_tol: float) -> Reading | None:
    for reading in readings:
        if close_enough(reading.value, wanted, rel_tol):
            return reading
    return None


def is_refusal(answer: dict[str, Any]) -> bool:
    """True when the answer says the data has no answer (status `no_data` or in so many words)."""
    if answer.get("status") == "no_data":
        return True
    text = " " + (answer.get("answer") or "").lower() + " "
    return any(phrase in text for phrase in _REFUSAL)


def score(expected: Expected, answer: dict[str, Any]) -> dict[str, Any]:
    """`{"pass": bool, "why": str}` for one answer (the `ask --json` object)."""
    text = answer.get("answer") or ""
    lower = text.lower()
    status = answer.get("status", "answered")
    reasons: list[str] = []

    if expected.kind == "refusal":
        if not is_refusal(answer):
            return {"pass": False, "why": f"expected a refusal, got status {status!r}"}
        reasons.append("refused")
    else:
        if status != "answered":
            return {"pass": False, "why": f"status {status!r}: {text[:120]}"}
        readings = find_numbers(text)
        if expected.kind == "number":
            hit = _find(readings, float(expected.value), expected.rel_tol)
            if hit is None:
                return {"pass": False, "why": f"{expected.value:g} not in the answer"}
            reasons.append(f"found {expected.value:g} as {hit.text!r}")
        elif expected.kind == "numbers":
            missing = [v for v in expected.values or [] if _find(readings, v, expected.rel_tol) is None]
            if missing:
                return {"pass": False, "why": "missing " + ", ".join(f"{v:g}" for v in missing)}
            reasons.append(f"found all {len(expected.values or [])} numbers")
        elif expected.kind == "count":
            hit = _find(readings, float(expected.value), 0.0)
            if hit is None:
                return {"pass": False, "why": f"count {expected.value:g} not in the answer"}
            reasons.append(f"found count {expected.value:g}")

    missing = [s for s in expected.must_include if s.lower() not in lower]
    if missing:
        return {"pass": False, "why": "missing " + ", ".join(repr(s) for s in missing)}
    for group in expected.any_of:
        if not any(s.lower() in lower for s in group):
            return {"pass": False, "why": "none of " + " / ".join(repr(s) for s in group)}
    banned = [s for s in expected.must_not_include if s.lower() in lower]
    if banned:
        return {"pass": False, "why": "must not say " + ", ".join(repr(s) for s in banned)}
    if expected.must_include or expected.any_of:
        reasons.append("names present")
    return {"pass": True, "why": "; ".join(reasons) or "ok"}


def score_question(question: Question, answer: dict[str, Any]) -> dict[str, Any]:
    return score(question.expected, answer)
