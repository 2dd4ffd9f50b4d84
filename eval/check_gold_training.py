"""Independent check of every MLPerf Training gold answer, straight from the published table.

Why it exists: the Training question set was written before resultsqa supported Training at
all, and it must stay a fair judge once it does. If the gold values came from the product's
own ingest or engine, a bug there would be copied into the gold set and graded as correct.
So this module imports nothing from `ingest` or `assistant` (a test enforces it) and reads
`mlperf-training/mlperf_training_results.csv` with `csv` only, using the CSV's own column names.

Recipes (same language as eval/check_gold.py; the default field is `time_to_train_min`,
which is LOWER-is-better: "fastest" is `min`, "slowest" is `max`):
  {"op": "min"|"max", "filters": {...}, "field": F, "rank": n, "report": G}
      -> the n-th best row by F (rank 1 = the min/max itself); the value is F, or G of that row
  {"op": "count", "filters": {...}}                               -> number of result rows
  {"op": "nunique"|"values", "filters": {...}, "field": F}        -> distinct count / distinct values
  {"op": "most", "filters": {...}, "field": F, "rank": n}         -> the F with the n-th most rows,
      its row count as the value (a tie at that place is an error: the gold would be ambiguous)
  {"op": "setdiff", "filters": {...}, "minus": {...}, "field": F} -> values under filters not under minus
  {"op": "ratio", "num": CHECK, "den": CHECK}                     -> num / den
  {"op": "absent", "filters": {...}, "no_column": [sub]}          -> asserts no row matches (if filters), no
      column name contains any `sub` (refusals: a round, benchmark or measure the table lacks)
A list of recipes means: `numbers` -> one recipe per value, in order; other kinds -> all must hold.

Filters: {"col": "x"} equal (case-insensitive), {"col": ["x", "y"]} any of, {"col~": "sub"} contains,
{"col!~": "sub"} does not contain, {"col>=": n} / {"col<=": n} numeric bounds. A filter on a column
the CSV does not have is an error, so a typo cannot turn a recipe into "no rows" silently.

Run: python -m eval.check_gold_training [QUESTIONS] [--data DIR] [--show]
"""

from __future__ import annotations

import csv
import os
import sys
from collections import Counter
from pathlib import Path

from eval.gold_compare import (check_questions, cli, compare, number, read_questions, recipes_of,
                               select as shared_select)
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("RESULTSQA_DATA", HERE.parent.parent / "shared" / "data"))
DEFAULT_QUESTIONS = HERE / "questions" / "mlperf-training.jsonl"
CSV_NAME = Path("mlperf-training") / "mlperf_training_results.csv"
NUMERIC = ("number_of_nodes", "accelerators_per_node", "total_accelerators", "time_to_train_min",
           "runs_used", "runs_total", "scaling_factor")


def load_rows(data: Path = DEFAULT_DATA) -> list[dict[str, Any]]:
    """The table's rows with its own column names; numeric columns as floats (empty -> None)."""
    with (Path(data) / CSV_NAME).open(encoding="utf-8", newline="") as fh:
        rows = [dict(rec) for rec in csv.DictReader(fh)]
    for row in rows:
        for col in NUMERIC:
            row[col] = number(row[col])
    return rows


def select(rows: list[dict[str, Any]], filters: dict[str, Any]) -> list[dict[str, Any]]:
    return shared_select(rows, filters, strict=True)


def _distinct(rows: list[dict[str, Any]], field: str) -> dict[str, str]:
    # case-insensitive: one name written two ways is one name
    return {str(r.get(field)).lower(): str(r.get(field)) for r in rows}


def compute(check: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Run one recipe: {"value": number or None, "texts": [str], "rows": n}."""
    op = check["op"]
    field = check.get("field", "time_to_train_min")
    if op in ("min", "max"):
        chosen = [r for r in select(rows, check.get("filters", {})) if number(r.get(field)) is not None]
        rank = check.get("rank", 1)
        if len(chosen) < rank:
            raise AssertionError(f"{len(chosen)} rows, rank {rank} wanted: {check}")
        ordered = sorted(chosen, key=lambda r: r[field], reverse=(op == "max"))
        best = ordered[rank - 1]
        value = best[check.get("report", field)]
        return {"value": value, "texts": [str(v) for v in best.values() if v is not None], "rows": len(chosen)}
    if op == "count":
        n = len(select(rows, check.get("filters", {})))
        return {"value": float(n), "texts": [], "rows": n}
    if op in ("nunique", "values"):
        values = sorted(_distinct(select(rows, check.get("filters", {})), field).values())
        return {"value": float(len(values)), "texts": values, "rows": len(values)}
    if op == "most":
        chosen = select(rows, check.get("filters", {}))
        names = _distinct(chosen, field)
        ranked = Counter(str(r.get(field)).lower() for r in chosen).most_common()
        rank = check.get("rank", 1)
        name, n = ranked[rank - 1]
        if sum(1 for _, m in ranked if m == n) > 1:
            raise AssertionError(f"tie at {n} rows for place {rank}: {[k for k, m in ranked if m == n]}")
        return {"value": float(n), "texts": [names[name]], "rows": len(chosen)}
    if op == "setdiff":
        left = _distinct(select(rows, check.get("filters", {})), field)
        right = _distinct(select(rows, check.get("minus", {})), field)
        diff = sorted(left[k] for k in left if k not in right)
        return {"value": float(len(diff)), "texts": diff, "rows": len(diff)}
    if op == "ratio":
        num, den = compute(check["num"], rows)["value"], compute(check["den"], rows)["value"]
        return {"value": num / den, "texts": [], "rows": 2}
    if op == "absent":
        n = len(select(rows, check["filters"])) if "filters" in check else 0  # no filters: a columns-only check
        if n:
            raise AssertionError(f"refusal question but {n} rows match {check['filters']}")
        columns = [c for c in (rows[0] if rows else {}) for s in check.get("no_column", []) if s.lower() in c.lower()]
        if columns:
            raise AssertionError(f"refusal question but the table has columns {columns}")
        return {"value": None, "texts": [], "rows": 0}
    raise ValueError(f"unknown check op {op!r}")


def verify(question: dict[str, Any], rows: list[dict[str, Any]], data: Path | None = None) -> list[str]:
    """Problems with one question's gold answer (empty = verified). `data` is unused: the rows
    are the whole source."""
    if question.get("check") is None:
        return ["no check recipe"]
    recipes = recipes_of(question)
    try:
        results = [compute(r, rows) for r in recipes]
    except (AssertionError, KeyError, ValueError, IndexError) as exc:
        return [f"check failed: {exc}"]
    if question["expected"]["kind"] == "refusal":
        return [] if all(r["op"] == "absent" for r in recipes) else ["a refusal needs an 'absent' recipe"]
    return compare(question["expected"], recipes, results)


def check_file(path: Path = DEFAULT_QUESTIONS, data: Path = DEFAULT_DATA) -> dict[str, list[str]]:
    return check_questions(read_questions(path), load_rows(data), verify)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, description=__doc__.splitlines()[0], default_questions=DEFAULT_QUESTIONS,
               default_data=DEFAULT_DATA, load=load_rows, compute=lambda r, rows, _data: compute(r, rows),
               verify=verify, source=str(CSV_NAME))


if __name__ == "__main__":
    sys.exit(main())
