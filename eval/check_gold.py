"""Independent check of every gold answer in a question file, straight from the official files.

Why a separate reader: if the gold values came from the product's own ingest or engine, a
bug there would be copied into the gold set and the eval would grade the bug as correct.
So this module deliberately imports nothing from `ingest` or `assistant`; it reads
`raw/*/summary_results.json` (MLCommons' final-report view) and `raw/v6.1/summary.csv` (the
submission checker's CSV) with json/csv, and the commentary Markdown as plain text.

Each question carries a `check` recipe in terms of the raw fields (see docs/eval.md):
  {"op": "max"|"min", "filters": {...}, "field": "Result"}      -> number (+ the row, for names)
  {"op": "count", "filters": {...}}                              -> number of result rows
  {"op": "nunique"|"values", "filters": {...}, "field": F}       -> distinct count / distinct values
  {"op": "setdiff", "filters": {...}, "minus": {...}, "field": F} -> values under filters not under minus
  {"op": "ratio", "num": CHECK, "den": CHECK}                    -> num / den
  {"op": "absent", "filters": {...}}                             -> asserts no row matches (refusals)
  {"op": "doc", "file": NAME, "contains": [str], "number": "1,136,100"} -> text present in a commentary file
      ("number" is read from the text itself; "value" states a figure the text writes in words or
      with a decimal comma, and "contains" must then hold that wording)
A list of recipes means: `numbers` -> one recipe per value, in order; other kinds -> all must hold.

Filters: {"Field": "x"} equal (case-insensitive), {"Field": ["x", "y"]} any of,
{"Field~": "sub"} contains, {"Field!~": "sub"} does not contain, {"Field>=": n} / {"Field<=": n} numeric bounds.
Unified raw fields: version, ID, Submitter, Availability, Division, Suite, System, Platform, Model
(the official benchmark: `Model` in the JSON, `MlperfModel` in the CSV), UsedModel, Scenario, Result,
Units, Nodes, Accelerator, a#, TotalAccelerators, Power_Result, Power_Units, has_power, Location, and the
derived PerAccelerator = Result / TotalAccelerators.

Run: python -m eval.check_gold [QUESTIONS] [--data DIR] [--show]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("RESULTSQA_DATA", HERE.parent.parent / "shared" / "data"))
DEFAULT_QUESTIONS = HERE / "questions" / "mlperf.jsonl"
JSON_ROUNDS = ("v4.1", "v5.1", "v6.0")


def _num(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def load_raw(data: Path = DEFAULT_DATA) -> list[dict[str, Any]]:
    """All four rounds as dicts with one set of field names (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    raw = Path(data) / "mlperf" / "raw"
    for round_name in JSON_ROUNDS:
        for rec in json.loads((raw / round_name / "summary_results.json").read_text(encoding="utf-8")):
            nodes, per_node = _num(rec.get("Nodes")), _num(rec.get("a#"))
            total = _num(rec.get("Total Accelerators"))
            if total is None and nodes is not None and per_node is not None:
                total = nodes * per_node
            rows.append({
                "version": rec["version"], "ID": rec.get("ID"), "Submitter": rec.get("Submitter"),
                "Availability": rec.get("Availability"), "Division": rec.get("Category"), "Suite": rec.get("Suite"),
                "System": rec.get("System"), "Platform": rec.get("Platform"), "Model": rec.get("Model"),
                "UsedModel": rec.get("UsedModel"), "Scenario": rec.get("Scenario"),
                "Result": _num(rec.get("Performance_Result")), "Units": rec.get("Performance_Units"),
                "Nodes": nodes, "Accelerator": rec.get("Accelerator"), "a#": per_node, "TotalAccelerators": total,
                "Power_Result": _num(rec.get("Power_Result")), "Power_Units": rec.get("Power_Units"),
                "has_power": bool(rec.get("has_power")), "Location": rec.get("Location"),
            })
    with (raw / "v6.1" / "summary.csv").open(encoding="utf-8", newline="") as fh:
        for n, rec in enumerate(csv.DictReader(fh), start=1):
            rows.append({
                "version": rec["version"], "ID": f"v6.1-csvrow-{n:04d}", "Submitter": rec["Organization"],
                "Availability": rec["Availability"], "Division": rec["Division"], "Suite": rec["SystemType"],
                "System": rec["SystemName"], "Platform": rec["Platform"], "Model": rec["MlperfModel"],
                "UsedModel": rec["Model"], "Scenario": rec["Scenario"], "Result": _num(rec["Result"]),
                "Units": rec["Units"], "Nodes": _num(rec["number_of_nodes"]),
                "Accelerator": rec["accelerator_model_name"], "a#": _num(rec["accelerators_per_node"]),
                "TotalAccelerators": _num(rec["total_accelerators"]), "Power_Result": None, "Power_Units": None,
                "has_power": rec["has_power"].strip().lower() == "true", "Location": rec["Location"],
            })
    for row in rows:  # derived, not an official metric: result per accelerator
        total = row["TotalAccelerators"]
        row["PerAccelerator"] = row["Result"] / total if row["Result"] is not None and total else None
    return rows


def _matches(row: dict[str, Any], filters: dict[str, Any]) -> bool:
    for key, want in filters.items():
        if key.endswith(">=") or key.endswith("<="):
            value = _num(row.get(key[:-2]))
            if value is None or (value < want if key.endswith(">=") else value > want):
                return False
        elif key.endswith("!~"):
            if str(want).lower() in str(row.get(key[:-2]) or "").lower():
                return False
        elif key.endswith("~"):
            if str(want).lower() not in str(row.get(key[:-1]) or "").lower():
                return False
        else:
            wanted = want if isinstance(want, list) else [want]
            have = row.get(key)
            if isinstance(have, bool) or not isinstance(have, str):
                if have not in wanted:
                    return False
            elif have.lower() not in {str(w).lower() for w in wanted}:
                return False
    return True


def select(rows: list[dict[str, Any]], filters: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in rows if _matches(r, filters or {})]


def _doc_text(data: Path, name: str) -> str:
    path = Path(data) / "commentary" / name
    return " ".join(path.read_text(encoding="utf-8").split())


def compute(check: dict[str, Any], rows: list[dict[str, Any]], data: Path = DEFAULT_DATA) -> dict[str, Any]:
    """Run one recipe: {"value": number or None, "texts": [str], "rows": n}."""
    op = check["op"]
    field = check.get("field", "Result")
    if op in ("max", "min"):
        chosen = [r for r in select(rows, check.get("filters", {})) if _num(r.get(field)) is not None]
        if not chosen:
            raise AssertionError(f"no rows for {check}")
        best = (max if op == "max" else min)(chosen, key=lambda r: r[field])
        return {"value": best[field], "texts": [str(v) for v in best.values() if v is not None], "rows": len(chosen)}
    if op == "count":
        n = len(select(rows, check.get("filters", {})))
        return {"value": float(n), "texts": [], "rows": n}
    if op in ("nunique", "values"):
        # case-insensitive, like setdiff: `Nvidia B300-SXM-270GB` and `NVIDIA B300-SXM-270GB` are one name
        seen = {str(r.get(field)).lower(): str(r.get(field)) for r in select(rows, check.get("filters", {}))}
        values = sorted(seen.values())
        return {"value": float(len(values)), "texts": values, "rows": len(values)}
    if op == "setdiff":
        # case-insensitive: `ORACLE` (v6.0) and `Oracle` (v6.1) are the same submitter
        left = {str(r.get(field)).lower(): str(r.get(field)) for r in select(rows, check.get("filters", {}))}
        right = {str(r.get(field)).lower() for r in select(rows, check.get("minus", {}))}
        diff = sorted(left[k] for k in left if k not in right)
        return {"value": float(len(diff)), "texts": diff, "rows": len(diff)}
    if op == "ratio":
        num, den = compute(check["num"], rows, data)["value"], compute(check["den"], rows, data)["value"]
        return {"value": num / den, "texts": [], "rows": 2}
    if op == "absent":
        n = len(select(rows, check.get("filters", {})))
        if n:
            raise AssertionError(f"refusal question but {n} rows match {check['filters']}")
        return {"value": None, "texts": [], "rows": 0}
    if op == "doc":
        text = _doc_text(data, check["file"])
        lower = text.lower()
        missing = [s for s in check.get("contains", []) + ([check["number"]] if "number" in check else [])
                   if " ".join(s.split()).lower() not in lower]
        if missing:
            raise AssertionError(f"{check['file']} does not say {missing}")
        value = check.get("value")  # a figure the text writes its own way (`3,7 gånger`, `eight`)
        if "number" in check:
            value = float(check["number"].replace(",", "").replace("\u202f", "").replace(" ", ""))
        return {"value": value, "texts": [text], "rows": 1}
    raise ValueError(f"unknown check op {op!r}")


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def verify(question: dict[str, Any], rows: list[dict[str, Any]], data: Path = DEFAULT_DATA) -> list[str]:
    """Problems with one question's gold answer (empty = verified)."""
    expected = question["expected"]
    kind = expected["kind"]
    recipe = question.get("check")
    if recipe is None:
        return ["no check recipe"]
    recipes = recipe if isinstance(recipe, list) else [recipe]
    try:
        results = [compute(r, rows, data) for r in recipes]
    except (AssertionError, KeyError, ValueError, OSError) as exc:
        return [f"check failed: {exc}"]
    problems: list[str] = []
    if kind == "numbers":
        wanted = expected.get("values") or []
        if len(wanted) != len(results):
            return [f"{len(wanted)} values but {len(results)} recipes"]
        for want, got in zip(wanted, results):
            if not _close(got["value"], want):
                problems.append(f"value {want} != source {got['value']}")
    elif kind in ("number", "count"):
        if not _close(results[0]["value"], expected.get("value")):
            problems.append(f"value {expected.get('value')} != source {results[0]['value']}")
    texts = " | ".join(t for r in results for t in r["texts"]).lower()
    if kind != "refusal" and any(r["op"] != "count" and r["op"] != "ratio" for r in recipes):
        for s in expected.get("must_include", []):
            if s.lower() not in texts:
                problems.append(f"{s!r} not in the source rows/values")
        for group in expected.get("any_of", []):
            if not any(s.lower() in texts for s in group):
                problems.append(f"none of {group} in the source rows/values")
    for s in expected.get("must_not_include", []):
        if kind == "entity" and s.lower() in texts and recipes[0]["op"] in ("setdiff", "values"):
            problems.append(f"{s!r} must not be named but is in the source answer")
    return problems


def check_file(path: Path = DEFAULT_QUESTIONS, data: Path = DEFAULT_DATA) -> dict[str, list[str]]:
    rows = load_raw(data)
    failures: dict[str, list[str]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        question = json.loads(line)
        problems = verify(question, rows, data)
        if problems:
            failures[question["id"]] = problems
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="?", default=str(DEFAULT_QUESTIONS))
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--show", action="store_true", help="print what each recipe computes")
    args = parser.parse_args(argv)
    data = Path(args.data)
    if args.show:
        rows = load_raw(data)
        for line in Path(args.questions).read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                recipes = q.get("check") or []
                recipes = recipes if isinstance(recipes, list) else [recipes]
                try:
                    got = [compute(r, rows, data) for r in recipes]
                    print(q["id"], [g["value"] for g in got], [g["texts"][:8] for g in got if g["texts"]][:1])
                except Exception as exc:  # noqa: BLE001 - show every broken recipe
                    print(q["id"], "ERROR", exc)
        return 0
    failures = check_file(Path(args.questions), data)
    total = sum(1 for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip())
    for qid, problems in failures.items():
        print(f"{qid}: " + "; ".join(problems))
    print(f"{total - len(failures)}/{total} gold answers verified against the raw files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
