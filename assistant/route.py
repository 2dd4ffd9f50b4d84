"""Routing: the model's reading of a question, and how much of it our code accepts.

The reader (`assistant.parse`) reads every question first. The model is shown that reading
and answers with one JSON object (a route, `assistant.route_schema`) that confirms or fixes
it. What of the route becomes the model's reading is decided here, not in the prompt: a filter
value is taken only when it is an exact table value the question itself names
(`model_reading`). Both readings are then run, and the one whose checks pass is answered from,
the reader's on a tie (`assistant.checks.prefer`): the offline answerer is the floor the agent
must not fall below.

The routing prompt is a fixed prefix (instructions, the tier's fields, two worked examples)
followed by what changes per question: few-shot examples (`examples`, e.g. verified questions
near this one), then the question with the reader's reading. The prefix never changes between
questions, so a local model keeps it in its KV cache (`assistant.llm.LlamaCppModel`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from pydantic import ValidationError

from assistant.numbers import numbers_in
from assistant.parsed import Parsed
from assistant.prompts import REPAIR, ROUTE_SYSTEM
from assistant.prompts import data as prompts_data
from assistant.route_schema import NARROW_FILTERS, NARROW_SPEC, RouteBase, field_list, route_from_spec, \
    route_schema
from assistant.semantics import SIZE_METRICS
from assistant.shapes.ranking import ATTRIBUTION
from assistant.spec import Filters, QuerySpec, Range

Example = tuple[str, QuerySpec]  # a question and the spec that answers it


@dataclass(frozen=True)
class Worked:
    """A worked example of the fixed prefix: a question and the route that answers it."""

    question: str
    spec: QuerySpec
    tool: str = "query_results"
    search_query: str | None = None


def built_in_examples(tier: str) -> list[Worked]:
    """The tier's two worked examples of the fixed prefix (`prompts.toml` [[route.<tier>]])."""
    return [Worked(e["question"], QuerySpec.model_validate(e["spec"]), e.get("tool", "query_results"),
                   e.get("search_query")) for e in prompts_data()["route"][tier]]


def _in_schema_order(route: RouteBase, tier: str) -> dict[str, Any]:
    """The route's keys in the order the schema makes the model write them (None left out in
    the full tier, where keys are optional)."""
    data = route.model_dump(exclude_none=tier == "full")
    return {key: data[key] for key in route_schema(tier)["properties"] if key in data}


def route_json(spec: QuerySpec, tier: str, *, tool: str = "query_results", search_query: str | None = None) -> str:
    """A spec as this tier's route JSON, the way the model is asked to write it."""
    route = route_from_spec(spec, tier, tool=tool, search_query=search_query)
    return json.dumps(_in_schema_order(route, tier), ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=4)
def route_system(tier: str) -> str:
    """The fixed prefix of the routing prompt for a tier: instructions, fields, worked examples."""
    examples = "\n".join(f"Question: {w.question}\n"
                         f"Reply: {route_json(w.spec, tier, tool=w.tool, search_query=w.search_query)}"
                         for w in built_in_examples(tier))
    return f"{ROUTE_SYSTEM}\nFields:\n{field_list(tier)}\nExamples:\n{examples}"


def hint(parsed: Parsed, tier: str = "narrow") -> dict[str, Any]:
    """The reader's reading in the shape of the tier's route (what the model confirms or fixes)."""
    spec = parsed.spec
    tool = ("both" if parsed.needs_commentary else "query_results") if spec is not None else "search_commentary"
    return _in_schema_order(route_from_spec(spec or QuerySpec(), tier, tool=tool, search_query=""), tier)


def entities_text(parsed: Parsed) -> str:
    """The names the reader resolved, as `"words" -> column=value` for the model to see."""
    said = [f'"{m.text or m.alias}" -> {m.column}={", ".join(list(m.values)[:3])}' for m in parsed.entities]
    return "; ".join(list(dict.fromkeys(said))[:5])


def route_messages(question: str, parsed: Parsed, tier: str = "narrow",
                   examples: Sequence[Example] = ()) -> list[dict[str, str]]:
    """The routing prompt: the fixed prefix, then `examples` (question, spec) as earlier turns
    of the conversation — the seam for verified questions near this one — then this question
    with the reader's reading."""
    messages = [{"role": "system", "content": route_system(tier)}]
    for example_question, spec in examples:
        messages.append({"role": "user", "content": f"Question: {example_question}"})
        messages.append({"role": "assistant", "content": route_json(spec, tier)})
    reading = json.dumps(hint(parsed, tier), ensure_ascii=False, separators=(",", ":"))
    user = f"Question: {question}\nParser reading: {reading}"
    entities = entities_text(parsed)
    if entities:
        user += f"\nResolved names: {entities}"
    messages.append({"role": "user", "content": user})
    return messages


def repair_messages(messages: list[dict[str, str]], reply: str, error: dict[str, Any]) -> list[dict[str, str]]:
    """The routing conversation once more, with the model's reply and why it did not run: the
    executor's message and, per field, the closest valid values (`SpecError.suggestions`)."""
    closest = "; ".join(f"{field}: {', '.join(map(str, values[:6]))}"
                        for field, values in (error.get("suggestions") or {}).items() if values)
    return [*messages, {"role": "assistant", "content": reply},
            {"role": "user", "content": REPAIR.format(error=error.get("error", ""),
                                                      closest=f" Closest valid values: {closest}." if closest else "")}]


# --- what of the route is accepted ------------------------------------------------------------

def _named(value: str, column: str, question: str, engine: Any) -> str | None | bool:
    """The table value a model-proposed filter stands for if the question names it; None if
    the question does not name it (a model may fix a spec with what the question says, never
    add what it does not); False if it is no value of the table at all."""
    from assistant.catalog import compact
    from assistant.executor import match_value

    catalog = engine.catalog
    known = match_value(str(value).strip(), list(catalog.rounds if column == "round" else catalog.values(column)))
    if not known:
        return False
    for canonical in known:
        if compact(canonical) and compact(canonical) in compact(question):
            return canonical
    for match in catalog.resolve(question):
        if match.column == column:
            for canonical in known:
                if canonical in match.values:
                    return canonical
    return None


def _ground_filters(proposed: Filters, parsed: Parsed, question: str, engine: Any, notes: list[str]) -> Filters:
    """The proposed filters the question grounds: a value the question names (as its table
    value), a range whose bounds the question states. A value the table does not have at all
    is kept, so the executor names the closest values and the model gets one repair."""
    filters: dict[str, Any] = {}
    for name, values in proposed.model_dump(exclude_none=True).items():
        if name == "has_power":
            continue  # "power runs only" is the reader's to read: it changes which rows exist
        if isinstance(values, dict):  # a range: its bounds must be numbers the question states
            bounds = [v for v in values.values() if v is not None]
            if bounds and set(bounds) <= numbers_in(question):
                filters[name] = Range(**values).model_dump()
            else:
                notes.append(f"The model proposed {name}={values!r}, which the question does not state; ignored.")
            continue
        for value in values:
            if parsed.checked and name in ATTRIBUTION:
                # "Is it true that Crusoe had the top result?": who and on what is what the ranking
                # checks, so none of it may filter the ranking, however grounded in the question.
                notes.append(f"The model proposed {name}={value!r}; that is what the question checks, so the "
                             "ranking stays over everyone.")
                continue
            canonical = _named(value, name, question, engine)
            if canonical is None:
                notes.append(f"The model proposed {name}={value!r}, which the question does not name; ignored.")
                continue
            said = value if canonical is False else canonical  # an unknown value: for the executor to judge
            filters[name] = list(dict.fromkeys([*filters.get(name, []), said]))
    return Filters(**filters)


def _grounded(parsed: Parsed, route: RouteBase, question: str, engine: Any, notes: list[str]) -> QuerySpec | None:
    """The route's spec as the model wrote it, its filters (also those of `other` and `sides`)
    kept only where the question grounds them; None when its fields are not a valid spec."""
    try:
        proposed = QuerySpec.model_validate(route.spec_data())
    except ValidationError:
        notes.append("The model's spec fields were not valid; used the parser's reading.")
        return None

    def ground(filters: Filters) -> Filters:
        return _ground_filters(filters, parsed, question, engine, notes)

    update: dict[str, Any] = {"filters": ground(proposed.filters)}
    if proposed.other is not None:
        update["other"] = ground(proposed.other)
    if proposed.sides:
        update["sides"] = [ground(side) for side in proposed.sides]
    return proposed.model_copy(update=update)


def _ranks_across_benchmarks(spec: QuerySpec, question: str, engine: Any) -> bool:
    """A ranking with no benchmark the question names would rank results of different
    benchmarks against each other."""
    benchmarks = [b for b in spec.filters.benchmark or [] if _named(b, "benchmark", question, engine) is not False]
    return spec.op in ("rows", "compare", "trend") and not benchmarks \
        and spec.metric not in SIZE_METRICS and not spec.filters.units


def model_reading(parsed: Parsed, route: RouteBase | None, question: str, engine: Any, notes: list[str],
                  tier: str = "narrow") -> QuerySpec | None:
    """The model's reading of the question as a spec to run beside the reader's, or None (no
    route, a documents-only route, or nothing runnable). Which of the two is answered from is
    code's decision (`assistant.checks.prefer`), not the model's.

    The full tier states a whole spec, so its reading is its own. The narrow tier states only
    some fields: what it cannot state (grouping, aggregates, sides, ranges, other filters),
    what it left null and what the question does not ground stay as the reader read them, so
    its reading is the reader's with the model's changes."""
    if route is None or route.tool == "search_commentary":
        return None
    spec = _grounded(parsed, route, question, engine, notes)
    base = parsed.spec
    if spec is not None and base is not None and tier == "narrow":
        said = route.model_dump()
        update: dict[str, Any] = {name: getattr(spec, name) for name in NARROW_SPEC if said.get(name) is not None}
        update["filters"] = base.filters.model_copy(
            update={name: getattr(spec.filters, name) for name in NARROW_FILTERS if getattr(spec.filters, name)})
        spec = base.model_copy(update=update)
    if spec is not None and _ranks_across_benchmarks(spec, question, engine):
        notes.append("The model proposed a ranking without a benchmark named in the question; not run.")
        return None
    return spec
