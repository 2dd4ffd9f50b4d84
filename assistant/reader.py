"""Read a question once: tokens, lexicon tags, entity mentions, rounds and numeric conditions.

`read()` is the only place that looks at the raw words. Everything after it (the shapes that
turn a reading into a `QuerySpec`, the composer, the agent's checks) asks the `Reading`:
"does it say 'most'?", "which columns does it name?", "which numeric conditions?". So a new
question shape is a lexicon entry plus a shape function, never another regular expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant import lexicon, units
from assistant.catalog import Catalog, Match
from assistant.lexicon import Tag, Token

# Columns a numeric condition may bound, and whether their values are whole numbers (then
# "more than 64" means at least 65).
_WHOLE = {"total_accelerators", "number_of_nodes", "accelerators_per_node"}
# Scopes that are numeric conditions: (scope tag, column, (min, max)).
_SCOPES = [("multi_node", "number_of_nodes", (2, None)), ("single_node", "number_of_nodes", (None, 1)),
           ("single_accelerator", "total_accelerators", (1, 1))]


@dataclass(frozen=True)
class Condition:
    """A numeric condition the question states ("more than 64 accelerators" -> min 65)."""

    column: str
    min: float | None
    max: float | None
    text: str  # the words that said it
    units: str | None = None  # for conditions on the result itself ("under 10 ms")


@dataclass
class Reading:
    """What one question says, before any decision about what to run."""

    text: str
    language: str
    tokens: list[Token]
    tags: list[Tag]
    matches: list[Match]  # every catalog match, all columns of ambiguous spans
    known_rounds: list[str] = field(default_factory=list)
    unknown_rounds: list[str] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    top_n: int | None = None
    inherited: bool = False  # the second part of a two-part question: "they" means the first part's rows
    publishers: list[str] = field(default_factory=list)  # document publishers named ("ieee spectrum")
    # Rounded figures of the result stated with no comparator ("1.55 million tokens/s"), as the
    # interval their rounding allows: a claim to check, never a filter.
    stated: list[Condition] = field(default_factory=list)

    def has(self, kind: str, *values: str) -> bool:
        """True when a tag of `kind` (with one of `values`, if given) is in the question."""
        return any(t.kind == kind and (not values or t.value in values) for t in self.tags)

    def tagged(self, kind: str, *values: str) -> list[Tag]:
        return [t for t in self.tags if t.kind == kind and (not values or t.value in values)]

    def values(self, kind: str) -> list[str]:
        """The distinct values of `kind` in the order the question says them."""
        return list(dict.fromkeys(t.value for t in self.tags if t.kind == kind))

    def tag_at(self, index: int, kind: str) -> Tag | None:
        """The tag of `kind` that starts at token `index`, longest first."""
        return next((t for t in self.tags if t.kind == kind and t.first == index), None)

    def word(self, index: int) -> str:
        return self.tokens[index].text if 0 <= index < len(self.tokens) else ""


def _outside_entities(tags: list[Tag], matches: list[Match]) -> list[Tag]:
    """Tags inside an entity name say nothing about the question ("Server" in a system name)."""
    spans = [m.span for m in matches]
    return [t for t in tags if not any(s <= t.start and t.end <= e for s, e in spans)]


# A phrase of one kind hides what its words mean in another: "at least" is a comparator, not the
# direction "least"; "single node" is a scope, not a question about nodes; "tokens per second" is a
# measure, not the ordinal "second" (but "most power" keeps its ranking word). "kind:value" hides
# only that value.
_SHADOWS = {"comparator": ("direction",), "scope": ("attribute",), "measure": ("direction:ordinal",)}


def _shadowed(tags: list[Tag], tokens: list[Token], lex: lexicon.Lexicon) -> list[Tag]:
    """Tags hidden under a phrase of another kind. A comparator hides only when a number stands
    by it: Swedish "högst" is "at most" in "högst 8 GPU:er" but "highest" in "högst resultat"."""
    def active(t: Tag) -> bool:
        if t.kind != "comparator":
            return True
        return _quantity(tokens, t.last, lex, tags) is not None or _quantity(tokens, t.first - 1, lex, tags) is not None

    tags = [t for t in tags if active(t)]  # a comparator with no number by it says nothing ("from", "with")
    covers = [(t.first, t.last, hidden) for t in tags for hidden in _SHADOWS.get(t.kind, ())]
    return [t for t in tags if not any(hidden in (t.kind, f"{t.kind}:{t.value}") and first <= t.first
                                       and t.last <= last for first, last, hidden in covers)]


def _which_noun(tags: list[Tag]) -> list[Tag]:
    """"vilka benchmarks körde google": Swedish "vilka" is both "who" and "which"; with a noun of
    another column right after it ("benchmarks", "system") it asks which of those, so the "who …
    ran" operation, which asks for submitters, is not there."""
    nouns = {t.first for t in tags if t.kind == "grouping" and t.value != "submitter"}
    return [t for t in tags if not (t.kind == "operation" and t.value == "who" and t.first + 1 in nouns)]


def _scenario_figures(tags: list[Tag], matches: list[Match], text: str) -> list[Tag]:
    """"the offline number of one box next to the server number of another": a scenario right
    before "number of" makes it that scenario's figure, not a count ("the number of results")."""
    ends = [m.span[1] for m in matches if m.column == "scenario"]
    return [t for t in tags if not (t.kind == "operation" and t.value == "count"
                                    and any(not text[e:t.start].strip() for e in ends if e <= t.start))]


def _cue(tags: list[Tag], value: str, i: int) -> bool:
    """Whether a cue tag of `value` starts at token i."""
    return any(t.kind == "cue" and t.value == value and t.first == i for t in tags)


def _quantity(tokens: list[Token], i: int, lex: lexicon.Lexicon, tags: list[Tag]) -> tuple[float, int] | None:
    """The number at token i, times a scale word after it ("1 million", "1.5m", "2k"), and the
    index of the token after it; None when token i is not a number."""
    if not 0 <= i < len(tokens):
        return None
    n = lexicon.number_value(tokens[i].text, lex.numbers, lex.scales)
    if n is None and _cue(tags, "one", i) and i + 1 < len(tokens) and tokens[i + 1].text in lex.scales:
        n = 1.0  # "a million"
    if n is None:
        return None
    scale = lex.scales.get(tokens[i + 1].text) if i + 1 < len(tokens) else None
    return (n * scale, i + 2) if scale else (n, i + 1)


def _unit_after(tags: list[Tag], i: int) -> Tag | None:
    """The unit tag that starts at token i or i+1 ("64 GPUs", "64 H100 GPUs"), longest first."""
    for j in (i, i + 1):
        hits = [t for t in tags if t.kind == "unit" and t.first == j]
        if hits:
            return max(hits, key=lambda t: t.last - t.first)
    return None


def _bound(kind: str, n: float, whole: bool) -> tuple[float | None, float | None]:
    step = 1 if whole else 0
    return {"gt": (n + step, None), "ge": (n, None), "lt": (None, n - step), "le": (None, n),
            "eq": (n, n)}[kind]


def _condition(kind: str, n: float, unit: Tag, tokens: list[Token], first: int) -> Condition:
    column = "result" if units.is_result_bound(unit.value) else unit.value
    lo, hi = _bound(kind, n, column in _WHOLE)
    return Condition(column, lo, hi, " ".join(t.text for t in tokens[first:unit.last]), units.bound_unit(unit.value))


# A rounded figure stands for the values one unit of its last digit either side allows (writers
# round and truncate: 1,555,110 is written "1.55 million"), but never more than this share of it
# ("1 million" is 950,000 to 1,050,000, not 0 to 2,000,000).
ROUNDING_SHARE = 0.05


def _stated(text: str, tags: list[Tag], tokens: list[Token], lex: lexicon.Lexicon,
            conditions: list[Condition]) -> list[Condition]:
    """Figures of the result written rounded with a scale word ("1.55 million tokens/s", "1m
    tokens/s", "1,55 miljoner tokens/s") and no comparator: the interval of values that round to them."""
    if any(c.column == "result" for c in conditions):
        return []
    out = []
    for i, tok in enumerate(tokens):
        q = _quantity(tokens, i, lex, tags)
        scaled = q is not None and (q[1] == i + 2 or lexicon.number_value(tok.text, lex.numbers) is None)
        unit = _unit_after(tags, q[1]) if q and scaled else None
        if unit is None or not units.is_result_bound(unit.value):
            continue
        digits = re.match(r"\d+(?:\.(\d+))?", tok.text)
        if digits is None or not float(digits.group(0)):  # "0 million" states no figure
            continue
        scale, whole, decimals, first = q[0] / float(digits.group(0)), digits.group(0), digits.group(1) or "", i
        if i and tokens[i - 1].text.isdigit() and text[tokens[i - 1].end:tok.start] == "," and not decimals:
            # a decimal comma: "1,55 miljoner", "1,5m"
            whole, decimals, first = f"{tokens[i - 1].text}.{digits.group(0)}", digits.group(0), i - 1
        value = float(whole) * scale
        tol = min(10 ** -len(decimals) * scale, ROUNDING_SHARE * value)
        said = text[tokens[first].start:tokens[unit.last - 1].end]
        out.append(Condition("result", value - tol, value + tol, said, units.bound_unit(unit.value)))
    return out


def _conditions(text: str, tags: list[Tag], tokens: list[Token], lex: lexicon.Lexicon,
                bare_is_result: bool = False) -> list[Condition]:
    """Numeric conditions: comparator + number + unit ("more than 64 accelerators", "under 10 ms",
    "above 1 million tokens/s"), "64 or more GPUs", exact counts ("with 8 GPUs", "on just one
    GPU", "72 GPUs each"), and the scopes "multi-node", "single node", "single GPU"."""
    out: list[Condition] = _ranges(tags, tokens, lex)
    for comp in (t for t in tags if t.kind == "comparator" and t.value != "between"):
        q = _quantity(tokens, comp.last, lex, tags)  # "more than 64 …"
        unit = _unit_after(tags, q[1]) if q else None
        first = comp.first
        if q is None and comp.value != "eq":  # "64 or more GPUs"
            q = _quantity(tokens, comp.first - 1, lex, tags)
            unit = _unit_after(tags, comp.last) if q else None
            first = comp.first - 1
        if q is not None and unit is not None and not (comp.value == "eq" and units.is_result_bound(unit.value)):
            out.append(_condition(comp.value, q[0], unit, tokens, first))
        elif q is not None and unit is None and bare_is_result and comp.value in ("gt", "ge", "lt", "le"):
            lo, hi = _bound(comp.value, q[0], False)  # "over 150k on llama 3.1 8b": the benchmark's result
            out.append(Condition("result", lo, hi, " ".join(t.text for t in tokens[first:q[1]])))
    for i in range(len(tokens)):
        q = _quantity(tokens, i, lex, tags)
        unit = _unit_after(tags, q[1]) if q else None
        if not (q and unit and unit.value in _WHOLE):
            continue
        each = _cue(tags, "each", unit.last)  # "72 GPUs each"
        hyphen = q[1] == unit.first and text[tokens[q[1] - 1].end:tokens[unit.first].start] == "-"  # "72-GPU"
        if each or hyphen:
            out.append(_condition("eq", q[0], unit, tokens, i))
    for scope, column, (lo, hi) in _SCOPES:
        hit = next((t for t in tags if t.kind == "scope" and t.value == scope), None)
        if hit:
            out.append(Condition(column, lo, hi, hit.phrase))
    kept: dict[str, Condition] = {}
    for c in out:  # one condition per column: the first the question states
        kept.setdefault(c.column, c)
    return list(kept.values())




def _ranges(tags: list[Tag], tokens: list[Token], lex: lexicon.Lexicon) -> list[Condition]:
    """"between 9 and 16 GPUs", "from 2 to 4 nodes", "2 to 4 nodes": both bounds."""
    out = []
    for i in range(len(tokens)):
        low = _quantity(tokens, i, lex, tags)
        if low is None or not _cue(tags, "range_to", low[1]):
            continue
        high = _quantity(tokens, low[1] + 1, lex, tags)
        unit = _unit_after(tags, high[1]) if high else None
        if high is None or unit is None or high[0] < low[0]:
            continue
        first = i - 1 if any(t.kind == "comparator" and t.value == "between" and t.last == i for t in tags) else i
        column = "result" if units.is_result_bound(unit.value) else unit.value
        out.append(Condition(column, low[0], high[0], " ".join(t.text for t in tokens[max(first, 0):unit.last]),
                             units.bound_unit(unit.value)))
    return out


def _top_n(tags: list[Tag], tokens: list[Token], lex: lexicon.Lexicon) -> int | None:
    for t in tags:
        if t.kind == "direction" and t.value == "top_n":
            for tok in tokens[t.first:t.last]:
                n = lexicon.number_value(tok.text, lex.numbers)
                if n is not None and 1 <= n <= 100 and float(n).is_integer():
                    return int(n)
    return None


# Organisation columns: a name there can be who a figure is attributed to ("…, per NVIDIA?").
_ORGANISATIONS = ("submitter", "accelerator_vendor")


def _attributed(text: str, tags: list[Tag], tokens: list[Token], matches: list[Match],
                publishers: list[tuple[int, int]]) -> list[Tag]:
    """"how much did dynamo raise throughput, per NVIDIA?": an `attributed` cue ("per") right before
    an organisation's name that ends its clause says whose figure it is, as "according to" does; it
    is a source cue then, not a count per value ("per gpu", "per benchmark" name no organisation)."""
    names = [m.span for m in matches if m.column in _ORGANISATIONS] + publishers
    out = list(tags)
    for t in [t for t in tags if t.kind == "cue" and t.value == "attributed"]:
        name = next(((s, e) for s, e in names if s >= t.end and not text[t.end:s].strip()), None)
        if name is None or text[name[1]:].strip()[:1] not in ("", "?", "!", ".", ",", ";", ")"):
            continue
        out = [u for u in out if not (u.first == t.first and u.kind == "cue"
                                      and u.value in ("group_each", "attributed"))]
        out.append(Tag("cue", "source", t.first, _token_index(tokens, name[1] - 1) + 1, t.start, name[1],
                       text[t.start:name[1]].lower()))
    return out


def read(question: str, catalog: Catalog) -> Reading:
    """Tokens, tags (outside entity names), entity matches, rounds, conditions and top-N."""
    text = question.strip()
    tokens = lexicon.tokenize(text)
    language = lexicon.detect_language(tokens, text)
    lex = catalog.lexicon(language)
    tokens = lex.corrected(tokens)  # "diffrent" is "different" to every later step, not only the tagger
    publishers = catalog.publisher_mentions(text)
    # "nand research's table": a word inside a longer publisher name is part of the name, not the
    # value it would be alone ("research" is rdi); a name that is the whole publisher ("amd") stays
    matches = [m for m in catalog.resolve(text)
               if not any(s <= m.span[0] and m.span[1] <= e and e - s > m.span[1] - m.span[0]
                          for _, (s, e) in publishers)]
    tags = _scenario_figures(_which_noun(_shadowed(_outside_entities(lex.tag(tokens), matches), tokens, lex)),
                             matches, text)
    known, unknown = catalog.round_mentions(text)
    for m in matches:
        if m.column == "round":
            known.extend(v for v in m.values if v not in known)
    known = [r for r in catalog.rounds if r in known]  # oldest first
    benchmark_named = any(m.column == "benchmark" for m in matches)
    conditions = _conditions(text, tags, tokens, lex, bare_is_result=benchmark_named) + _per_node(tokens, matches)
    tags += [Tag("cue", "source", _token_index(tokens, s), _token_index(tokens, e - 1) + 1, s, e, name)
             for name, (s, e) in publishers]
    tags = _attributed(text, tags, tokens, matches, [span for _, span in publishers])
    return Reading(text=text, language=language, tokens=tokens, tags=tags, matches=matches,
                   known_rounds=known, unknown_rounds=unknown, conditions=conditions, top_n=_top_n(tags, tokens, lex),
                   publishers=[name for name, _ in publishers],
                   stated=_stated(text, tags, tokens, lex, conditions))


def _token_index(tokens: list[Token], char: int) -> int:
    return next((i for i, t in enumerate(tokens) if t.start <= char < t.end or t.start >= char), len(tokens) - 1)


_TIMES = re.compile(r"^(\d{1,3})x$")
_CHIPS = ("accelerator_family", "accelerator")


def _per_node(tokens: list[Token], matches: list[Match]) -> list[Condition]:
    """"6x speedAI240", "8x B200": how many of that chip each node has, the way system names say it."""
    out = []
    for i, tok in enumerate(tokens[:-1]):
        m = _TIMES.match(tok.text)
        nxt = tokens[i + 1]
        if m and any(x.column in _CHIPS and x.span[0] == nxt.start for x in matches):
            n = float(m.group(1))
            out.append(Condition("accelerators_per_node", n, n, f"{tok.text} {nxt.text}"))
            break
    return out


def parts(r: Reading) -> list[str]:
    """The questions inside a two-part question, or [] for one question.

    Two shapes of "two in one": a conjunction that starts a new question ("which systems used
    MI355X, and what did they score?"), and two counted nouns after one "how many" ("how many
    submitters and results ..."), which become two counts of the same scope."""
    counted = _two_counted(r)
    if counted:
        return counted
    def ranked(i: int) -> bool:
        return any(t.first == i for t in r.tagged("direction", "best", "worst"))

    spreads = r.tagged("direction", "spread")
    for conj in r.tagged("cue", "conjunction"):
        nxt = conj.last
        if any(t.first <= conj.first <= t.last for t in spreads):  # "min and max": one question, both ends
            continue
        # "highest and lowest X": two ranking words share the rest of the question
        if conj.first == 1 and ranked(0) and ranked(nxt) and nxt + 1 < len(r.tokens):
            rest = r.text[r.tokens[nxt].end:]
            return [r.text[:r.tokens[0].end] + rest, r.text[r.tokens[nxt].start:]]
        if conj.first < 2 or nxt >= len(r.tokens) - 1:
            continue
        if (_cue(r.tags, "lead", nxt) or _cue(r.tags, "determiner", nxt)) and nxt + 1 < len(r.tokens) - 1:
            nxt += 1
        first = r.text[:conj.start].rstrip(" ,;")
        second = r.text[r.tokens[nxt].start:]
        # "..., and by how much over second place?": the runner-up of the same ranking, one question
        if any(t.first >= nxt for t in r.tagged("cue", "runner_up", "margin")):
            continue
        # ", and how many?" asks what the first part's answer states; ", and who won?" asks anew
        if len(r.tokens) - nxt < 3 and not any(t.first >= nxt for t in r.tagged("direction", "best", "worst")):
            continue
        if any(t.first == nxt for t in r.tagged("cue", "clause")):
            return [first, second]
        # "top whisper and top llama 3.1 8b": a ranking word starts a second question when each
        # side names its own benchmark.
        if ranked(nxt) and (_own_benchmarks(r, conj.start) or _own_scope(r, conj.last)):
            return [first, second]
    return []


def _own_scope(r: Reading, cut: int) -> bool:
    """The part after the cut narrows the rows on its own ("..., and the best from a single node")."""
    return any(t.first >= cut for t in r.tagged("scope") if t.value in ("single_node", "multi_node",
                                                                          "single_accelerator", "power_runs")) \
        or any(c.text and r.text.find(c.text) >= r.tokens[cut].start for c in r.conditions)


def _own_benchmarks(r: Reading, cut: int) -> bool:
    """Each side of the cut names its own benchmark or scenario ("best Offline ... and lowest SingleStream")."""
    def named(keep) -> set:
        return {m.values for m in r.matches if m.column in ("benchmark", "scenario") and keep(m)}
    before, after = named(lambda m: m.span[1] <= cut), named(lambda m: m.span[0] >= cut)
    return bool(before) and bool(after - before)


def _two_counted(r: Reading) -> list[str]:
    counted_kinds = ("grouping", "measure")
    for count in r.tagged("operation", "count"):
        j = count.last
        if not any(t.kind in counted_kinds and t.first == j and t.last == j + 1 for t in r.tags):
            continue
        if not any(t.first == j + 1 for t in r.tagged("cue", "conjunction")):
            continue
        if not any(t.kind in counted_kinds and t.first == j + 2 for t in r.tags):
            continue
        head, tail = r.text[:r.tokens[j].start], r.text[r.tokens[j + 2].end:]
        return [head + r.text[r.tokens[j].start:r.tokens[j].end] + tail,
                head + r.text[r.tokens[j + 2].start:r.tokens[j + 2].end] + tail]
    return []


__all__ = ["Reading", "Condition", "read", "parts"]
