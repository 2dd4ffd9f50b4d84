"""MLPerf semantics the answer must respect: units, lower-is-better, derived labels, caveats.

Kept apart from the executor so the composer, the agent and the UI state the same caveats
with the same words: a latency figure is never called "higher", a per-accelerator figure
is always labelled derived, and a comparison always names round, division, availability,
scenario and node/accelerator counts.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from assistant import units
from assistant.notes import Note
from ingest.schema import LATENCY_UNITS

DERIVED_NOTE = Note("derived_per_accelerator")
EFFICIENCY_NOTE = Note("derived_efficiency")
LATENCY_NOTE = Note("latency_direction")
PREVIEW_NOTE = Note("preview_rows")
RDI_NOTE = Note("rdi_rows")
# System size as a metric: "the largest system" ranks systems, not results, so one row per system.
SIZE_METRICS = {"total_accelerators": "accelerators", "number_of_nodes": "nodes"}



def is_latency(unit: str | None) -> bool:
    """True for units where a smaller number is a better result (latency, energy per query)."""
    if not unit:
        return False
    return unit in LATENCY_UNITS or unit.strip().lower().startswith("latency")


def lower_is_better(unit: str | None, metric: str = "result") -> bool:
    """Direction of "best" for a metric: power is better when lower, derived throughput when higher."""
    if metric == "power":
        return True
    if metric in {"result_per_accelerator", "efficiency"} or metric in SIZE_METRICS:
        return False
    return is_latency(unit)


def metric_unit(metric: str, unit: str | None, power_unit: str | None = None) -> str | None:
    """The unit of the figure a metric produces, so derived values never wear an official unit."""
    if metric == "result_per_accelerator":
        return f"{unit} per accelerator" if unit else "per accelerator"
    if metric == "efficiency":
        per = f"per {units.power_unit().rstrip('s')}"  # a rate per unit of power
        return f"{unit} {per}" if unit else per
    if metric == "power":
        return power_unit or units.power_unit()
    return unit


def is_derived(metric: str) -> bool:
    return metric in {"result_per_accelerator", "efficiency"}


def derived_note(metric: str) -> str | None:
    return {"result_per_accelerator": DERIVED_NOTE, "efficiency": EFFICIENCY_NOTE}.get(metric)


def _group_thousands(text: str) -> str:
    sign = "-" if text.startswith("-") else ""
    text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    whole = f"{int(whole):,}"
    return sign + whole + ("." + frac if frac else "")


# Thousands and decimal separators per language: Swedish writes 1 136 100 and 0,79 (the
# thousands space is a no-break space, so a number never wraps).
_SEPARATORS = {"en": (",", "."), "sv": ("\u00a0", ",")}


def format_number(value: float | int | None, *, exact: bool = True, lang: str = "en",
                  places: int | None = None) -> str:
    """A number with thousands separators, written the way `lang` writes numbers.

    exact=True prints the value as published (shortest repr, no rounding), because answers
    promise exact numbers; exact=False (derived figures) rounds to a readable precision.
    `places` is a card's display precision for values it computed itself (a time to train
    recomputed from logs at full double precision): at most that many decimals.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return localise(f"{int(value):,}", lang)
    if places is not None:
        text = f"{value:,.{places}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
        return localise(text, lang)
    if exact:
        text = repr(value)
        if "e" in text or "E" in text:
            text = f"{value:.6f}".rstrip("0").rstrip(".")
        return localise(_group_thousands(text), lang)
    magnitude = abs(value)
    decimals = 1 if magnitude >= 100 else 2 if magnitude >= 1 else 4
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return localise(_group_thousands(text), lang)


def localise(english: str, lang: str) -> str:
    """A number written the English way ("1,136,100.5") in `lang`'s separators."""
    thousands, decimal = _SEPARATORS.get(lang, _SEPARATORS["en"])
    if (thousands, decimal) == (",", "."):
        return english
    return english.replace(",", "\0").replace(".", decimal).replace("\0", thousands)


def format_value(value: float | int | None, unit: str | None = None, *, exact: bool = True, lang: str = "en",
                 places: int | None = None) -> str:
    """`1136100, "Tokens/s"` -> `1,136,100 Tokens/s`; `12.5, "Latency (ms)"` -> `12.5 ms`."""
    number = format_number(value, exact=exact, lang=lang, places=places)
    if not unit:
        return number
    return f"{number} {units.short(unit)}"


_MISSING_TYPES = {"NAType", "NaTType"}


def _distinct(values: Iterable[Any]) -> list[Any]:
    """Distinct non-missing values in first-seen order. A dict, not a list scan: a count
    question can cite every row of a round (1,448 in v5.1), and `in list` made that quadratic."""
    seen: dict[Any, None] = {}
    for v in values:
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ in _MISSING_TYPES:
            continue
        try:
            seen.setdefault(v)
        except TypeError:  # unhashable: compare by text
            seen.setdefault(str(v))
    return list(seen)


def describe_caveats(rows: Any, results: bool = True) -> list[str]:
    """The caveats a reader needs to judge these rows: round, division, availability, scenario,
    node and accelerator counts. `rows` is a DataFrame with table columns (missing ones are skipped).
    results=False: the rows stand for systems (a size ranking), so only round, division and
    availability matter — benchmarks, scenarios and units of the rows say nothing about a size.
    """
    if rows is None or len(rows) == 0:
        return []
    notes: list[str] = []
    cols = set(rows.columns)

    def col(name: str) -> list[Any]:
        return _distinct(rows[name].tolist()) if name in cols else []

    rounds = col("round")
    if len(rounds) > 1:
        notes.append(Note("rounds_span", rounds=", ".join(map(str, rounds))))
    divisions = col("division")
    if len(divisions) > 1:
        notes.append(Note("divisions_mix", divisions=", ".join(map(str, divisions))))
    elif divisions and divisions[0] != "closed":
        notes.append(Note("division_other", division=divisions[0]))
    availability = col("availability")
    if "preview" in availability:
        notes.append(PREVIEW_NOTE)
    if "rdi" in availability:
        notes.append(RDI_NOTE)
    if not results:
        return notes
    benchmarks = col("benchmark")
    if len(benchmarks) > 1:
        shown = ", ".join(map(str, benchmarks[:6])) + (", ..." if len(benchmarks) > 6 else "")
        notes.append(Note("benchmarks_span", n=len(benchmarks), benchmarks=shown))
    scenarios = col("scenario")
    if len(scenarios) > 1:
        notes.append(Note("scenarios_mix", scenarios=", ".join(map(str, scenarios))))
    if "number_of_nodes" in cols:
        nodes = [int(n) for n in _distinct(rows["number_of_nodes"].tolist())]
        if any(n > 1 for n in nodes):
            notes.append(Note("multi_node", nodes=max(nodes)))
    if "total_accelerators" in cols:
        accs = [int(n) for n in _distinct(rows["total_accelerators"].tolist())]
        if len(accs) > 1:
            notes.append(Note("accelerators_differ", low=min(accs), high=max(accs)))
    units = col("units")
    if any(is_latency(u) for u in units):
        notes.append(LATENCY_NOTE)
    return notes


def describe_row(row: Any, lang: str = "en") -> str:
    """One line of context for a cited row: who, what, where, and the counts that matter."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    parts = [str(get("submitter", "")), f"\"{get('system_name', '')}\""]
    nodes, accs = get("number_of_nodes"), get("total_accelerators")
    counts = []
    try:
        if nodes is not None and not _isnan(nodes):
            one, many = ("nod", "noder") if lang == "sv" else ("node", "nodes")
            counts.append(f"{int(nodes)} {one if int(nodes) == 1 else many}")
        if accs is not None and not _isnan(accs):
            counts.append(f"{int(accs)}× {get('accelerator_family') or get('accelerator') or 'accelerator'}")
    except (TypeError, ValueError):
        pass
    if counts:
        parts.append("(" + ", ".join(counts) + ")")
    parts.append(", ".join(str(x) for x in (get("round"), get("division"), get("availability"), get("scenario"))
                           if x is not None and not _isnan(x)))
    return " ".join(p for p in parts if p)


def _isnan(value: Any) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
