"""Store generations: build a complete new one beside the current one, then swap a symlink.

Layout (docs/architecture.md "Store layout"):

    <store>/current -> gen-<timestamp>-<hash>/      (relative symlink, replaced with os.replace)
    <store>/gen-.../results.parquet  chroma/  manifest.json
    <store>/gen-.../cards.jsonl                      (entity cards, ingest.cards: kept, not embedded)
    <store>/gen-.../tables/<id>.parquet, <id>.toml   (dataset cards added by `ingest --card`, if any)
    <store>/embeddings.sqlite                        (embedding cache, shared by generations)
    <store>/documents-cache/                         (extracted document text by content hash)
    <store>/.ingest.lock                             (one ingest at a time)

A generation is complete when its manifest.json exists: it is written last, and `current`
only ever points at complete generations, so a reader never sees a half-built store and an
ingest killed mid-way leaves the previous generation current. Old and abandoned generations
are pruned by the next successful ingest (under the lock, so never one being built).

In server mode (setting `chroma_url`) the vectors live in a Chroma server, in a collection
named after the generation; table and manifest stay in the local store folder.

Only the standard library at top level: `resultsqa status` reads the manifest without
paying for pandas or chromadb.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
import urllib.parse
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

CURRENT = "current"
MANIFEST = "manifest.json"
TABLE = "results.parquet"
CARDS = "cards.jsonl"  # entity cards (ingest.cards), one JSON object per line: id, text, metadata
TABLES_DIR = "tables"  # dataset card tables (ingest.dataset_ingest): <id>.parquet and the card, <id>.toml
CHROMA_DIR = "chroma"
EMBED_CACHE = "embeddings.sqlite"
# Query vectors kept per open store. Embedding a query is ~20 ms, most of a commentary answer,
# and one answer can search the same text twice (a round filter that finds too little looks
# again wider). Small on purpose: it serves those repeats and popular questions, not a corpus.
QUERY_VECTORS = 64
DOC_CACHE = "documents-cache"  # extracted document text by content hash (PDF extraction is slow)
LOCK = ".ingest.lock"
GEN_PREFIX = "gen-"
KEEP_PREVIOUS = 1  # generations kept besides `current`, for readers that opened them before a swap


class StoreMissing(RuntimeError):
    """There is no usable store yet; the message says how to make one."""

    def __init__(self, root: Path, why: str = "no store"):
        super().__init__(f"{why} at {root}: run `resultsqa ingest` first")


def store_root(settings) -> Path:
    return Path(settings.store).expanduser().resolve()


def collection_name(generation: str) -> str:
    """Chroma collection of a generation (names carry the generation so server mode can swap too)."""
    return f"rqa-{generation}"


def is_complete(gen: Path) -> bool:
    return (gen / MANIFEST).is_file()


def current_generation(root: Path) -> Path | None:
    """The generation `current` points at, if it is complete."""
    link = root / CURRENT
    try:
        target = (root / os.readlink(link)).resolve()
    except OSError:
        return None
    return target if is_complete(target) else None


def read_manifest(gen: Path) -> dict[str, Any]:
    return json.loads((gen / MANIFEST).read_text(encoding="utf-8"))


def current_manifest(settings) -> dict[str, Any] | None:
    """The manifest of the current generation, or None (cheap: no heavy imports)."""
    gen = current_generation(store_root(settings))
    return read_manifest(gen) if gen else None


@contextlib.contextmanager
def ingest_lock(root: Path) -> Iterator[None]:
    """One ingest per store at a time; the OS drops the lock if the process is killed."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def new_generation(root: Path, fingerprint: str) -> Path:
    now = time.time_ns()  # one reading: seconds and microseconds from two could roll over between them
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 1_000_000_000)) + f"{now // 1000 % 1_000_000:06d}Z"
    gen = root / f"{GEN_PREFIX}{stamp}-{fingerprint[:8]}"
    gen.mkdir(parents=True)
    return gen


# --- Chroma -------------------------------------------------------------------------------

def _chroma_settings():
    import chromadb

    return chromadb.Settings(anonymized_telemetry=False)


def http_client(url: str):
    import chromadb

    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"chroma_url must be an http(s) URL, got {url!r}")
    port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    try:  # chromadb's constructor talks to the server with no timeout: check it answers first
        with urllib.request.urlopen(f"{url.rstrip('/')}/api/v2/heartbeat", timeout=CHROMA_HTTP_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ConnectionError(f"Chroma server at {url} is not reachable (setting chroma_url): {exc}") from None
    try:
        client = chromadb.HttpClient(host=parsed.hostname, port=port, ssl=parsed.scheme == "https",
                                     settings=_chroma_settings())
    except ValueError as exc:  # chromadb's way of saying the server did not answer
        raise ConnectionError(f"Chroma server at {url} is not reachable (setting chroma_url): {exc}") from None
    _bound(client)
    return client


# chromadb's HTTP client waits forever (httpx timeout=None). An API worker answers on its event
# loop, so a stalled Chroma server would freeze it: a heartbeat with this bound comes first, every
# request after gets it too, and after a failure the server is skipped for CHROMA_RETRY_S. A
# search that fails is an answer without quoted sources (retrieval is optional for numbers).
CHROMA_HTTP_TIMEOUT_S = 5.0
CHROMA_RETRY_S = 30.0


def _bound(client) -> None:
    """Give the client's HTTP session a timeout. It reaches into chromadb's client (pinned in
    pyproject); tests/ingest/test_chroma_server.py fails if a new chromadb moves the session."""
    import httpx

    client._server._session.timeout = httpx.Timeout(CHROMA_HTTP_TIMEOUT_S)


def chroma_client(gen: Path, chroma_url: str | None):
    if chroma_url:
        return http_client(chroma_url)
    import chromadb

    return chromadb.PersistentClient(path=str(gen / CHROMA_DIR), settings=_chroma_settings())


def write_table(gen: Path, table) -> None:
    table.to_parquet(gen / TABLE, index=False)


def write_cards(gen: Path, cards: list) -> None:
    """The entity cards as JSON lines. Nothing searches them by vector, so they are not embedded."""
    with open(gen / CARDS, "w", encoding="utf-8") as fh:
        for card in cards:
            fh.write(json.dumps({"id": card.id, "text": card.text, "metadata": card.metadata},
                                ensure_ascii=False) + "\n")


def read_cards(gen: Path) -> list[dict[str, Any]]:
    """The entity cards of a generation (none for a generation built before they were kept here)."""
    path = gen / CARDS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# Candidates HNSW explores per query, at least. Chroma's default (100) loses some of the true top 60
# that retrieval over-fetches (assistant.retrieval.FETCH) once the commentary is most of the
# collection. Below its sync threshold Chroma rebuilds the graph at every load, with new random
# levels (chroma-core/chroma#2675), so an approximate search could return another top 60 in
# another process: one eval run missed a question's best chunk that the next found. A search that
# explores as many candidates as the collection holds is exact, and at our size (~500 chunks) as fast.
HNSW_EF_SEARCH = 200


def ef_search(count: int) -> int:
    """Candidates to explore for a collection of `count` vectors: all of them, so that the result is
    exact and the same in every process, whatever graph the load built."""
    return max(HNSW_EF_SEARCH, count)


def write_index(gen: Path, chunks: list, vectors: list[list[float]], manifest: dict[str, Any],
                chroma_url: str | None) -> dict[str, Any]:
    """Write the vectors and then manifest.json, which marks the generation complete."""
    name = collection_name(gen.name)
    client = chroma_client(gen, chroma_url)
    hnsw = {"space": "cosine", "ef_search": ef_search(len(chunks))}
    collection = client.create_collection(name, embedding_function=None, configuration={"hnsw": hnsw})
    step = min(client.get_max_batch_size(), 2000)
    for i in range(0, len(chunks), step):
        batch = chunks[i:i + step]
        collection.add(ids=[c.id for c in batch], documents=[c.text for c in batch],
                       metadatas=[c.metadata for c in batch], embeddings=vectors[i:i + step])
    manifest = dict(manifest, generation=gen.name,
                    chroma={"mode": "server" if chroma_url else "embedded", "url": chroma_url or None,
                            "collection": name, "path": None if chroma_url else CHROMA_DIR})
    tmp = gen / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, gen / MANIFEST)
    return manifest


def publish(root: Path, gen: Path) -> None:
    """Point `current` at `gen` in one atomic rename (readers see the old or the new, never neither)."""
    tmp = root / f".{CURRENT}.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(gen.name, tmp)
    os.replace(tmp, root / CURRENT)


def discard(gen: Path, chroma_url: str | None) -> None:
    """Remove a generation: its folder and, in server mode, its collection (best effort)."""
    if chroma_url:
        with contextlib.suppress(Exception):
            http_client(chroma_url).delete_collection(collection_name(gen.name))
    shutil.rmtree(gen, ignore_errors=True)


def prune(root: Path, keep_previous: int = KEEP_PREVIOUS) -> list[str]:
    """Remove generations other than `current` and the newest complete previous ones (call under the lock)."""
    current = current_generation(root)
    gens = sorted((p for p in root.glob(GEN_PREFIX + "*") if p.is_dir()), key=lambda p: p.name, reverse=True)
    previous = [g for g in gens if g != current and is_complete(g)][:keep_previous]
    removed = []
    for gen in gens:
        if gen == current or gen in previous:
            continue
        mode = read_manifest(gen).get("chroma", {}) if is_complete(gen) else {}
        discard(gen, mode.get("url") if mode.get("mode") == "server" else None)
        removed.append(gen.name)
    return removed


# --- reading --------------------------------------------------------------------------------

@dataclass
class Store:
    """One complete generation, opened for reading: the table and the vector collection."""

    root: Path
    path: Path
    manifest: dict[str, Any]
    chroma_url: str | None = None
    _table: Any = field(default=None, repr=False)
    _collection: Any = field(default=None, repr=False)
    _vectors: "OrderedDict[str, list[float]]" = field(default_factory=OrderedDict, repr=False)
    _datasets: dict[str, Any] = field(default_factory=dict, repr=False)
    # a generation never changes, so a page's chunks are fetched once ("the rest of a found page")
    _chunks: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    _down_until: float = field(default=0.0, repr=False)  # a Chroma server failed: skip it until then

    @property
    def generation(self) -> str:
        return self.path.name

    @property
    def mode(self) -> str:
        return self.manifest.get("chroma", {}).get("mode", "embedded")

    def table(self):
        """The normalised results table (read once per Store)."""
        if self._table is None:
            import pandas as pd

            self._table = pd.read_parquet(self.path / TABLE)
        return self._table

    @property
    def datasets(self) -> list[dict[str, Any]]:
        """Manifest entries of the dataset cards in this generation (`resultsqa ingest --card`)."""
        return list(self.manifest.get("datasets") or [])

    def dataset_table(self, card_id: str):
        """The normalised table of one dataset card (read once per Store); KeyError if not ingested."""
        if card_id not in self._datasets:
            entry = next((e for e in self.datasets if e["id"] == card_id), None)
            if entry is None:
                raise KeyError(f"no dataset {card_id!r} in generation {self.generation}")
            import pandas as pd

            self._datasets[card_id] = pd.read_parquet(self.path / entry["table"])
        return self._datasets[card_id]

    def collection(self):
        if self._collection is None:
            def open_collection():
                client = chroma_client(self.path, self.chroma_url if self.mode == "server" else None)
                return client.get_collection(self.manifest["chroma"]["collection"], embedding_function=None)

            self._collection = self._server_call(open_collection)
        return self._collection

    def _server_call(self, call):
        """Run a Chroma call; when a server fails (down, stalled past its timeout), skip it for
        CHROMA_RETRY_S instead of waiting again on every question (searches are optional)."""
        if self.mode != "server":
            return call()
        if time.monotonic() < self._down_until:
            raise ConnectionError(f"Chroma server {self.chroma_url} failed recently; retrying later")
        try:
            return call()
        except Exception:
            self._down_until = time.monotonic() + CHROMA_RETRY_S
            raise

    def search(self, text: str, k: int = 4, where: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Nearest chunks to `text` (score = cosine similarity), optionally filtered on metadata."""
        from ingest.embed import get_embedder

        if k <= 0 or not text.strip():
            return []
        vector = self._vectors.get(text)
        if vector is None:
            vector = get_embedder(self.manifest["embedder"]).embed_query(text)
            self._vectors[text] = vector
            while len(self._vectors) > QUERY_VECTORS:
                with contextlib.suppress(KeyError):  # another thread trimmed it first
                    self._vectors.popitem(last=False)
        collection = self.collection()
        found = self._server_call(lambda: collection.query(query_embeddings=[vector], n_results=k,
                                                           where=where or None,
                                                           include=["documents", "metadatas", "distances"]))
        return [{"id": i, "text": d, "metadata": m or {}, "score": 1.0 - float(dist)}
                for i, d, m, dist in zip(found["ids"][0], found["documents"][0], found["metadatas"][0],
                                         found["distances"][0])]


    def chunks(self, where: dict[str, Any]) -> list[dict[str, Any]]:
        """Every chunk whose metadata matches `where` (no ranking, no score): a document's other
        parts, fetched by id rather than by similarity, and remembered (the generation is fixed)."""
        key = json.dumps(where, sort_keys=True)
        if key not in self._chunks:
            collection = self.collection()
            found = self._server_call(lambda: collection.get(where=where, include=["documents", "metadatas"]))
            self._chunks[key] = [{"id": i, "text": d, "metadata": m or {}}
                                 for i, d, m in zip(found["ids"], found["documents"], found["metadatas"])]
        return self._chunks[key]


_open: dict[tuple[str, str, str | None], Store] = {}


def open_store(settings) -> Store:
    """The current generation of the configured store; the same object while `current` is unchanged."""
    root = store_root(settings)
    gen = current_generation(root)
    if gen is None:
        raise StoreMissing(root)
    manifest_url = read_manifest(gen).get("chroma", {}).get("url")
    url = settings.chroma_url or manifest_url
    key = (str(root), str(gen), url)
    if key not in _open:
        for stale in [k for k in _open if k[0] == key[0]]:  # a long-running server keeps one per store
            del _open[stale]
        _open[key] = Store(root=root, path=gen, manifest=read_manifest(gen), chroma_url=url)
    return _open[key]
