"""Small inline results tables for reader tests: rows of (round, round_order, benchmark,
scenario, units, submitter, accelerator_family, accelerator_vendor), typed as ingest types them."""

from __future__ import annotations

import pandas as pd

COLUMNS = ["round", "round_order", "benchmark", "scenario", "units", "submitter", "accelerator_family",
           "accelerator_vendor"]


def small_table(rows: list[tuple]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in COLUMNS:
        if c != "round_order":
            df[c] = df[c].astype("string")
    df["benchmark_raw"] = df["benchmark"]
    df["division"] = pd.array(["closed"] * len(df), dtype="string")
    return df
