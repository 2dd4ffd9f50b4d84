"""The defaults an honest answer needs when the question leaves them out: one round, one
benchmark variant, one scenario (so one unit), and the sides of a comparison. Each default is
stated in the answer's notes and in its "read as" line."""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.catalog import Catalog, Match
from assistant.notes import Note
from assistant.parsed import Parsed
from assistant.spec import Filters

_NOT_SIDES = {"round", "division", "benchmark"}


def latest(catalog: Catalog, rounds: list[str]) -> list[str]:
    """The named round (the last if several), else the latest round in the data."""
    return rounds[-1:] or ([catalog.latest_round] if catalog.latest_round else [])


def round_span(catalog: Catalog, rounds: list[str]) -> list[str]:
    """"From v4.1 to v6.1" means every round in between, not just the two named."""
    if len(rounds) < 2:
        return rounds
    i, j = catalog.rounds.index(rounds[0]), catalog.rounds.index(rounds[-1])
    return catalog.rounds[i:j + 1]


def pick_variant(parsed: Parsed, catalog: Catalog, benchmarks: list[str], rounds: list[str],
                 scenarios: list[str] | None = None, together: bool = False) -> list[str]:
    """Accuracy variants (llama2-70b-99 / -99.9): keep those run in these rounds, prefer one (one
    run in the named scenario first: bert's SingleStream results are all bert-99)."""
    present = [b for b in benchmarks if catalog.rounds_with([b]) and set(catalog.rounds_with([b])) & set(rounds)]
    bases: dict[str, list[str]] = {}
    for b in present:
        bases.setdefault(_base(b), []).append(b)
    out: list[str] = []
    said = _variant_said(parsed)
    for base, variants in bases.items():
        if len(variants) == 1:
            out.extend(variants)
            continue
        if said and f"{base}-{said}" in variants:  # "llama 2 70b offline (99.9)": the variant named apart
            out.append(f"{base}-{said}")
            continue
        # Prefer the variant present in the most of these rounds, then the stricter (-99.9) one.
        if together:  # a ranking: both accuracy targets of one model, each row saying which
            ran = [v for v in variants if not scenarios or set(scenarios) & set(catalog.scenarios_for([v], rounds))]
            if len(ran) > 1:
                parsed.notes.append(Note("variants_together", base=base, variants=", ".join(ran)))
                out.extend(ran)
                continue
        best = max(variants, key=lambda b: (not scenarios or bool(set(scenarios) & set(catalog.scenarios_for([b], rounds))),
                                            len(set(catalog.rounds_with([b])) & set(rounds)), b.endswith("99.9")))
        others = [v for v in variants if v != best]
        parsed.notes.append(Note("variants", base=base, variants=", ".join(variants), best=best,
                                 others=", ".join(others)))
        out.append(best)
    # Several distinct benchmarks (e.g. RAG: e2e-rag-db + e2e-rag-qna) mix units: keep the first.
    if len({_base(b) for b in out}) > 1:
        parsed.notes.append(Note("benchmarks_several", benchmarks=", ".join(out), shown=out[0]))
        out = out[:1]
    return out


# "(99.9)", "the 99 one", "the 99% accuracy version"; not "99% of the reference" nor "99th percentile"
_VARIANT_SAID = re.compile(r"(?<![\w.,])(99[.,]9|99)(?:(?=\s*(?:%|percent|procent)\s*(?:accuracy|noggrannhet|target|"
                           r"version|variant|mål))|(?![\w.%]|[.,]\d|\s*(?:%|percent|th)))", re.I)


def said_variant_only(benchmarks: list[str], parsed: Parsed) -> list[str]:
    """The benchmarks with, of a model named at both accuracy targets, only the one typed apart
    ("how many llama 2 70b offline (99.9) results": -99.9's), for every shape, counts too."""
    said = _variant_said(parsed)
    if not said:
        return benchmarks
    chosen = {_base(b) for b in benchmarks if b == f"{_base(b)}-{said}"}
    return [b for b in benchmarks if _base(b) not in chosen or b == f"{_base(b)}-{said}"]


def _base(benchmark: str) -> str:
    """A benchmark without its accuracy target ("llama2-70b-99.9" -> "llama2-70b")."""
    return re.sub(r"-99(?:\.9)?$", "", benchmark)


def _variant_said(parsed: Parsed) -> str | None:
    """An accuracy target typed apart from the benchmark's name ("(99.9)", "the 99 one")."""
    text = parsed.reading.text if parsed.reading is not None else ""
    found = {m.group(1).replace(",", ".") for m in _VARIANT_SAID.finditer(text)}  # sv "99,9"
    return found.pop() if len(found) == 1 else None


def default_scenario(catalog: Catalog, benchmarks: list[str], rounds: list[str], *, latency: bool) -> str | None:
    from assistant.semantics import is_latency

    scen_units = catalog.scenarios_for(benchmarks, rounds)
    if not scen_units:
        return None
    ordered = sorted(scen_units, key=lambda s: catalog.preference("scenario", s))  # the card's [order]
    if latency:
        lat = [s for s in ordered if any(is_latency(u) for u in scen_units[s])]
        if lat:
            return lat[0]
    return ordered[0]


def has_throughput(catalog: Catalog, benchmarks: list[str], rnd: str) -> bool:
    """Whether one of the benchmarks has a scenario in `rnd` whose unit is not a latency."""
    from assistant.semantics import is_latency

    return any(not is_latency(u) for units in catalog.scenarios_for(benchmarks, [rnd]).values() for u in units)


def named_twice(entities: list[Match], exclude: frozenset[str] | set[str] = _NOT_SIDES) -> str | None:
    """The first column two or more named things belong to ("Dell" and "HPE": submitter), if any."""
    cols = [m.column for m in entities if m.column not in exclude]
    return next((c for c in dict.fromkeys(cols) if cols.count(c) >= 2), None)


def two_mentions(entities: list[Match]) -> bool:
    return named_twice(entities) is not None


def distinct(groups: list) -> list:
    """Value lists with repeats merged, in first-mention order.

    A list that contains another names the same thing more broadly ("Blackwell Ultra" ->
    B300, GB300 and later "GB300"): the narrower one is kept, once.
    """
    kept: list = []
    for group in groups:
        if not group:
            kept.append(group)
            continue
        wide = next((i for i, k in enumerate(kept) if k and set(group) <= set(k)), None)
        if wide is not None:
            kept[wide] = group
        elif not any(k and set(k) <= set(group) for k in kept):
            kept.append(group)
    return kept


# The columns that can each name one side of "A vs B" on their own, most specific first.
_ONE_SIDE = ("system_name", "platform", "accelerator", "accelerator_family", "submitter", "accelerator_vendor")


def _two_named(entities: list[Match]) -> list[Match]:
    """Two mentions in different columns that each name one side; a vendor beside a more specific
    mention of its own side ("AMD Strix Halo") only qualifies it."""
    named = [m for m in entities if m.column in _ONE_SIDE]
    specific = [m for m in named if m.column != "accelerator_vendor"]
    picked = specific if len(specific) >= 2 else named
    return picked if len(picked) == 2 else []


def _by_position(parsed: Parsed, submitters: set[str]) -> list[Filters] | None:
    """"VibeHPC's DGX B300 vs the Cisco UCS C880A M8", "how much faster was A than B": what is
    named before the comparison word is one side, what is named after it the other, each side
    with every column it names. None when the word does not split the names in two."""
    r = parsed.reading
    if r is None:
        return None
    cuts = [r.tokens[t.last - 1] for t in r.tagged("operation", "compare") if t.first > 0]
    for cut in cuts:
        left = [m for m in parsed.entities if m.column in _ONE_SIDE and m.span[1] <= cut.start]
        right = [m for m in parsed.entities if m.column in _ONE_SIDE and m.span[0] >= cut.end]
        if not (left and right):
            continue
        # "the Dell 8x B300 box vs the HPE one": the side that says "one" takes the other's qualifiers
        for this, other, after in ((right, left, True), (left, right, False)):
            if any((t.start >= cut.end) == after for t in r.tagged("cue", "anaphor")):
                named = {m.column for m in this}
                this += [m for m in other if m.column not in named]
        return [_side(_as_submitter(left, right, submitters)), _side(_as_submitter(right, left, submitters))]
    return None


def _as_submitter(this: list[Match], other: list[Match], submitters: set[str]) -> list[Match]:
    """"nvidia vs nebius": a chip vendor's name set against a submitter is that company's own
    submissions, when it submitted results itself (else "AMD chips vs Dell" compares chips)."""
    if not any(m.column == "submitter" for m in other) or any(m.column == "submitter" for m in this):
        return this
    out = []
    for m in this:
        own = [v for v in m.values if v in submitters]
        if m.column == "accelerator_vendor" and own:
            m = replace(m, column="submitter", values=tuple(own[:1]))
        out.append(m)
    return out


def _side(mentions: list[Match]) -> Filters:
    columns: dict[str, list[str]] = {}
    for m in mentions:
        columns.setdefault(m.column, []).extend(v for v in m.values if v not in columns.get(m.column, []))
    return Filters(**columns)


def sides(parsed: Parsed, explicit: dict[str, list[str]], rounds: list[str],
          side_column: str | None, submitters: set[str] = frozenset()) -> tuple[list[Filters] | None, str | None]:
    """The sides of "A vs B": the names on each side of the comparison word, else the column
    named by two separate mentions (or two rounds)."""
    if side_column == "round" or (side_column is None and len(rounds) > 1 and not two_mentions(parsed.entities)):
        return [Filters(round=[r]) for r in rounds], "round"
    if side_column is None:
        placed = _by_position(parsed, submitters)
        if placed is not None and placed[0] != placed[1]:
            return placed, "side"
    per_col: dict[str, list[Match]] = {}
    for m in parsed.entities:
        if m.column not in _NOT_SIDES:
            per_col.setdefault(m.column, []).append(m)
    col = side_column if side_column in per_col else next(
        (c for c, ms in per_col.items() if len(ms) >= 2), None)
    if col is None and side_column is None:
        named = _two_named(parsed.entities)
        if named:  # "the Strix Halo desktop vs the DGX Spark": one side by system, one by chip
            return [Filters(**{m.column: list(m.values)}) for m in named], "side"
    if col is None:
        # One mention with several values ("Hopper" -> H100/H200/GH200) compares those values.
        col = next((c for c, vals in explicit.items() if len(vals) >= 2 and c not in {"benchmark", "division"}), None)
        if col is None:
            return None, None
        return [Filters(**{col: [v]}) for v in explicit[col]], col
    values = distinct([list(m.values) for m in per_col[col]])
    # Sides are disjoint: a value on several sides ("AMD+NVIDIA" systems under both AMD and
    # NVIDIA) belongs to neither, or the same result could win on both.
    shared = {v for group in values for v in group if sum(v in g for g in values) > 1}
    values = [[v for v in group if v not in shared] or group for group in values]
    if len(values) < 2:  # one entity named twice ("GB300 … the GB300 system") is not "A vs B"
        return None, None
    return [Filters(**{col: v}) for v in values], col
