"""Translated guide chunks borrow their original's vectors instead of being embedded.

The Swedish guide is a section-by-section translation of the English one that keeps the English
headings. It was a sixth of a cold ingest's embedding work, and a multilingual embedder places a
passage and its translation close together anyway. So a translated chunk gets the mean vector of
the original's chunks that share one of its headings: a Swedish question still finds it, and it is
still quoted in Swedish. A chunk with no heading in common, or whose original is missing, is
embedded as usual.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Sequence

from ingest.records import Chunk

_HEADING = re.compile(r"(?m)^#{1,6}\s+(.+?)\s*$")


def original_id(doc_id: str, language: str) -> str:
    """The original's document id of a translation: "benchmarks.sv.md" -> "benchmarks.md"."""
    path = PurePosixPath(doc_id)
    stem = path.stem
    if stem.endswith("." + language):
        return str(path.with_name(stem[: -len(language) - 1] + path.suffix))
    return doc_id


def _sections(chunks: Sequence[Chunk]) -> list[set[str]]:
    """The headings each chunk holds, plus the one it continues under when it starts mid-section."""
    out: list[set[str]] = []
    last: dict[str, str] = {}
    for chunk in chunks:
        doc = str(chunk.metadata.get("doc_id", ""))
        found = [m.group(1) for m in _HEADING.finditer(chunk.text)]
        heads = set(found)
        first = _HEADING.search(chunk.text)
        if doc in last and (first is None or chunk.text[:first.start()].strip()):
            heads.add(last[doc])
        if found:
            last[doc] = found[-1]
        out.append(heads)
    return out


def borrowed(chunks: Sequence[Chunk]) -> dict[int, list[int]]:
    """Index of each translated guide chunk -> the indices of its original's chunks that share a
    heading with it. Originals are the guide documents in a language no other guide file
    translates from; they never borrow, so every index on the right is embedded."""
    sections = _sections(chunks)
    guide = [i for i, c in enumerate(chunks) if c.metadata.get("doc_kind") == "guide"]
    by_doc: dict[str, list[int]] = {}
    for i in guide:
        by_doc.setdefault(str(chunks[i].metadata.get("doc_id", "")), []).append(i)
    plan: dict[int, list[int]] = {}
    for i in guide:
        meta = chunks[i].metadata
        doc, language = str(meta.get("doc_id", "")), str(meta.get("language", ""))
        original = original_id(doc, language) if language else doc
        if original == doc or original not in by_doc:
            continue
        twins = [j for j in by_doc[original]
                 if sections[i] & sections[j] and chunks[j].metadata.get("language") != language]
        if twins:
            plan[i] = twins
    return plan


def mark(chunks: Sequence[Chunk], plan: dict[int, list[int]]) -> None:
    """Name the original of every borrowing chunk in its metadata (`translation_of`), so that a
    search keeps only the variant in the question's language (retrieval.one_language)."""
    for i in plan:
        meta = chunks[i].metadata
        meta["translation_of"] = original_id(str(meta.get("doc_id", "")), str(meta.get("language", "")))


def fill(n: int, own: Sequence[int], vectors: Sequence[Sequence[float]],
         plan: dict[int, list[int]]) -> list[list[float]]:
    """All n vectors: the embedded ones at `own`, and each borrowed one as the normalised mean of
    its originals' vectors."""
    out: list[list[float] | None] = [None] * n
    for i, vec in zip(own, vectors):
        out[i] = list(vec)
    for i, sources in plan.items():
        rows = [out[j] for j in sources]
        if any(r is None for r in rows):
            raise ValueError(f"chunk {i} borrows from a chunk that was not embedded")
        mean = [sum(col) / len(rows) for col in zip(*rows)]  # type: ignore[misc]
        norm = sum(v * v for v in mean) ** 0.5 or 1.0
        out[i] = [v / norm for v in mean]
    missing = [i for i, v in enumerate(out) if v is None]
    if missing:
        raise ValueError(f"no vector for chunk(s) {missing[:5]}")
    return out  # type: ignore[return-value]
