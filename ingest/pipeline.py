"""`run_ingest`: sources → table + chunks + vectors → a new store generation, swapped in atomically.

The order is chosen so nothing already stored can be lost: every source is fetched, hashed
and read before anything is written; the new generation is built in its own folder; only
when it is complete does `current` move to it. Any error removes the half-built generation
and re-raises (the CLI turns a SourceError into one line). A SIGKILL leaves the half-built
folder behind without a manifest; the next successful ingest prunes it.

If every source hash, the embedder, the chunking settings and the ingest code are the same
as in the current manifest, nothing is rebuilt: the warm path only hashes files and reads
one JSON file (no pandas, no chromadb).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ingest import sources as sources_mod
from ingest import store as store_mod
from ingest.dataset_ingest import carry_forward, check_default_table
from ingest.errors import SourceError

# Code whose change alters what an ingest writes; a change forces a rebuild.
_CODE = ("tables.py", "normalize.py", "cards.py", "documents.py", "boilerplate.py", "boilerplate.toml", "embed.py",
         "pipeline.py", "store.py", "schema.py", "records.py", "twins.py")
MANIFEST_VERSION = 1


@dataclass
class IngestReport:
    """What an ingest did, for the CLI summary, `bench` and tests."""

    status: str  # "built" | "unchanged" | "dry-run"
    store: str
    generation: str | None
    source_root: str
    rows_per_round: dict[str, int] = field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    cards: int = 0
    embedded_new: int = 0
    embedded_cached: int = 0
    translated: int = 0  # translated guide chunks that borrow their original's vectors (ingest.twins)
    changed: list[str] = field(default_factory=list)  # source files new or changed vs the current manifest
    removed: list[str] = field(default_factory=list)  # source files gone since the current manifest
    embedder: str = ""
    mode: str = "embedded"
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.rows_per_round.values())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"rows": self.rows}


def _code_hash() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _CODE:
        path = here / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def fingerprint(files: list[sources_mod.LocalFile], settings) -> str:
    """Everything an ingest's output depends on; equal fingerprints mean an identical store."""
    payload = {
        "files": sorted([f.source.name, f.rel, f.sha256] for f in files),
        "embedder": settings.embedder,
        "chunk_tokens": settings.chunk_tokens,
        "chunk_overlap": settings.chunk_overlap,
        "chroma_url": settings.chroma_url or None,
        "code": _code_hash(),
        "version": MANIFEST_VERSION,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _file_entry(f: sources_mod.LocalFile) -> dict[str, Any]:
    return {"source": f.source.name, "kind": f.source.kind, "path": f.rel, "sha256": f.sha256, "size": f.size,
            "url": f.public_url}


def _diff(files: list[sources_mod.LocalFile], manifest: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    before = {e["path"]: e["sha256"] for e in (manifest or {}).get("sources", [])}
    now = {f.rel: f.sha256 for f in files}
    changed = sorted(rel for rel, digest in now.items() if before.get(rel) != digest)
    removed = sorted(set(before) - set(now))
    return changed, removed


def _read_tables(files: list[sources_mod.LocalFile], max_mb: int):
    """Read every results file through ingest.tables and check it against its sources entry."""
    import pandas as pd

    from ingest import normalize

    from ingest.schema import COLUMN_NAMES
    from ingest.tables import read_table

    frames = []
    for f in files:
        try:
            df = read_table(f.path, max_bytes=max_mb * 1024 * 1024)
        except SourceError as exc:
            raise sources_mod.evict(f, exc) from None
        missing = [c for c in COLUMN_NAMES if c not in df.columns]
        if missing:
            raise SourceError(f.path, f"table reader returned no {', '.join(missing)} column(s)")
        if f.source.rows is not None and len(df) != f.source.rows:
            raise SourceError(f.path, f"{len(df)} rows, expected {f.source.rows} (rows in the sources file)")
        if f.source.round:
            rounds = set(df["round"].dropna().astype(str))
            if rounds != {f.source.round}:
                raise SourceError(f.path, f"holds round(s) {', '.join(sorted(rounds)) or 'none'}, "
                                          f"expected {f.source.round} (round in the sources file)")
        frames.append(df[COLUMN_NAMES])
    if not frames:
        raise SourceError("sources", "no results source listed: nothing to answer questions from")
    table = normalize.unify_submitters(pd.concat(frames, ignore_index=True))
    return table


def _document_chunks(f: sources_mod.LocalFile, settings, cache_dir: Path, doc=None) -> list:
    """One document file's chunks; `doc` when its text was already extracted (by the PDF worker)."""
    from ingest.documents import document_chunks, load_document_cached

    try:
        if doc is None:
            doc = load_document_cached(f.path, f.sha256, cache_dir)
        return document_chunks(doc, settings.chunk_tokens, settings.chunk_overlap, url=f.public_url,
                               source=f.source.publisher or f.source.name, language=f.source.language,
                               doc_kind=f.source.kind, dataset=f.source.dataset)
    except SourceError as exc:
        raise sources_mod.evict(f, exc) from None


class _PdfWorker:
    """Text extraction of the PDFs not in the extracted-text cache, in one worker process.

    pypdf's layout mode takes seconds per PDF on one core, all Python; the embedder's two
    OpenMP threads leave part of the second core idle between their barriers. So the PDFs
    are read in a worker while this process reads the tables and embeds every other chunk,
    and only the PDFs' own chunks are embedded after. A failed PDF is reported at the next
    embedding batch (`check`), not after all of them.
    """

    def __init__(self, files: list[sources_mod.LocalFile], cache_dir: Path):
        from ingest.documents import PDF, cached_path

        self._files = {f.rel: f for f in files
                       if f.path.suffix.lower() in PDF and not cached_path(f.sha256, cache_dir).is_file()}
        self._pool = None
        self._futures: dict[str, Any] = {}
        if self._files:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from ingest.documents import load_document_cached

            # spawn, not fork: the parent may already run threads (chromadb, pyarrow, a test's server)
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            self._futures = {rel: self._pool.submit(load_document_cached, f.path, f.sha256, cache_dir)
                             for rel, f in self._files.items()}

    def __enter__(self) -> "_PdfWorker":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def pending(self, f: sources_mod.LocalFile) -> bool:
        return f.rel in self._futures

    def document(self, f: sources_mod.LocalFile):
        """The extracted document, or None if the worker could not run (then the caller reads it)."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._futures[f.rel].result()
        except SourceError as exc:
            raise sources_mod.evict(f, exc) from None
        except BrokenProcessPool:  # died, or could not start (a caller's __main__ without a guard)
            return None

    def check(self) -> None:
        """Raise the error of a PDF that failed already (called between embedding batches)."""
        for rel, future in self._futures.items():
            if future.done() and future.exception() is not None:
                self.document(self._files[rel])


def _check_ids(chunks: list) -> None:
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id in seen:
            raise SourceError(chunk.metadata.get("doc_id", chunk.id), f"two chunks share the id {chunk.id!r} "
                                                                      "(same file name in two collections?)")
        seen.add(chunk.id)


def _read_verified(files: list[sources_mod.LocalFile]) -> list:
    """The verified questions (ingest.verified): embedded like commentary, kind "verified"."""
    from ingest.verified import load_chunks as load_verified

    chunks = []
    for f in files:
        try:
            chunks.extend(load_verified(f.path))
        except SourceError as exc:
            raise sources_mod.evict(f, exc) from None
    return chunks


def embedding_text(chunk) -> str:
    """What gets embedded: a chunk with its document's title (digests name their subject there),
    without the overlap it repeats from the chunk before (a tenth of the embedding work, and
    that text is already in the neighbour's vector)."""
    title = chunk.metadata.get("title")
    text = chunk.text[int(chunk.metadata.get("overlap_chars") or 0):]
    return f"{title}\n\n{text}" if title else text


def _embed(embedder, chunks: list, cache, progress: bool, after_batch=None) -> tuple[list[list[float]], int, int]:
    """Vectors of every chunk, embedding only those that are not a translation of another
    (ingest.twins: a translated guide chunk borrows its original's vectors).
    Returns (vectors, newly embedded, borrowed)."""
    from ingest import twins
    from ingest.embed import embed_passages

    plan = twins.borrowed(chunks)
    twins.mark(chunks, plan)
    own = [i for i in range(len(chunks)) if i not in plan]
    vectors, new = embed_passages(embedder, [embedding_text(chunks[i]) for i in own], cache, progress=progress,
                                  after_batch=after_batch)
    return twins.fill(len(chunks), own, vectors, plan), new, len(plan)


def run_ingest(settings, source: str | None = None, progress: bool = True, fresh: bool = False,
               dry_run: bool = False) -> IngestReport:
    """Ingest the sources into a new store generation, or report "unchanged" if nothing changed."""
    from ingest.settings import setup_offline_env

    from ingest.embed import EMBEDDERS

    setup_offline_env()
    started = time.perf_counter()
    if settings.embedder not in EMBEDDERS:  # before minutes of reading, not after
        raise ValueError(f"unknown embedder {settings.embedder!r}; choose one of: {', '.join(EMBEDDERS)}")
    root = store_mod.store_root(settings)
    with store_mod.ingest_lock(root):
        source_root, _, files = sources_mod.gather(settings, source, progress=progress)
        fp = fingerprint(files, settings)
        current = store_mod.current_generation(root)
        manifest = store_mod.read_manifest(current) if current else None
        changed, removed = _diff(files, manifest)
        report = IngestReport(status="unchanged", store=str(root), generation=current.name if current else None,
                              source_root=source_root, changed=changed, removed=removed,
                              embedder=settings.embedder, mode="server" if settings.chroma_url else "embedded")
        if manifest and manifest.get("fingerprint") == fp and not fresh:
            store_mod.prune(root)  # leftovers of an ingest killed mid-way
            _fill_from_manifest(report, manifest)
            report.seconds = time.perf_counter() - started
            return report
        if dry_run:
            report.status = "dry-run"
            if manifest:
                _fill_from_manifest(report, manifest)
            report.seconds = time.perf_counter() - started
            return report
        manifest = _build(settings, root, files, fp, source_root, report, progress)
        report.status = "built"
        report.generation = manifest["generation"]
        report.seconds = time.perf_counter() - started
        return report


def _fill_from_manifest(report: IngestReport, manifest: dict[str, Any]) -> None:
    report.rows_per_round = dict(manifest.get("rows_per_round", {}))
    report.documents = manifest.get("documents", 0)
    report.chunks = manifest.get("chunks", 0)
    report.cards = manifest.get("cards", 0)
    report.embedder = manifest.get("embedder", report.embedder)
    report.mode = manifest.get("chroma", {}).get("mode", report.mode)


def _build(settings, root: Path, files: list[sources_mod.LocalFile], fp: str, source_root: str,
           report: IngestReport, progress: bool) -> dict[str, Any]:
    """Read everything and embed it, then fill a new generation folder; any failure there removes that folder."""
    work = Path(settings.work_cache).expanduser() if settings.get("work_cache") else root
    doc_cache = work / store_mod.DOC_CACHE
    documents = [f for f in files if f.source.kind in sources_mod.DOCUMENT_KINDS]
    with _PdfWorker(documents, doc_cache) as pdfs:  # first: it runs while everything else below does
        from ingest.cards import build_cards
        from ingest.embed import EmbeddingCache, get_embedder

        if settings.chroma_url:
            store_mod.http_client(settings.chroma_url).heartbeat()  # fail now, not after the slow part
        table = _read_tables([f for f in files if f.source.kind == "results"], settings.max_source_mb)
        described_by = check_default_table(settings, table)  # its card, before minutes of embedding
        cards = list(build_cards(table))
        read = {f.rel: _document_chunks(f, settings, doc_cache) for f in documents if not pdfs.pending(f)}
        verified = _read_verified([f for f in files if f.source.kind == "verified"])
        # What is searched: commentary and guide chunks ("doc") and verified questions. Entity cards are
        # not embedded: no search reads them (the catalog resolves names from the table), and their
        # vectors were a third of the cold ingest's embedding work. They are kept beside the index.
        early = [c for chunks in read.values() for c in chunks] + verified
        _check_ids(early + cards)
        embedder = get_embedder(settings.embedder)
        cache = EmbeddingCache(work / store_mod.EMBED_CACHE)
        try:
            _, new, _ = _embed(embedder, early, cache, progress, after_batch=pdfs.check)
            for f in documents:
                if pdfs.pending(f):
                    read[f.rel] = _document_chunks(f, settings, doc_cache, pdfs.document(f))
            doc_chunks = [c for f in documents for c in read[f.rel]]
            chunks = doc_chunks + verified
            _check_ids(chunks + cards)
            vectors, late, borrowed = _embed(embedder, chunks, cache, progress)
            new += late
        finally:
            cache.close()
    n_docs = len(documents)
    rows_per_round = {str(k): int(v) for k, v in table["round"].value_counts().sort_index().items()}
    manifest = {
        "version": MANIFEST_VERSION,
        "fingerprint": fp,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "source_root": source_root,
        "sources": [_file_entry(f) for f in files],
        "rows": len(table),
        "rows_per_round": rows_per_round,
        "documents": n_docs,
        "document_ids": sorted({c.metadata["doc_id"] for c in doc_chunks}),
        "chunks": len(doc_chunks),
        "cards": len(cards),
        "verified": len(verified),
        "embedder": embedder.name,
        "card": described_by,  # the dataset card the table was checked against (None: no card)
        "dim": embedder.dim,
        "chunk_tokens": settings.chunk_tokens,
        "chunk_overlap": settings.chunk_overlap,
    }
    gen = store_mod.new_generation(root, fp)
    try:
        store_mod.write_table(gen, table)
        datasets = carry_forward(store_mod.current_generation(root), gen)  # tables added by `ingest --card`
        if datasets:
            manifest["datasets"] = datasets
        store_mod.write_cards(gen, cards)
        manifest = store_mod.write_index(gen, chunks, vectors, manifest, settings.chroma_url)
        store_mod.publish(root, gen)
    except BaseException:
        store_mod.discard(gen, settings.chroma_url)
        raise
    store_mod.prune(root)
    report.rows_per_round = rows_per_round
    report.documents = n_docs
    report.chunks = len(doc_chunks)
    report.cards = len(cards)
    report.embedded_new = new
    report.embedded_cached = len(chunks) - new - borrowed
    report.translated = borrowed
    report.embedder = embedder.name
    return manifest
