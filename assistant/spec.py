"""The typed query spec: the only thing a model (or the offline parser) may hand the engine.

A model never writes code or computes a number. It fills this narrow schema; the
executor (`assistant.executor`) validates it against the real columns and values of the
ingested table and runs plain pandas methods. The JSON schema of `QuerySpec`
(`QuerySpec.model_json_schema()`) is what small local models are constrained to.

Shapes (`op`):
- `rows`       filter, rank by the metric (best first unless `order` says otherwise), limit; with
               `group_by`, the best row of each group (an overview per benchmark and scenario).
- `aggregate`  filter, optional `group_by`, one aggregate (`count`, `nunique` of a column, or
               max/min/mean/median/sum of the metric).
- `difference` values of `column` present under `filters` but absent under `other`
               (e.g. benchmarks in v6.1 not in v6.0).
- `compare`    the best row of each of `sides` (each side = filters merged over `filters`),
               side by side; refuses to compare different units.
- `trend`      the best row per round for `filters` (round over round).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Range(BaseModel):
    model_config = ConfigDict(extra="forbid")
    min: float | None = Field(None, description="Inclusive lower bound.")
    max: float | None = Field(None, description="Inclusive upper bound.")


class Exclusion(BaseModel):
    """Rows to leave out: each list means 'none of these exact table values' ("not NVIDIA",
    "non-NVIDIA chips", "utom Dell"). Only the columns a question names things by."""

    model_config = ConfigDict(extra="forbid")
    submitter: list[str] | None = None
    accelerator_vendor: list[str] | None = None
    accelerator_family: list[str] | None = None
    accelerator: list[str] | None = None
    system_name: list[str] | None = None
    benchmark: list[str] | None = None
    scenario: list[str] | None = None
    division: list[str] | None = None
    availability: list[str] | None = None
    system_type: list[str] | None = None


class Filters(BaseModel):
    """Each list means 'any of these exact table values'. None / empty = no filter."""

    model_config = ConfigDict(extra="forbid")
    round: list[str] | None = Field(None, description="e.g. ['v6.1']")
    division: list[str] | None = Field(None, description="closed / open / network")
    availability: list[str] | None = Field(None, description="available / preview / rdi")
    system_type: list[str] | None = Field(None, description="datacenter / edge")
    submitter: list[str] | None = None
    system_name: list[str] | None = None
    platform: list[str] | None = None
    accelerator: list[str] | None = None
    accelerator_vendor: list[str] | None = Field(None, description="chip vendor, e.g. NVIDIA, AMD")
    accelerator_family: list[str] | None = Field(None, description="short chip name, e.g. B200, MI355X")
    benchmark: list[str] | None = Field(None, description="normalised benchmark key, as the table writes it")
    scenario: list[str] | None = Field(None, description="scenario, as the table writes it")
    units: list[str] | None = None
    framework: list[str] | None = None
    precision: list[str] | None = None
    power_units: list[str] | None = None
    number_of_nodes: Range | None = None
    total_accelerators: Range | None = None
    accelerators_per_node: Range | None = None
    result: Range | None = Field(None, description="bounds on the headline result itself (e.g. latency under 10 ms)")
    has_power: bool | None = None
    exclude: Exclusion | None = Field(None, description="rows to leave out, e.g. {'accelerator_vendor': ['NVIDIA']} "
                                      "for 'not NVIDIA'")


Metric = Literal["result", "result_per_accelerator", "power", "efficiency", "total_accelerators", "number_of_nodes"]
Aggregate = Literal["count", "nunique", "max", "min", "mean", "median", "sum"]
Op = Literal["rows", "aggregate", "difference", "compare", "trend"]


class QuerySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Op = "rows"
    filters: Filters = Field(default_factory=Filters)
    metric: Metric = Field(
        "result",
        description="result = official headline metric; result_per_accelerator = result / total_accelerators "
        "(derived, not official); power = power_result; efficiency = result / power (derived); "
        "total_accelerators / number_of_nodes = system size (best = largest; one row per system).",
    )
    order: Literal["best", "worst", "asc", "desc"] = Field(
        "best", description="best/worst respect lower-is-better units; asc/desc are literal."
    )
    limit: int = Field(10, ge=1, le=1000)
    group_by: list[str] | None = Field(None, description="columns to group by (aggregate op; rows op: best row per group)")
    aggregate: Aggregate | None = Field(None, description="aggregate op: what to compute per group")
    column: str | None = Field(None, description="column for nunique / difference, e.g. submitter, benchmark")
    other: Filters | None = Field(None, description="difference op: the set to subtract")
    sides: list[Filters] | None = Field(None, description="compare op: 2+ sides, each merged over filters")
    dedupe: bool = Field(
        True, description="rows op: keep only the best row per system result (round+submitter+platform+benchmark+"
        "scenario; for system-size metrics one row per system: round+submitter+platform)"
    )
