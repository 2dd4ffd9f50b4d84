"""`Parsed`: what the reader made of a question, as a runnable spec plus what explains it.

Its own module so the reader (`assistant.parse`), the shape registry (`assistant.shapes`),
the composer and the agent share one typed value without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Any, Literal

from assistant.catalog import Match
from assistant.reader import Reading
from assistant.spec import Exclusion, Filters, QuerySpec, Range

Status = Literal["ok", "no_data", "clarify"]


@dataclass
class Parsed:
    """What the question asks, as a runnable spec plus everything needed to explain it."""

    intent: str
    spec: QuerySpec | None
    entities: list[Match] = dc_field(default_factory=list)
    language: str = "en"
    needs_commentary: bool = False
    status: Status = "ok"
    message: str = ""
    notes: list[str] = dc_field(default_factory=list)
    field: str | None = None  # the attribute asked for ("how many nodes did it have?")
    followup: bool = False
    explicit: dict[str, list[str]] = dc_field(default_factory=dict)  # filters the user named (for follow-ups)
    side_column: str | None = None  # compare: the column whose values are the sides
    count_column: str | None = None
    round_defaulted: bool = False  # no round named: the latest round with the benchmark was assumed
    ranges: dict[str, dict[str, float]] = dc_field(default_factory=dict)  # e.g. number_of_nodes {"min": 2}
    has_power: bool | None = None
    excluded: dict[str, list[str]] = dc_field(default_factory=dict)  # "not NVIDIA": values to leave out
    claimed: list[float] = dc_field(default_factory=list)  # figures quoted in the question ("claims 104,637")
    unknown: list[str] = dc_field(default_factory=list)  # names no column knows ("for Stevens Institute")
    checked: dict[str, list[str]] = dc_field(default_factory=dict)  # "is it true that <these> had the top result"
    shape: str = ""  # the registered shape that built the spec (docs/reader.md)
    defaults: list[str] = dc_field(default_factory=list)  # what was assumed, for the "read as" line
    suggestions: list[str] = dc_field(default_factory=list)  # follow-up questions worth asking next
    reading: Reading | None = None
    parts: list["Parsed"] = dc_field(default_factory=list)  # a two-part question: one Parsed per part
    margin: bool = False  # "by how much over second place": state the winner's lead over the runner-up
    # The table card's preferred values per column (its [order]): which scenario an overview shows.
    order: dict[str, tuple[str, ...]] = dc_field(default_factory=dict)
    # ... and its display names: what the answer calls the measure ("time to train") and the values.
    display: dict[str, str] = dc_field(default_factory=dict)
    display_values: dict[str, dict[str, str]] = dc_field(default_factory=dict)
    decimals: dict[str, int] = dc_field(default_factory=dict)  # ... and the places it shows per unit

    def state(self) -> dict[str, Any]:
        """What a follow-up needs from this turn (stored inside Answer.query["parsed"])."""
        return {"intent": self.intent, "explicit": self.explicit, "language": self.language,
                "metric": self.spec.metric if self.spec else "result",
                "limit": self.spec.limit if self.spec else None, "side_column": self.side_column,
                "count_column": self.count_column, "ranges": self.ranges, "has_power": self.has_power,
                "excluded": self.excluded, "shape": self.shape}

    def say(self, en: str, sv: str) -> str:
        """The sentence in the question's language."""
        return sv if self.language == "sv" else en


def filters_of(explicit: dict[str, list[str]], rounds: list[str], parsed: Parsed | None = None) -> Filters:
    """The spec filters for what the question named, the rounds chosen and its numeric ranges."""
    data: dict[str, Any] = {k: v for k, v in explicit.items() if k in Filters.model_fields and v}
    if rounds:
        data["round"] = list(rounds)
    if parsed is not None:
        for col, bounds in parsed.ranges.items():
            if col in Filters.model_fields:
                data[col] = Range(**bounds)
        if parsed.has_power:
            data["has_power"] = True
        left_out = {k: v for k, v in parsed.excluded.items() if k in Exclusion.model_fields and v}
        if left_out:
            data["exclude"] = Exclusion(**left_out)
    return Filters(**data)
