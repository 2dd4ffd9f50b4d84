"""Commentary documents → token-sized `Chunk`s with the metadata citations need.

Loaders for Markdown (YAML front matter), plain text, HTML and PDF all end in the same
`Document` (title, metadata, pages of text), and one chunker turns that into chunks. Chunks
are sized in tiktoken tokens (cl100k_base, loaded from the copy bundled with llama-index, see
`setup_offline_env`) because the answering model's context is counted in tokens, and they
keep whole paragraphs where they fit so a cited passage reads as the author wrote it.
PDF chunks never cross a page, so every passage can cite its page number.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ingest.errors import SourceError
from ingest.records import Chunk

MARKDOWN = {".md", ".markdown"}
TEXT = {".txt", ".text"}
HTML = {".html", ".htm"}
PDF = {".pdf"}
SUPPORTED = MARKDOWN | TEXT | HTML | PDF

_ROUND_IN_NAME = re.compile(r"(?<![0-9A-Za-z])v(\d+\.\d+)(?![0-9])")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


@dataclass
class Document:
    """A loaded document: metadata plus one text per page (one page for non-PDF formats)."""

    doc_id: str
    title: str
    pages: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)
    paged: bool = False


@lru_cache(maxsize=1)
def _encoding():
    from ingest.settings import setup_offline_env

    setup_offline_env()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def _read_text(path: Path) -> str:
    """Bytes → str, refusing what is not a text document (binary, not UTF-8, empty)."""
    data = path.read_bytes()
    if not data.strip():
        raise SourceError(path, "empty file")
    if b"\x00" in data[:8192]:
        raise SourceError(path, "binary file, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    return text.replace("\r\n", "\n")


def _flat(value: Any) -> Any:
    """Front-matter values as Chroma metadata (str/int/float/bool only)."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _rounds_from_name(name: str) -> str:
    return ",".join(f"v{m}" for m in _ROUND_IN_NAME.findall(name))


@lru_cache(maxsize=1)
def _front_matter_loader():
    """A safe YAML loader that refuses anchors and aliases.

    Front matter is a flat list of keys; aliases have no use there, and nested ones ("billion
    laughs") turn a few hundred bytes into gigabytes once the values are flattened to text.
    The loader stops at the first anchor or alias event, before anything is built.
    """
    import yaml

    class NoAliasLoader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise _AliasFound(event.start_mark.line)
            return super().compose_node(parent, index)

    return NoAliasLoader


class _AliasFound(Exception):
    def __init__(self, line: int):
        self.line = line


def _load_front_matter(path: Path, text: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_front_matter_loader())  # noqa: S506 - a SafeLoader subclass
    except _AliasFound as found:
        raise SourceError(path, f"YAML anchors and aliases are not allowed in front matter "
                                f"(line {found.line + 2})") from None


def load_markdown(path: Path) -> Document:
    import yaml

    text = _read_text(path)
    meta: dict[str, Any] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            loaded = _load_front_matter(path, match.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 2})" if mark else ""
            raise SourceError(path, f"malformed YAML front matter{where}") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise SourceError(path, "YAML front matter is not a mapping of keys to values")
        meta = {str(k): _flat(v) for k, v in (loaded or {}).items() if v is not None}
        urls = (loaded or {}).get("urls")
        if not meta.get("url") and isinstance(urls, list) and urls:  # several sources: cite the first
            meta["url"] = str(urls[0])
        text = text[match.end():]
    if not text.strip():
        raise SourceError(path, "no text after the front matter")
    title = str(meta.pop("title", "") or _first_heading(text) or path.stem)
    return Document(path.name, title, [text], meta)


def _first_heading(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def load_text(path: Path) -> Document:
    text = _read_text(path)
    first = next((line.strip() for line in text.splitlines() if line.strip()), path.stem)
    return Document(path.name, first[:200], [text])


# Elements whose text a reader never sees as page content (scripts, inert templates, page chrome).
_UNSEEN_TAGS = ["script", "style", "template", "noscript", "nav", "header", "footer"]
_HIDING_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))"
                           r"\s*(?:!\s*important\s*)?(?=;|$)", re.I)


def _is_hidden(tag) -> bool:
    """An element hidden by its own markup: `hidden`, aria-hidden="true", or an inline style that hides it."""
    attrs = tag.attrs or {}
    return ("hidden" in attrs
            or str(attrs.get("aria-hidden", "")).strip().lower() == "true"
            or bool(_HIDING_STYLE.search(str(attrs.get("style", "")))))


def load_html(path: Path) -> Document:
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(_read_text(path), "html.parser")
    for node in soup.find_all(string=lambda s: isinstance(s, Comment)):
        node.extract()
    # Only what a reader sees is indexed and quoted: hidden text is often stale, or written for
    # crawlers rather than readers.
    for tag in soup.find_all(_UNSEEN_TAGS) + soup.find_all(_is_hidden):
        if not tag.decomposed:
            tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else ""
    body = soup.body or soup
    # Block elements end a paragraph; get_text with "\n" keeps them apart, blank lines mark paragraphs.
    for block in body.find_all(["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "br", "pre"]):
        block.insert_after("\n\n")
    text = re.sub(r"[ \t]+", " ", body.get_text())
    text = re.sub(r"\n\s*\n+", "\n\n", text).strip()
    if not text:
        raise SourceError(path, "HTML page has no text")
    return Document(path.name, title or _first_line(text) or path.stem, [text])


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]


def load_pdf(path: Path) -> Document:
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    if path.stat().st_size == 0:
        raise SourceError(path, "empty file")
    try:
        reader = PdfReader(str(path))
        # Layout mode: Google-Docs PDFs (the MLCommons supplemental discussions) otherwise
        # come out one word per line.
        pages = [_tidy_pdf_page(_layout_text(page)) for page in reader.pages]
        info = reader.metadata or {}
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise SourceError(path, f"not a readable PDF ({exc.__class__.__name__}: {exc})".splitlines()[0]) from None
    if not any(p.strip() for p in pages):
        raise SourceError(path, "PDF has no extractable text")
    title = str(info.get("/Title") or "").strip() or _first_line(pages[0]) or path.stem
    return Document(path.name, title, pages, {}, paged=True)


# A run of lower-case letters this long is rarely one word ("isthrilled toannounce"): layout
# extraction glued words together on that page, and the plain extraction is read to split them.
_GLUED = re.compile(r"[a-z]{13,}")
RESYNC_WORDS = 30  # how far ahead a token is looked for in the plain words when the two disagree


def _layout_text(page) -> str:
    """A page's text in layout mode (lines and paragraphs kept), with words that layout mode glued
    together ("isthrilled toannounce") split again as plain mode, which puts every word on its own
    line, separates them. Plain mode is only read for a page that looks glued."""
    layout = page.extract_text(extraction_mode="layout")
    return respace(layout, page.extract_text()) if _GLUED.search(layout) else layout


def respace(layout: str, plain: str) -> str:
    """`layout` with every token that is several consecutive words of `plain` run together split
    into those words. Tokens are matched in order; a token plain mode does not have is kept as it is."""
    words = plain.split()
    i = 0
    lines = []
    for line in layout.splitlines():
        fixed = []
        for token in line.split():
            if i < len(words) and words[i] == token:
                fixed.append(token)
                i += 1
                continue
            j, joined = i, ""
            while j < len(words) and len(joined) < len(token) and token.startswith(joined + words[j]):
                joined += words[j]
                j += 1
            if joined == token and j > i + 1:
                fixed.append(" ".join(words[i:j]))
                i = j
                continue
            ahead = next((k for k in range(i, min(i + RESYNC_WORDS, len(words))) if words[k] == token), None)
            if ahead is not None:
                i = ahead + 1
            fixed.append(token)
        lines.append(" ".join(fixed))
    return "\n".join(lines)


def _tidy_pdf_page(text: str) -> str:
    lines = [re.sub(r"\s{2,}", " ", line).strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def load_document(path: str | Path) -> Document:
    """Load one file by its suffix; anything we cannot read is a one-line SourceError."""
    path = Path(path)
    suffix = path.suffix.lower()
    if not path.is_file():
        raise SourceError(path, "file not found")
    if suffix in MARKDOWN:
        return load_markdown(path)
    if suffix in TEXT:
        return load_text(path)
    if suffix in HTML:
        return load_html(path)
    if suffix in PDF:
        return load_pdf(path)
    raise SourceError(path, f"unsupported document type {suffix or '(no suffix)'}; "
                            f"supported: {', '.join(sorted(SUPPORTED))}")


# --- chunking ---------------------------------------------------------------------------

def _split_long(paragraph: str, size: int) -> list[str]:
    """A paragraph over the budget: split at sentence ends, then (last resort) at token boundaries."""
    enc = _encoding()
    pieces: list[str] = []
    current = ""
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        candidate = f"{current} {sentence}".strip()
        if count_tokens(candidate) <= size:
            current = candidate
            continue
        if current:
            pieces.append(current)
        if count_tokens(sentence) <= size:
            current = sentence
        else:
            tokens = enc.encode(sentence, disallowed_special=())
            for i in range(0, len(tokens), size):
                pieces.append(enc.decode(tokens[i:i + size]))
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _overlap_tail(text: str, overlap: int) -> str:
    """The last `overlap` tokens of a chunk, starting at a word boundary."""
    if overlap <= 0:
        return ""
    enc = _encoding()
    tokens = enc.encode(text, disallowed_special=())
    if len(tokens) <= overlap:
        return ""
    tail = enc.decode(tokens[-overlap:])
    cut = re.search(r"\s", tail)
    return tail[cut.end():].strip() if cut else ""


def chunk_text(text: str, chunk_tokens: int, chunk_overlap: int) -> list[str]:
    """Pack whole paragraphs into chunks of at most ~chunk_tokens; neighbours share chunk_overlap tokens."""
    return [chunk for chunk, _ in overlapped_chunks(text, chunk_tokens, chunk_overlap)]


def overlapped_chunks(text: str, chunk_tokens: int, chunk_overlap: int) -> list[tuple[str, int]]:
    """`chunk_text`'s chunks, each with the length of the overlap it starts with (0 for the first).

    The overlap is there so a quoted passage reads on from its neighbour; it is not embedded
    again (`ingest.pipeline.embedding_text`), since the neighbour's vector already holds it."""
    if chunk_tokens <= 0:
        raise ValueError("chunk_tokens must be positive")
    overlap = max(0, min(chunk_overlap, chunk_tokens // 2))
    budget = chunk_tokens - overlap
    paragraphs: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        paragraphs.extend(_split_long(para, budget) if count_tokens(para) > budget else [para])
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for para in paragraphs:
        n = count_tokens(para)
        if current and used + n > budget:
            chunks.append("\n\n".join(current))
            current, used = [], 0
        current.append(para)
        used += n + 1
    if current:
        chunks.append("\n\n".join(current))
    out = [(chunk, 0) for chunk in chunks]
    if overlap:
        out = out[:1] + [
            ((f"{tail}\n\n{chunk}", len(tail) + 2) if (tail := _overlap_tail(prev, overlap)) else (chunk, 0))
            for prev, chunk in zip(chunks, chunks[1:])
        ]
    return out


def document_chunks(doc: Document, chunk_tokens: int, chunk_overlap: int, url: str = "",
                    source: str = "", language: str = "", doc_kind: str = "", dataset: str = "") -> list[Chunk]:
    """Chunks with the flat metadata retrieval and citations read (see ingest.records.Chunk).

    Boilerplate (running headers, page numbers, embargo notices) is removed first, and a chunk
    whose text the document already gave is not given again. A document about a dataset card's
    table (`dataset`) has kind "doc:<id>", so a search for the default table's documents ("doc")
    never returns it, and one for that table's returns only its own.
    """
    from ingest.boilerplate import clean_document

    doc = clean_document(doc)
    base: dict[str, Any] = {k: v for k, v in doc.metadata.items()}
    if "kind" in base:  # the front matter's kind (news, vendor-blog, guide, ...) is kept as doc_kind
        base["doc_kind"] = base.pop("kind")
    if doc_kind:  # else the collection's kind (commentary, guide) from the sources file
        base.setdefault("doc_kind", doc_kind)
    base.update({
        "kind": f"doc:{dataset}" if dataset else "doc",
        "dataset": dataset,
        "doc_id": doc.doc_id,
        "title": doc.title,
        "source": str(base.get("source") or source),
        "url": str(base.get("url") or url),
        "published": str(base.get("published", "")),
        "rounds": str(base.get("rounds") or _rounds_from_name(doc.doc_id)),
        "language": str(base.get("language") or language),
    })
    chunks: list[Chunk] = []
    seen: set[str] = set()
    index = 0
    for page_no, page in enumerate(doc.pages, 1):
        if not page.strip():
            continue
        for text, overlap_chars in overlapped_chunks(page, chunk_tokens, chunk_overlap):
            if (same := " ".join(text.split())) in seen:
                continue
            seen.add(same)
            meta = dict(base, chunk_index=index, overlap_chars=overlap_chars)
            if doc.paged:
                meta["page"] = page_no
            chunks.append(Chunk(id=f"doc:{doc.doc_id}:{index}", text=text, metadata=meta))
            index += 1
    return chunks


@lru_cache(maxsize=1)
def _loader_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def cached_path(sha256: str, cache_dir: str | Path) -> Path:
    """Where `load_document_cached` keeps the text of the file with this content hash."""
    return Path(cache_dir) / f"{sha256}-{_loader_version()}.json"


def load_document_cached(path: str | Path, sha256: str, cache_dir: str | Path | None) -> Document:
    """`load_document`, remembered by content hash (and this module's code) in `cache_dir`.

    PDF text extraction in layout mode is the slowest step of an ingest after embedding
    (seconds per PDF), so a rebuild after one Markdown file changed should not redo it.
    """
    if cache_dir is None:
        return load_document(path)
    cached = cached_path(sha256, cache_dir)
    if cached.is_file():
        try:
            return Document(**json.loads(cached.read_text(encoding="utf-8")))
        except (ValueError, TypeError):
            cached.unlink(missing_ok=True)
    doc = load_document(path)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(cached.name + f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(asdict(doc), ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, cached)
    return doc


def load_chunks(path: str | Path, chunk_tokens: int, chunk_overlap: int, url: str = "",
                source: str = "", language: str = "", doc_kind: str = "", sha256: str | None = None,
                cache_dir: str | Path | None = None) -> list[Chunk]:
    """Load a document file and chunk it: what the pipeline calls for each commentary file.

    `url`, `source`, `language` and `doc_kind` are defaults from the sources file for documents
    that do not name their own (PDFs have no front matter). With `sha256` and `cache_dir` the
    loaded text is cached by content.
    """
    doc = load_document_cached(path, sha256, cache_dir) if sha256 else load_document(path)
    return document_chunks(doc, chunk_tokens, chunk_overlap, url=url, source=source, language=language,
                           doc_kind=doc_kind)
