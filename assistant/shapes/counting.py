"""Counting shapes: how many, which (a list), what is new or gone between rounds, who has the
most results, and which systems meet a numeric condition."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.notes import Note
from assistant.parsed import Parsed, filters_of
from assistant.reader import Reading
from assistant.shapes import defaults, words
from assistant.shapes.registry import Context, shape
from assistant.spec import Filters, QuerySpec

# Columns whose two named values are one filter of a count, not two counts ("offline and server").
_NOT_COUNTED_APART = {"round", "division", "scenario"}
_ROW_MEASURES = ("size", "throughput", "power", "latency", "efficiency", "per_accelerator", "tokens", "samples",
                 "queries")


def _no_benchmark(ctx: Context) -> bool:
    """A set difference of benchmarks names none; of submitters or systems it may be within one
    ("who ran deepseek r1 in v6.0 but not in v6.1")."""
    return not ctx.benchmarks or _difference_column(ctx) != "benchmark"


def _difference_column(ctx: Context) -> str:
    """What a set difference lists: the grouping noun, "who" (submitters), else benchmarks."""
    column = words.grouping(ctx.reading, exclude=("round",)) or (
        "submitter" if ctx.reading.has("operation", "who") else "benchmark")
    return words.READABLE.get(column, column)


@shape("difference_gone", priority=30, applies=lambda ctx: ctx.reading.has("operation", "gone") and _no_benchmark(ctx))
def difference_gone(ctx: Context) -> Parsed:
    """What was in the earlier round and is no longer in the later one."""
    return _difference(ctx, gone=True)


def _difference_applies(ctx: Context) -> bool:
    """"which chips were new in v6.1": a list of what is new. "the new nvidia chip, vera rubin": the
    chip is named, and "new" only describes it."""
    asked = ctx.reading.has("operation", "new") or (ctx.reading.has("operation", "not_in") and len(ctx.rounds) >= 2)
    return asked and _no_benchmark(ctx) and not words.new_describes(ctx.reading, ctx.explicit)


@shape("difference", priority=31, applies=_difference_applies)
def difference(ctx: Context) -> Parsed:
    """What a round has that the round before it had not (benchmarks, submitters, systems)."""
    return _difference(ctx, gone=False)


def _difference(ctx: Context, *, gone: bool) -> Parsed:
    parsed, catalog, rounds = ctx.parsed, ctx.catalog, ctx.rounds
    target = rounds[-1] if rounds else catalog.latest_round
    before = rounds[0] if len(rounds) >= 2 else catalog.previous_round(target or "")
    if not target or not before:
        parsed.status = "no_data"
        parsed.message = ctx.say(f"There is no earlier round than {target} in the data to compare with.",
                                 f"Det finns ingen tidigare runda än {target} i datan att jämföra med.")
        return parsed
    if not rounds:
        parsed.defaults.append(ctx.say(f"round {target} (latest)", f"runda {target} (senaste)"))
        parsed.notes.append(Note("round_latest", round=target))
    absent = _absent_round(ctx)
    if absent in (before, target) and len(rounds) >= 2:  # "in v4.1 that did not submit anything in v6.1"
        gone = absent == target
    first, second = (before, target) if gone else (target, before)
    others = [second]
    if not gone and len(rounds) < 2 and ctx.reading.has("cue", "ever"):  # "never been in MLPerf before"
        others = catalog.rounds[:catalog.rounds.index(target)] or others
    column = _difference_column(ctx)
    parsed.count_column = column
    parsed.spec = QuerySpec(op="difference", column=column, filters=filters_of(ctx.explicit, [first], parsed),
                            other=Filters(round=others), limit=1000)
    parsed.intent = "difference"
    parsed.explicit = {"round": [target], "_before": [before]}
    return parsed


def _absent_round(ctx: Context) -> str | None:
    """The round a negation points at ("did not submit in v6.1"): the first one named after it."""
    r = ctx.reading
    negations = [t.end for t in r.tagged("operation", "not_in")]
    if not negations:
        return None
    after = sorted((m.span[0], m.values[0]) for m in r.matches if m.column == "round" and m.span[0] >= negations[0])
    if after:
        return after[0][1]
    mentioned = [(tok.start, f"v{tok.text.lstrip('v')}") for tok in r.tokens if tok.start >= negations[0]]
    return next((label for _, label in mentioned if label in ctx.rounds), None)


def _count_rank_applies(ctx: Context) -> bool:
    r = ctx.reading
    grouping = words.grouping(r, exclude=("round",))
    counted = r.has("measure", "results") or r.has("operation", "submit", "appearances", "who") or (
        grouping is not None and _counted_after_most(r, grouping) is not None)  # "the most different systems"
    grouped = grouping is not None or r.has("operation", "who") or bool(ctx.inherited_column)
    # "second fastest", "third best": a place in a ranking of results, not of counts
    placed = any(d.first == o.last for o in r.tagged("direction", "ordinal") for d in r.tagged("direction", "best",
                                                                                               "worst"))
    return (((r.has("direction", "most", "least", "ordinal") and grouped) or _sides_counted(ctx) is not None)
            and counted
            and not placed and not r.has("measure", *_ROW_MEASURES))


@dataclass(frozen=True)
class _Sides:
    column: str
    values: list[str]
    spans: frozenset[tuple[int, int]]


def _sides_counted(ctx: Context) -> _Sides | None:
    """"Did Dell or HPE submit more results?": two or more named sides of one column, ranked by a
    count ("more results than 64" is a condition, not this). A name two columns know ("Intel":
    submitter and chip vendor) is read in the column the other side has too."""
    r = ctx.reading
    if not r.has("direction", "more", "fewer") or r.has("comparator"):
        return None
    by_column: dict[str, dict[tuple[int, int], str]] = {}
    for m in r.matches:
        if m.column != "round" and m.values:
            by_column.setdefault(m.column, {}).setdefault(m.span, m.values[0])
    both = [c for c, spans in by_column.items() if len(spans) >= 2]
    asked = words.grouping(r, exclude=("round",)) or (
        "submitter" if r.has("operation", "who", "submit") else None)  # "who …", "did A or B submit …"
    column = asked if asked in both else next(iter(both), None)
    if column is None:
        return None
    return _Sides(column, list(dict.fromkeys(by_column[column].values())), frozenset(by_column[column]))


def _other_filters(ctx: Context, sides: _Sides | None, column: str) -> dict[str, list[str]]:
    """The question's filters but the ranked column's, or, for named sides, with the sides as the
    ranked column's filter and without another column's reading of the same words."""
    if sides is None:
        return {k: v for k, v in ctx.explicit.items() if k != column}
    same_words = {m.column for m in ctx.reading.matches if m.span in sides.spans and m.column != column}
    return {k: v for k, v in ctx.explicit.items() if k not in same_words and k != column} | {column: sides.values}


@shape("count_rank", priority=35, applies=_count_rank_applies)
def count_rank(ctx: Context) -> Parsed:
    """Groups ranked by how many results they have ("who submitted the most results")."""
    r, parsed = ctx.reading, ctx.parsed
    sides = _sides_counted(ctx)
    if sides is not None:
        column = sides.column  # only the sides asked about
    else:
        column = words.grouping(r, exclude=("round",)) or ctx.inherited_column or "submitter"
        column = words.READABLE.get(column, column)
    use_rounds = [] if r.has("scope", "all_rounds") and not ctx.rounds else defaults.latest(ctx.catalog, ctx.rounds)
    if not ctx.rounds and use_rounds:
        parsed.defaults.append(ctx.say(f"round {use_rounds[0]} (latest)", f"runda {use_rounds[0]} (senaste)"))
    fewest = r.has("direction", "least", "fewer")
    parsed.intent = "count_rank"
    parsed.count_column = column
    distinct = _counted_after_most(r, column)  # "the most different systems": distinct systems, not results
    parsed.spec = QuerySpec(op="aggregate", aggregate="nunique" if distinct else "count", column=distinct,
                            group_by=[column],
                            filters=filters_of(_other_filters(ctx, sides, column), use_rounds, parsed),
                            order="asc" if fewest else "desc", limit=max(words.top_n(r), 5) if r.top_n else 10)
    return parsed


def _counted_after_most(r: Reading, column: str) -> str | None:
    """The column counted after "most"/"fewest" when it is not the grouping ("which submitter brought
    the most different systems"), read as that column's distinct values."""
    ranked = next(iter(r.tagged("direction", "most", "least")), None)
    if ranked is None:
        return None
    # the word counted stands right after "most" (a "different"/"distinct" between is fine); "the most
    # results on B200 systems" counts results
    at = ranked.last + sum(1 for t in r.tagged("cue", "distinct") if t.first == ranked.last)
    counted = [t.value for t in r.tagged("grouping") if t.first == at and t.value not in (column, "round")]
    return words.READABLE.get(counted[0], counted[0]) if counted else None


@shape("count", priority=40, applies=lambda ctx: words.is_count(ctx.reading, ctx.explicit))
def count(ctx: Context) -> Parsed:
    """How many results, or distinct submitters / systems / benchmarks (per round if none named)."""
    parsed, catalog, r = ctx.parsed, ctx.catalog, ctx.reading
    parsed.intent = "count"
    target = ctx.count_column or words.count_target(r)
    if target is None and not r.has("measure", "results"):  # "how many submitters in v6.0, and how many in v6.1?"
        target = ctx.inherited_column
    parsed.count_column = target
    rounds = ctx.rounds
    # "in total, across all four rounds": one count over every round, not one per round
    per_round = (not rounds or len(rounds) >= 2 or r.has("scope", "per_round")) and not r.has("scope", "all_rounds")
    rounds = defaults.round_span(catalog, rounds)
    group = ["round"] if per_round else None
    # "dell vs hpe, how many results each", "how many in each scenario": one count per value
    sides = defaults.named_twice(ctx.parsed.entities, exclude=_NOT_COUNTED_APART) or _each_of(r)
    if sides and sides != target and sides != "round":
        group = [sides] + (group or [])
    filters = filters_of(ctx.explicit, rounds, parsed)
    if target in {None, "round"} or (target == "platform" and r.has("measure", "results")):
        target = None if target != "round" else "round"
    if target == "round":  # "how many rounds has crusoe been in": the rounds it appears in, counted once
        group = [g for g in group or [] if g != "round"] or None
        parsed.spec = QuerySpec(op="aggregate", filters=filters, aggregate="nunique", column="round", group_by=group)
        return parsed
    if target and target != "round":
        parsed.spec = QuerySpec(op="aggregate", filters=filters, aggregate="nunique", column=target, group_by=group)
    else:
        parsed.spec = QuerySpec(op="aggregate", filters=filters, aggregate="count", group_by=group)
    if not rounds:
        parsed.defaults.append(ctx.say("every round", "varje runda"))
        parsed.notes.append(Note("round_each"))
    return parsed


def _each_of(r: Reading) -> str | None:
    """The column a count is split by ("in each scenario", "per benchmark", "by submitter")."""
    cues = {t.last for t in r.tagged("cue", "group_each")}
    column = next((t.value for t in r.tagged("grouping") if t.first in cues), None)
    return words.READABLE.get(column, column) if column else None


def _list_applies(ctx: Context) -> bool:
    r = ctx.reading
    if words.best(r) or words.worst(r):
        return False
    # "Systems with more than 64 accelerators": a numeric condition with nothing ranked lists systems.
    conditioned = bool(r.conditions) and not ctx.benchmarks and not r.has("measure", *_ROW_MEASURES)
    return words.is_list(r) or conditioned


@shape("list", priority=45, applies=_list_applies)
def listing(ctx: Context) -> Parsed:
    """The distinct values of a column (benchmarks, submitters, systems) with their row counts."""
    r = ctx.reading
    target = ctx.count_column or ("submitter" if r.has("operation", "who") else None) or words.grouping(r)
    if target is None:
        target = "platform" if r.conditions else "benchmark"
    return list_of(ctx, target)


def list_of(ctx: Context, target: str) -> Parsed:
    parsed, catalog = ctx.parsed, ctx.catalog
    parsed.intent = "list"
    parsed.count_column = target
    rounds = ctx.rounds
    if not rounds and target != "round":
        rounds = defaults.latest(catalog, [])
        parsed.defaults.append(ctx.say(f"round {rounds[0]} (latest)", f"runda {rounds[0]} (senaste)"))
        parsed.notes.append(Note("round_latest", round=rounds[0]))
    target = words.READABLE.get(target, target)
    # A system is read with who submitted it ("VibeHPC / ThinkSystem ..."): names alone can be anonymous.
    keys = ["submitter", target] if target == "system_name" else [target]
    parsed.spec = QuerySpec(op="aggregate", filters=filters_of(ctx.explicit, rounds, parsed), aggregate="count",
                            group_by=keys, limit=1000)
    return parsed
