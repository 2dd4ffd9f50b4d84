"""Document loaders and the token-aware chunker, on small files written here (plus the real corpus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.documents import chunk_text, count_tokens, load_chunks, load_document
from ingest.errors import SourceError


def tiny_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page (offsets computed, so pypdf reads it)."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    font_ref = 3 + 2 * n
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                       f"/Resources << /Font << /F1 {font_ref} 0 R >> >> >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


MD = """---
title: "Rubin takes the lead"
source: Example News
url: https://example.org/rubin
published: 2026-04-01
rounds: [v6.0, v5.1]
language: en
kind: news
---

NVIDIA showed Vera Rubin NVL72 in the preview category.

AMD answered with MI355X systems at scale.
"""


def test_markdown_front_matter_becomes_flat_metadata(tmp_path):
    path = tmp_path / "v6.0_example_news.md"
    path.write_text(MD, encoding="utf-8")
    chunks = load_chunks(path, 350, 40)
    assert len(chunks) == 1
    meta = chunks[0].metadata
    assert meta["kind"] == "doc" and meta["doc_kind"] == "news"
    assert meta["doc_id"] == "v6.0_example_news.md"
    assert meta["title"] == "Rubin takes the lead"
    assert meta["source"] == "Example News" and meta["url"] == "https://example.org/rubin"
    assert meta["published"] == "2026-04-01"
    assert meta["rounds"] == "v6.0,v5.1"
    assert meta["language"] == "en" and meta["chunk_index"] == 0
    assert "page" not in meta
    assert "Vera Rubin NVL72" in chunks[0].text and "title:" not in chunks[0].text
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())


def test_plain_text_title_is_first_line_and_rounds_come_from_file_name(tmp_path):
    path = tmp_path / "v5.1_notes.txt"
    path.write_text("Notes on the round\n\nGB300 debuted.\n", encoding="utf-8")
    chunk = load_chunks(path, 350, 40, url="https://example.org/notes", source="Us")[0]
    assert chunk.metadata["title"] == "Notes on the round"
    assert chunk.metadata["rounds"] == "v5.1"
    assert chunk.metadata["url"] == "https://example.org/notes" and chunk.metadata["source"] == "Us"


def test_html_text_without_scripts_and_title_from_head(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<html><head><title>MI355X at scale</title><script>var x = 'secret';</script></head>"
                    "<body><nav>menu</nav><h1>Heading</h1><p>First paragraph.</p><p>Second paragraph.</p>"
                    "</body></html>", encoding="utf-8")
    doc = load_document(path)
    assert doc.title == "MI355X at scale"
    text = doc.pages[0]
    assert "First paragraph." in text and "Second paragraph." in text
    assert "secret" not in text and "menu" not in text
    assert "First paragraph.\n\nSecond paragraph." in text


def test_pdf_pages_carry_page_numbers(tmp_path):
    path = tmp_path / "v4.1_official.pdf"
    path.write_bytes(tiny_pdf(["Statement from the first submitter", "Blackwell Ultra on page two"]))
    chunks = load_chunks(path, 350, 40, url="https://example.org/x.pdf", source="MLCommons", language="en")
    assert [c.metadata["page"] for c in chunks] == [1, 2]
    assert "Blackwell Ultra on page two" in chunks[1].text
    assert chunks[1].metadata["url"] == "https://example.org/x.pdf"
    assert chunks[1].metadata["rounds"] == "v4.1" and chunks[1].metadata["language"] == "en"
    assert len({c.id for c in chunks}) == 2


@pytest.mark.parametrize("name,data,problem", [
    ("empty.md", b"", "empty"),
    ("blank.txt", b"  \n\n ", "empty"),
    ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    ("latin1.md", "Sm\u00f6rg\u00e5sbord".encode("latin-1"), "UTF-8"),
    ("broken.md", b"---\ntitle: [unclosed\n---\nbody\n", "front matter"),
    ("list.md", b"---\n- a\n- b\n---\nbody\n", "front matter"),
    ("only-front.md", b"---\ntitle: x\n---\n", "no text"),
    ("bad.pdf", b"%PDF-1.4\nthis is not really a pdf", "PDF"),
    ("empty.pdf", b"", "empty"),
    ("table.docx", b"PK\x03\x04", "unsupported"),
])
def test_unreadable_documents_raise_one_line_errors_naming_the_file(tmp_path, name, data, problem):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SourceError) as info:
        load_chunks(path, 350, 40)
    message = str(info.value)
    assert name in message and problem in message
    assert "\n" not in message


def _paragraphs(n: int) -> list[str]:
    return [f"Paragraph {i} says that system {i} ran benchmark {i} in the Offline scenario with care."
            for i in range(n)]


def test_chunks_respect_the_token_budget_and_keep_paragraphs_whole():
    paragraphs = _paragraphs(40)
    chunks = chunk_text("\n\n".join(paragraphs), chunk_tokens=120, chunk_overlap=20)
    assert len(chunks) > 3
    assert all(count_tokens(c) <= 120 + 5 for c in chunks)  # + the joiners between paragraphs
    for para in paragraphs:
        assert any(para in c for c in chunks), para


def test_neighbouring_chunks_overlap():
    chunks = chunk_text("\n\n".join(_paragraphs(40)), chunk_tokens=120, chunk_overlap=20)
    for prev, nxt in zip(chunks, chunks[1:]):
        head = nxt.split("\n\n")[0]
        assert head and prev.endswith(head), (prev[-80:], head)
    no_overlap = chunk_text("\n\n".join(_paragraphs(40)), chunk_tokens=120, chunk_overlap=0)
    assert sum(map(count_tokens, no_overlap)) < sum(map(count_tokens, chunks))


def test_the_overlap_is_quoted_but_not_embedded_again():
    from ingest.documents import Document, document_chunks
    from ingest.pipeline import embedding_text

    doc = Document(doc_id="n.md", title="Notes", pages=["\n\n".join(_paragraphs(40))], metadata={})
    chunks = document_chunks(doc, chunk_tokens=120, chunk_overlap=20)
    assert chunks[0].metadata["overlap_chars"] == 0 and len(chunks) > 3
    for prev, chunk in zip(chunks, chunks[1:]):
        n = chunk.metadata["overlap_chars"]
        tail = chunk.text[:n].strip()
        assert n > 0 and tail and prev.text.endswith(tail)  # the quoted chunk reads on from its neighbour
        assert embedding_text(chunk) == "Notes\n\n" + chunk.text[n:] and tail not in embedding_text(chunk)


def test_a_paragraph_longer_than_a_chunk_is_split_at_sentences():
    long = " ".join(f"Sentence {i} is about accelerator {i}." for i in range(200))
    chunks = chunk_text(long, chunk_tokens=100, chunk_overlap=0)
    assert len(chunks) > 5 and all(count_tokens(c) <= 100 for c in chunks)
    assert "Sentence 57 is about accelerator 57." in "".join(chunks)


def test_the_real_commentary_corpus_loads(shared_data):
    folder = Path(shared_data) / "commentary"
    md = sorted(p for p in folder.glob("*.md") if p.name != "README.md")
    assert len(md) == 27
    languages = {}
    for path in md:
        chunks = load_chunks(path, 350, 40)
        assert chunks and all(c.metadata["url"].startswith("http") or c.metadata["url"] == "unknown" for c in chunks)
        languages[path.name] = chunks[0].metadata["language"]
    assert languages["v6.1_studio-global_analysis-sv.md"] == "sv"


def test_extracted_text_is_cached_by_content_hash(tmp_path, monkeypatch):
    import ingest.documents as documents

    path = tmp_path / "v6.0_x.pdf"
    path.write_bytes(tiny_pdf(["Cached page"]))
    first = load_chunks(path, 350, 40, sha256="abc", cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").glob("abc-*.json"))) == 1

    def no_reading(_path):
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(documents, "load_document", no_reading)
    again = load_chunks(path, 350, 40, sha256="abc", cache_dir=tmp_path / "cache")
    assert [(c.id, c.text, c.metadata) for c in again] == [(c.id, c.text, c.metadata) for c in first]
    with pytest.raises(AssertionError):
        load_chunks(path, 350, 40, sha256="other", cache_dir=tmp_path / "cache")  # new content: read again


def yaml_bomb(levels: int = 9) -> str:
    """Markdown whose front matter nests YAML aliases ("billion laughs"): 9 levels expand to 9**9 strings."""
    names = "abcdefghi"[:levels]
    lines = ["title: lol", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]" for prev, cur in zip(names, names[1:])]
    return "---\n" + "\n".join(lines) + "\n---\n\nThe body.\n"


@pytest.mark.parametrize("name,front", [
    ("bomb.md", yaml_bomb(9)),  # the 366-byte file that grew to 1 GB
    ("small-bomb.md", yaml_bomb(3)),
    ("one-alias.md", "---\ntitle: &t Rubin\nsource: *t\n---\n\nBody.\n"),
    ("anchor-only.md", "---\ntitle: &t Rubin\n---\n\nBody.\n"),
])
def test_yaml_anchors_and_aliases_in_front_matter_are_refused(tmp_path, name, front):
    path = tmp_path / name
    path.write_text(front, encoding="utf-8")
    with pytest.raises(SourceError) as info:
        load_chunks(path, 350, 40)
    message = str(info.value)
    assert name in message and "alias" in message and "\n" not in message


HIDDEN_HTML = """<html><head><title>Visible title</title><style>.x { color: red }</style></head><body>
<p>Seen one.</p>
<div style="display:none"><p>HIDDEN-display</p></div>
<p style="DISPLAY : None !important">HIDDEN-display-caps</p>
<span style="color: red; visibility: hidden">HIDDEN-visibility</span>
<p hidden>HIDDEN-attribute</p>
<div aria-hidden="true"><p>HIDDEN-aria</p></div>
<template><p>HIDDEN-template</p></template>
<noscript>HIDDEN-noscript</noscript>
<script>var x = "HIDDEN-script";</script>
<!-- HIDDEN-comment -->
<div aria-hidden="false"><p>Seen two.</p></div>
<p style="display: block">Seen three.</p>
</body></html>"""


def test_html_keeps_only_what_a_reader_sees(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(HIDDEN_HTML, encoding="utf-8")
    doc = load_document(path)
    text = doc.pages[0]
    assert doc.title == "Visible title"
    assert "Seen one." in text and "Seen two." in text and "Seen three." in text
    assert "HIDDEN" not in text, text
    assert "color" not in text


def test_words_layout_mode_glued_together_are_split_as_plain_mode_reads_them():
    """pypdf's layout mode keeps lines and paragraphs but glues some words of the Supplemental
    Discussions ("AMD isthrilled toannounce"); plain mode has every word apart. Only the glued
    tokens change, and a token plain mode lacks is kept."""
    from ingest.documents import respace

    layout = "AMD\n\nAMD   isthrilled toannounce    the  results.\nNew: MI300X"
    plain = "AMD\nAMD\nis\nthrilled\nto\nannounce\nthe\nresults.\nNew:\nMI300X"
    assert respace(layout, plain) == "AMD\n\nAMD is thrilled to announce the results.\nNew: MI300X"
    assert respace("a stray token", "a\ntoken") == "a stray token"


def test_the_supplemental_discussions_have_no_glued_words(shared_data):
    """Runs of words layout mode glued in the v4.1 discussion (before respace) are read apart."""
    path = shared_data / "commentary" / "official" / "v4.1_mlcommons_supplemental-discussion.pdf"
    text = " ".join(load_document(path).pages)
    assert "AMD is thrilled to announce" in text
    glued = [w for w in ("isthrilled", "toannounce", "thisexceptional", "fleetmanagement", "virtuallyidentical",
                         "configurationandother") if w in text]
    assert not glued, glued
