"""Read a question once: tokens, lexicon tags, entity mentions, rounds and numeric conditions.

`read()` is the only place that looks at the raw words. Everything after it (the shapes that
turn a reading into a `QuerySpec`, the composer, the agent's checks) asks the `Reading`:
"does it say 'most'?", "which columns does it name?", "which numeric conditions?". So a new
question shape is a lexicon entry plus a shape function, never another regular expression.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant import lexicon
from assistant.catalog import Catalog, Match
from assistant.lexicon import Tag, Token

# Columns a numeric condition may bound, and whether their values are whole numbers (then
# "more than 64" means at least 65).
_WHOLE = {"total_accelerators", "number_of_nodes", "accelerators_per_node"}
_RESULT_UNITS = {"result_ms": "Latency (ms)", "result_s": "Latency (s)", "result": None}


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


def _number_at(tokens: list[Token], i: int, words: dict[str, float]) -> float | None:
    return lexicon.number_value(tokens[i].text, words) if 0 <= i < len(tokens) else None


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


def _conditions(tags: list[Tag], tokens: list[Token], words: dict[str, float]) -> list[Condition]:
    """Numeric conditions: comparator + number + unit ("more than 64 accelerators", "under
    10 ms", "64 or more GPUs"), and "with N <unit>" as an exact count."""
    out: list[Condition] = []
    for comp in (t for t in tags if t.kind == "comparator"):
        first, n = comp.first, _number_at(tokens, comp.last, words)  # "more than 64 …"
        unit = _unit_after(tags, comp.last + 1) if n is not None else None
        if n is None:  # "64 or more GPUs"
            first, n = comp.first - 1, _number_at(tokens, comp.first - 1, words)
            unit = _unit_after(tags, comp.last) if n is not None else None
        if n is None or unit is None:
            continue
        column = "result" if unit.value in _RESULT_UNITS else unit.value
        lo, hi = _bound(comp.value, n, column in _WHOLE)
        out.append(Condition(column, lo, hi, " ".join(t.text for t in tokens[first:unit.last]),
                             _RESULT_UNITS.get(unit.value)))
    for i, tok in enumerate(tokens[:-1]):
        if tok.text not in {"with", "med"}:
            continue
        n = _number_at(tokens, i + 1, words)
        unit = _unit_after(tags, i + 2) if n is not None else None
        if n is not None and unit is not None and unit.value in _WHOLE and not any(
                c.column == unit.value for c in out):
            out.append(Condition(unit.value, n, n, " ".join(t.text for t in tokens[i:unit.last])))
    for scope, (lo, hi) in (("multi_node", (2, None)), ("single_node", (None, 1))):
        hit = next((t for t in tags if t.kind == "scope" and t.value == scope), None)
        if hit and not any(c.column == "number_of_nodes" for c in out):
            out.append(Condition("number_of_nodes", lo, hi, hit.phrase))
    return out


def _top_n(tags: list[Tag], tokens: list[Token], words: dict[str, float]) -> int | None:
    for t in tags:
        if t.kind == "direction" and t.value == "top_n":
            for tok in tokens[t.first:t.last]:
                n = lexicon.number_value(tok.text, words)
                if n is not None and 1 <= n <= 100 and float(n).is_integer():
                    return int(n)
    return None


def read(question: str, catalog: Catalog) -> Reading:
    """Tokens, tags (outside entity names), entity matches, rounds, conditions and top-N."""
    text = question.strip()
    tokens = lexicon.tokenize(text)
    language = lexicon.detect_language(tokens, text)
    lex = lexicon.load(language)
    matches = catalog.resolve(text)
    tags = _outside_entities(lex.tag(tokens), matches)
    known, unknown = catalog.round_mentions(text)
    for m in matches:
        if m.column == "round":
            known.extend(v for v in m.values if v not in known)
    known = [r for r in catalog.rounds if r in known]  # oldest first
    # A condition's number is not a round or a top-N ("more than 64"), so read them after tags.
    return Reading(text=text, language=language, tokens=tokens, tags=tags, matches=matches,
                   known_rounds=known, unknown_rounds=unknown,
                   conditions=_conditions(tags, tokens, lex.numbers), top_n=_top_n(tags, tokens, lex.numbers))


def parts(r: Reading) -> list[str]:
    """The questions inside a two-part question, or [] for one question.

    Two shapes of "two in one": a conjunction that starts a new question ("which systems used
    MI355X, and what did they score?"), and two counted nouns after one "how many" ("how many
    submitters and results ..."), which become two counts of the same scope."""
    counted = _two_counted(r)
    if counted:
        return counted
    for conj in r.tagged("cue", "conjunction"):
        nxt = conj.last
        if conj.first < 2 or nxt >= len(r.tokens) - 1:
            continue
        if any(t.first == nxt for t in r.tagged("cue", "clause")):
            first = r.text[:conj.start].rstrip(" ,;")
            second = r.text[r.tokens[nxt].start:]
            return [first, second]
    return []


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
