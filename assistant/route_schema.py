"""The route a model fills, derived from `QuerySpec` so there is one schema, not copies.

A route is a `QuerySpec` (what to run) plus `tool` (table, documents or both) and
`search_query`. Its pydantic model — and so the JSON schema a model is constrained to and the
field list its prompt shows — is built from `QuerySpec`'s and `Filters`' own fields: a field
added to the spec reaches the route without anyone copying it.

Two tiers, because what a model fills reliably depends on its size:

- `narrow`: op, metric, order, limit and six filters as single values. A ~0.5B model fills
  these well; a nested spec with lists it mostly gets wrong.
- `full`: every field of the spec (grouping, aggregates, columns, system names, ranges,
  `other`, `sides`). For models that can fill it: the route can then say what the reader
  could not read at all ("most results by submitter" is a grouped count).

The setting `route_tier` picks one; `auto` goes by the model's size as its name states it
(`0.5b`, `1.5B`, `70b`): above `FULL_TIER_ABOVE_B` billion parameters the full tier. A model
whose name gives no size is taken to be capable when it is reached through the `openai`
backend (a hosted API) and small otherwise (a local file or an Ollama tag).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from assistant.spec import Filters, QuerySpec

Tier = Literal["narrow", "full"]
Tool = Literal["query_results", "search_commentary", "both"]

NARROW_SPEC = ("op", "metric", "order", "limit")
NARROW_FILTERS = ("round", "division", "benchmark", "scenario", "accelerator_family", "submitter")
# `dedupe` is how our code keeps one row per system result, not something a question says.
HIDDEN_SPEC = ("dedupe",)
FULL_TIER_ABOVE_B = 1.0  # the 1.5B model is the second tier (issue 14); 0.5B fills the narrow one
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.IGNORECASE)


class RouteBase(BaseModel):
    """What every route has besides the spec: which tool, and what to search the documents for."""

    model_config = ConfigDict(extra="ignore")
    tool: Tool = Field("query_results", description="query_results: the results table; search_commentary: "
                       "articles and press releases; both: a claim checked against the table")
    search_query: str | None = Field(None, max_length=200, description="words to search the documents for")

    def spec_data(self) -> dict[str, Any]:
        """The route's spec fields in `QuerySpec`'s shape (only what the model set)."""
        raise NotImplementedError


def _optional(name: str, model: type[BaseModel]) -> tuple[Any, Any]:
    """A field of `model` as an optional route field (None = the model did not say), keeping
    its type, bounds and description."""
    info = model.model_fields[name]
    return info.annotation | None, Field(None, description=info.description,
                                         **{k: v for k, v in _bounds(info).items()})


def _bounds(info: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for meta in info.metadata:
        for key in ("ge", "le", "max_length"):
            value = getattr(meta, key, None)
            if value is not None:
                out[key] = value
    return out


def _single(name: str) -> tuple[Any, Any]:
    """A list filter of `Filters` as one optional value (small models fill a string, not a list)."""
    description = Filters.model_fields[name].description
    return str | None, Field(None, description=re.sub(r"\['([^']*)'\]", r"'\1'", description or "") or None)


class _NarrowBase(RouteBase):
    def spec_data(self) -> dict[str, Any]:
        said = self.model_dump()
        data = {name: said[name] for name in NARROW_SPEC if said[name] is not None}
        return {**data, "filters": {name: [said[name]] for name in NARROW_FILTERS if said[name]}}


class _FullBase(RouteBase):
    def spec_data(self) -> dict[str, Any]:
        return {name: value for name, value in self.model_dump(exclude_none=True).items()
                if name in QuerySpec.model_fields}


NarrowRoute = create_model("NarrowRoute", __base__=_NarrowBase,
                           **{name: _optional(name, QuerySpec) for name in NARROW_SPEC},
                           **{name: _single(name) for name in NARROW_FILTERS})
FullRoute = create_model("FullRoute", __base__=_FullBase,
                         **{name: _optional(name, QuerySpec) for name in QuerySpec.model_fields
                            if name not in HIDDEN_SPEC})
ROUTES: dict[str, type[RouteBase]] = {"narrow": NarrowRoute, "full": FullRoute}


def route_model(tier: str) -> type[RouteBase]:
    return ROUTES[tier]


def route_schema(tier: str) -> dict[str, Any]:
    """The JSON schema a model's routing reply is constrained to. The narrow tier requires
    every key (a small model then writes each one, in order, and OpenAI's strict mode takes
    it); the full tier requires only `tool` and `op`, so a model writes what it uses."""
    schema = route_model(tier).model_json_schema()
    schema.pop("title", None)
    # The model writes the keys in this order: what to run first, what to search for last.
    schema["properties"]["search_query"] = schema["properties"].pop("search_query")
    schema["additionalProperties"] = False
    schema["required"] = list(schema["properties"]) if tier == "narrow" else ["tool", "op"]
    return schema


def route_from_spec(spec: QuerySpec, tier: str, *, tool: str = "query_results",
                    search_query: str | None = None) -> RouteBase:
    """A spec as the route of this tier would state it (the reader's reading as a hint, and
    few-shot examples). Fields the narrow tier cannot say are left out."""
    if tier == "narrow":
        given, filters = spec.model_dump(), spec.filters.model_dump()
        data: dict[str, Any] = {name: given[name] for name in NARROW_SPEC}
        data.update({name: (filters[name] or [None])[0] for name in NARROW_FILTERS})
    else:
        data = spec.model_dump(exclude_none=True, exclude_defaults=True, exclude={*HIDDEN_SPEC})
        data.update(op=spec.op, metric=spec.metric, order=spec.order, limit=spec.limit)
    return route_model(tier).model_validate({**data, "tool": tool, "search_query": search_query})


def field_list(tier: str) -> str:
    """One line per route field (its allowed values or type, and what it means), from the
    schema itself, for the fixed part of the routing prompt."""
    schema = route_schema(tier)
    lines = [f"- {name}: {_kind(prop)}" + (f" ({prop['description']})" if prop.get("description") else "")
             for name, prop in schema["properties"].items()]
    if "Filters" in schema.get("$defs", {}):
        by_kind: dict[str, list[str]] = {}
        for name, prop in schema["$defs"]["Filters"]["properties"].items():
            by_kind.setdefault(_kind(prop), []).append(name)
        kinds = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in by_kind.items())
        lines.append(f"- a filters object has any of ({kinds}); lists hold exact table values")
    return "\n".join(lines)


def _kind(prop: dict[str, Any]) -> str:
    options = prop.get("anyOf", [prop])
    kinds = []
    for option in options:
        if "enum" in option:
            kinds.append("|".join(map(str, option["enum"])))
        elif "$ref" in option:
            kinds.append(option["$ref"].rsplit("/", 1)[-1].lower() + " object")
        elif option.get("type") == "array":
            item = option.get("items", {})
            kinds.append("list of " + (item["$ref"].rsplit("/", 1)[-1].lower() + " objects" if "$ref" in item
                                       else item.get("type", "value") + "s"))
        elif option.get("type") and option["type"] != "null":
            kinds.append(option["type"])
    return " or ".join(kinds)


def size_in_billions(model_name: str | None) -> float | None:
    """The parameter count a model's name states ("qwen2.5-coder-0.5b-…" → 0.5), or None."""
    found = _SIZE.findall(model_name or "")
    return float(found[-1]) if found else None


def pick_tier(setting: str | None, *, backend: str, model_name: str | None) -> Tier:
    """The tier for this model: the setting when it names one, else by the model's size."""
    if setting in ("narrow", "full"):
        return setting  # type: ignore[return-value]
    size = size_in_billions(model_name)
    if size is None:
        return "full" if backend == "openai" else "narrow"
    return "full" if size > FULL_TIER_ABOVE_B else "narrow"
