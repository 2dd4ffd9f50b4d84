"""Validate a `QuerySpec` against the real table and run it with plain pandas method calls.

Why this shape: a model (or the offline parser) only fills a typed spec; every value it
names is matched to a value that really is in the table before anything runs, so a typo
becomes a `SpecError` with the closest valid values instead of a silently empty answer.
Execution is boolean masks, `groupby().agg()`, `sort_values`, `drop_duplicates` and `head`
— never eval/exec or pandas' string query/eval APIs — and the same steps are recorded as
pandas code text so a reader can see (and re-run) exactly what was computed.

MLPerf rules applied here (wording in `assistant.semantics`):
- best = min for latency units, max otherwise; units are never mixed in one ranking;
- the default division (setting `default_division`, "closed") is applied to ranking ops
  (rows, compare, trend, metric aggregates) when the spec names no division, unless no
  row of that division matches — counting ops (count, nunique, difference) count every
  division, so "how many submitters in v6.1" matches the published total;
- per-accelerator and efficiency figures are derived and labelled as such.
"""

from __future__ import annotations

import math
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assistant import semantics
from assistant.spec import Exclusion, Filters, QuerySpec, Range
from assistant.notes import Localized, Note
from assistant.units import power_unit
from ingest.schema import COLUMN_NAMES, FILTERABLE

# (round, submitter, platform, benchmark, scenario): one row per system result. The submitter is part
# of it: Intel and Supermicro both submitted a system with the platform ID `1-node-4x-BMG-B70`.
# A platform's closed and open results are two results (different rules), never one deduplicated.
DEDUPE_KEY = ["round", "submitter", "platform", "division", "benchmark", "scenario"]
SYSTEM_KEY = ["round", "submitter", "platform"]  # system-size metrics rank systems, not results


def _dedupe_key(table: pd.DataFrame, metric: str) -> tuple[list[str], str]:
    """The columns that make one row per thing ranked, and what that thing is (for the pandas text)."""
    if metric in semantics.SIZE_METRICS:
        return [k for k in SYSTEM_KEY if k in table.columns], "one row per system"
    return [k for k in DEDUPE_KEY if k in table.columns], "best row per system result"
RANGE_FIELDS = [name for name, f in Filters.model_fields.items() if "Range" in str(f.annotation)]
LIST_FIELDS = [name for name in Filters.model_fields if name not in {*RANGE_FIELDS, "has_power", "exclude"}]
METRIC_AGGREGATES = {"max", "min", "mean", "median", "sum"}
CITATION_COLUMNS = ["result_id", "result_url"]


class SpecError(Exception):
    """The spec cannot run as given. `str()` is one friendly line; `.suggestions` maps a field
    to the closest valid values so a UI or an agent can offer or retry them."""

    def __init__(self, message: str, suggestions: dict[str, list[str]] | None = None):
        self.message = message
        self.suggestions: dict[str, list[str]] = suggestions or {}
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class QueryTimeout(SpecError):
    """The query ran past its time box (setting `query_timeout_ms`)."""


@dataclass
class QueryResult:
    """What a query produced, with everything needed to cite it.

    result_ids[i] and urls[i] belong together (one pair per cited row, duplicates removed):
    in v4.1–v6.0 one result id covers a whole system submission, so ids repeat across rows
    while urls differ.
    """

    spec: QuerySpec
    rows: pd.DataFrame
    unit: str | None = None
    lower_is_better: bool = False
    derived: bool = False
    groups: pd.DataFrame | None = None
    items: list[str] = field(default_factory=list)
    sides: list["QueryResult"] = field(default_factory=list)
    by_round: list[dict[str, Any]] = field(default_factory=list)
    result_ids: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pandas: str = ""
    empty: bool = False
    truncated: bool = False
    value: float | None = None  # aggregate op without group_by: the single number
    # A count over several divisions, per division ({"closed": 39, "open": 1}): the question named
    # none, and "how many" differs by division, so the answer gives both.
    by_division: dict[str, float] = field(default_factory=dict)
    matched: int | None = None  # aggregate op: rows that matched, before the row cap

    @property
    def best(self) -> dict[str, Any] | None:
        """The first row (the best one for rows/compare sides) as a dict, or None."""
        return None if self.rows is None or self.rows.empty else self.rows.iloc[0].to_dict()


# --- vocabulary and validation -----------------------------------------------------------

_VOCAB_CACHE: dict[int, tuple[weakref.ref, dict[str, list[str]]]] = {}


def vocabulary(table: pd.DataFrame) -> dict[str, list[str]]:
    """Distinct string values per filterable column, cached per table object (the table of a
    store generation never changes, and validation runs on every question)."""
    key = id(table)
    hit = _VOCAB_CACHE.get(key)
    if hit is not None and hit[0]() is table:
        return hit[1]
    vocab: dict[str, list[str]] = {}
    for name in FILTERABLE:
        if name in table.columns and name not in RANGE_FIELDS:
            values = table[name].dropna().astype(str).unique().tolist()
            vocab[name] = sorted(values)
    for stale in [k for k, (ref, _) in _VOCAB_CACHE.items() if ref() is None]:
        del _VOCAB_CACHE[stale]
    _VOCAB_CACHE[key] = (weakref.ref(table), vocab)
    return vocab


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", str(text).casefold())


def suggest(value: str, choices: list[str], limit: int = 5) -> list[str]:
    """Closest valid values (rapidfuzz WRatio), best first."""
    from rapidfuzz import fuzz, process, utils

    if not choices:
        return []
    hits = process.extract(str(value), choices, scorer=fuzz.WRatio, processor=utils.default_process,
                           limit=limit, score_cutoff=50)
    return [h[0] for h in hits]


def match_value(value: str, choices: list[str]) -> list[str]:
    """Table values a user value stands for: exact, then case-insensitive exact (all casings),
    then a unique match ignoring punctuation and spaces. [] when there is no safe match."""
    if value in choices:
        return [value]
    folded = str(value).casefold()
    same_case = [c for c in choices if c.casefold() == folded]
    if same_case:
        return same_case
    target = _norm(value)
    if not target:
        return []
    normal = [c for c in choices if _norm(c) == target]
    return normal if len(normal) == 1 else []


def _validate_filters(filters: Filters, table: pd.DataFrame, errors: list[str],
                      suggestions: dict[str, list[str]], where: str = "") -> Filters:
    vocab = vocabulary(table)
    data = filters.model_dump()
    for name in LIST_FIELDS:
        values = data.get(name)
        if not values:
            data[name] = None
            continue
        if name not in table.columns:
            errors.append(f"the table has no column {name!r}")
            continue
        choices = vocab.get(name, [])
        matched: list[str] = []
        for raw in values:
            found = match_value(str(raw), choices)
            if found:
                matched.extend(v for v in found if v not in matched)
                continue
            close = suggest(str(raw), choices)
            suggestions.setdefault(name, [])
            suggestions[name].extend(c for c in close if c not in suggestions[name])
            elsewhere = [other for other, vals in vocab.items() if other != name and match_value(str(raw), vals)]
            hint = f" ({raw!r} is a value of {', '.join(elsewhere)})" if elsewhere else ""
            did = f"; did you mean {', '.join(close[:3])}?" if close else ""
            errors.append(f"no {name} {raw!r}{where} in the data{did}{hint}")
        data[name] = matched or None
    for name in RANGE_FIELDS:
        rng = data.get(name)
        if rng is None:
            continue
        lo, hi = rng.get("min"), rng.get("max")
        if lo is None and hi is None:
            data[name] = None
        elif lo is not None and hi is not None and lo > hi:
            errors.append(f"{name}{where}: min {lo} is larger than max {hi}")
    if filters.exclude is not None:  # the values left out are checked like the ones asked for
        left_out = _validate_filters(Filters(**filters.exclude.model_dump(exclude_none=True)), table, errors,
                                     suggestions, f"{where} (excluded)")
        data["exclude"] = Exclusion(**{k: v for k, v in left_out.model_dump(exclude_none=True).items()
                                       if k in Exclusion.model_fields}) or None
    return Filters(**data)


def _valid_columns(table: pd.DataFrame, *, for_grouping: bool) -> list[str]:
    cols = [c for c in COLUMN_NAMES if c in table.columns]
    if for_grouping:
        cols = [c for c in cols if c not in {"result", "power_result", "result_url", "result_path"}]
    return cols


def validate(spec: QuerySpec | dict[str, Any], table: pd.DataFrame) -> QuerySpec:
    """Return a copy of `spec` whose filter values are real table values; raise `SpecError`
    (with suggestions) for unknown values, unknown columns and incomplete op shapes."""
    spec = as_spec(spec)
    errors: list[str] = []
    suggestions: dict[str, list[str]] = {}
    filters = _validate_filters(spec.filters, table, errors, suggestions)
    other = _validate_filters(spec.other, table, errors, suggestions, " (other)") if spec.other else None
    sides = [_validate_filters(s, table, errors, suggestions, f" (side {i + 1})") for i, s in enumerate(spec.sides)] \
        if spec.sides else None

    group_by = list(spec.group_by) if spec.group_by else None
    groupable = _valid_columns(table, for_grouping=True)
    if group_by:
        bad = [c for c in group_by if c not in groupable]
        if bad:
            suggestions["group_by"] = groupable
            errors.append(f"cannot group by {', '.join(map(repr, bad))}; valid columns: {', '.join(groupable)}")
    column = spec.column
    columns = _valid_columns(table, for_grouping=False)
    if column is not None and column not in columns:
        close = suggest(column, columns)
        suggestions["column"] = close or columns
        errors.append(f"no column {column!r}; valid columns: {', '.join(columns)}")

    if spec.op == "aggregate":
        if spec.aggregate is None:
            errors.append("an aggregate query needs `aggregate` (count, nunique, max, min, mean, median or sum)")
        elif spec.aggregate == "nunique" and not column:
            errors.append("`nunique` needs `column` (e.g. submitter)")
    elif spec.op == "difference":
        if spec.other is None or not column:
            errors.append("a difference query needs `other` (the set to subtract) and `column` (e.g. benchmark)")
    elif spec.op == "compare":
        if not spec.sides or len(spec.sides) < 2:
            errors.append("a compare query needs 2 or more `sides`")
    if errors:
        raise SpecError("; ".join(errors), suggestions)
    return spec.model_copy(update={"filters": filters, "other": other, "sides": sides, "group_by": group_by})


# --- execution helpers ---------------------------------------------------------------------

class _Plan:
    """Runs the steps, records each as pandas code text, and enforces the time box."""

    def __init__(self, timeout_ms: int):
        self.started = time.perf_counter()
        self.timeout_ms = timeout_ms
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.check()

    def check(self) -> None:
        elapsed = (time.perf_counter() - self.started) * 1000
        if self.timeout_ms and elapsed > self.timeout_ms:
            raise QueryTimeout(f"the query took longer than {self.timeout_ms} ms and was stopped; "
                               "narrow it down (a round, a benchmark, a scenario)")

    def text(self) -> str:
        return "\n".join(self.lines)


def _float(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce").astype("float64")


class _Columns:
    """Per-table cache of `column == value` masks and numeric columns as numpy arrays.

    Filters repeat across questions (v6.1, Offline, closed...), and `isin` on Arrow strings
    costs milliseconds per column; a cached mask costs microseconds. The table of a store
    generation is never modified in place, which is what makes caching by object safe.
    """

    _cache: dict[int, tuple[weakref.ref, "_Columns"]] = {}

    def __init__(self, table: pd.DataFrame):
        self.table = weakref.ref(table)
        self.eq: dict[tuple[str, str], np.ndarray] = {}
        self.num: dict[str, np.ndarray] = {}
        self.arrays: dict[tuple[str, str], np.ndarray] = {}

    @classmethod
    def of(cls, table: pd.DataFrame) -> "_Columns":
        hit = cls._cache.get(id(table))
        if hit is not None and hit[0]() is table:
            return hit[1]
        for stale in [k for k, (ref, _) in cls._cache.items() if ref() is None]:
            del cls._cache[stale]
        cols = cls(table)
        cls._cache[id(table)] = (weakref.ref(table), cols)
        return cols

    def isin(self, name: str, values: list[str]) -> np.ndarray:
        table = self.table()
        out = np.zeros(len(table), dtype=bool)
        for v in values:
            key = (name, v)
            if key not in self.eq:
                self.eq[key] = (table[name] == v).fillna(False).to_numpy(dtype=bool)
            out |= self.eq[key]
        return out

    def numbers(self, name: str) -> np.ndarray:
        if name not in self.num:
            self.num[name] = _float(self.table()[name]).to_numpy(dtype="float64")
        return self.num[name]

    def objects(self, name: str) -> np.ndarray:
        """A column as a numpy object array with None for missing values (hashable, cheap to index)."""
        key = ("obj", name)
        if key not in self.arrays:
            column = self.table()[name]
            self.arrays[key] = np.array([None if v is pd.NA or (isinstance(v, float) and v != v) else v
                                         for v in column.tolist()], dtype=object)
        return self.arrays[key]

    def flags(self, name: str) -> np.ndarray:
        """A boolean column with missing values as False."""
        key = ("flag", name)
        if key not in self.arrays:
            self.arrays[key] = self.table()[name].fillna(False).astype(bool).to_numpy(dtype=bool)
        return self.arrays[key]

    def latency(self) -> np.ndarray:
        """Rows whose result is lower-is-better. The table says so in `lower_is_better` (a
        dataset card declares its measure's direction); a table without that column is read
        by unit (the unit vocabulary is tiny: one check per unit)."""
        key = ("latency", "units")
        if key not in self.arrays:
            if "lower_is_better" in self.table().columns:
                self.arrays[key] = self.flags("lower_is_better")
            else:
                units = self.objects("units")
                verdict = {u: semantics.is_latency(u) for u in set(units.tolist())}
                self.arrays[key] = np.array([verdict[u] for u in units.tolist()], dtype=bool)
        return self.arrays[key]

    def lower_is_better(self, positions: np.ndarray, metric: str) -> np.ndarray:
        """Per row, whether a smaller value of `metric` is better: the row's own direction for
        the measure itself, the metric's fixed direction for power, sizes and derived figures."""
        if metric == "result":
            return self.latency()[positions]
        return np.full(len(positions), semantics.lower_is_better(None, metric), dtype=bool)


def _filter_mask(df: pd.DataFrame, filters: Filters, var: str = "df") -> tuple[pd.Series, list[str]]:
    """One boolean mask for every filter (one row take instead of one per filter), plus the
    equivalent pandas expressions for display."""
    cols = _Columns.of(df)
    mask = np.ones(len(df), dtype=bool)
    parts: list[str] = []
    for name in LIST_FIELDS:
        values = getattr(filters, name)
        if values:
            mask &= cols.isin(name, list(values))
            parts.append(f"{var}[{name!r}].isin({list(values)!r})")
    if filters.exclude is not None:  # "not NVIDIA": rows with any of these values are left out
        for name, values in filters.exclude.model_dump(exclude_none=True).items():
            if values:
                mask &= ~cols.isin(name, list(values))
                parts.append(f"~{var}[{name!r}].isin({list(values)!r})")
    for name in RANGE_FIELDS:
        rng: Range | None = getattr(filters, name)
        if rng is None:
            continue
        col = cols.numbers(name)
        with np.errstate(invalid="ignore"):
            if rng.min is not None:
                mask &= col >= rng.min
                parts.append(f"({var}[{name!r}] >= {rng.min!r})")
            if rng.max is not None:
                mask &= col <= rng.max
                parts.append(f"({var}[{name!r}] <= {rng.max!r})")
    if filters.has_power is not None and "has_power" in df.columns:
        mask &= cols.flags("has_power") == filters.has_power
        parts.append(f"({var}['has_power'] == {filters.has_power!r})")
    elif filters.has_power:  # a table with no power results has no row with one; never drop the filter
        mask &= False
        parts.append("False  # this table has no power results")
    return pd.Series(mask, index=df.index), parts


def _mask(df: pd.DataFrame, filters: Filters, plan: _Plan, var: str = "df") -> pd.DataFrame:
    """Apply every filter as one boolean mask; recorded as one line of pandas text."""
    mask, parts = _filter_mask(df, filters)
    if parts:
        plan.add(f"{var} = df[" + " & ".join(parts) + "]")
    elif var != "df":
        plan.add(f"{var} = df")
    return df[mask] if parts else df


def _merge(base: Filters, over: Filters | None) -> Filters:
    """`over`'s named fields replace `base`'s (a compare side or a difference's other set)."""
    if over is None:
        return base
    data = base.model_dump(exclude_none=True)
    data.update(over.model_dump(exclude_none=True))
    return Filters(**data)


def _apply_default_division(table: pd.DataFrame, filters: Filters, default: str | None,
                            notes: list[str]) -> Filters:
    """Closed by default — but not when the named submitter/system only exists in another
    division, which would turn a real answer into an empty one."""
    if filters.division or not default or "division" not in table.columns:
        return filters
    mask, _ = _filter_mask(table, filters)
    divisions = [d for d in dict.fromkeys(_Columns.of(table).objects("division")[mask.to_numpy()].tolist()) if d]
    if default in divisions:
        notes.append(Note("division_assumed", division=default.capitalize()))
        return filters.model_copy(update={"division": [default]})
    if divisions:
        notes.append(Note("division_fallback", default=default, divisions=", ".join(sorted(divisions))))
    return filters


def _with_metric(table: pd.DataFrame, df: pd.DataFrame, metric: str, plan: _Plan, notes: list[str]) -> pd.DataFrame:
    """`df` (rows of `table`) with `value` (the metric) and `value_unit`, only rows where the metric exists."""
    pos, values, value_units, _ = _metric(table, table.index.get_indexer(df.index), metric, plan, notes)
    return _with_values(table.iloc[pos], values, value_units, table)


def _with_values(rows: pd.DataFrame, values: np.ndarray, value_units: np.ndarray, table: pd.DataFrame) -> pd.DataFrame:
    unit_dtype = table["units"].dtype if "units" in table.columns else object
    return rows.assign(value=values, value_unit=pd.array(value_units.tolist(), dtype=unit_dtype))


def _ascending(order: str, lower_is_better: bool) -> bool:
    if order == "asc":
        return True
    if order == "desc":
        return False
    best_first_ascending = lower_is_better
    return best_first_ascending if order == "best" else not best_first_ascending


def empty_hints(table: pd.DataFrame, filters: Filters) -> list[str]:
    """Why nothing matched: which single filter, dropped, would let rows through — so an answer
    can say "MI355X has no results in v4.1; it has some in v5.1, v6.0, v6.1" instead of
    just "no data"."""
    named = [n for n in LIST_FIELDS if getattr(filters, n)] + \
        [n for n in RANGE_FIELDS if getattr(filters, n) is not None] + \
        (["has_power"] if filters.has_power is not None else [])
    if len(named) < 2:
        return []
    hints: list[str] = []
    for name in named:
        relaxed = filters.model_copy(update={name: None})
        mask, _ = _filter_mask(table, relaxed)
        if not mask.any():
            continue
        wanted = getattr(filters, name)
        shown = ", ".join(map(str, wanted)) if isinstance(wanted, list) else str(
            wanted.model_dump(exclude_none=True) if hasattr(wanted, "model_dump") else wanted)
        if name in table.columns and name in LIST_FIELDS:
            present = table.loc[mask, name].dropna().astype(str).unique().tolist()
            if name == "round" and "round_order" in table.columns:
                order = table.loc[mask, ["round", "round_order"]].drop_duplicates().sort_values("round_order")
                present = order["round"].astype(str).tolist()
            else:
                present = sorted(present)
            listed = ", ".join(present[:8]) + (", ..." if len(present) > 8 else "")
            hints.append(Note("nothing_with_match" if present else "nothing_with_none", name=name, shown=shown,
                              listed=listed))
        else:
            hints.append(Note("nothing_with", name=name, shown=shown))
    return hints[:3]


def _cite(result: QueryResult) -> QueryResult:
    # A dict keeps first-seen order and makes this linear: a count can cite a whole round.
    pairs: dict[tuple[str, str], None] = {}
    frames = [result.rows] if result.rows is not None else []
    for frame in frames:
        if frame.empty or "result_id" not in frame.columns:
            continue
        ids = [str(rid) for rid in frame["result_id"].tolist()]
        urls = frame["result_url"].fillna("").astype(str).tolist() if "result_url" in frame.columns \
            else [""] * len(ids)
        pairs.update(dict.fromkeys(zip(ids, urls)))
    result.result_ids = [p[0] for p in pairs]
    result.urls = [p[1] for p in pairs]
    result.empty = result.rows is None or result.rows.empty
    if result.empty and not result.items and result.value is None and not any(
            "no rows match" in n for n in result.notes):
        result.notes.append(Note("no_rows"))
    return result


def _dedupe_notes(notes: list[str]) -> list[str]:
    out: list[str] = []
    for n in notes:
        if n not in out:
            out.append(n)
    return out


# --- ops ---------------------------------------------------------------------------------

def _metric(table: pd.DataFrame, pos: np.ndarray, metric: str, plan: _Plan,
            notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the table rows at `pos`: (positions kept, metric values, value units, official units).
    Rows where the metric does not exist are dropped; derived metrics are noted as derived."""
    cols = _Columns.of(table)
    units = cols.objects("units")[pos]
    result = cols.numbers("result")[pos]
    if metric == "result":
        values, value_units = result, units
        plan.add("df = df.assign(value=df['result'], value_unit=df['units'])")
    elif metric == "result_per_accelerator":
        latency = cols.latency()[pos]
        if latency.any():
            notes.append(Note("latency_left_out"))
        accs = cols.numbers("total_accelerators")[pos]
        with np.errstate(invalid="ignore"):
            keep = ~latency & (accs > 0)
        pos, units = pos[keep], units[keep]
        plan.add("df = df[~df['units'].str.startswith('Latency') & (df['total_accelerators'] > 0)]")
        values = result[keep] / accs[keep]
        value_units = _suffixed(units, " per accelerator")
        plan.add("df = df.assign(value=df['result'] / df['total_accelerators'], "
                 "value_unit=df['units'] + ' per accelerator')")
        notes.append(semantics.DERIVED_NOTE)
    elif metric == "power":
        power = cols.numbers("power_result")[pos] if "power_result" in table.columns else np.full(len(pos), np.nan)
        keep = ~np.isnan(power)
        pos, units = pos[keep], units[keep]
        plan.add("df = df[df['power_result'].notna()]")
        values = power[keep]
        # (a table without power has no rows left here, and may have no power_units column either)
        value_units = cols.objects("power_units")[pos] if "power_units" in table.columns else units
        plan.add("df = df.assign(value=df['power_result'], value_unit=df['power_units'])")
        notes.append(Note("power_direction"))
    elif metric == "efficiency":
        power = cols.numbers("power_result")[pos] if "power_result" in table.columns else np.full(len(pos), np.nan)
        watt = power_unit()  # energy per query has no efficiency
        watts = cols.objects("power_units")[pos] == watt if "power_units" in table.columns \
            else np.zeros(len(pos), dtype=bool)
        with np.errstate(invalid="ignore"):
            keep = watts.astype(bool) & ~cols.latency()[pos] & (power > 0)
        pos, units = pos[keep], units[keep]
        plan.add(f"df = df[(df['power_units'] == {watt!r}) & (df['power_result'] > 0)]")
        values = result[keep] / power[keep]
        per = semantics.metric_unit("efficiency", None)
        value_units = _suffixed(units, f" {per}")
        plan.add(f"df = df.assign(value=df['result'] / df['power_result'], value_unit=df['units'] + ' {per}')")
        notes.append(semantics.EFFICIENCY_NOTE)
    elif metric in semantics.SIZE_METRICS:
        values = cols.numbers(metric)[pos]
        value_units = np.full(len(pos), semantics.SIZE_METRICS[metric], dtype=object)
        plan.add(f"df = df.assign(value=df[{metric!r}], value_unit={semantics.SIZE_METRICS[metric]!r})")
    else:  # pragma: no cover - pydantic restricts metric
        raise SpecError(f"unknown metric {metric!r}")
    keep = ~np.isnan(values)
    return pos[keep], values[keep], value_units[keep], units[keep]


@dataclass
class _Ranking:
    """Ranked rows as positions into the table, best first, with their metric value and unit.

    Ranking runs on cached numpy columns (`_Columns`) and takes full table rows only for the
    few rows it returns: pandas steps on a 38-column Arrow-backed frame cost ~5 ms per
    question, which bounded the API's throughput. The recorded pandas text is the same
    computation, step for step, and a property test checks it against pandas itself.
    """

    positions: np.ndarray
    values: np.ndarray
    units: np.ndarray
    unit: str | None
    lower_is_better: bool


def _rank(table: pd.DataFrame, spec: QuerySpec, filters: Filters, plan: _Plan, notes: list[str]) -> _Ranking:
    """mask -> metric -> one unit -> stable sort, recorded as the pandas steps that do the same."""
    mask, parts = _filter_mask(table, filters)
    if parts:
        plan.add("df = df[" + " & ".join(parts) + "]")
    pos, values, value_units, units = _metric(table, np.flatnonzero(mask.to_numpy()), spec.metric, plan, notes)

    # Never rank across units: keep the most common unit and say which rows were left out.
    counts: dict[Any, int] = {}
    for u in value_units.tolist():
        if u is not None:
            counts[u] = counts.get(u, 0) + 1
    if len(counts) > 1:
        ordered = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        keep_unit = ordered[0][0]
        others = ", ".join(f"{u} ({n} rows)" for u, n in ordered[1:])
        notes.append(Note("mixed_units_ranked", n=ordered[0][1], unit=keep_unit, others=others))
        keep = value_units == keep_unit
        pos, values, value_units, units = pos[keep], values[keep], value_units[keep], units[keep]
        plan.add(f"df = df[df['value_unit'] == {keep_unit!r}]  # never rank across units")

    if len(pos):
        unit = value_units[0]
        lib = bool(_Columns.of(table).lower_is_better(pos[:1], spec.metric)[0])
    else:
        unit, lib = None, semantics.lower_is_better(None, spec.metric)
    ascending = _ascending(spec.order, lib)
    # Stable sort: ties keep table order, so the same question always cites the same rows
    # (pandas' descending mergesort keeps ties in table order too).
    order = np.argsort(values if ascending else -values, kind="stable")
    plan.add(f"df = df.sort_values('value', ascending={ascending})")
    return _Ranking(pos[order], values[order], value_units[order], None if unit is None else str(unit), lib)


def _suffixed(units: np.ndarray, suffix: str) -> np.ndarray:
    return np.array([None if u is None else f"{u}{suffix}" for u in units.tolist()], dtype=object)


def _first_per_key(table: pd.DataFrame, ranking: _Ranking, keys: list[str], stop: int | None = None) -> np.ndarray:
    """Indices into `ranking` of the first (best) row per key, like `drop_duplicates(keys)`;
    stops after `stop` of them when no more are needed."""
    cols = _Columns.of(table)
    columns = [cols.objects(k)[ranking.positions].tolist() for k in keys]
    seen: set[tuple[Any, ...]] = set()
    kept: list[int] = []
    for i, key in enumerate(zip(*columns)):
        if key in seen:
            continue
        seen.add(key)
        kept.append(i)
        if stop is not None and len(kept) >= stop:
            break
    return np.asarray(kept, dtype=np.intp)


def _take(table: pd.DataFrame, ranking: _Ranking, picked: np.ndarray) -> pd.DataFrame:
    """The full table rows for the picked ranking entries, in that order, with `value` and `value_unit`."""
    return _with_values(table.iloc[ranking.positions[picked]], ranking.values[picked], ranking.units[picked], table)


def _ranked(table: pd.DataFrame, spec: QuerySpec, filters: Filters, plan: _Plan, notes: list[str],
            max_rows: int, dedupe: bool, limit: int) -> tuple[pd.DataFrame, str | None, bool, bool]:
    ranking = _rank(table, spec, filters, plan, notes)
    cap = min(limit, max_rows)
    want_count = limit > max_rows  # only then does `truncated` need the full deduplicated count
    if dedupe:
        keys, why = _dedupe_key(table, spec.metric)
        picked = _first_per_key(table, ranking, keys, stop=None if want_count else cap)
        plan.add(f"df = df.drop_duplicates({keys!r})  # {why}")
    else:
        picked = np.arange(len(ranking.positions), dtype=np.intp)
    truncated = want_count and len(picked) > max_rows
    picked = picked[:cap]
    plan.add(f"df = df.head({cap})")
    return _take(table, ranking, picked), ranking.unit, ranking.lower_is_better, truncated


def _run_best_per_group(table: pd.DataFrame, spec: QuerySpec, filters: Filters, plan: _Plan, notes: list[str],
                        max_rows: int) -> QueryResult:
    """The best row of each group (e.g. per benchmark and scenario): an overview of a chip or a
    submitter. Each group is ranked in its own direction (latency low, throughput high), so
    nothing is ranked across units; groups come in table order of their best row's group key."""
    mask, parts = _filter_mask(table, filters)
    if parts:
        plan.add("df = df[" + " & ".join(parts) + "]")
    pos, values, value_units, units = _metric(table, np.flatnonzero(mask.to_numpy()), spec.metric, plan, notes)
    lib = _Columns.of(table).lower_is_better(pos, spec.metric)
    best_first = np.where(lib, values, -values)
    key = best_first if spec.order in ("best", "asc") else -best_first
    order = np.argsort(key, kind="stable")
    ranking = _Ranking(pos[order], values[order], value_units[order], None, False)
    keys = list(spec.group_by or [])
    plan.add("df['rank_key'] = df['value'].where(df['lower_is_better'], -df['value'])")
    plan.add(f"df = df.sort_values('rank_key').drop_duplicates({keys!r})  # best row per group")
    picked = _first_per_key(table, ranking, keys)
    cols = _Columns.of(table)
    group_cols = [cols.objects(k)[ranking.positions[picked]].tolist() for k in keys]
    picked = picked[sorted(range(len(picked)), key=lambda i: tuple(str(c[i]) for c in group_cols))]
    plan.add(f"df = df.sort_values({keys!r})")
    cap = min(spec.limit, max_rows)
    truncated = len(picked) > cap
    if truncated:
        notes.append(Note("groups_shown", shown=cap, total=len(picked)))
    rows = _take(table, ranking, picked[:cap])
    # how many rows the groups summarise, per division ("Nebius in v6.0: 21 results")
    divisions = pd.Series(cols.objects("division")[pos]).value_counts() if "division" in table.columns \
        else pd.Series({"": len(pos)})
    return QueryResult(spec=spec, rows=rows, unit=None, lower_is_better=False,
                       derived=semantics.is_derived(spec.metric), truncated=truncated, matched=len(picked),
                       by_division={str(k): float(v) for k, v in divisions.items() if v})


def _run_rows(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, notes: list[str], max_rows: int,
              default_division: str | None) -> QueryResult:
    filters = _apply_default_division(table, spec.filters, default_division, notes)
    spec = spec.model_copy(update={"filters": filters})
    if spec.group_by:
        return _run_best_per_group(table, spec, filters, plan, notes, max_rows)
    rows, unit, lib, truncated = _ranked(table, spec, filters, plan, notes, max_rows, spec.dedupe, spec.limit)
    if lib and spec.metric == "result":
        notes.append(semantics.LATENCY_NOTE if semantics.is_latency(unit) else Note("unit_direction", unit=unit))
    return QueryResult(spec=spec, rows=rows, unit=unit, lower_is_better=lib,
                       derived=semantics.is_derived(spec.metric), truncated=truncated)


def _run_aggregate(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, notes: list[str], max_rows: int,
                   default_division: str | None) -> QueryResult:
    agg = spec.aggregate
    filters = spec.filters
    by_division: dict[str, float] = {}
    if agg in METRIC_AGGREGATES:
        filters = _apply_default_division(table, filters, default_division, notes)
    spec = spec.model_copy(update={"filters": filters})
    if agg in ("count", "nunique") and not spec.group_by:
        return _count(table, spec, plan, max_rows)
    df = _mask(table, filters, plan)
    keys = list(spec.group_by or [])
    unit: str | None = None
    lib = False
    if agg in ("count", "nunique"):
        df = df.assign(value=_float(df["result"]), value_unit=df["units"])
        if agg == "count":
            if keys:
                groups = df.groupby(keys, dropna=False).size().reset_index(name="value")
                plan.add(f"groups = df.groupby({keys!r}).size().reset_index(name='value')")
            else:
                value = float(len(df))
                plan.add("value = len(df)")
        else:
            col = spec.column
            if keys:
                groups = df.groupby(keys, dropna=False)[col].nunique().reset_index(name="value")
                plan.add(f"groups = df.groupby({keys!r})[{col!r}].nunique().reset_index(name='value')")
            else:
                value = float(df[col].nunique())
                plan.add(f"value = df[{col!r}].nunique()")
        if not keys and not filters.division and "division" in df.columns:
            per = df.groupby("division").size() if agg == "count" else df.groupby("division")[spec.column].nunique()
            if len(per) > 1:
                by_division = {str(k): float(v) for k, v in per.items()}
                plan.add("by_division = df.groupby('division')" + (".size()" if agg == "count" else
                                                                   f"[{spec.column!r}].nunique()"))
        rows = df
        extreme = None
    else:
        df = _with_metric(table, df, spec.metric, plan, notes)
        if spec.metric in semantics.SIZE_METRICS:  # a system's size counts once, not once per result
            system, why = _dedupe_key(table, spec.metric)
            df = df.drop_duplicates(system)
            plan.add(f"df = df.drop_duplicates({system!r})  # {why}")
        units = df["value_unit"].dropna().unique().tolist()
        if len(units) > 1:
            keys = keys + ["value_unit"]
            notes.append(Note("mixed_units_split", units=", ".join(map(str, sorted(units)))))
        elif units:
            unit = str(units[0])
            lib = bool(_Columns.of(table).lower_is_better(table.index.get_indexer(df.index[:1]), spec.metric)[0])
        rows = df
        extreme = None
        if agg in ("max", "min"):
            df_sorted = df.sort_values(["value", "result_id"], ascending=[agg == "min", True], kind="mergesort")
            extreme = df_sorted.drop_duplicates(keys, keep="first") if keys else df_sorted.head(1)
            plan.add(f"df = df.sort_values('value', ascending={agg == 'min'})")
        if keys:
            groups = df.groupby(keys, dropna=False).agg(value=("value", agg), rows=("value", "size")).reset_index()
            plan.add(f"groups = df.groupby({keys!r}).agg(value=('value', {agg!r}), rows=('value', 'size'))"
                     ".reset_index()")
            if extreme is not None:
                cite = extreme[keys + [c for c in CITATION_COLUMNS if c in extreme.columns]]
                groups = groups.merge(cite, on=keys, how="left")
        else:
            value = float(getattr(df["value"], agg)()) if not df.empty else None
            plan.add(f"value = df['value'].{agg}()")
        if extreme is not None:
            rows = extreme
        if agg in ("sum", "mean", "median") and spec.metric == "result":
            notes.append(Note("sizes_differ", aggregate=agg))
    truncated = False
    result_value: float | None = None
    groups_df: pd.DataFrame | None = None
    if keys:
        ascending = _ascending(spec.order, lib) if agg in METRIC_AGGREGATES else spec.order in ("asc", "worst")
        sort_keys = ["value"] + keys
        groups_df = groups.sort_values(sort_keys, ascending=[ascending] + [True] * len(keys), kind="mergesort")
        cap = min(spec.limit, max_rows)
        if len(groups_df) > cap:
            notes.append(Note("groups_shown", shown=cap, total=len(groups_df)))
            groups_df = groups_df.head(cap)
        groups_df = groups_df.reset_index(drop=True)
    else:
        result_value = value
        if value is None or (isinstance(value, float) and math.isnan(value)):
            result_value = None
    matched = len(rows)
    if matched > max_rows:
        truncated = True
        rows = rows.head(max_rows)
    result = QueryResult(spec=spec, rows=rows, unit=unit, lower_is_better=lib,
                         derived=semantics.is_derived(spec.metric) and agg in METRIC_AGGREGATES,
                         groups=groups_df, truncated=truncated, value=result_value, matched=matched,
                         by_division=by_division)
    return result


def _count(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, max_rows: int) -> QueryResult:
    """One count (or count of distinct values) on cached numpy columns; only the rows it cites are
    taken from the table. The recorded pandas is the same computation (a property test checks)."""
    mask, parts = _filter_mask(table, spec.filters)
    if parts:
        plan.add("df = df[" + " & ".join(parts) + "]")
    cols = _Columns.of(table)
    pos = np.flatnonzero(mask.to_numpy())
    if spec.aggregate == "count":
        value = float(len(pos))
        plan.add("value = len(df)")
        counted = None
    else:
        counted = cols.objects(spec.column)[pos]
        value = float(len({v for v in counted.tolist() if v is not None}))
        plan.add(f"value = df[{spec.column!r}].nunique()")
    by_division: dict[str, float] = {}
    if not spec.filters.division and "division" in table.columns:
        divisions = cols.objects("division")[pos].tolist()
        per: dict[str, set | int] = {}
        for i, d in enumerate(divisions):
            if d is None:
                continue
            if counted is None:
                per[d] = per.get(d, 0) + 1
            elif counted[i] is not None:
                per.setdefault(d, set()).add(counted[i])
        if len(per) > 1:
            by_division = {str(d): float(n if isinstance(n, int) else len(n)) for d, n in sorted(per.items())}
            plan.add("by_division = df.groupby('division')" + (".size()" if counted is None else
                                                               f"[{spec.column!r}].nunique()"))
    rows = table.iloc[pos[:max_rows]]
    rows = rows.assign(value=_float(rows["result"]), value_unit=rows["units"])
    return QueryResult(spec=spec, rows=rows, value=value, matched=len(pos), truncated=len(pos) > max_rows,
                       by_division=by_division)


def _run_difference(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, notes: list[str],
                    max_rows: int) -> QueryResult:
    col = spec.column
    a = _mask(table, spec.filters, plan, "a")
    other = _merge(spec.filters, spec.other)
    b = _mask(table, other, plan, "b")
    in_b = set(b[col].dropna().astype(str).tolist())
    items = sorted({str(v) for v in a[col].dropna().tolist()} - in_b)
    plan.add(f"items = sorted(set(a[{col!r}].dropna()) - set(b[{col!r}].dropna()))")
    rows = a[a[col].astype(str).isin(items)]
    rows = rows.sort_values([c for c in (col, "result_id") if c in rows.columns], kind="mergesort")
    rows = rows.drop_duplicates([col], keep="first")
    rows = rows.assign(value=_float(rows["result"]), value_unit=rows["units"]).head(max_rows)
    if not items:
        notes.append(Note("nothing_new", column=col))
    return QueryResult(spec=spec.model_copy(update={"other": other}), rows=rows, items=items,
                       truncated=len(items) > max_rows)


def _run_compare(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, notes: list[str], max_rows: int,
                 default_division: str | None) -> QueryResult:
    sides: list[QueryResult] = []
    frames: list[pd.DataFrame] = []
    for i, side in enumerate(spec.sides or []):
        side_notes: list[str] = []
        merged = _merge(spec.filters, side)
        side_spec = spec.model_copy(update={"op": "rows", "filters": merged, "sides": None, "limit": 1,
                                            "dedupe": True})
        plan.add(f"# side {i + 1}")
        res = _run_rows(table, side_spec, plan, side_notes, max_rows, default_division)
        res.notes = _dedupe_notes(side_notes)
        _cite(res)
        sides.append(res)
        if not res.rows.empty:
            frames.append(res.rows.assign(side=i + 1))
            row = res.rows.iloc[0]
            notes.append(Note("side", n=i + 1, row=Localized(en=semantics.describe_row(row),
                                                              sv=semantics.describe_row(row, "sv"))))
        else:
            notes.append(Note("side_empty", n=i + 1))
    units = {s.unit for s in sides if not s.empty}
    if len(units) > 1:
        raise SpecError("cannot compare different units (" + ", ".join(sorted(map(str, units))) + "); "
                        "compare the same benchmark and scenario",
                        {"units": sorted(map(str, units))})
    rows = pd.concat(frames) if frames else table.head(0).assign(value=pd.Series(dtype="float64"),
                                                                  value_unit=pd.Series(dtype="string"), side=0)
    if len(frames) > 1:
        combos = rows[[c for c in ("benchmark", "scenario") if c in rows.columns]].drop_duplicates()
        if len(combos) > 1:
            notes.append(Note("sides_differ"))
    unit = next(iter(units)) if units else None
    lib = sides[0].lower_is_better if sides else False
    return QueryResult(spec=spec, rows=rows, unit=unit, lower_is_better=lib,
                       derived=semantics.is_derived(spec.metric), sides=sides)


def _run_trend(table: pd.DataFrame, spec: QuerySpec, plan: _Plan, notes: list[str], max_rows: int,
               default_division: str | None) -> QueryResult:
    filters = _apply_default_division(table, spec.filters, default_division, notes)
    spec = spec.model_copy(update={"filters": filters})
    ranking = _rank(table, spec, filters, plan, notes)
    unit, lib = ranking.unit, ranking.lower_is_better
    cols = _Columns.of(table)
    combos = set(zip(*(cols.objects(c)[ranking.positions].tolist() for c in ("benchmark", "scenario")
                       if c in table.columns)))
    if len(combos) > 1:
        notes.append(Note("trend_mixed", pairs=len(combos)))
    picked = _first_per_key(table, ranking, ["round"])
    plan.add("df = df.drop_duplicates(['round'])  # best row per round")
    order_col = "round_order" if "round_order" in table.columns else "round"
    order_values = cols.objects(order_col)[ranking.positions[picked]]
    picked = picked[sorted(range(len(picked)), key=lambda i: (order_values[i] is None, order_values[i]))][:max_rows]
    plan.add(f"df = df.sort_values({order_col!r})")
    df = _take(table, ranking, picked)
    if filters.round:
        missing = [r for r in filters.round if r not in set(df["round"].astype(str))]
        if missing:
            notes.append(Note("rounds_missing", rounds=", ".join(missing)))
    by_round = [
        {"round": str(r["round"]), "value": float(r["value"]), "unit": unit,
         "result_id": str(r["result_id"]), "url": None if pd.isna(r.get("result_url")) else str(r.get("result_url")),
         "submitter": r.get("submitter"), "system_name": r.get("system_name"),
         "benchmark": r.get("benchmark"), "scenario": r.get("scenario")}
        for _, r in df.iterrows()
    ]
    return QueryResult(spec=spec, rows=df, unit=unit, lower_is_better=lib, derived=semantics.is_derived(spec.metric),
                       by_round=by_round)


def as_spec(spec: QuerySpec | dict[str, Any]) -> QuerySpec:
    """A QuerySpec from a spec or its JSON dict (what a model produces); schema errors become
    a SpecError naming the fields, so callers handle one exception type."""
    if isinstance(spec, QuerySpec):
        return spec
    from pydantic import ValidationError

    try:
        return QuerySpec.model_validate(spec)
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc'])) or 'spec'}: {e['msg']}" for e in exc.errors()[:5]]
        raise SpecError("invalid query: " + "; ".join(problems)) from None


def execute(spec: QuerySpec | dict[str, Any], table: pd.DataFrame, *, max_rows: int = 1000,
            timeout_ms: int = 2000, default_division: str | None = "closed") -> QueryResult:
    """Validate and run one spec. Raises `SpecError` (bad spec) or `QueryTimeout`; an empty
    match is not an error: the result has `empty=True` and a note saying so."""
    spec = as_spec(spec)
    plan = _Plan(timeout_ms)
    plan.add("df = table")
    if not table.index.is_unique:  # rows are carried by index label between steps
        table = table.reset_index(drop=True)
    spec = validate(spec, table)
    plan.check()
    notes: list[str] = []
    if spec.op == "rows":
        result = _run_rows(table, spec, plan, notes, max_rows, default_division)
    elif spec.op == "aggregate":
        result = _run_aggregate(table, spec, plan, notes, max_rows, default_division)
    elif spec.op == "difference":
        result = _run_difference(table, spec, plan, notes, max_rows)
    elif spec.op == "compare":
        result = _run_compare(table, spec, plan, notes, max_rows, default_division)
    elif spec.op == "trend":
        result = _run_trend(table, spec, plan, notes, max_rows, default_division)
    else:  # pragma: no cover - pydantic restricts op
        raise SpecError(f"unknown op {spec.op!r}")
    plan.check()
    if spec.op != "compare":
        notes.extend(semantics.describe_caveats(result.rows, results=spec.metric not in semantics.SIZE_METRICS))
    if result.rows.empty and spec.op in ("rows", "trend", "aggregate"):
        notes.append(Note("no_rows"))
        notes.extend(empty_hints(table, result.spec.filters))
    elif spec.op == "compare":
        for i, side in enumerate(result.sides):
            if side.empty:
                notes.extend(Note("side", n=i + 1, row=h) for h in empty_hints(table, side.spec.filters))
    result.notes = _dedupe_notes(notes + result.notes)
    result.pandas = plan.text()
    return _cite(result)
