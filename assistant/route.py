"""Routing: the model's reading of a question, and how much of it our code accepts.

The reader (`assistant.parse`) reads every question first. The model is shown that reading
and answers with one JSON object (a `Route`) that confirms or fixes it. What the model may
change is decided here, not in the prompt: a filter value is taken only when it is an exact
table value the question itself names, because the reader's values come straight from the
question through the catalog and the offline answerer is the floor the agent must not fall
below.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from assistant.parsed import Parsed
from assistant.prompts import ROUTE_SYSTEM
from assistant.semantics import SIZE_METRICS
from assistant.shapes.ranking import ATTRIBUTION
from assistant.spec import Filters, Metric, QuerySpec

ROUTE_FILTERS = ("round", "division", "benchmark", "scenario", "accelerator_family", "submitter")


class Route(BaseModel):
    """The model's reading: which tool, and the spec fields it confirms or fixes."""

    model_config = ConfigDict(extra="ignore")
    tool: str = "query_results"
    op: str | None = None
    metric: str | None = None
    order: str | None = None
    limit: int | None = None
    round: str | None = None
    division: str | None = None
    benchmark: str | None = None
    scenario: str | None = None
    accelerator_family: str | None = None
    submitter: str | None = None
    search_query: str | None = None


def _nullable(kind: str) -> dict[str, Any]:
    return {"anyOf": [{"type": kind}, {"type": "null"}]}


ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "enum": ["query_results", "search_commentary", "both"]},
        "op": {"type": "string", "enum": ["rows", "aggregate", "difference", "compare", "trend"]},
        "metric": {"type": "string", "enum": list(Metric.__args__)},
        "order": {"type": "string", "enum": ["best", "worst", "asc", "desc"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        **{name: _nullable("string") for name in ROUTE_FILTERS},
        "search_query": {"type": "string", "maxLength": 200},
    },
    "required": ["tool", "op", "metric", "order", "limit", *ROUTE_FILTERS, "search_query"],
    "additionalProperties": False,
}


def hint(parsed: Parsed) -> dict[str, Any]:
    """The reader's reading in the shape of the route (what the model confirms or fixes)."""
    spec = parsed.spec
    tool = ("both" if parsed.needs_commentary else "query_results") if spec is not None else "search_commentary"
    base = spec or QuerySpec()
    out: dict[str, Any] = {"tool": tool, "op": base.op, "metric": base.metric, "order": base.order,
                           "limit": base.limit}
    for name in ROUTE_FILTERS:
        values = getattr(base.filters, name)
        out[name] = values[0] if values else None
    out["search_query"] = ""
    return out


def entities_text(parsed: Parsed) -> str:
    """The names the reader resolved, as `"words" -> column=value` for the model to see."""
    return "; ".join(f'"{m.text or m.alias}" -> {m.column}={", ".join(list(m.values)[:3])}'
                     for m in parsed.entities[:8])


def route_messages(question: str, parsed: Parsed) -> list[dict[str, str]]:
    """The routing prompt: the fixed instructions, then this question and the reader's reading."""
    user = f"Question: {question}\nParser reading: {json.dumps(hint(parsed), ensure_ascii=False)}"
    entities = entities_text(parsed)
    if entities:
        user += f"\nResolved names: {entities}"
    return [{"role": "system", "content": ROUTE_SYSTEM}, {"role": "user", "content": user}]


def _grounded(value: str, column: str, question: str, engine: Any) -> str | None:
    """The exact table value for a model-proposed filter, but only if the question names it —
    a model may fix a spec with what the question says, never add what it does not."""
    from assistant.catalog import compact

    catalog = engine.catalog
    exact = {v.lower(): v for v in (catalog.rounds if column == "round" else catalog.values(column))}
    canonical = exact.get(str(value).strip().lower())
    if canonical is None:
        return None
    if compact(canonical) and compact(canonical) in compact(question):
        return canonical
    for match in catalog.resolve(question):
        if match.column == column and canonical in match.values:
            return canonical
    return None


def merge_route(parsed: Parsed, route: Route | None, question: str, engine: Any,
                notes: list[str]) -> QuerySpec | None:
    """The spec to run: the reader's, with the model's grounded fixes for what the reader left open.

    Why the reader wins on conflicts: its values come straight from the question through the
    catalog, and the offline answerer is the accuracy floor the agent must not fall below."""
    base = parsed.spec
    if route is None:
        return base
    if base is None and route.tool == "search_commentary":
        return None
    spec = base or QuerySpec()
    filters = spec.filters.model_dump()
    for name in ROUTE_FILTERS:
        proposed = getattr(route, name)
        if not proposed:
            continue
        if parsed.checked and name in ATTRIBUTION:
            # "Is it true that Crusoe had the top result?": who and on what is what the ranking
            # checks, so none of it may filter the ranking, however grounded in the question.
            notes.append(f"The model proposed {name}={proposed!r}; that is what the question checks, so the "
                         "ranking stays over everyone.")
            continue
        canonical = _grounded(proposed, name, question, engine)
        if canonical is None:
            if proposed not in (filters.get(name) or []):
                notes.append(f"The model proposed {name}={proposed!r}, which the question does not name; ignored.")
            continue
        if filters.get(name):
            if canonical not in filters[name]:
                notes.append(f"The model proposed {name}={canonical!r}; kept the parser's {filters[name]!r}.")
            continue
        filters[name] = [canonical]
    update: dict[str, Any] = {}
    if base is None:
        for name in ("op", "metric", "order", "limit"):
            value = getattr(route, name)
            if value is not None:
                update[name] = value
    try:
        merged = QuerySpec.model_validate({**spec.model_dump(), **update, "filters": Filters(**filters).model_dump()})
    except ValidationError:
        notes.append("The model's spec fields were not valid; used the parser's reading.")
        return base
    if base is None and merged.op in ("rows", "compare", "trend") and not merged.filters.benchmark \
            and merged.metric not in SIZE_METRICS and not merged.filters.units:
        # A ranking the model made up with no benchmark the question names would rank results
        # of different benchmarks against each other: it is not run.
        notes.append("The model proposed a ranking without a benchmark named in the question; not run.")
        return None
    return merged
