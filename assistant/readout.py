"""The one line every answer carries: how the question was read.

"Read as: best result · headline result · llama2-70b-99.9, Offline, v6.1, closed; assumed:
scenario Offline, closed division." A misreading is then visible at a glance, in the chat,
the API and eval output, without opening the query panel.
"""

from __future__ import annotations

from assistant import semantics, templates
from assistant.parsed import Parsed
from assistant.spec import QuerySpec, Range

# Filters shown in the line, in reading order (values only; the columns are evident from them).
_SHOWN = ("benchmark", "scenario", "round", "division", "availability", "system_type", "submitter", "system_name",
          "platform", "accelerator_vendor", "accelerator_family", "accelerator", "units", "power_units")
_RANGE_WORDS = {"total_accelerators": ("accelerators", "acceleratorer"), "number_of_nodes": ("nodes", "noder"),
                "accelerators_per_node": ("accelerators per node", "acceleratorer per nod"),
                "result": ("result", "resultat")}


def _range(name: str, rng: Range, lang: str) -> str:
    word = _RANGE_WORDS.get(name, (name, name))[1 if lang == "sv" else 0]

    def num(x: float) -> str:
        return semantics.format_number(x, lang=lang)

    if rng.min is not None and rng.max is not None:
        return f"{word} = {num(rng.min)}" if rng.min == rng.max else f"{word} {num(rng.min)}–{num(rng.max)}"
    return f"{word} ≥ {num(rng.min)}" if rng.min is not None else f"{word} ≤ {num(rng.max)}"


def _values(values: list[str]) -> str:
    """A filter's values, shortened when a partial name matched many ("XE9680" -> 14 systems)."""
    shown = ", ".join(map(str, values[:2]))
    return shown + (f" (+{len(values) - 2})" if len(values) > 2 else "")


def line(parsed: Parsed, spec: QuerySpec | None) -> str:
    """The "read as" sentence for this reading and the spec that ran (None: nothing ran)."""
    lang = parsed.language
    table = templates.load(lang)
    intents = table.get("intent", {})
    column = (parsed.count_column or "").replace("_", " ")
    field = templates.text(lang, "field", parsed.field) if parsed.field in table.get("field", {}) else ""
    what = intents.get(parsed.intent, parsed.intent).format(column=column, field=field)
    parts = [what]
    if spec is not None:
        if spec.op in ("rows", "compare", "trend") or spec.aggregate not in (None, "count", "nunique"):
            parts.append(table.get("metric", {}).get(spec.metric, spec.metric))
        f = spec.filters
        named = [_values(getattr(f, k)) for k in _SHOWN if getattr(f, k, None)]
        named += [_range(k, getattr(f, k), lang) for k in _RANGE_WORDS if getattr(f, k, None) is not None]
        if named:
            parts.append(", ".join(named))
    assumed = list(parsed.defaults)
    if spec is not None and spec.op in ("aggregate", "difference") and not spec.filters.division \
            and spec.aggregate in (None, "count", "nunique"):
        assumed.append("alla divisioner" if lang == "sv" else "all divisions")
    if spec is not None and spec.filters.division and "division" not in parsed.explicit:
        assumed.append(f"{spec.filters.division[0]}-divisionen" if lang == "sv" else
                       f"{spec.filters.division[0]} division")
    where = "".join(f" · {p}" for p in parts[1:])
    extra = templates.text(lang, "reading", "assumed", items=", ".join(dict.fromkeys(assumed))) if assumed else ""
    return templates.text(lang, "reading", "line", what=parts[0], where=where, assumed=extra)
