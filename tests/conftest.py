"""Shared fixtures. The full data in ../shared/data is for end-to-end tests; unit tests write
small fixtures inline.

`results_table` reads the four official raw files through ingest's readers (no store, fast);
`store_settings` runs one real ingest of the default data (real Chroma, real embedder) into a
temporary store per test session and returns the settings that point at it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest import settings as settings_mod

settings_mod.setup_offline_env()

PROJECT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("RESULTSQA_DATA", PROJECT.parent / "shared" / "data"))
RAW = SHARED_DATA / "mlperf" / "raw"
RAW_FILES = {
    "v4.1": RAW / "v4.1" / "summary_results.json",
    "v5.1": RAW / "v5.1" / "summary_results.json",
    "v6.0": RAW / "v6.0" / "summary_results.json",
    "v6.1": RAW / "v6.1" / "summary.csv",
}


@pytest.fixture(autouse=True)
def _isolated_config(monkeypatch, tmp_path_factory):
    """Keep a developer's ~/.config/resultsqa and RESULTSQA_* variables out of the tests."""
    for key in list(os.environ):
        if key.startswith("RESULTSQA_") and key != "RESULTSQA_DATA":
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path_factory.getbasetemp() / "home"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    assert SHARED_DATA.is_dir(), f"the shared data mirror is missing: {SHARED_DATA}"
    return SHARED_DATA


@pytest.fixture(scope="session")
def results_table(shared_data):
    """The normalised table of all four rounds, read straight from the official raw files."""
    import pandas as pd

    from ingest.tables import read_table

    from ingest.normalize import unify_submitters

    frames = [read_table(path) for path in RAW_FILES.values()]
    return unify_submitters(pd.concat(frames, ignore_index=True))


@pytest.fixture(scope="session")
def catalog(results_table):
    """The catalog of the whole table: what the reader resolves names against (a module may
    define its own, from a smaller table)."""
    from assistant.catalog import Catalog

    return Catalog.from_table(results_table)


@pytest.fixture(scope="session")
def store_settings(tmp_path_factory, shared_data):
    """Settings pointing at a store built by one real ingest of the default data."""
    from ingest.pipeline import run_ingest

    root = tmp_path_factory.mktemp("store")
    # work_cache: embeddings and PDF text survive between test sessions (the first one pays, ~minutes on 2 cores)
    settings = settings_mod.load(store=str(root / "store"), cache=str(root / "cache"), data=str(shared_data),
                                 work_cache=str(PROJECT / "data" / "cache" / "test-ingest-work"))
    run_ingest(settings, progress=False)
    from ingest.dataset_ingest import ingest_default_cards

    ingest_default_cards(settings)  # MLPerf Training beside Inference, as `resultsqa ingest` does
    return settings


@pytest.fixture(scope="session")
def engine(store_settings):
    from assistant.engine import get_engine

    return get_engine(store_settings)
