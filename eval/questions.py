"""The question-file format of `resultsqa eval` (documented in docs/eval.md).

A question file is JSONL, one question per line. The same loader serves our gold set and a
user's own file, so ids and wording are never assumed: anything that parses is accepted, and
a broken line is reported with its line number instead of being skipped silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Kind = Literal["number", "numbers", "count", "entity", "refusal", "text"]
Needs = Literal["table", "commentary", "both", "none", "guide"]


class Expected(BaseModel):
    """What a correct answer contains. Substring checks are case-insensitive."""

    model_config = ConfigDict(extra="forbid")
    kind: Kind
    value: float | None = None  # number / count
    values: list[float] | None = None  # numbers: every one must appear
    rel_tol: float = 0.01
    must_include: list[str] = Field(default_factory=list)
    any_of: list[list[str]] = Field(default_factory=list)  # each group: at least one must appear
    must_not_include: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _complete(self) -> "Expected":
        if self.kind in ("number", "count") and self.value is None:
            raise ValueError(f"kind {self.kind!r} needs 'value'")
        if self.kind == "numbers" and not self.values:
            raise ValueError("kind 'numbers' needs a non-empty 'values'")
        if self.kind in ("entity", "text") and not (self.must_include or self.any_of):
            raise ValueError(f"kind {self.kind!r} needs 'must_include' or 'any_of'")
        if self.rel_tol < 0:
            raise ValueError("rel_tol must be >= 0")
        return self


class Question(BaseModel):
    """One evaluation question. `check` is optional and only read by eval/check_gold.py."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    history: list[str] = Field(default_factory=list)
    expected: Expected
    needs: Needs = "table"
    lang: str = "en"
    tags: list[str] = Field(default_factory=list)
    check: dict[str, Any] | list[dict[str, Any]] | None = None
    note: str = ""
    gold_doc: str | None = None  # the document holding the gold (retrieval recall@5 is measured on it)


class QuestionFileError(ValueError):
    """A question file that cannot be used; the message names the file and line."""


def parse_questions(lines: list[str], source: str = "<questions>") -> list[Question]:
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("//"):
            continue
        try:
            question = Question.model_validate(json.loads(text))
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{source}:{number}: not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            raise QuestionFileError(f"{source}:{number}: {where}: {first['msg']}") from None
        if question.id in seen:
            raise QuestionFileError(f"{source}:{number}: duplicate id {question.id!r} (first on line {seen[question.id]})")
        seen[question.id] = number
        questions.append(question)
    if not questions:
        raise QuestionFileError(f"{source}: no questions")
    return questions


def load_questions(path: str | Path) -> list[Question]:
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"{path}: no such file")
    return parse_questions(path.read_text(encoding="utf-8").splitlines(), source=str(path))


def spread_sample(questions: list[Question], n: int) -> list[Question]:
    """n questions evenly spaced through the file, so a quick run with a slow model still sees
    every section of a file ordered by topic (lookups, ..., Swedish, refusals) rather than the first n."""
    if n <= 0 or n >= len(questions):
        return list(questions)
    step = len(questions) / n
    return [questions[int(i * step)] for i in range(n)]


GOLD_PATH = Path(__file__).resolve().parent / "questions" / "mlperf.jsonl"
# Written after the gold set had been used to improve the parser: new facts and informal
# wording, to measure how much of the gold-set accuracy carries over to unseen questions.
HELDOUT_PATH = Path(__file__).resolve().parent / "questions" / "mlperf-heldout.jsonl"
# Written by someone who never saw the reader, frozen before the compositional reader (never tuned on).
HELDOUT2_PATH = Path(__file__).resolve().parent / "questions" / "mlperf-heldout2.jsonl"
FRESH_PATH = Path(__file__).resolve().parent / "questions" / "mlperf-fresh.jsonl"
FRESH2_PATH = Path(__file__).resolve().parent / "questions" / "mlperf-fresh2.jsonl"
TRAINING_PATH = Path(__file__).resolve().parent / "questions" / "mlperf-training.jsonl"
