"""The benchmark's own logic: percentiles, budgets, flattening, and a real cheap section."""

from __future__ import annotations

import os
import sys

from eval import bench


def test_percentile_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50.0
    assert bench.percentile(values, 95) == 95.0
    assert bench.percentile(values, 99) == 99.0
    assert bench.percentile([], 50) is None


def test_budget_check_names_what_is_over(tmp_path):
    budgets = tmp_path / "budgets.toml"
    budgets.write_text('[budgets]\n"offline.p50_ms" = 50\n"offline.accuracy_min" = 0.8\n"api.c50.p95_ms" = 500\n')
    results = {"offline": {"p50_ms": 61.0, "accuracy": 0.7}, "api": {"skipped": "no server"}}
    over = bench.check_budgets(results, budgets)
    assert any("offline.p50_ms = 61.0" in line for line in over)
    assert any("offline.accuracy = 0.7 is below" in line for line in over)
    assert not any("api" in line for line in over)  # skipped figures are reported, not failed
    assert bench.check_budgets({"offline": {"p50_ms": 12.0, "accuracy": 0.9}}, budgets) == []


def test_run_measured_reports_the_childs_own_peak_rss():
    small = bench.run_measured([sys.executable, "-c", "pass"])
    hold = "import time; x = bytearray(200 * 2**20); x[::4096] = b'1' * len(x[::4096]); time.sleep(0.5)"
    big = bench.run_measured([sys.executable, "-c", hold])  # held long enough for the 20 ms sampler
    assert small["exit"] == 0 and big["exit"] == 0
    assert big["peak_rss_mb"] >= 200 > small["peak_rss_mb"]


def test_unavailable_section_is_reported_not_raised(tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "question": "hi", "expected": {"kind": "text", "must_include": ["x"]}}\n')
    from ingest import settings as settings_mod

    results = bench.run_bench(settings_mod.load(), sections=["machine", "agent"], questions_path=questions,
                              model=str(tmp_path / "missing.gguf"))
    assert results["machine"]["cores"] >= 1
    assert "skipped" in results["agent"] and "missing.gguf" in results["agent"]["skipped"]


def test_api_chroma_section_serves_several_workers_from_a_real_chroma_server(store_settings):
    """The whole deployment path for several workers: ingest into a real `chroma run`, serve
    with one worker per core, load it at 50 clients. A short load: this checks that it works
    (every request answered, no errors); the figures belong to `resultsqa bench`."""
    results = bench.run_bench(store_settings, sections=["api_chroma"], api_seconds=2)
    figures = results["api_chroma"]
    assert "skipped" not in figures, figures.get("skipped")
    assert figures["workers"] == max(1, min(4, os.cpu_count() or 1))
    assert figures["questions"] > 100
    assert figures["c50"]["errors"] == 0 and figures["c50"]["requests_per_s"] > 0
    assert figures["ingest_s"] > 0 and figures["rss_mb"] > 0
