"""Ranking shapes: best, worst, top-N, a lookup of a named party, a comparison, a trend, and
rankings by system size or within one unit across benchmarks.

They share one builder (`rank`), because they differ only in order, limit and sides: the
round, benchmark variant and scenario defaults are the same for all of them.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from assistant import lexicon
from assistant.notes import Note
from assistant.parsed import Parsed, filters_of
from assistant.semantics import SIZE_METRICS
from assistant.shapes import defaults, words
from assistant.shapes.registry import Context, shape
from assistant.spec import Filters, QuerySpec

# Columns that say who or which hardware: "is it true that X had the top result" checks them.
ATTRIBUTION = ("submitter", "accelerator_vendor", "accelerator_family", "accelerator", "system_name", "platform")


def _limit(n: int) -> int:
    return max(1, min(n, 100))


def across_benchmarks(ctx: Context, intent: str, literal: bool = False) -> Parsed | None:
    """A ranking over every benchmark of one unit, when the question names a unit (or power) and
    asks across all results; None when it does not."""
    r, parsed = ctx.reading, ctx.parsed
    if intent not in ("best", "worst", "top"):
        return None
    names = lexicon.load(r.language).unit_names
    unit = next((names[v] for v in r.values("measure") if v in names), None)
    named = any(ctx.explicit.get(c) for c in ATTRIBUTION)
    if ctx.metric == "power":
        wanted = {"power_units": [names["power"]]}
    elif ctx.metric in ("result", "result_per_accelerator") and unit and (r.has("scope", "across") or not named):
        wanted = {"units": [unit]}  # one unit named: ranking within it is honest (and says so)
    else:
        return None
    label = next(iter(wanted.values()))[0]
    parsed.notes.append(Note("benchmarks_across", label=label))
    parsed.defaults.append(ctx.say(f"every benchmark in {label}", f"alla benchmarks i {label}"))
    order = "worst" if intent == "worst" else "best"
    if ctx.metric == "power" and not literal:
        order = "worst" if words.power_order_high(r) else "best"
    n = words.top_n(r) if intent == "top" else 5
    parsed.spec = QuerySpec(op="rows", filters=filters_of({**ctx.explicit, **wanted}, defaults.latest(ctx.catalog, ctx.rounds),
                                                          parsed), metric=ctx.metric, order=order, limit=_limit(n))
    return parsed


def _checked_claim(ctx: Context, intent: str) -> None:
    """"Is it true that Crusoe had the highest ...?": rank everyone; whether the top row is
    Crusoe's is then computed (compose), so who and which hardware must not filter. Only for one
    named party: "AMD beat NVIDIA", "among B200 systems", "the top 3 all used B300" are other
    questions, answered as the ranking they filter."""
    if intent not in ("best", "worst") or not ctx.reading.has("cue", "is_it_true") or words.not_one_claim(ctx.reading):
        return
    checked = {k: v for k, v in ctx.explicit.items() if k in ATTRIBUTION and v}
    named = [m for m in ctx.parsed.entities if m.column in ATTRIBUTION]  # one party: each column named once
    if checked and len(named) <= 2 and len({m.column for m in named}) == len(named):
        ctx.parsed.checked = checked
        ctx.explicit = {k: v for k, v in ctx.explicit.items() if k not in ATTRIBUTION}


def rank(ctx: Context, intent: str, *, literal: bool = False) -> Parsed:
    """Build a ranking-shaped spec (best / worst / top / lookup / compare / trend). `literal`: the
    intent is the order, whatever the question's power words say (each end of a spread)."""
    from assistant.shapes import entity

    parsed, catalog, r = ctx.parsed, ctx.catalog, ctx.reading
    parsed.intent = intent
    ctx.explicit = {k: list(v) for k, v in ctx.explicit.items() if k != "round"}
    _checked_claim(ctx, intent)
    explicit, rounds, metric = ctx.explicit, ctx.rounds, ctx.metric
    benchmarks = list(explicit.get("benchmark") or [])
    if not benchmarks and metric in SIZE_METRICS and intent in ("best", "top", "worst"):
        # A system's size is the same on every benchmark: no benchmark is needed to rank it.
        n = words.top_n(r) if intent == "top" else 5
        parsed.spec = QuerySpec(op="rows", filters=filters_of(explicit, defaults.latest(catalog, rounds), parsed),
                                metric=metric, order="worst" if intent == "worst" else "best", limit=_limit(n))
        return parsed
    if not benchmarks and across_benchmarks(ctx, intent, literal):
        return parsed
    if not benchmarks:
        # No benchmark: an overview (best per benchmark) of what was named, never a dead end.
        return entity.overview(ctx)

    # Rounds: trend spans rounds; everything else is one round (latest that has the benchmark).
    side_column = ctx.side_column
    if intent == "trend":
        use_rounds = defaults.round_span(catalog, rounds) or catalog.rounds_with(benchmarks)
    elif rounds:
        use_rounds = rounds if (intent == "compare" and len(rounds) > 1) else rounds[-1:]
        if intent == "compare" and len(rounds) > 1:
            side_column = side_column or "round"
    else:
        having = catalog.rounds_with(benchmarks)
        if not having:
            parsed.status = "no_data"
            parsed.message = ctx.say("That benchmark has no results in the data.",
                                     "Det benchmarket har inga resultat i datan.")
            return parsed
        if r.has("measure", "throughput", "tokens", "samples", "queries"):
            # "how many images/sec does a 4090 do on resnet": the latest round with a throughput
            # scenario for it (v6.1 ran resnet on edge latency scenarios only)
            having = [h for h in having if defaults.has_throughput(catalog, benchmarks, h)] or having
        use_rounds = having[-1:]
    if not rounds and intent in ("best", "worst", "top") and r.has("scope", "all_rounds") and len(having) > 1:
        # "the highest rgat throughput ever": every round with the benchmark, each row saying its round
        use_rounds = having
        parsed.defaults.append(ctx.say(f"every round with this benchmark ({', '.join(having)})",
                                       f"alla rundor med detta benchmark ({', '.join(having)})"))
        parsed.notes.append(Note("rounds_all_with_benchmark", rounds=", ".join(having)))
    elif not rounds and intent != "trend":
        parsed.round_defaulted = True
        parsed.defaults.append(ctx.say(f"round {use_rounds[0]} (latest with this benchmark)",
                                       f"runda {use_rounds[0]} (senaste med detta benchmark)"))
        parsed.notes.append(Note("round_latest_with_benchmark", round=use_rounds[0]))

    # "Whisper vs Llama 2 70B": each named benchmark is a side (the executor refuses mixed units).
    bench_mentions = [m for m in parsed.entities if m.column == "benchmark"]
    if intent == "compare" and len(bench_mentions) >= 2 and side_column in (None, "benchmark"):
        picked = defaults.distinct([defaults.pick_variant(parsed, catalog, list(m.values), use_rounds)
                                    for m in bench_mentions])
        if all(picked) and len(picked) >= 2:  # the same benchmark named twice is not a comparison
            base = {k: v for k, v in explicit.items() if k != "benchmark"}
            if not base.get("scenario"):
                scen = defaults.default_scenario(catalog, [p[0] for p in picked], use_rounds, latency=False)
                if scen:
                    base["scenario"] = [scen]
            parsed.side_column = "benchmark"
            parsed.spec = QuerySpec(op="compare", filters=filters_of(base, use_rounds, parsed), metric=metric,
                                    sides=[Filters(benchmark=p[:1]) for p in picked])
            return parsed
    benchmarks = defaults.pick_variant(parsed, catalog, benchmarks, use_rounds, explicit.get("scenario"),
                                       together=intent in ("best", "worst"))
    if not benchmarks:
        named = explicit["benchmark"]
        parsed.status = "no_data"
        parsed.message = ctx.say(
            f"{', '.join(named)} has no results in {', '.join(use_rounds)}; "
            f"it was run in: {', '.join(catalog.rounds_with(named)) or 'no round'}.",
            f"{', '.join(named)} har inga resultat i {', '.join(use_rounds)}; "
            f"det kördes i: {', '.join(catalog.rounds_with(named)) or 'ingen runda'}.")
        return parsed
    explicit["benchmark"] = benchmarks

    # Scenario: one scenario (one unit) at a time.
    if not explicit.get("scenario"):
        scen = defaults.default_scenario(catalog, benchmarks, use_rounds, latency=r.has("measure", "latency"))
        if scen:
            explicit["scenario"] = [scen]
            others = sorted(set(catalog.scenarios_for(benchmarks, use_rounds)) - {scen})
            parsed.defaults.append(ctx.say(f"scenario {scen}", f"scenario {scen}"))
            parsed.notes.append(Note("scenario_default_also", scenario=scen, others=", ".join(others)) if others
                                else Note("scenario_default", scenario=scen))
    # The default division (closed) is applied, and stated, by the executor: it also knows when
    # a named system only exists in another division.

    filters = filters_of(explicit, use_rounds, parsed)
    order = "worst" if intent == "worst" or (intent == "top" and _bottom_n(r)) else "best"
    if metric == "power" and not literal:  # power words are literal: "the most power" is the worst figure
        order = "worst" if words.power_order_high(r) else "best"
    if intent == "compare":
        sides, side_column = defaults.sides(parsed, explicit, use_rounds, side_column,
                                            set(catalog.vocab.get("submitter", [])))
        if sides:
            if side_column == "side":  # sides in different columns; a vendor only qualified one of them
                side_columns = {k for f in sides for k, v in f.model_dump().items() if v} | {"accelerator_vendor"}
            else:
                side_columns = {side_column}
            base = {k: v for k, v in explicit.items() if k not in side_columns}
            base_rounds = use_rounds if side_column != "round" else []
            parsed.side_column = side_column
            parsed.spec = QuerySpec(op="compare", filters=filters_of(base, base_rounds, parsed), metric=metric,
                                    sides=sides)
            return parsed
        intent = parsed.intent = "best"
    if intent == "trend":
        parsed.spec = QuerySpec(op="trend", filters=filters, metric=metric, order="best")
        return parsed
    if intent in ("best", "top") and words.runner_up(r):  # the winner and the runner-up, and the lead
        intent = parsed.intent = "top"
        parsed.margin = True
        ctx.limit = max(ctx.limit or 0, words.top_n(r), 2)
    n = ctx.limit or (words.top_n(r) if intent == "top" else 5)
    if intent == "lookup":
        n = ctx.limit or 10
    parsed.spec = QuerySpec(op="rows", filters=filters, metric=metric, order=order, limit=_limit(n))
    return parsed


def _bottom_n(r: Reading) -> bool:
    """"The three lowest results": N from the bottom (but "the 3 lowest latencies" are the best)."""
    return words.worst(r) and not words.best(r) and not r.has("measure", "latency")


def _compare_applies(ctx: Context) -> bool:
    r = ctx.reading
    offered = words.best(r) or words.worst(r) or r.has("cue", "alternative")  # "gb300 or gb200 for ..."
    # "how many times faster was A than B": a ratio asked between two named sides
    return r.has("operation", "compare") or (ctx.two_sides and (offered or r.has("measure", "ratio")))


def _trend_applies(ctx: Context) -> bool:
    r = ctx.reading
    # "how did dell do on llama2 offline in each round": a benchmark's best per round is a trend
    per_round = r.has("scope", "per_round") and bool(ctx.benchmarks) and not r.has("operation", "count")
    return r.has("operation", "trend") or per_round or (len(ctx.rounds) >= 2 and not r.has("operation", "compare"))


@shape("size", priority=39,
       applies=lambda ctx: words.size_metric(ctx.reading) is not None and not _trend_applies(ctx)
       and not _compare_applies(ctx))
def size(ctx: Context) -> Parsed:
    """The largest (or smallest) systems by accelerators or nodes; no benchmark needed."""
    ctx.metric = words.size_metric(ctx.reading) or "total_accelerators"
    return rank(ctx, "top" if words.top_n(ctx.reading) > 1 else "best")


@shape("trend", priority=50, applies=_trend_applies)
def trend(ctx: Context) -> Parsed:
    """The best result per round for one benchmark and scenario, with the change."""
    return rank(ctx, "trend")


@shape("compare", priority=60, applies=_compare_applies)
def compare(ctx: Context) -> Parsed:
    """The best result of each named side, side by side (never across units)."""
    return rank(ctx, "compare")


@shape("top", priority=70, applies=lambda ctx: words.top_n(ctx.reading) > 1)
def top(ctx: Context) -> Parsed:
    """The N best results."""
    return rank(ctx, "top")


@shape("best_latency", priority=75,
       applies=lambda ctx: ctx.reading.has("measure", "latency") and ctx.reading.has("direction", "lowest"))
def best_latency(ctx: Context) -> Parsed:
    """The best latency (lower is better), whatever word says "best" or "lowest"."""
    return rank(ctx, "best")


@shape("spread", priority=65, applies=lambda ctx: ctx.reading.has("direction", "spread"))
def spread(ctx: Context) -> Parsed:
    """Both ends of one benchmark and scenario: the best and the lowest-ranked result."""
    ends = [rank(replace(ctx, parsed=copy.deepcopy(ctx.parsed), explicit=copy.deepcopy(ctx.explicit)), end,
                 literal=True) for end in ("best", "worst")]
    if any(end.status != "ok" for end in ends):  # a refusal or a question back says it once
        return ends[0]
    parsed = ctx.parsed
    parsed.intent, parsed.parts, parsed.explicit = "parts", ends, ends[0].explicit
    return parsed


@shape("worst", priority=80, applies=lambda ctx: words.worst(ctx.reading))
def worst(ctx: Context) -> Parsed:
    """The lowest-ranked results."""
    return rank(ctx, "worst")


@shape("best", priority=85, applies=lambda ctx: words.best(ctx.reading))
def best(ctx: Context) -> Parsed:
    """The best result (highest throughput, lowest latency)."""
    return rank(ctx, "best")


@shape("lookup", priority=90,
       applies=lambda ctx: bool(ctx.explicit.get("submitter") or ctx.explicit.get("system_name")
                                or ctx.explicit.get("platform"))
       or (ctx.reading.inherited and ctx.reading.has("cue", "pronoun", "refers")))
def lookup(ctx: Context) -> Parsed:
    """The named party's results (an overview per benchmark when no benchmark is named)."""
    return rank(ctx, "lookup")


@shape("benchmark", priority=95, applies=lambda ctx: bool(ctx.benchmarks))
def benchmark(ctx: Context) -> Parsed:
    """A benchmark named with nothing else: its best result (every result past a bound, if one is set)."""
    if any(c.column == "result" for c in ctx.reading.conditions):  # "any whisper results above 50,000?"
        ctx.limit = ctx.limit or 10
        return rank(ctx, "top")
    return rank(ctx, "best")
