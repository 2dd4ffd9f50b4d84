"""A figure a question attributes to someone, checked against the table.

"AMD says multi-node MI355X passed 1 million tokens/s", "Digital Today says … processed 1.55
million tokens/s": the question states a figure (a bound, or a rounded value) about results the
table holds. The answer gives the claim as quoted, the table's matching rows with their ids, and
a verdict this code computes: agrees, does not agree, or cannot be checked (another unit). The
exact figures a question quotes ("1,046,150 tokens/s") are matched exactly elsewhere
(`offline._claim_check`); this is for the rounded and bounded ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assistant import templates
from assistant.semantics import format_number
from assistant.parsed import Parsed
from assistant.reader import Condition

# Cues that make a stated figure a claim to check, not a filter: someone says it, or the
# question asks whether it is true.
CLAIM_CUES = ("source", "source_weak", "commentary", "is_it_true", "table")


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim: `holds` is None when the table cannot check it."""

    claim: Condition
    holds: bool | None
    row: dict[str, Any]
    sentence: str


# An exact figure ("1,046,150") matches a value within this share (float noise only).
EXACT_SHARE = 1e-6


def claim_of(parsed: Parsed) -> Condition | None:
    """The figure of the result the question attributes or asks to check, if any: an exact one
    ("1,046,150 tokens/s"), a bound ("passed 1 million tokens/s"), or a rounded value ("1.55
    million tokens/s", the interval that rounds to it)."""
    r = parsed.reading
    if r is None or not r.has("cue", *CLAIM_CUES):
        return None
    if parsed.claimed:
        c = parsed.claimed[0]
        tol = max(abs(c) * EXACT_SHARE, 1e-9)
        return Condition("result", c - tol, c + tol, format_number(c, lang=parsed.language))
    return next((c for c in r.conditions + r.stated if c.column == "result"), None)


def _holds(claim: Condition, value: float) -> bool:
    return (claim.min is None or value >= claim.min) and (claim.max is None or value <= claim.max)


def check(engine: Any, spec: Any, parsed: Parsed, attribution: tuple[str, ...]) -> tuple[Any, Verdict] | None:
    """The table's rows for what the claim is about and the verdict on the first row that bears it
    out, else on the best row. The figure is what is checked, so it filters nothing; an exact
    figure is looked up whoever holds it ("StorageReview lists 1,046,150 as NVIDIA's top"), while
    a rounded or bounded one stays on the hardware and company named ("MI355X passed 1 million")."""
    claim = claim_of(parsed)
    if claim is None or spec.op != "rows" or spec.group_by:
        return None
    loose = {"result": None, **dict.fromkeys(attribution if parsed.claimed else ())}
    if not parsed.explicit.get("scenario"):  # a scenario assumed by default: the claim may be of another
        loose["scenario"] = None
    loose = spec.filters.model_copy(update=loose)
    wide = engine.execute(spec.model_copy(update={"filters": loose, "limit": 1000, "dedupe": False}))
    if wide.empty:
        return None
    values = wide.rows["result"].astype(float)
    hits = wide.rows[[_holds(claim, v) for v in values]]
    rows = hits.head(1) if len(hits) else wide.rows.head(1)
    row = rows.iloc[0].to_dict()
    unit = str(row.get("units") or "")
    wanted = claim.units or _unit_of(parsed, engine.catalog.lexicon(parsed.language).unit_names)
    holds = None if wanted and wanted != unit else bool(len(hits))
    # a value no row has is "not in the table" (the claim may be of a smaller system); a bound the
    # best row misses does not agree
    missed = "claim_fails" if claim.min is None or claim.max is None else "claim_none"
    key = {True: "claim_holds", False: missed, None: "claim_unit"}[holds]
    sentence = templates.text(parsed.language, "answer", key, claim=claim.text, value=_figure(row, parsed.language),
                              id=row.get("result_id"), unit=unit, claimed=wanted or "")
    wide.rows = rows if holds else wide.rows.head(max(1, min(spec.limit, 5)))
    return wide, Verdict(claim, holds, row, sentence)


def _unit_of(parsed: Parsed, names: dict[str, str]) -> str | None:
    """The table unit the question's measure word names ("tokens/s": Tokens/s), if any."""
    r = parsed.reading
    return next((names[t.value] for t in (r.tagged("measure") if r is not None else []) if t.value in names), None)


def _figure(row: dict[str, Any], language: str) -> str:
    return f"{format_number(float(row['result']), lang=language)} {row.get('units') or ''}".strip()
