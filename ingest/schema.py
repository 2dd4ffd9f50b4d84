"""The normalised results table: one row per published result, one schema for every round.

This is the contract between ingest (which writes `results.parquet`) and the assistant
(which queries it). Where ingest changes a value (scenario casing, decorated accelerator
names, free-text core counts, folder-style benchmark names) the value as published is kept
beside it in a `*_raw` column, so an answer can always show what MLCommons printed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str  # pandas dtype name used in the parquet file
    help: str
    filterable: bool = False  # may appear in QuerySpec filters / group_by


COLUMNS: list[Column] = [
    Column("round", "string", "MLPerf round, e.g. `v6.1`.", True),
    Column("round_order", "Int64", "Sortable round number (v4.1 -> 401, v6.1 -> 601)."),
    Column("result_id", "string", "Official result ID (`5.1-0001`, one per system submission) or `v6.1-csvrow-NNNN`."),
    Column("division", "string", "`closed` / `open` / `network`.", True),
    Column("availability", "string", "`available` / `preview` / `rdi`.", True),
    Column("system_type", "string", "`datacenter` / `edge` / `datacenter,edge`.", True),
    Column("submitter", "string", "Submitting organisation (not the chip vendor); one spelling across rounds.", True),
    Column("submitter_raw", "string", "Submitter exactly as published (`ORACLE` in v6.0, `Oracle` in v6.1)."),
    Column("system_name", "string", "Marketing system name.", True),
    Column("platform", "string", "System ID = results folder name.", True),
    Column("number_of_nodes", "Int64", "Nodes in the system under test.", True),
    Column("accelerator", "string", "Accelerator model, decorations like ` (x87)` removed; `N/A` for CPU-only.", True),
    Column("accelerator_raw", "string", "Accelerator model exactly as published."),
    Column("accelerator_vendor", "string", "Chip vendor derived from the accelerator (NVIDIA, AMD, Intel, Google, ...; `none` for CPU-only).", True),
    Column("accelerator_family", "string", "Short chip name derived from the accelerator (B200, GB300, MI355X, H100, ...).", True),
    Column("accelerators_per_node", "Int64", "Accelerators per node.", True),
    Column("total_accelerators", "Int64", "Total accelerators in the system.", True),
    Column("host_processor", "string", "Host CPU model.", True),
    Column("host_processors_per_node", "Int64", "Host CPU sockets per node."),
    Column("host_processor_core_count", "Int64", "Cores per socket (parsed from free text where needed)."),
    Column("host_processor_core_count_raw", "string", "Core count exactly as published."),
    Column("benchmark", "string", "Normalised benchmark key (`llama2-70b-99.9`, `llama3.1-8b`, `gpt-oss-120b`, ...).", True),
    Column("benchmark_raw", "string", "Official benchmark label as published (MlperfModel / Model)."),
    Column("model_used", "string", "Model or folder name the submitter used."),
    Column("scenario", "string", "Offline / Server / Interactive / SingleStream / MultiStream (casing normalised).", True),
    Column("scenario_raw", "string", "Scenario exactly as published."),
    Column("result", "float64", "Headline metric value."),
    Column("units", "string", "`Tokens/s`, `Samples/s`, `Queries/s`, `Latency (ms)`, `Latency (s)`, `Tasks/s`, ...", True),
    Column("lower_is_better", "boolean", "True for latency units."),
    Column("accuracy", "string", "Accuracy string as published."),
    Column("power_result", "float64", "System power result where submitted (v4.1, v5.1)."),
    Column("power_units", "string", "`Watts` or `millijoules`.", True),
    Column("has_power", "boolean", "Whether the system submitted power."),
    Column("framework", "string", "Software stack.", True),
    Column("precision", "string", "Weight data types (e.g. `fp4`, `fp8,bf16`).", True),
    Column("result_path", "string", "Result folder inside the round's public repository."),
    Column("result_url", "string", "Public URL of the result folder (for citations)."),
    Column("source_file", "string", "Which file the row was read from."),
]

COLUMN_NAMES: list[str] = [c.name for c in COLUMNS]
FILTERABLE: list[str] = [c.name for c in COLUMNS if c.filterable]
LATENCY_UNITS = {"Latency (ms)", "Latency (s)", "Latency (us)", "millijoules"}
