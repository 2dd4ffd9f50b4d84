"""Readers for MLPerf Inference result tables -> the normalised table of `ingest.schema.COLUMNS`.

Four inputs, detected from the content (not the file name, which mirrors and caches rename):
- MLCommons' final-report `summary_results.json` (v4.1, v5.1, v6.0): a JSON list of records;
- the submission checker's `summary.csv` (v6.1), or the same records as a JSON list;
- a tidy CSV or Parquet with the columns of `mlperf_inference_*_results.csv`
  (documented in the data mirror's `mlperf/README.md`);
- our own normalised table (a store's `results.parquet`), re-validated.

Anything else raises `SourceError` with one line naming the file and the problem: a reader
that guesses would put wrong numbers behind cited answers, so nothing is skipped silently.
Each format is only a column mapping onto one intermediate frame; all value rules live in
`ingest.normalize` and are applied once, in `_normalise`.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ingest import normalize
from ingest.errors import SourceError
from ingest.schema import COLUMN_NAMES, COLUMNS
from ingest.settings import BY_NAME

MB = 1024 * 1024
DEFAULT_MAX_BYTES: int = BY_NAME["max_source_mb"].default * MB

# Intermediate column -> source column, per format. Intermediate names are schema names,
# with `*_raw` for the values normalisation changes and `result_path` holding `Location`.
SUMMARY_RESULTS_MAP: dict[str, str] = {
    "round": "version", "result_id": "ID", "division": "Category", "availability": "Availability",
    "system_type": "Suite", "submitter": "Submitter", "system_name": "System", "platform": "Platform",
    "number_of_nodes": "Nodes", "accelerator_raw": "Accelerator", "accelerators_per_node": "a#",
    "total_accelerators": "Total Accelerators", "host_processor": "Processor",
    "host_processors_per_node": "host_processors_per_node",
    "host_processor_core_count_raw": "host_processor_core_count", "benchmark_raw": "Model",
    "model_used": "UsedModel", "scenario_raw": "Scenario", "result": "Performance_Result",
    "units": "Performance_Units", "accuracy": "Accuracy", "power_result": "Power_Result",
    "power_units": "Power_Units", "has_power": "has_power", "framework": "Software",
    "precision": "weight_data_types", "result_path": "Location",
}
SUMMARY_RESULTS_REQUIRED = ["ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform",
                            "Model", "Scenario", "Nodes", "Accelerator", "a#", "Location", "version",
                            "Performance_Result", "Performance_Units"]

CHECKER_MAP: dict[str, str] = {
    "round": "version", "division": "Division", "availability": "Availability", "system_type": "SystemType",
    "submitter": "Organization", "system_name": "SystemName", "platform": "Platform",
    "number_of_nodes": "number_of_nodes", "accelerator_raw": "accelerator_model_name",
    "accelerators_per_node": "accelerators_per_node", "total_accelerators": "total_accelerators",
    "host_processor": "host_processor_model_name", "host_processors_per_node": "host_processors_per_node",
    "host_processor_core_count_raw": "host_processor_core_count", "benchmark_raw": "MlperfModel",
    "model_used": "Model", "scenario_raw": "Scenario", "result": "Result", "units": "Units",
    "accuracy": "Accuracy", "has_power": "has_power", "framework": "framework",
    "precision": "weight_data_types", "result_path": "Location",
}
CHECKER_REQUIRED = ["Organization", "Availability", "Division", "SystemType", "SystemName", "Platform", "Model",
                    "MlperfModel", "Scenario", "Result", "Units", "number_of_nodes", "accelerator_model_name",
                    "accelerators_per_node", "version"]

TIDY_MAP: dict[str, str] = {
    "round": "round", "result_id": "result_id", "division": "division", "availability": "availability",
    "system_type": "system_type", "submitter": "submitter", "system_name": "system_name",
    "platform": "platform", "number_of_nodes": "number_of_nodes", "accelerator_raw": "accelerator",
    "accelerators_per_node": "accelerators_per_node", "total_accelerators": "total_accelerators",
    "host_processor": "host_processor", "host_processors_per_node": "host_processors_per_node",
    "host_processor_core_count_raw": "host_processor_core_count", "benchmark_raw": "mlperf_model",
    "model_used": "model_used", "scenario_raw": "scenario", "result": "result", "units": "units",
    "accuracy": "accuracy", "power_result": "power_result", "power_units": "power_units",
    "has_power": "has_power", "framework": "framework", "precision": "weight_data_types",
    "result_path": "result_path", "result_url": "result_url",
}
TIDY_REQUIRED = ["round", "result_id", "division", "availability", "system_type", "submitter", "system_name",
                 "platform", "number_of_nodes", "accelerator", "accelerators_per_node", "total_accelerators",
                 "mlperf_model", "model_used", "scenario", "result", "units", "result_path"]

_INTERMEDIATE = list(dict.fromkeys([*SUMMARY_RESULTS_MAP, *CHECKER_MAP, *TIDY_MAP]))

_FORMATS: dict[str, tuple[set[str], list[str], dict[str, str]]] = {
    # name -> (columns that identify it, required columns, mapping onto intermediate columns)
    "summary_results.json": ({"ID", "Performance_Result"}, SUMMARY_RESULTS_REQUIRED, SUMMARY_RESULTS_MAP),
    "checker summary.csv": ({"Organization", "MlperfModel"}, CHECKER_REQUIRED, CHECKER_MAP),
    "tidy results table": ({"result_id", "mlperf_model"}, TIDY_REQUIRED, TIDY_MAP),
}


def read_table(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    """Read one results file into the normalised table (exactly `ingest.schema.COLUMNS`, in order).

    Raises SourceError (one line, naming the file) for anything that is not a complete,
    well-formed results table; never returns a partial table.
    """
    path = Path(path)
    data = _read_bytes(path, max_bytes)
    if data[:4] == b"PAR1":
        return _from_frame(_read_parquet(path), path)
    text = _decode(data, path)
    if text.lstrip()[:1] in ("[", "{"):
        records = _parse_json(text, path)
        return _from_frame(pd.DataFrame.from_records(records), path, json_records=True)
    return _from_frame(_parse_csv(text, path), path)


# --- bytes -> frame -------------------------------------------------------------------


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    """Check existence and size before reading, so a 200 MB file is refused without loading it."""
    if not path.is_file():
        raise SourceError(path, "no such file" if not path.exists() else "not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise SourceError(path, "empty file")
    if size > max_bytes:
        raise SourceError(path, f"file is {size / MB:.1f} MB, over the {max_bytes / MB:g} MB limit "
                                f"(setting max_source_mb)")
    data = path.read_bytes()
    if not data.strip():
        raise SourceError(path, "empty file (only whitespace)")
    return data


def _decode(data: bytes, path: Path) -> str:
    if b"\x00" in data:
        raise SourceError(path, "binary content (NUL bytes), not a results table")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises many types; all mean the same to the user
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise SourceError(path, f"unreadable Parquet file: {first}") from None


def _parse_json(text: str, path: Path) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(value, list):
        raise SourceError(path, f"JSON holds {type(value).__name__ if not isinstance(value, dict) else 'an object'}, "
                                "expected a list of result records")
    if not value:
        raise SourceError(path, "JSON list holds no result records")
    for number, record in enumerate(value, start=1):
        if not isinstance(record, dict):
            raise SourceError(path, f"JSON record {number} is {type(record).__name__}, not an object")
    return value


def _parse_csv(text: str, path: Path) -> pd.DataFrame:
    """Strict CSV: every row must have the header's field count (pandas would pad short rows)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
        rows = []
        for row in reader:
            if not row:
                continue  # blank line, e.g. a trailing newline
            if len(row) != len(header):
                raise SourceError(path, f"malformed CSV: line {reader.line_num} has {len(row)} fields, "
                                        f"the header has {len(header)}")
            rows.append(row)
    except csv.Error as exc:
        raise SourceError(path, f"malformed CSV at line {reader.line_num}: {exc}") from None
    names = [h.strip() for h in header]
    duplicates = sorted({h for h in names if names.count(h) > 1})
    if duplicates:
        raise SourceError(path, f"malformed CSV: duplicate columns {', '.join(duplicates)}")
    if not rows:
        raise SourceError(path, "CSV has a header but no data rows")
    return pd.DataFrame(rows, columns=names, dtype=object)


# --- format detection -----------------------------------------------------------------


def _from_frame(frame: pd.DataFrame, path: Path, json_records: bool = False) -> pd.DataFrame:
    columns = set(frame.columns)
    if len(frame) == 0:
        raise SourceError(path, "table has no rows")
    if set(COLUMN_NAMES) <= columns:
        return _cast(frame[COLUMN_NAMES].copy(), path)
    fmt = next((name for name, (marks, _, _) in _FORMATS.items() if marks <= columns), None)
    if fmt is None:
        fmt = max(_FORMATS, key=lambda name: len(columns & set(_FORMATS[name][1])))
        if not columns & set(_FORMATS[fmt][1]):
            kind = "JSON records" if json_records else "columns"
            first = ", ".join(map(str, list(frame.columns)[:5]))
            raise SourceError(path, f"unknown format: {kind} match none of summary_results.json, checker "
                                    f"summary.csv or the tidy results table (first: {first})")
    _, required, mapping = _FORMATS[fmt]
    missing = [c for c in required if c not in columns]
    if missing:
        raise SourceError(path, f"looks like a {fmt} but lacks required column(s): {', '.join(missing)}")
    raw = _map(frame, mapping)
    return _normalise(raw, path, fmt)


def _map(frame: pd.DataFrame, mapping: dict[str, str]) -> pd.DataFrame:
    """Rename to intermediate names; optional columns a file lacks become all-missing."""
    out = pd.DataFrame(index=range(len(frame)))
    for target in _INTERMEDIATE:
        source = mapping.get(target)
        out[target] = frame[source].to_numpy(dtype=object) if source in frame.columns else None
    return out


# --- value conversion (each raises SourceError naming column and row) ------------------


def _is_blank(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _as_text(value: Any) -> Any:
    """Text as published; whole-number floats from JSON (`32.0`) are written as `32`."""
    if _is_blank(value):
        return pd.NA
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _convert(series: pd.Series, column: str, path: Path, parse: Callable[[Any], Any], what: str) -> list[Any]:
    out = []
    for number, value in enumerate(series.tolist(), start=1):
        if _is_blank(value):
            out.append(None)
            continue
        try:
            out.append(parse(value))
        except (TypeError, ValueError):
            raise SourceError(path, f"row {number}, column {column}: {value!r} is not {what}") from None
    return out


def _float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("boolean")
    number = float(str(value).replace(",", "")) if isinstance(value, str) else float(value)
    if math.isnan(number) or math.isinf(number):
        raise ValueError("not finite")
    return number


def _int(value: Any) -> int:
    number = _float(value)
    if not number.is_integer():
        raise ValueError("not whole")
    return int(number)


def _bool(value: Any) -> bool | None:
    return normalize.parse_bool(value)


def _source_name(frame_col: str, fmt: str) -> str:
    """The column name the user sees in their file, for error messages."""
    return _FORMATS[fmt][2].get(frame_col, frame_col)


# --- the one normalisation pass -------------------------------------------------------


def _normalise(raw: pd.DataFrame, path: Path, fmt: str) -> pd.DataFrame:
    def text(col: str) -> pd.Series:
        return raw[col].map(_as_text)

    def numbers(col: str, parse: Callable[[Any], Any], what: str) -> list[Any]:
        return _convert(raw[col], _source_name(col, fmt), path, parse, what)

    out = pd.DataFrame(index=raw.index)
    rounds = _convert(raw["round"], _source_name("round", fmt), path, normalize.round_label, "an MLPerf round")
    if any(r is None for r in rounds):
        raise SourceError(path, f"row {rounds.index(None) + 1}: empty {_source_name('round', fmt)}")
    out["round"] = rounds
    out["round_order"] = [normalize.round_order(r) for r in rounds]

    if fmt == "checker summary.csv":  # the checker has no result ID: number the rows, as the tidy CSV does
        out["result_id"] = [f"{r}-csvrow-{n:04d}" for n, r in enumerate(rounds, start=1)]
    else:
        out["result_id"] = text("result_id")
    for col in ("division", "availability", "system_type", "submitter", "system_name", "platform"):
        out[col] = text(col)
    out["submitter_raw"] = out["submitter"]  # normalize.unify_submitters() runs once all rounds are read
    nodes = numbers("number_of_nodes", _int, "a whole number")
    per_node = numbers("accelerators_per_node", _int, "a whole number")
    out["number_of_nodes"] = nodes
    accelerator_raw = text("accelerator_raw")
    accelerator_text = accelerator_raw.fillna("")
    out["accelerator"] = accelerator_text.map(normalize.accelerator)
    out["accelerator_raw"] = accelerator_raw
    out["accelerator_vendor"] = accelerator_text.map(normalize.accelerator_vendor)
    out["accelerator_family"] = accelerator_text.map(normalize.accelerator_family)
    out["accelerators_per_node"] = per_node
    if raw["total_accelerators"].map(_is_blank).all() and fmt == "summary_results.json":
        # v4.1/v5.1 publish no total: nodes x accelerators per node, as MLCommons' tables do
        out["total_accelerators"] = [n * a if n is not None and a is not None else None
                                     for n, a in zip(nodes, per_node)]
    else:
        out["total_accelerators"] = numbers("total_accelerators", _int, "a whole number")
    out["host_processor"] = text("host_processor")
    out["host_processors_per_node"] = numbers("host_processors_per_node", _int, "a whole number")
    core_raw = text("host_processor_core_count_raw")
    out["host_processor_core_count"] = core_raw.map(lambda v: None if v is pd.NA else normalize.core_count(v))
    out["host_processor_core_count_raw"] = core_raw

    benchmark_raw = text("benchmark_raw")
    model_used = text("model_used")
    model_used = model_used.where(model_used.notna(), benchmark_raw)  # UsedModel is optional in the JSON
    if benchmark_raw.isna().any():
        row = int(benchmark_raw.isna().to_numpy().argmax()) + 1
        raise SourceError(path, f"row {row}: empty {_source_name('benchmark_raw', fmt)}")
    out["benchmark"] = [normalize.benchmark_key(b, m if m is not pd.NA else "")
                        for b, m in zip(benchmark_raw, model_used)]
    out["benchmark_raw"] = benchmark_raw
    out["model_used"] = model_used
    scenario_raw = text("scenario_raw")
    out["scenario"] = scenario_raw.map(lambda v: v if v is pd.NA else normalize.scenario(v))
    out["scenario_raw"] = scenario_raw

    results = numbers("result", _float, "a number")
    if any(r is None for r in results):
        raise SourceError(path, f"row {results.index(None) + 1}: empty {_source_name('result', fmt)}")
    out["result"] = results
    units = text("units")
    if units.isna().any():
        row = int(units.isna().to_numpy().argmax()) + 1
        raise SourceError(path, f"row {row}: empty {_source_name('units', fmt)}")
    out["units"] = units
    out["lower_is_better"] = units.map(normalize.lower_is_better)
    out["accuracy"] = text("accuracy")
    out["power_result"] = numbers("power_result", _float, "a number")
    out["power_units"] = text("power_units")
    out["has_power"] = numbers("has_power", _bool, "a boolean")
    out["framework"] = text("framework")
    out["precision"] = text("precision")

    locations = text("result_path")
    if fmt == "checker summary.csv":
        rebuilt = [f"{d}/{s}/results/{p}/{m}/{sc}/performance/run_1" for d, s, p, m, sc in
                   zip(out["division"], out["submitter"], out["platform"], model_used, scenario_raw)]
        locations = locations.where(locations.notna(), pd.Series(rebuilt, index=locations.index))
    if locations.isna().any():
        row = int(locations.isna().to_numpy().argmax()) + 1
        raise SourceError(path, f"row {row}: empty {_source_name('result_path', fmt)}")
    paths = locations.map(normalize.result_path)
    out["result_path"] = paths
    built = [normalize.result_url(r, p) for r, p in zip(rounds, paths)]
    given = text("result_url")
    out["result_url"] = given.where(given.notna(), pd.Series(built, index=raw.index))
    out["source_file"] = str(path)
    return _cast(out, path)


def _cast(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Exactly the schema's columns, order and dtypes; the contract the assistant relies on."""
    out = pd.DataFrame(index=pd.RangeIndex(len(frame)))
    for column in COLUMNS:
        values = frame[column.name].reset_index(drop=True)
        try:
            if column.dtype == "string":
                values = values.map(lambda v: pd.NA if _is_blank(v) else str(v))
            elif column.dtype == "boolean":
                values = values.map(lambda v: pd.NA if _is_blank(v) else normalize.parse_bool(v))
            elif column.dtype == "float64":
                values = pd.to_numeric(values.map(lambda v: math.nan if _is_blank(v) else v))
            out[column.name] = values.astype(column.dtype)
        except (TypeError, ValueError) as exc:
            raise SourceError(path, f"column {column.name}: {str(exc).splitlines()[0]}") from None
    return out
