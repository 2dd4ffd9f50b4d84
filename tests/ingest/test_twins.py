"""Translated guide chunks borrow their original's vectors (ingest.twins): which chunks, from
which originals, and the vectors they get. Small inline chunks; one ingest of a tiny mirror."""

from __future__ import annotations

import math

from ingest import twins
from ingest.records import Chunk


def _c(doc: str, i: int, text: str, language: str, kind: str = "guide") -> Chunk:
    return Chunk(id=f"doc:{doc}:{i}", text=text,
                 metadata={"doc_id": doc, "doc_kind": kind, "language": language, "chunk_index": i})


EN = [_c("scenarios.md", 0, "## Offline\n\nAll queries at once.\n\n## Server", "en"),
      _c("scenarios.md", 1, "queries arrive one by one.\n\n## Interactive\n\nTighter limits.", "en")]
SV = [_c("scenarios.sv.md", 0, "## Offline\n\nAlla frågor på en gång.", "sv"),
      _c("scenarios.sv.md", 1, "## Server\n\nFrågorna kommer en och en.", "sv"),
      _c("scenarios.sv.md", 2, "med en gräns för svarstiden.", "sv"),  # continues Server
      _c("scenarios.sv.md", 3, "## Ordlista\n\nEtt avsnitt bara på svenska.", "sv")]


def test_a_translation_names_its_original():
    assert twins.original_id("benchmarks.sv.md", "sv") == "benchmarks.md"
    assert twins.original_id("benchmarks.md", "en") == "benchmarks.md"  # an original
    assert twins.original_id("notes.md", "sv") == "notes.md"  # no language suffix: not a translation


def test_a_translated_chunk_borrows_from_the_chunks_that_share_its_heading():
    chunks = EN + SV + [_c("v6.0_news.sv.md", 0, "## Offline\n\nEn nyhet.", "sv", kind="news")]
    plan = twins.borrowed(chunks)
    assert plan[2] == [0]  # Offline is in the first English chunk only
    assert plan[3] == [0, 1]  # Server starts in the first and goes on in the second
    assert plan[4] == [0, 1]  # a chunk that starts mid-section continues its heading
    assert 5 not in plan  # a heading the original lacks: embedded as usual
    assert 6 not in plan  # commentary never borrows, whatever its name
    assert 0 not in plan and 1 not in plan  # originals are embedded


def test_no_original_means_no_borrowing():
    assert twins.borrowed(SV) == {}


def test_a_borrowed_vector_is_the_normalised_mean_and_the_chunk_is_marked():
    chunks = EN + SV
    plan = twins.borrowed(chunks)
    own = [i for i in range(len(chunks)) if i not in plan]
    vectors = {0: [1.0, 0.0], 1: [0.0, 1.0], 5: [0.6, 0.8]}
    out = twins.fill(len(chunks), own, [vectors[i] for i in own], plan)
    assert out[2] == [1.0, 0.0]
    assert math.isclose(out[3][0], 2 ** -0.5) and math.isclose(out[3][1], 2 ** -0.5)
    assert out[5] == [0.6, 0.8]
    twins.mark(chunks, plan)
    assert chunks[3].metadata["translation_of"] == "scenarios.md"
    assert "translation_of" not in chunks[5].metadata and "translation_of" not in chunks[0].metadata


def test_ingest_embeds_only_the_original(tmp_path):
    """A mirror with an English guide file and its Swedish translation: the translation's chunks
    are not embedded, are stored with their original's vectors, and say what they translate."""
    from ingest import settings as settings_mod
    from ingest import store as store_mod
    from ingest.pipeline import run_ingest
    from tests.ingest.test_pipeline import make_mirror

    root, toml = make_mirror(tmp_path)
    (root / "guide" / "sv").mkdir(parents=True)
    (root / "guide" / "terms.md").write_text("---\ntitle: Terms\n---\n\n## Offline\n\nAll queries at once.\n",
                                             encoding="utf-8")
    (root / "guide" / "sv" / "terms.sv.md").write_text("---\ntitle: Termer\n---\n\n## Offline\n\nAlla frågor "
                                                       "på en gång.\n", encoding="utf-8")
    with toml.open("a", encoding="utf-8") as f:
        for name, path, lang in (("guide", "guide", "en"), ("guide-sv", "guide/sv", "sv")):
            f.write(f'\n[[source]]\nname = "{name}"\nkind = "guide"\npath = "{path}"\nlanguage = "{lang}"\n'
                    f'pattern = "*.md"\nurl = "https://example.org/guide"\n')
    settings = settings_mod.load(store=str(tmp_path / "store"), cache=str(tmp_path / "cache"), data=str(root),
                                 sources=str(toml), embedder="hash")
    report = run_ingest(settings, progress=False)
    assert report.translated == 1
    assert report.embedded_new + report.embedded_cached == report.chunks - 1  # every chunk but the translation
    store = store_mod.open_store(settings)
    sv = store.search("Alla frågor på en gång", 10, where={"doc_id": "terms.sv.md"})
    en = store.search("All queries at once", 10, where={"doc_id": "terms.md"})
    assert len(sv) == 1 and len(en) == 1
    assert sv[0]["metadata"]["translation_of"] == "terms.md"
    same = store.search("Offline", 10, where={"doc_kind": "guide"})
    assert len({round(h["score"], 6) for h in same}) == 1  # one vector, two chunks
