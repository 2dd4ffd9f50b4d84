"""Boilerplate removal at ingest: embargo notices, running page headers/footers and page numbers,
repeated title blocks, cleaned titles, and identical chunks kept once. Small inline fixtures; the
real Supplemental Discussion PDFs are checked end to end in test_pipeline.py."""

from __future__ import annotations

from ingest.documents import Document, document_chunks, load_chunks

HEADER = "Supplemental Results Discussion for MLPerf Inference v9.9"


def _pages(n: int = 6) -> list[str]:
    """A fake multi-page PDF text: a two-line running header, the body, a footer and the page number."""
    pages = []
    for i in range(1, n + 1):
        body = f"Submitter {i} ran benchmark {i} on accelerator {i}.\n\nThe results follow."
        pages.append(f"{HEADER}\nACME Research Labs\n\n{body}\n\nConfidential – do not forward\nPage {i} of {n}")
    return pages


def _texts(chunks) -> str:
    return "\n".join(c.text for c in chunks)


def test_repeated_headers_footers_and_page_numbers_are_removed_and_the_body_kept():
    doc = Document("v9.9_fake.pdf", "Fake discussion", _pages(), paged=True)
    chunks = document_chunks(doc, 350, 40)
    text = _texts(chunks)
    assert HEADER not in text and "ACME Research Labs" not in text
    assert "Confidential" not in text and "Page " not in text
    for i in range(1, 7):
        assert f"Submitter {i} ran benchmark {i} on accelerator {i}." in text
    assert [c.metadata["page"] for c in chunks] == [1, 2, 3, 4, 5, 6]


def test_a_line_repeated_in_the_body_is_not_a_header():
    # "The results follow." repeats on every page, but inside the body, never at a page's edge
    pages = [f"{name}\n{name} says hello.\n{name} ran models.\nThe results follow.\n{name} detail.\n{name} end.\n"
             f"{name} thanks you." for name in ["AMD", "Cisco", "Dell", "HPE", "Intel"]]
    text = _texts(document_chunks(Document("x.pdf", "X", pages, paged=True), 350, 0))
    assert text.count("The results follow.") == 5


def test_few_pages_are_not_enough_to_call_a_line_boilerplate():
    pages = [f"{HEADER}\n\nStatement {i}" for i in range(2)]
    text = _texts(document_chunks(Document("x.pdf", "X", pages, paged=True), 350, 0))
    assert text.count(HEADER) == 2


def test_embargo_lines_go_and_titles_are_cleaned():
    page = ("UNDER EMBARGO UNTIL 4/1/26 8:00 AM PT\n\nMLPerf Inference v6.0 Results Discussion\n\n"
            "The embargo on the results lifted on April 1, as planned.\n\nEmbargoed until 8/28/2024 8AM Pacific")
    for title, clean in [
        ("MLPerf Inference v6.0 Supplemental Discussion UNDER EMBARGO UNTIL 4/1/26 8:00 AM PT",
         "MLPerf Inference v6.0 Supplemental Discussion"),
        ("MLPerf Inference v4.1 Supplemental Discussion (Embargoed until 8/28/2024 8AM Pacific)",
         "MLPerf Inference v4.1 Supplemental Discussion"),
        ("Results – UNDER EMBARGO UNTIL 4/1/26", "Results"),
    ]:
        chunks = document_chunks(Document("v6.0_x.pdf", title, [page], paged=True), 350, 40)
        assert chunks[0].metadata["title"] == clean
        text = _texts(chunks)
        assert "UNDER EMBARGO" not in text and "Embargoed until" not in text
        assert "The embargo on the results lifted on April 1, as planned." in text  # content that names it stays


def test_a_title_that_is_only_boilerplate_falls_back_to_the_first_line():
    doc = Document("v6.0_x.pdf", "UNDER EMBARGO UNTIL 4/1/26", ["UNDER EMBARGO UNTIL 4/1/26\nReal heading\n\nBody."],
                   paged=True)
    assert document_chunks(doc, 350, 40)[0].metadata["title"] == "Real heading"


def test_a_text_file_with_form_feeds_is_cleaned_page_by_page_on_load(tmp_path):
    txt = tmp_path / "v9.9_notes.txt"  # as pdftotext writes it: one form feed between pages
    txt.write_text("\f".join(_pages(4)), encoding="utf-8")
    chunks = load_chunks(txt, 350, 40)
    text = _texts(chunks)
    assert HEADER not in text and "Page 3 of 4" not in text and "Submitter 3 ran benchmark 3" in text
    assert chunks[0].metadata["title"] == "Submitter 1 ran benchmark 1 on accelerator 1."


def test_identical_chunks_within_a_document_are_kept_once():
    from ingest.documents import chunk_text

    paragraph = " ".join(f"Word{i}" for i in range(30))
    page = "\n\n".join([paragraph] * 6 + ["A different ending."])
    every = chunk_text(page, 80, 0)
    assert len(every) > len(set(every))  # the chunker itself gives the same text more than once
    chunks = document_chunks(Document("v9.9_dup.md", "Dup", [page]), 80, 0)
    assert [c.text for c in chunks] == list(dict.fromkeys(every))
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert [c.id for c in chunks] == [f"doc:v9.9_dup.md:{i}" for i in range(len(chunks))]
    pages = Document("v9.9_dup.pdf", "Dup", ["Same page text.", "Same page text.", "Other."], paged=True)
    assert [(c.text, c.metadata["page"]) for c in document_chunks(pages, 350, 0)] == [
        ("Same page text.", 1), ("Other.", 3)]


def test_pdf_lines_wrapped_by_the_layout_are_joined_into_sentences():
    # a PDF wraps a sentence over lines; quoting one line gave "... more than 600 results submitted by"
    page = ("HPE\n\nThis round marks more than 600 inference results submitted by\n"
            "HPE since v1.0. HPE published 86 results featuring 14 configurations of\n"
            "ProLiant servers with highly-\nscalable inference.\n\nHPE servers for the datacenter:\n"
            "- ProLiant Compute XD685 with eight GPUs in one air-cooled chassis for inference\n"
            "- ProLiant DL380a")
    doc = Document("v9.9_fake.pdf", "Fake", [page], paged=True)
    text = _texts(document_chunks(doc, 350, 0))
    assert "more than 600 inference results submitted by HPE since v1.0." in text
    assert "14 configurations of ProLiant servers with highly-scalable inference." in text
    assert "HPE servers for the datacenter:\n- ProLiant Compute XD685" in text  # list items keep their lines
    assert "inference\n- ProLiant DL380a" in text
    assert text.startswith("HPE\n\n")  # a heading stays a heading


def test_markdown_lines_are_not_unwrapped():
    doc = Document("v9.9_fake.md", "Fake", ["A table row | one\nNext row | two"], paged=False)
    assert "A table row | one\nNext row | two" in _texts(document_chunks(doc, 350, 0))
