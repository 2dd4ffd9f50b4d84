"""What the tool results say, in the form the wording checks compare a model's text with.

The checks (`assistant.checks`) need more than the set of numbers the tools returned: what
each number *is* (a throughput in Tokens/s, a power in Watts, a per-accelerator figure, a
count, a change in percent), which names and rounds the results contain, which passages a
figure could be attributed to, and which figures and names the checked answer rests on. All
of it is read here from the checked (deterministic) `Answer` — its rows, values, passages and
text — plus the tool results' own text, so the agent and the scan of eval answer files build
the same `Facts` from the same kind of input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from assistant import units
from assistant.answer import Answer, Passage
from assistant.numbers import candidates, numbers_in, readings, stated_spans, states

NAME_COLUMNS = ("benchmark", "submitter", "accelerator_family", "accelerator_vendor", "accelerator", "system_name",
                "platform")
ROUND = re.compile(r"(?<![\w.])v\d+(?:\.\d+)+(?:[-–][A-Za-z0-9]+)*")
NAME_CAP = 5  # a list answer's wording must name this many of its items (all of them when fewer)

# A unit written after a number (the words are data: assistant/lexicon/units.toml).
UNIT = units.unit_pattern()


def scenario_names(catalog: Any) -> list[str]:
    """The table's scenarios (none without a catalog, or in a table without scenarios)."""
    return list(catalog.vocab.get("scenario", [])) if catalog is not None else []


def unit_kinds(unit: str | None) -> set[str]:
    """The kinds of figure a unit makes: a rate → throughput, a rate "per accelerator" →
    per_accelerator (and throughput), a latency unit → latency, a power unit → power, ..."""
    u = (unit or "").strip().lower()
    if not u:
        return set()
    per_accelerator, per_power = units.per_words()
    if any(f"per {w}" in u for w in per_accelerator):
        return {"per_accelerator", "throughput"}
    if u.endswith(tuple(f"per {w}" for w in per_power)):
        return {"efficiency", "throughput"}
    if "/s" in u.replace(" ", "") or "per second" in u:
        return {"throughput"}
    if u.startswith("latency"):
        return {"latency"}
    kind = units.kind_of_word(u)
    return {kind} if kind else set()


def unit_key(unit: str | None) -> str:
    """A unit in one spelling, to tell one rate from another and "ms" from "s"."""
    u = re.sub(r"\s+", " ", (unit or "").strip().lower())
    u = re.sub(r"^latency \((\w+)\)$", r"\1", u)
    u = re.sub(r" ?/ ?s\b| per second", "/s", u)
    return units.key(u)


@dataclass
class Figure:
    """A number the results state, with what it is."""

    value: float
    kinds: set[str]
    unit: str = ""  # unit_key of its unit, "" when unknown


@dataclass
class Facts:
    """What a wording may state, and what it must."""

    question: str
    allowed: set[float]  # every number the table tools returned (not the documents')
    figures: list[Figure]
    result_figures: set[float]  # the rows' result values, for verdicts on a quoted figure
    names: set[tuple[str, str]]  # (column, value) the results or the question contain
    rounds: set[str]
    scenarios: set[str]
    passages: list[Passage]
    texts: list[str]  # the tool results' and the checked answer's text (for count labels)
    key_values: list[float] = field(default_factory=list)
    key_names: list[str] = field(default_factory=list)
    names_required: int = 0  # how many of key_names the wording must state
    claimed: list[float] = field(default_factory=list)
    table_text: str = ""
    catalog: Any = None
    language: str | None = None  # the question's language, which the wording must be in (None: not checked)

    def kinds_of(self, token: str) -> tuple[set[str], set[str]]:
        """(kinds, unit keys) of the figures a written number can be, rounding as written."""
        kinds: set[str] = set()
        units: set[str] = set()
        written = candidates(token)
        for figure in self.figures:
            if states(written, figure.value):
                kinds |= figure.kinds
                if figure.unit:
                    units.add(figure.unit)
        return kinds, units


# --- building them ------------------------------------------------------------------------------------

def figures_in_text(text: str) -> list[Figure]:
    """Numbers a text states with a unit after them ("102,909 Tokens/s", "+465.0%", "×5.65")."""
    out = []
    for start, end, token in stated_spans(text):
        unit = UNIT.match(text, end)
        kinds = unit_kinds(unit.group("unit")) if unit else set()
        if start > 0 and text[start - 1] in "×x" and (start < 2 or not text[start - 2].isalnum()):
            kinds = {"relative"}  # "×5.65": a ratio
        if kinds:
            key = unit_key(unit.group("unit")) if unit else ""
            out.extend(Figure(v, set(kinds), key if kinds - {"count", "relative"} else "") for v, _ in
                       candidates(token))
    return out


def _row_figures(row: dict[str, Any]) -> list[Figure]:
    out = []
    for column, unit_column in (("result", "units"), ("value", "value_unit"), ("power_result", "power_units")):
        value = row.get(column)
        if isinstance(value, (int, float)):
            unit = row.get(unit_column) or (row.get("units") if column == "value" else None)
            out.append(Figure(float(value), unit_kinds(unit) or {"result"}, unit_key(unit)))
    for column in ("total_accelerators", "number_of_nodes", "accelerators_per_node"):
        if isinstance(row.get(column), (int, float)):
            out.append(Figure(float(row[column]), {"count"}))
    if isinstance(row.get("accuracy"), str):  # "ROUGE1: 44.5321 ROUGE2: 22.1191": the scores, not the "2"
        out.extend(Figure(v, {"accuracy"}) for _, _, token in stated_spans(row["accuracy"])
                   for v, _ in candidates(token))
    return out


def _names_in(texts: Iterable[str], catalog: Any) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    if catalog is None:
        return out
    for text in texts:
        for match in catalog.resolve(text, fuzzy=False):
            out.update((match.column, v) for v in match.values)
    return out


def core_name(name: str) -> str:
    """A system name without its parenthesised configuration: what people write of it."""
    return re.sub(r"\s*\(.*$", "", name or "").strip()


def _key_names(answer: Answer, items: list[str]) -> tuple[list[str], int]:
    """The names the checked answer rests on, and how many of them a wording must state: each
    of a single best row's submitter and system; the items of a list (up to NAME_CAP); whose an
    overview or a named system's field is (its submitter)."""
    from assistant.catalog import compact

    stated = compact(answer.answer)
    query = answer.query or {}
    shape = str((query.get("parsed") or {}).get("shape") or "")
    if query.get("op") == "difference" or (query.get("op") == "aggregate" and query.get("group_by")
                                           and query.get("order") not in ("desc", "asc")):
        names = items or [v.label for v in answer.values]
        names = [n for n in names if n and compact(n) and compact(n) in stated]
        return names, min(len(names), NAME_CAP)
    if query.get("op") == "aggregate" and query.get("group_by"):  # a ranking of groups: its top
        names = [v.label for v in answer.values[:1] if v.label and compact(v.label) in stated]
        return names, len(names)
    if query.get("op") != "rows" or not answer.rows:
        return [], 0
    if query.get("group_by"):  # an overview or a field of a named system: whose it is must be said
        names = [n for n in (answer.rows[0].get("submitter"),) if n and compact(str(n)) in stated]
        return names, len(names)
    rows = answer.rows[:NAME_CAP] if shape == "top" else answer.rows[:1]
    names = []
    for row in rows:
        for name in (row.get("submitter"), core_name(str(row.get("system_name") or ""))):
            if name and compact(name) and compact(name) in stated and name not in names:
                names.append(name)
    return names, len(names)


def build_facts(answer: Answer, *, question: str, table_texts: Iterable[str] = (), table_text: str = "",
                catalog: Any = None, claimed: Iterable[float] = (), items: Iterable[str] = (),
                language: str | None = None) -> Facts:
    """The facts of a checked answer. `answer` is the deterministic answer (its rows, values,
    passages and text); `table_texts` what the table tools returned as the model saw it;
    `table_text` the checked answer composed from the table, if there is one; `items` the
    listed values of a difference (not in the rows). Numbers only a document contains are
    never allowed: the documents are quoted, not restated."""
    table_texts = [t for t in (*table_texts, table_text) if t]
    rows = list(answer.rows)
    figures = [f for row in rows for f in _row_figures(row)]
    figures += [Figure(v.value, unit_kinds(v.unit) or {"count"}, unit_key(v.unit)) for v in answer.values]
    for text in table_texts:
        figures += figures_in_text(text)
    allowed = {f.value for f in figures}
    for text in table_texts:
        allowed |= numbers_in(text)
    query = answer.query or {}
    names = {(c, str(row[c])) for row in rows for c in (*NAME_COLUMNS, "scenario", "round") if row.get(c)}
    for filters in (query.get("filters") or {}, query.get("other") or {}, *(query.get("sides") or [])):
        names |= {(c, str(v)) for c, vs in filters.items() if isinstance(vs, list) for v in vs}
    names |= _names_in([*table_texts, answer.answer, question, *(p.text for p in answer.passages)], catalog)
    rounds = {v for c, v in names if c == "round"} | {r for p in answer.passages for r in p.rounds}
    for text in [*table_texts, answer.answer, question]:
        rounds |= set(ROUND.findall(text))
    scenarios = {v for c, v in names if c == "scenario"}
    scenarios |= {s for s in scenario_names(catalog) if re.search(rf"\b{re.escape(s)}\b", question, re.IGNORECASE)}
    result_figures = {float(row[c]) for row in rows for c in ("result", "value")
                      if isinstance(row.get(c), (int, float))} | {v.value for v in answer.values}
    key_names, required = _key_names(answer, list(items))
    return Facts(
        question=question, allowed=allowed, figures=figures, result_figures=result_figures,
        names=names, rounds=rounds, scenarios=scenarios, passages=list(answer.passages), texts=table_texts,
        key_values=key_values(answer) if answer.status == "answered" else [], key_names=key_names,
        names_required=required, claimed=list(claimed), table_text=table_text, catalog=catalog, language=language)


def key_values(answer: Answer) -> list[float]:
    """The figures a wording of `answer` must state: the first one (the best row, the count),
    and for a comparison or a trend also the last (the other side, the latest round) — of
    those, only the ones the checked answer's own text states (a list of names carries a row
    count per name as values, which it never says)."""
    values = [v.value for v in answer.values]
    if not values:
        return []
    picked = [values[0]]
    if (answer.query or {}).get("op") in ("compare", "trend") and len(values) > 1:
        picked.append(values[-1])
    own = readings(answer.answer)
    return [v for v in picked if states(own, v)]
