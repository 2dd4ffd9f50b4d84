"""One answer shape for the CLI (`ask --json`), the UI, the HTTP API and eval.

Citations are attached by our code from the rows and passages a query actually used; a
model never types them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal["answered", "no_data", "clarify", "error"]


class Value(BaseModel):
    """A number stated in the answer, with the rows it came from."""

    value: float
    unit: str | None = None
    label: str = ""
    result_ids: list[str] = Field(default_factory=list)
    derived: bool = False  # True for per-accelerator / efficiency figures: not official MLPerf metrics


class Citation(BaseModel):
    kind: Literal["row", "doc"]
    id: str  # result_id for rows, document id (file name) + chunk for docs
    url: str | None = None
    title: str = ""


class Passage(BaseModel):
    """A commentary chunk as retrieved, with where it came from."""

    id: str
    text: str
    title: str = ""
    url: str | None = None
    source: str = ""
    published: str | None = None
    rounds: list[str] = Field(default_factory=list)
    language: str | None = None
    page: int | None = None
    kind: str = "doc"  # doc (commentary and guide) | verified (a solved question)
    doc_kind: str = ""  # what the document is: guide, news, vendor-blog, supplemental-discussion, ...
    translation_of: str | None = None  # the guide document this chunk translates (it shares its vector)
    score: float | None = None


class Answer(BaseModel):
    question: str
    answer: str
    status: Status = "answered"
    values: list[Value] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    query: dict[str, Any] | None = None  # the QuerySpec as run, plus "pandas": equivalent code text
    citations: list[Citation] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    chart: dict[str, Any] | None = None  # {"type": bar|grouped_bar|line, "x":..., "y":..., "unit":..., "lower_is_better":...}
    backend: str = "offline"
    model: str | None = None
    llm_calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    notes: list[str] = Field(default_factory=list)  # caveats: division default, derived figures, fallbacks
    reading: str = ""  # one line: how the question was read (shape, measure, round, defaults assumed)
    suggestions: list[str] = Field(default_factory=list)  # follow-up questions (UI buttons, API field)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
