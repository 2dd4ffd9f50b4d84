"""Every bad-input case of issue 2: one line naming the file and the problem, exit != 0, store intact."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.cli import main
from ingest import store as store_mod
from tests.ingest.test_documents import yaml_bomb
from tests.ingest.test_pipeline import V41_ROWS, V61_ROWS, mirror_settings

PROJECT = Path(__file__).resolve().parents[2]
CSV = "raw/v6.1/summary.csv"
JSON = "raw/v4.1/summary_results.json"


def _args(settings) -> list[str]:
    return ["--store", settings.store, "--cache", settings.cache, "--data", settings.data,
            "--sources", settings.sources, "--embedder", "hash"]


def _drop_column(text: str, name: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    i = rows[0].index(name)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(r[:i] + r[i + 1:] for r in rows)
    return out.getvalue()


def _malformed_csv(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:2] + ["AMD,available,closed,too,few,fields"] + lines[2:]) + "\n"


def _sparse_200mb(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)


CASES = {
    "malformed-json": (JSON, lambda p: p.write_text(p.read_text()[:500]), "malformed JSON"),
    "json-not-a-list": (JSON, lambda p: p.write_text(json.dumps({"ID": "x"})), "JSON holds"),
    "malformed-csv": (CSV, lambda p: p.write_text(_malformed_csv(p.read_text())), "malformed CSV"),
    "missing-column": (CSV, lambda p: p.write_text(_drop_column(p.read_text(), "Result")), "Result"),
    "unknown-columns": (CSV, lambda p: p.write_text("colour,shape\nred,round\n"), "unknown format"),
    "csv-not-utf8": (CSV, lambda p: p.write_bytes(p.read_bytes().replace(b"AMD", "Å".encode("latin-1"), 1)),
                     "not UTF-8"),
    "binary-table": (CSV, lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10), "binary"),
    "empty-table": (CSV, lambda p: p.write_bytes(b""), "empty file"),
    "huge-table": (JSON, _sparse_200mb, "200 MB"),
    "doc-not-utf8": ("docs/a.md", lambda p: p.write_bytes("Smörgåsbord".encode("latin-1")), "not UTF-8"),
    "doc-binary": ("docs/b.txt", lambda p: p.write_bytes(b"\x00\x01\x02\x03" * 64), "binary"),
    "doc-empty": ("docs/c.html", lambda p: p.write_bytes(b""), "empty file"),
    "doc-huge": ("docs/b.txt", _sparse_200mb, "200 MB"),
    "pdf-broken": ("docs/d.pdf", lambda p: p.write_bytes(b"%PDF-1.4\ngarbage"), "PDF"),
    "doc-yaml-bomb": ("docs/a.md", lambda p: p.write_text(yaml_bomb(9)), "alias"),
    "doc-symlink-outside": ("docs/a.md", lambda p: (p.unlink(), p.symlink_to("/etc/passwd")),
                            "outside the mirror root"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_naming_the_file_and_the_store_survives(tmp_path, capsys, case):
    settings = mirror_settings(tmp_path)
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    before = store_mod.current_generation(store_mod.store_root(settings))
    capsys.readouterr()

    rel, damage, problem = CASES[case]
    damage(Path(settings.data) / rel)
    code = main(["ingest", "--quiet", *_args(settings)])
    err = capsys.readouterr().err
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert rel.split("/")[-1] in lines[0] and problem in lines[0], lines[0]

    root = store_mod.store_root(settings)
    assert store_mod.current_generation(root) == before
    assert [p.name for p in root.glob("gen-*")] == [before.name]  # nothing half-built left behind
    store = store_mod.open_store(settings)
    assert len(store.table()) == V41_ROWS + V61_ROWS
    assert store.search("Vera Rubin", k=1)


def test_the_installed_command_exits_non_zero_on_bad_input(tmp_path):
    settings = mirror_settings(tmp_path)
    (Path(settings.data) / JSON).write_text("[{\"ID\": ")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--quiet", *_args(settings)],
                          capture_output=True, text=True, cwd=PROJECT, env=env, timeout=300)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "summary_results.json: malformed JSON" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_downloaded_file_that_fails_to_parse_is_not_kept_in_the_cache(tmp_path, capsys):
    from tests.ingest.test_sources import _Server

    settings = mirror_settings(tmp_path)
    (Path(settings.data) / JSON).write_text("[{\"ID\": ")
    server = _Server(Path(settings.data))
    try:
        code = main(["ingest", "--quiet", "--source", server.url, *_args(settings)])
    finally:
        server.close()
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0
    assert f"{server.url}/raw/v4.1/summary_results.json: malformed JSON" in err  # the URL, not the cache path
    assert not list(Path(settings.cache).rglob("summary_results.json*"))  # the next ingest fetches it again
    assert store_mod.current_generation(store_mod.store_root(settings)) is None
