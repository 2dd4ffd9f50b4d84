"""What the independent gold checkers (`check_gold` for MLPerf Inference, `check_gold_training`
for Training) share: the recipe filter language, how a gold answer is compared with what a
recipe computed, and the command line that reads a question file and reports.

Each checker reads its own raw source and runs its own recipe ops; neither, nor this module,
imports anything from the product.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, Callable

Row = dict[str, Any]


def number(value: Any) -> float | None:
    """A raw field as a float; empty or not a number -> None."""
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _column(key: str) -> str:
    for suffix in (">=", "<=", "!~", "~"):
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


def matches(row: dict[str, Any], filters: dict[str, Any], *, strict: bool = False) -> bool:
    """Filters: {"F": "x"} equal (case-insensitive), {"F": [...]} any of, {"F~": "sub"} contains,
    {"F!~": "sub"} does not contain, {"F>=": n} / {"F<=": n} numeric bounds. `strict`: a field
    the row does not have is an error (a typo must not quietly match nothing)."""
    for key, want in filters.items():
        col = _column(key)
        if strict and col not in row:
            raise KeyError(f"no column {col!r} in the table")
        have = row.get(col)
        if key.endswith(">=") or key.endswith("<="):
            value = number(have)
            if value is None or (value < want if key.endswith(">=") else value > want):
                return False
        elif key.endswith("!~"):
            if str(want).lower() in str(have or "").lower():
                return False
        elif key.endswith("~"):
            if str(want).lower() not in str(have or "").lower():
                return False
        else:
            wanted = want if isinstance(want, list) else [want]
            if isinstance(have, str):
                if have.lower() not in {str(w).lower() for w in wanted}:
                    return False
            elif have not in wanted:
                return False
    return True


def select(rows: list[dict[str, Any]], filters: dict[str, Any] | None, *, strict: bool = False) -> list[dict[str, Any]]:
    return [r for r in rows if matches(r, filters or {}, strict=strict)]


def close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def compare(expected: dict[str, Any], recipes: list[dict[str, Any]], results: list[dict[str, Any]],
            unsourced: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Problems with a gold answer given the recipes' results (empty = verified). Names must be
    in the rows or values a recipe found; `unsourced` key words are not looked for."""
    kind = expected["kind"]
    problems: list[str] = []
    if kind == "numbers":
        wanted = expected.get("values") or []
        if len(wanted) != len(results):
            return [f"{len(wanted)} values but {len(results)} recipes"]
        for want, got in zip(wanted, results):
            if not close(got["value"], want):
                problems.append(f"value {want} != source {got['value']}")
    elif kind in ("number", "count"):
        if not close(results[0]["value"], expected.get("value")):
            problems.append(f"value {expected.get('value')} != source {results[0]['value']}")
    texts = " | ".join(t for r in results for t in r["texts"]).lower()
    if kind != "refusal" and any(r["op"] not in ("count", "ratio") for r in recipes):
        for s in expected.get("must_include", []):
            if s.lower() not in texts and s.lower() not in unsourced:
                problems.append(f"{s!r} not in the source rows/values")
        for group in expected.get("any_of", []):
            if all(s.lower() in unsourced for s in group):
                continue
            if not any(s.lower() in texts for s in group):
                problems.append(f"none of {group} in the source rows/values")
    if kind == "entity" and recipes[0]["op"] in ("setdiff", "values"):
        for s in expected.get("must_not_include", []):
            if s.lower() in texts:
                problems.append(f"{s!r} must not be named but is in the source answer")
    return problems


def recipes_of(question: dict[str, Any]) -> list[dict[str, Any]]:
    """A question's `check` as a list: one recipe may be written bare."""
    recipe = question.get("check") or []
    return recipe if isinstance(recipe, list) else [recipe]


def read_questions(path: Path) -> list[dict[str, Any]]:
    """A JSONL question file; blank lines and `//` comment lines are skipped."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("//")]


def check_questions(questions: list[dict[str, Any]], rows: list[Row],
                    verify: Callable[[dict[str, Any], list[Row]], list[str]]) -> dict[str, list[str]]:
    """Problems per question id, for the questions whose gold answer did not verify."""
    failures: dict[str, list[str]] = {}
    for question in questions:
        problems = verify(question, rows)
        if problems:
            failures[question["id"]] = problems
    return failures


def cli(argv: list[str] | None, *, description: str, default_questions: Path, default_data: Path,
        load: Callable[[Path], list[Row]],
        compute: Callable[[dict[str, Any], list[Row], Path], dict[str, Any]],
        verify: Callable[[dict[str, Any], list[Row], Path], list[str]], source: str) -> int:
    """The checkers' one command line: verify every gold answer (exit 1 on any failure), or with
    `--show` print what each recipe computes, so a recipe can be written against the source."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("questions", nargs="?", default=str(default_questions))
    parser.add_argument("--data", default=str(default_data), help="the shared data folder")
    parser.add_argument("--show", action="store_true", help="print what each recipe computes")
    args = parser.parse_args(argv)
    data, questions = Path(args.data), read_questions(Path(args.questions))
    rows = load(data)
    if args.show:
        for q in questions:
            try:
                got = [compute(r, rows, data) for r in recipes_of(q)]
                print(q["id"], [g["value"] for g in got],
                      [[t[:160] for t in g["texts"][:8]] for g in got if g["texts"]][:1])
            except Exception as exc:  # noqa: BLE001 - show every broken recipe
                print(q["id"], "ERROR", exc)
        return 0
    failures = check_questions(questions, rows, lambda q, r: verify(q, r, data))
    for qid, problems in failures.items():
        print(f"{qid}: " + "; ".join(problems))
    print(f"{len(questions) - len(failures)}/{len(questions)} gold answers verified against {source}")
    return 1 if failures else 0
