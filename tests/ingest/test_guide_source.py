"""The plain-language guide (data/guide/*.md, part of this repository) is a documents source of kind
"guide": read from the clone whatever the clone's folder is called, indexed like commentary with
doc_kind "guide". The guide's own content is checked in test_guide.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest import sources
from ingest import store as store_mod
from ingest.errors import SourceError
from ingest.pipeline import run_ingest
from tests.ingest.test_pipeline import mirror_settings

PROJECT = Path(__file__).resolve().parents[2]
GUIDE_ENTRY = """
[[source]]
name = "guide"
kind = "guide"
root = "clone"
path = "data/guide"
pattern = "*.md"
publisher = "resultsqa guide"
"""
GUIDE_MD = """---
title: "Scenarios in MLPerf Inference"
kind: guide
urls:
  - https://example.org/scenarios
  - https://example.org/rules
language: en
---

## Offline

The Offline scenario sends every query at once and measures throughput.
"""


def test_the_default_sources_file_reads_the_guide_from_the_clone(tmp_path):
    entries = sources.load_sources(PROJECT / "data" / "sources.toml")
    guide = [s for s in entries if s.kind == "guide"]
    assert [(s.root, s.path, s.language) for s in guide] == [("clone", "data/guide", "en"),
                                                              ("clone", "data/guide/sv", "sv")]
    guide = guide[:1]
    files = sources.local_files(guide, tmp_path, 100)  # the mirror root plays no part
    assert sorted(f.path.name for f in files) == sorted(p.name for p in (PROJECT / "data" / "guide").glob("*.md"))
    assert all(f.path.parent == PROJECT / "data" / "guide" and f.rel.startswith("data/guide/") for f in files)


@pytest.fixture
def guide_settings(tmp_path, monkeypatch):
    """The small test mirror plus a guide source in a stand-in clone holding one guide file."""
    clone = tmp_path / "some-clone"
    (clone / "data" / "guide").mkdir(parents=True)
    (clone / "data" / "guide" / "scenarios.md").write_text(GUIDE_MD, encoding="utf-8")
    (clone / "data" / "guide" / "bare.md").write_text("# Units\n\nTokens/s counts output tokens.\n", encoding="utf-8")
    monkeypatch.setattr(sources, "CLONE_ROOT", clone)
    settings = mirror_settings(tmp_path)
    toml = Path(settings.sources)
    toml.write_text(toml.read_text() + GUIDE_ENTRY, encoding="utf-8")
    return settings


def test_the_guide_is_indexed_with_kind_guide_like_commentary(guide_settings):
    report = run_ingest(guide_settings, progress=False)
    assert report.documents == 4 + 2
    store = store_mod.open_store(guide_settings)
    assert {"scenarios.md", "bare.md"} <= set(store.manifest["document_ids"])
    assert {e["path"]: e["kind"] for e in store.manifest["sources"]}["data/guide/scenarios.md"] == "guide"
    hit = store.search("Offline scenario throughput", k=1, where={"doc_kind": "guide"})[0]
    meta = hit["metadata"]
    assert meta["kind"] == "doc" and meta["doc_kind"] == "guide" and meta["doc_id"] == "scenarios.md"
    assert meta["title"] == "Scenarios in MLPerf Inference" and meta["url"] == "https://example.org/scenarios"
    assert meta["source"] == "resultsqa guide" and meta["language"] == "en"
    bare = store.search("Tokens/s output tokens", k=1, where={"doc_id": "bare.md"})[0]["metadata"]
    assert bare["doc_kind"] == "guide" and bare["title"] == "Units"  # the source's kind when front matter has none
    commentary = store.search("Vera Rubin", k=1, where={"doc_id": "a.md"})[0]["metadata"]
    assert commentary["doc_kind"] == "commentary"


def test_the_guide_comes_from_the_clone_when_the_mirror_is_a_url(guide_settings):
    from tests.ingest.test_sources import _Server

    server = _Server(Path(guide_settings.data))
    try:
        report = run_ingest(guide_settings, source=server.url, progress=False)
    finally:
        server.close()
    assert report.status == "built" and "data/guide/scenarios.md" in report.changed


def test_a_source_root_other_than_mirror_or_clone_is_refused(tmp_path):
    toml = tmp_path / "sources.toml"
    toml.write_text(GUIDE_ENTRY.replace('root = "clone"', 'root = "home"'))
    with pytest.raises(SourceError, match="root must be"):
        sources.load_sources(toml)


def test_a_clone_not_named_main_reads_its_own_guide(tmp_path):
    clone = tmp_path / "resultsqa-review"
    shutil.copytree(PROJECT / "ingest", clone / "ingest", ignore=shutil.ignore_patterns("__pycache__"))
    (clone / "data").mkdir()
    shutil.copy(PROJECT / "data" / "sources.toml", clone / "data" / "sources.toml")
    shutil.copytree(PROJECT / "data" / "guide", clone / "data" / "guide")
    code = ("from pathlib import Path; from ingest import settings, sources\n"
            "s = settings.load()\n"
            "guide = [x for x in sources.load_sources(s.sources) if x.kind == 'guide']\n"
            "print('\\n'.join(str(f.path) for f in sources.local_files(guide, Path(s.data), 100)))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESULTSQA_")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=dict(env, PYTHONPATH=str(clone)))
    assert proc.returncode == 0, proc.stderr
    paths = proc.stdout.split()
    assert paths and all(Path(p).parent in (clone / "data" / "guide", clone / "data" / "guide" / "sv") for p in paths)
    assert any(Path(p).parent == clone / "data" / "guide" / "sv" for p in paths)  # the Swedish guide too
