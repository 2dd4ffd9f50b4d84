"""Deterministic question -> `Parsed` (a runnable `QuerySpec` plus its explanation), no model.

One pass: `assistant.reader.read` tokenises and tags the question once (lexicon words, catalog
entities, rounds, numeric conditions); this module picks the entities (one column per mention),
handles what must never be guessed (a round or an entity the data does not have) and
follow-ups, and hands the reading to the shape registry (`assistant.shapes`), whose first
applicable shape builds the spec. No regular expression here decides what a question asks:
that is the lexicon's tags and the shapes' predicates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant.catalog import Catalog, Match, compact
from assistant.notes import Note
from assistant.parsed import Parsed
from assistant.reader import Reading, parts, read
from assistant.shapes import defaults, words
from assistant.shapes.ranking import ATTRIBUTION
from assistant.shapes.registry import Context, dispatch, run
from assistant.spec import Filters, QuerySpec, Range

# "And for AMD?" after "...on MI355X": one hardware filter replaces the other.
_REPLACES = [("accelerator_family", "accelerator_vendor", "accelerator"), ("submitter", "system_name", "platform")]
# A follow-up re-runs the previous turn's shape; older turns stored an intent name.
_INTENT_SHAPES = {"best": "best", "worst": "worst", "top": "top", "lookup": "lookup", "compare": "compare",
                  "trend": "trend", "count": "count", "list": "list", "count_rank": "count_rank",
                  "overview": "overview", "attribute": "attribute", "appearances": "appearances"}


def detect_language(text: str) -> str:
    """"sv" when the question reads Swedish (å/ä/ö or Swedish function words), else "en"."""
    from assistant import lexicon

    return lexicon.detect_language(lexicon.tokenize(text), text)


# --- entity selection ----------------------------------------------------------------------

def _token_index(r: Reading, char: int) -> int:
    """The index of the first token that starts at or after character `char`."""
    return next((i for i, t in enumerate(r.tokens) if t.start >= char), len(r.tokens))


def _negated(r: Reading, span: tuple[int, int]) -> bool:
    """Whether a negation stands right before the name, or before the word "from"/"by" that
    precedes it, a verb between allowed ("not GB200", "non-NVIDIA", "not made by Dell",
    "inte kommer från NVIDIA")."""
    first = _token_index(r, span[0])
    if _cue_at(r, first - 1, "determiner"):  # "forget the nvl72 racks", "excluding the B200s"
        first -= 1
    if any(t.last == first for t in r.tagged("cue", "negation")):
        return True
    by = _by_before(r, first)
    return by is not None and any(by - 2 <= t.last <= by for t in r.tagged("cue", "negation"))


def _by_before(r: Reading, index: int) -> int | None:
    """Where a "by"/"from"/"av" right before token `index` starts ("results by NVIDIA"), or None."""
    return next((t.first for t in r.tagged("cue", "by") if t.last == index), None)


def _left_out(r: Reading) -> dict[str, list[str]]:
    """The names a negation leaves out, each in one column: the one the question groups by, a chip
    vendor when it is about chips, the submitter after "from"/"by", else the catalog's first."""
    chosen: list[Match] = []
    by_span: dict[tuple[int, int], list[Match]] = {}
    for m in r.matches:
        if m.column != "round" and _negated(r, m.span):
            by_span.setdefault(m.span, []).append(m)
    asked = {t.value for t in r.tagged("grouping")}
    chips = bool(asked & {"accelerator_family", "accelerator"}) or r.has("attribute", "accelerator")
    for group in by_span.values():
        cols = {m.column: m for m in group}
        named = [cols[c] for c in cols if c in asked]  # "submitters other than NVIDIA": the submitter
        if named:
            chosen.append(named[0])
        elif chips and "accelerator_vendor" in cols:  # "non-NVIDIA chips"
            chosen.append(cols["accelerator_vendor"])
        elif _by_before(r, _token_index(r, group[0].span[0])) is not None and "submitter" in cols:
            chosen.append(cols["submitter"])  # "results not from NVIDIA", as "results from NVIDIA" is
        else:
            chosen.append(group[0])
    return _explicit_filters(chosen)


def _choose(r: Reading) -> list[Match]:
    """One column per span: "NVIDIA" is a submitter after "by"/before "'s", a chip vendor before
    "GPUs", and dropped when a family of the same vendor is also named ("NVIDIA GB200")."""
    by_span: dict[tuple[int, int], list[Match]] = {}
    for m in r.matches:
        by_span.setdefault(m.span, []).append(m)
    families = [m for m in r.matches if m.column == "accelerator_family"]
    chosen: list[Match] = []
    for span, group in by_span.items():
        if _negated(r, span):
            continue  # "B200, not GB200", "non-NVIDIA chips": left out (`_left_out`), not asked for
        first = _token_index(r, span[0])
        if len(group) == 1:
            chosen.append(group[0])
            continue
        cols = {m.column: m for m in group}
        after = _token_index(r, span[1])
        said = group[0].text.lower()
        possessive = r.text[span[1]:span[1] + 2] in ("'s", "’s") or said.endswith(("'s", "’s")) or (
            said.endswith("s") and not group[0].alias.lower().endswith("s"))  # "nvidias"
        if "submitter" in cols and "accelerator_vendor" in cols:
            counted = r.has("operation", "count") and r.has("measure", "results")  # "how many results had X"
            by_whom = _by_before(r, first) is not None  # "results by X"
            acted = any(t.first == after for t in r.tagged("cue", "acted"))  # "the benchmarks X ran": X did it
            # ... or, in Swedish word order, "vilka benchmarks körde intel" (not "which systems ran nvidia gpus")
            acted = acted or (any(t.last == first for t in r.tagged("cue", "acted"))
                              and not any(t.first == after for t in r.tags if t.kind in ("grouping", "attribute")))
            if by_whom or possessive or acted or r.has("operation", "submit") \
                    or (counted and not families and not any(t.first == after for t in r.tagged("grouping"))):
                chosen.append(cols["submitter"])
            elif any(t.first == after for t in r.tags if t.kind in ("grouping", "attribute")
                     and t.value in ("accelerator_family", "total_accelerators", "accelerator", "host_processor")):
                chosen.append(cols["accelerator_vendor"])
            elif families:
                continue  # "NVIDIA GB200": the family already says it
            else:
                chosen.append(cols["accelerator_vendor"])
            continue
        chosen.append(group[0])
    return sorted(_machines_not_scenarios(r, chosen), key=lambda m: m.span)


def _cue_at(r: Reading, i: int, value: str) -> bool:
    return any(t.value == value and t.first == i for t in r.tagged("cue"))


def _machines_not_scenarios(r: Reading, chosen: list[Match]) -> list[Match]:
    """Lowercase "server" is a machine, not the Server scenario, when a chip, system, size or
    article stands right before it ("mi355x vs b300 offline, single 8 gpu server"), unless a
    figure word follows it ("an offline number with a server number")."""
    out = []
    for m in chosen:
        if m.column == "scenario" and m.text in ("server", "servers"):
            i = _token_index(r, m.span[0])
            before = {e.column for e in chosen if e is not m and _token_index(r, e.span[1]) in (i, i + 1)
                      and e.span[1] <= m.span[0]}
            if before & {"accelerator_family", "accelerator", "system_name", "platform", "submitter",
                         "accelerator_vendor"} or r.tag_at(i - 1, "unit") is not None:
                continue
            if _cue_at(r, i - 1, "determiner") and not _cue_at(r, _token_index(r, m.span[1]), "scenario_figure"):
                continue
        out.append(m)
    return out


def _explicit_filters(matches: list[Match]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in matches:
        if m.column == "round":
            continue
        out.setdefault(m.column, [])
        out[m.column].extend(v for v in m.values if v not in out[m.column])
    return out


# --- the parser ---------------------------------------------------------------------------


def _ranges(r: Reading) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """Numeric conditions as spec ranges, plus the unit a condition on the result implies."""
    ranges: dict[str, dict[str, float]] = {}
    units: dict[str, list[str]] = {}
    for c in r.conditions:
        bounds = {k: v for k, v in (("min", c.min), ("max", c.max)) if v is not None}
        ranges.setdefault(c.column, {}).update(bounds)
        if c.units:
            units["units"] = [c.units]
    return ranges, units


# --- the parser ---------------------------------------------------------------------------

def parse(question: str, catalog: Catalog, *, previous: dict[str, Any] | None = None,
          inherit: Parsed | None = None, split: bool = True) -> Parsed:
    """Question -> Parsed. `previous` is the `Parsed.state()` of the last turn, for follow-ups;
    `inherit` is the first part of a two-part question, whose filters the second part keeps
    unless it names its own ("which systems used MI355X, and what did they score?"). A part is
    never split again (split=False), so a long "and" list costs two readings, not one per "and"."""
    return _parse(read(question, catalog), catalog, previous=previous, inherit=inherit, split=split)


def _parse(r: Reading, catalog: Catalog, *, previous: dict[str, Any] | None = None,
           inherit: Parsed | None = None, split: bool = True) -> Parsed:
    # "Which submitter was that, and how many GPUs did it use?" asks about the previous rows: one question.
    if split and inherit is None and not (previous and _field_question(r, {})):
        texts = parts(r)
        second = read(texts[1], catalog) if texts else None
        # "... and how many GPUs did it use?" asks a field of the first part's answer, which
        # states it: one question, not two ("and which intel gpu made its first appearance" names
        # what it asks about: a question of its own).
        field = second is not None and _field_question(second, {}) and not any(
            m.column != "round" for m in second.matches)
        if second is not None and not field and not _says_more_of_a_term(r, second):
            return _two_parts(r, texts[0], second, catalog, previous)
    r = _round_before(_remarks_rank_nothing(r), catalog, previous)
    text, lang = r.text, r.language
    entities = _choose(r)
    explicit = _asked_whether(r, _explicit_filters(entities), catalog)
    ranges, units = _ranges(r)
    explicit.update(units)
    if inherit is not None:
        _inherit(r, explicit, ranges, inherit)
    parsed = Parsed(intent="unknown", spec=None, entities=entities, language=lang,
                    needs_commentary=words.needs_commentary(r), explicit=explicit, ranges=ranges,
                    has_power=True if r.has("scope", "power_runs") or (inherit and inherit.has_power) else None,
                    excluded=_left_out(r),
                    claimed=claimed_numbers(text),
                    reading=r)
    if explicit.get("benchmark"):
        explicit["benchmark"] = defaults.said_variant_only(explicit["benchmark"], parsed)
    if parsed.excluded:
        parsed.notes.append(Note("excluded", what="; ".join(f"{c.replace('_', ' ')} {', '.join(v)}"
                                                           for c, v in parsed.excluded.items())))
    # "how many results has HPE submitted since v1.0, according to its statement": a document's
    # words may name any round; only a question for the table needs the round in the data.
    if r.unknown_rounds and not parsed.needs_commentary:
        parsed.status = "no_data"
        have = ", ".join(catalog.rounds)
        parsed.message = parsed.say(f"There is no MLPerf Inference round {', '.join(r.unknown_rounds)} in the data "
                                    f"(rounds ingested: {have}).",
                                    f"Det finns ingen MLPerf Inference-runda {', '.join(r.unknown_rounds)} i datan "
                                    f"(inlästa rundor: {have}).")
        return parsed

    chips = catalog.unknown_entities(text, r.matches)
    lexicon_spans = [(t.start, t.end) for t in r.tags if t.kind in _READ_AS_NO_NAME]
    orgs = [o for o in _unknown_submitters(text, r.matches, lexicon_spans)
            if o.lower() not in {c.lower() for c in chips}]
    if (chips or orgs) and not parsed.needs_commentary and not _absent_terms_defined(r, chips, orgs, catalog):
        parsed.status, parsed.unknown = "no_data", chips + orgs
        column = "accelerator_family" if chips else "submitter"
        near = catalog.suggest(column, (chips or orgs)[0], 5, cutoff=60)
        kind_en = "accelerator families" if chips else "submitters"
        kind_sv = "acceleratorfamiljer" if chips else "inskickare"
        parsed.message = parsed.say(f"The data has no results for {', '.join(chips + orgs)}"
                                    + (f" (closest {kind_en} in the data: {', '.join(near)})." if near else "."),
                                    f"Datan har inga resultat för {', '.join(chips + orgs)}"
                                    + (f" (närmaste {kind_sv} i datan: {', '.join(near)})." if near else "."))
        return parsed

    rounds = list(r.known_rounds) or list(explicit.pop("round", []))
    ctx = Context(reading=r, parsed=parsed, catalog=catalog, explicit=explicit, rounds=rounds,
                  two_sides=defaults.two_mentions(entities),
                  inherited_column=inherit.count_column if inherit else None)
    # "and how did that same system do on llama 3.1 8b offline?": the previous answer's system, on
    # what this turn names (its own question, not the previous one with a filter changed)
    shown = (previous or {}).get("shown") or {}
    if r.has("cue", "same_system") and shown.get("platform") and explicit \
            and not any(explicit.get(c) for c in words.PARTIES):
        explicit.update({c: list(v) for c, v in shown.items() if c != "round"})
        rounds = ctx.rounds = rounds or list(shown.get("round") or [])
        previous = None
    # Follow-ups: a question about the previous rows, or the previous question with a changed filter.
    if previous:
        if r.has("measure", *_DERIVED) and r.has("cue", "pronoun", "followup", "pointing") \
                and not explicit.get("benchmark") and len(r.tokens) <= DERIVED_FOLLOWUP_WORDS:
            return _followup(ctx, _derived(r, previous, shown))
        field_name = _field_question(r, explicit) or _bare_field(r, explicit)
        if field_name:
            parsed.intent, parsed.field, parsed.followup = "field", field_name, True
            return parsed
        if words.is_followup(r, explicit, r.known_rounds):
            return _followup(ctx, previous)

    if rounds:
        parsed.explicit = dict(explicit, round=rounds)
    ctx.metric = words.metric(r)
    ctx.explicit = {k: list(v) for k, v in explicit.items() if k != "round"}
    return dispatch(ctx)


def _asked_whether(r: Reading, explicit: dict[str, list[str]], catalog: Catalog) -> dict[str, list[str]]:
    """"how did vera rubin do on deepseek server? can i buy it yet?", "naeem khoshnevis results -
    are those available systems?": a value of a column a question may ask about (availability,
    division, system type), named in a later clause that asks whether it holds, filters nothing:
    the answer states each row's value."""
    from assistant.shapes.documents import CLAUSE_OR_DASH
    from assistant.shapes.entity import CHOICES

    cuts = [0] + [m.end() for m in CLAUSE_OR_DASH.finditer(r.text)] + [len(r.text)]
    spans = [(a, b) for a, b in zip(cuts, cuts[1:]) if r.text[a:b].strip()]
    openers = catalog.lexicon(r.language).phrases("cue", "asks_whether")
    asked = set()
    for m in r.matches:
        a, b = next(((a, b) for a, b in spans if a <= m.span[0] < b), spans[0] if spans else (0, 0))
        if m.column in CHOICES and a > spans[0][0] and r.text[a:b].rstrip().endswith("?") \
                and any(r.text[a:m.span[1]].lower().lstrip(" -–—").startswith(p) for p in openers):
            asked.add(m.column)
    return {c: v for c, v in explicit.items() if c not in asked}


ROUND_AFTER_CUE = 8  # characters between "the round before" and the round it counts from ("innan v6.1")


def _round_before(r: Reading, catalog: Catalog, previous: dict[str, Any] | None) -> Reading:
    """"the round before v6.1", "and the same thing one round before that?", "förra rundan": the
    ingested round before the one named, else before the previous answer's round, else before the
    latest, read as if the question named it."""
    cue = next(iter(r.tagged("cue", "round_before")), None)
    if cue is None or words.needs_commentary(r):  # "higher than the previous round, per Lambda": their words
        return r
    from dataclasses import replace

    state = previous or {}
    base = r.known_rounds[-1:] or list((state.get("explicit") or {}).get("round") or []) \
        or list((state.get("shown") or {}).get("round") or []) or [catalog.latest_round]
    before = catalog.previous_round(base[-1]) if base[-1] else None
    if before is None:
        return r
    # "in v6.1 … than the previous round": a round named apart from the cue is compared with the
    # round before it; "the round before v6.1" names the round the cue counts from
    counted_from = any(m.column == "round" and 0 <= m.span[0] - cue.end <= ROUND_AFTER_CUE for m in r.matches)
    if r.known_rounds and not counted_from:
        return replace(r, known_rounds=[before, *r.known_rounds])
    return replace(r, known_rounds=[before], matches=[m for m in r.matches if m.column != "round"])


# Tags a remark clause's words may not add to the reading: a ranking or an operation there is what
# the user heard, not what they ask ("... how many results? read somewhere it was a record").
_REMARK_DROPS = ("direction", "operation")


def _remarks_rank_nothing(r: Reading) -> Reading:
    """The reading without the rankings and operations of its remark clauses ("i read …",
    "läste nånstans …"); names there stay, as the question may be about them."""
    from assistant.shapes.documents import drop_in_remarks

    return drop_in_remarks(r, _REMARK_DROPS)


def _absent_terms_defined(r: Reading, chips: list[str], orgs: list[str], catalog: Catalog) -> bool:
    """"There's a 'network' division too?? what does that one measure": a term the data has no rows
    for (a division, scenario or benchmark) asked what it means is a question for the guide."""
    from assistant.shapes.documents import TERMS

    return r.has("cue", "define") and not orgs and bool(chips) and all(
        catalog.absent_columns.get(compact(name)) in TERMS for name in chips)


def _says_more_of_a_term(r: Reading, second: Reading) -> bool:
    """"What is a result id, and what does one look like?": a definition whose second part names
    nothing of its own asks more about the same term, so it is one question for the guide."""
    asks = ("measure", "operation", "direction", "grouping", "attribute", "scope")
    return r.has("cue", "define") and not second.matches and not second.known_rounds and not second.conditions \
        and not any(second.has(kind) for kind in asks)


def _two_parts(r: Reading, first_text: str, second_r: Reading, catalog: Catalog,
               previous: dict[str, Any] | None) -> Parsed:
    """A question holding two: each part is read on its own, the second keeping the first's scope.
    A first part that asks nothing ("Thank you. Also, how many ...?") is dropped."""
    first = parse(first_text, catalog, previous=previous, split=False)  # a part is never split again
    if first.status == "clarify":
        return _parse(second_r, catalog, previous=previous, split=False)
    second = _parse(second_r, catalog, inherit=first)
    return Parsed(intent="parts", spec=None, entities=first.entities + second.entities, language=r.language,
                  needs_commentary=words.needs_commentary(r), explicit=first.explicit, reading=r, shape="parts",
                  parts=[first, second])


def _inherit(r: Reading, explicit: dict[str, list[str]], ranges: dict[str, dict[str, float]], first: Parsed) -> None:
    """The second part keeps the first part's filters and rounds where it names none itself."""
    for col, vals in first.explicit.items():
        if col.startswith("_") or col in explicit:
            continue
        if any(col in group and any(c in explicit for c in group) for group in _REPLACES):
            continue
        explicit[col] = list(vals)
    if r.known_rounds:
        explicit.pop("round", None)
    for col, bounds in first.ranges.items():
        ranges.setdefault(col, dict(bounds))
    r.inherited = True


ORDINAL_LIMIT = 5  # places a ranking shows for "and which came second?" (the lexicon's ordinals go to fifth)


# Measures a follow-up derives from the figure just shown ("what's that per gpu?", "and per watt?").
_DERIVED = {"per_accelerator": "result_per_accelerator", "efficiency": "efficiency"}
DERIVED_FOLLOWUP_WORDS = 12  # longer, it is a question of its own


def _derived(r: Reading, previous: dict[str, Any], shown: dict[str, list[Any]]) -> dict[str, Any]:
    """The previous question with a derived metric. "that" is the figure just shown, so the system
    of the previous answer's first row, derived ("what's that per gpu" after the best result: that
    system's result per GPU, not the best per-GPU result); "those" / "dom" re-rank them all."""
    metric = next(m for measure, m in _DERIVED.items() if r.has("measure", measure))
    if not shown.get("platform") or r.has("cue", "those"):
        return dict(previous, metric=metric)
    explicit = {**(previous.get("explicit") or {}), **{c: list(v) for c, v in shown.items()}}
    return dict(previous, metric=metric, explicit=explicit, shape="best", intent="best")


def _followup(ctx: Context, previous: dict[str, Any]) -> Parsed:
    """The previous question with this turn's filters changed ("and for AMD?", "in v5.1?")."""
    parsed, r = ctx.parsed, ctx.reading
    merged = dict(previous.get("explicit") or {})
    for col, vals in ctx.explicit.items():
        for group in _REPLACES:
            if col in group:
                for other in group:
                    merged.pop(other, None)
        merged[col] = vals
    if r.known_rounds:
        merged["round"] = r.known_rounds
    parsed.explicit = merged
    parsed.followup = True
    parsed.ranges = {**(previous.get("ranges") or {}), **parsed.ranges}
    parsed.has_power = parsed.has_power or previous.get("has_power")
    parsed.excluded = parsed.excluded or {k: list(v) for k, v in (previous.get("excluded") or {}).items()}
    ctx.rounds = merged.pop("round", None) or []
    ctx.explicit = {k: list(v) for k, v in merged.items() if k != "round"}
    ctx.metric = previous.get("metric") or "result"
    ctx.limit = previous.get("limit")
    ctx.side_column = previous.get("side_column")
    ctx.count_column = previous.get("count_column")
    name = _INTENT_SHAPES.get(previous.get("shape") or previous.get("intent") or "best", "best")
    if (r.top_n or r.has("direction", "ordinal")) and name in ("best", "worst", "top", "lookup", "benchmark",
                                                                "best_latency"):
        name, ctx.limit = "top", r.top_n or ORDINAL_LIMIT  # "show the top 3", "and the second?"
    return run(name, ctx)


def _bare_field(r: Reading, explicit: dict[str, list[str]]) -> str | None:
    """"How many nodes?" right after an answer, naming nothing: a field of its rows."""
    if explicit or r.known_rounds or len(r.tokens) > 5 or not r.has("attribute") or r.has("direction", "ordinal"):
        return None  # "and who came second?" asks a place in the ranking, not a field of its rows
    return _field_question(r, explicit, pronoun=False)


def _field_question(r: Reading, explicit: dict[str, list[str]], *, pronoun: bool = True) -> str | None:
    """"How many nodes did it have?": a field of the previous answer's rows."""
    if explicit.get("benchmark") or (pronoun and not r.has("cue", "pronoun")):
        return None
    order = ("number_of_nodes", "total_accelerators", "host_processor", "framework", "precision", "availability",
             "system_name", "accelerator", "submitter")
    named = r.values("attribute") + (["availability"] if any(m.column == "availability" for m in r.matches) else [])
    return next((f for f in order if f in named), None)


_BY_NAME = re.compile(r"\b(?:by|from|for|submitted by|av|från|för)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?)")
_NOT_NAMES = {"the", "a", "an", "den", "det", "de", "round", "rundan", "v", "mlperf", "mlcommons"}


# Tag kinds whose words are the lexicon's own (a measure, a unit, a scenario word): "for Latency (ms)
# results" names the latency measure, capitalised or not, never an organisation.
_READ_AS_NO_NAME = ("measure", "unit", "attribute", "grouping", "direction", "operation")


def _unknown_submitters(text: str, matches: list[Match], read: Sequence[tuple[int, int]] = ()) -> list[str]:
    """"Best result by Cerebras", "who submitted for Stevens Institute": a capitalised name after
    by/from/for that the catalog does not know is an organisation with no results here; answering
    with everyone's best would be a guess. A name whose first word the lexicon reads (`read`, spans
    of its tags) is no organisation."""
    out = []
    for m in _BY_NAME.finditer(text):
        start, end = m.span(1)
        if m.group(1).split()[0].lower() in _NOT_NAMES:
            continue
        if any(s < end and start < e for s, e in (x.span for x in matches)):
            continue
        if any(s <= start < e for s, e in read):
            continue
        # "Netweb from India": a place after a company the data knows says where it is from
        if any(not text[x.span[1]:m.start()].strip() for x in matches if x.column in _ORGANISATION_COLUMNS):
            continue
        out.append(m.group(1))
    return out


_ORGANISATION_COLUMNS = ("submitter", "accelerator_vendor")



_CLAIMED = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{4,}(?:\.\d+)?)(?![\w,]|\.\d)")


def claimed_numbers(text: str) -> list[float]:
    """Result-sized figures quoted in a question ("1,046,150 tokens/s"): thousands-grouped or 4+ digits,
    so model sizes (70B), rounds (6.1) and GPU counts (512) are not mistaken for claims, nor years
    after a month or "since" ("August 2024", "since 2021")."""
    out = []
    for m in _CLAIMED.finditer(text):
        raw = m.group(1)
        if raw.isdigit() and _YEARS[0] <= int(raw) <= _YEARS[1] and _YEAR_BEFORE.search(text[:m.start()]):
            continue
        out.append(float(raw.replace(",", "")))
    return out


# "the August 2024 round", "since 2021", "sedan 2021": a year, not a claimed figure
_YEAR_BEFORE = re.compile(r"(?:january|february|march|april|may|june|july|august|september|october|november|"
                          r"december|januari|februari|mars|maj|juni|juli|augusti|oktober|since|in|from|until|till|"
                          r"sedan|i|från|år|year)\s+$", re.IGNORECASE)
_YEARS = (1990, 2099)



def with_scope(spec: QuerySpec, scope: dict[str, list[str]] | None) -> QuerySpec:
    """Merge UI sidebar scope filters into a spec; the question's own filters win."""
    if not scope:
        return spec
    data = spec.filters.model_dump()
    for key, vals in scope.items():
        if key in Filters.model_fields and vals and not data.get(key):
            data[key] = list(vals)
    filters = Filters(**{k: v for k, v in data.items() if v is not None})
    update: dict[str, Any] = {"filters": filters}
    if spec.other is not None and scope.get("round") is None:
        update["other"] = spec.other
    return spec.model_copy(update=update)


__all__ = ["Parsed", "parse", "detect_language", "with_scope", "FIELDS", "Range"]


__all__ = ["Parsed", "parse", "detect_language", "with_scope", "claimed_numbers", "ATTRIBUTION", "Range"]
