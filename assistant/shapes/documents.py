"""Shapes answered from documents: what a term means (the guide)."""

from __future__ import annotations

from assistant.parsed import Parsed
from assistant.shapes.registry import Context, shape

# Named things the guide explains; a question naming a chip or a company is about results.
TERMS = ("benchmark", "scenario", "division", "availability", "system_type", "units")
# Measures that make "what is the ..." a question about results, not about a term.
_NOT_DEFINING = ("size", "money")


def _define_applies(ctx: Context) -> bool:
    r = ctx.reading
    if not r.has("cue", "define") or r.has("direction") or r.has("comparator") or ctx.rounds:
        return False
    if r.has("operation", "count", "list", "new", "gone", "trend", "who", "appearances"):
        return False
    if r.has("measure", *_NOT_DEFINING):
        return False
    if r.has("cue", "source", "source_weak", "commentary"):  # "what is X, according to Y": Y's words, not ours
        return False
    return all(column in TERMS for column, values in ctx.explicit.items() if values)


@shape("define", priority=15, example="What does the Offline scenario mean?", applies=_define_applies)
def define(ctx: Context) -> Parsed:
    """What a term means (a scenario, a division, a benchmark, rdi): the guide, quoted, plus table facts."""
    ctx.parsed.intent = "define"
    ctx.parsed.needs_commentary = True
    return ctx.parsed
