"""A figure a question attributes to someone, checked against the table.

"AMD says multi-node MI355X passed 1 million tokens/s", "Digital Today says … processed 1.55
million tokens/s": the question states a figure (a bound, or a rounded value) about results the
table holds. The answer gives the claim as quoted, the table's matching rows with their ids, and
a verdict this code computes: agrees, does not agree, or cannot be checked (another unit). The
exact figures a question quotes ("1,046,150 tokens/s") are checked by `check` when the documents
answer (`offline._claim_beside`); a table answer looks them up in `exact`, which answers with
the rows that hold the figure, whoever posted them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant import templates
from assistant.notes import Note
from assistant.semantics import format_number
from assistant.parsed import Parsed
from assistant.reader import Condition
from assistant.spec import QuerySpec

if TYPE_CHECKING:
    from assistant.engine import Engine
    from assistant.executor import QueryResult

# Cues that make a stated figure a claim to check, not a filter: someone says it, or the
# question asks whether it is true ("official results over 500k" is a filter).
CLAIM_CUES = ("source", "source_weak", "commentary", "is_it_true")


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


def check(engine: "Engine", spec: QuerySpec, parsed: Parsed,
          attribution: tuple[str, ...]) -> tuple["QueryResult", Verdict] | None:
    """The table's rows for what the claim is about, in the claim's unit, and the verdict on the
    first row that bears it out, else on the best row. The figure is what is checked, so it
    filters nothing, nor does a scenario assumed by default; an exact figure is looked up whoever
    holds it ("StorageReview lists 1,046,150 as NVIDIA's top"), while a rounded or bounded one stays
    on the hardware and company named ("MI355X passed 1 million"), and "is it true that the GB300
    did …" on the GB300."""
    claim = claim_of(parsed)
    if claim is None or spec.op != "rows" or spec.group_by:
        return None
    loose: dict[str, object] = {"result": None, **dict.fromkeys(attribution if parsed.claimed else ())}
    if not parsed.explicit.get("scenario"):  # a scenario assumed by default: the claim may be of another
        loose["scenario"] = None
    loose.update({k: v for k, v in parsed.checked.items() if k in spec.filters.model_fields and v})
    wanted = claim.units or _unit_of(parsed, engine.catalog.lexicon(parsed.language).unit_names)

    def run(units: list[str] | None) -> "QueryResult":
        filters = spec.filters.model_copy(update={**loose, "units": units} if units else loose)
        return engine.execute(spec.model_copy(update={"filters": filters, "limit": 1000, "dedupe": False}))

    wide = run([wanted]) if wanted else run(None)  # only rows in the claim's unit are compared with it
    holds: bool | None
    if wide.empty and wanted:  # only results in other units: the claim cannot be checked
        wide = run(None)
        if wide.empty:
            return None
        rows, holds = wide.rows.head(1), None
    elif wide.empty:
        return None
    else:
        hits = wide.rows[[_holds(claim, float(v)) for v in wide.rows["result"]]]
        rows, holds = (hits.head(1), True) if len(hits) else (wide.rows.head(1), False)
    row = rows.iloc[0].to_dict()
    # a value no row has is "not in the table" (the claim may be of a smaller system); a bound the
    # best row misses does not agree
    missed = "claim_fails" if claim.min is None or claim.max is None else "claim_none"
    key = {True: "claim_holds", False: missed, None: "claim_unit"}[holds]
    unit = str(row.get("units") or "")
    sentence = templates.text(parsed.language, "answer", key, claim=claim.text, value=_figure(row, parsed.language),
                              id=row.get("result_id"), unit=unit, claimed=wanted or "")
    wide.rows = rows if holds else wide.rows.head(max(1, min(spec.limit, 5)))
    return wide, Verdict(claim, holds, row, sentence)


def exact(engine: "Engine", spec: QuerySpec, parsed: Parsed,
          attribution: tuple[str, ...]) -> "QueryResult | None":
    """A question quoting exact figures ("StorageReview lists 1,046,150 tokens/s as NVIDIA's top
    result") is answered by the rows holding that value, whoever submitted them: the claim's
    attribution is what is being checked, so it must not filter the search. None (and a note) when
    no row holds any of the figures: the table answer stands."""
    from assistant.semantics import describe_caveats

    loose = spec.filters.model_copy(update=dict.fromkeys(attribution))
    named = [v for m in parsed.entities if m.column == "benchmark" for v in m.values]
    if named:  # the figure may be the -99 variant's when -99.9 was picked ("llama2 70b server")
        loose = loose.model_copy(update={"benchmark": named})
    wide = engine.execute(spec.model_copy(update={"filters": loose, "limit": 1000, "dedupe": False}))
    if wide.empty:
        return None
    values = wide.rows["result"].astype(float)
    for claim in parsed.claimed:
        hit = wide.rows[(values - claim).abs() <= max(abs(claim) * EXACT_SHARE, 1e-9)]
        if len(hit):
            stale = set(describe_caveats(wide.rows))  # caveats of the wide search, not of the hit
            wide.rows = hit.head(5)
            wide.notes = [n for n in wide.notes if n not in stale] + describe_caveats(wide.rows)
            parsed.intent = "lookup"
            parsed.notes.append(Note("claim_exact", figure=f"{claim:,.0f}", id=hit.iloc[0]["result_id"]))
            return wide
    parsed.notes.append(Note("claim_not_exact", figures=", ".join(f"{c:,.0f}" for c in parsed.claimed)))
    return None


def _unit_of(parsed: Parsed, names: dict[str, str]) -> str | None:
    """The table unit the question's measure word names ("tokens/s": Tokens/s), if any."""
    r = parsed.reading
    return next((names[t.value] for t in (r.tagged("measure") if r is not None else []) if t.value in names), None)


def _figure(row: dict[str, Any], language: str) -> str:
    return f"{format_number(float(row['result']), lang=language)} {row.get('units') or ''}".strip()
