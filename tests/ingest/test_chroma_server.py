"""Server mode (setting chroma_url) against a real `chroma run` process on loopback."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from assistant.cli import main
from ingest import settings as settings_mod
from ingest import store as store_mod
from ingest.pipeline import run_ingest
from tests.ingest.test_pipeline import V41_ROWS, V61_ROWS, mirror_settings
from eval.procs import free_port, start_chroma, stop


@pytest.fixture
def chroma_process(tmp_path):
    proc, url = start_chroma(tmp_path / "chroma-server")
    yield proc, url
    os.kill(proc.pid, signal.SIGCONT)  # in case a test left it stopped
    stop(proc, timeout=15)


@pytest.fixture
def chroma_server(chroma_process):
    return chroma_process[1]


def test_ingest_and_search_through_a_chroma_server(tmp_path, chroma_server, capsys):
    settings = mirror_settings(tmp_path, chroma_url=chroma_server)
    first = run_ingest(settings, progress=False)
    assert first.status == "built" and first.mode == "server"
    gen = store_mod.current_generation(store_mod.store_root(settings))
    assert not (gen / "chroma").exists()  # vectors live in the server; table and manifest stay local
    assert (gen / "results.parquet").exists()

    client = store_mod.http_client(chroma_server)
    names = {c.name for c in client.list_collections()}
    assert store_mod.collection_name(first.generation) in names

    # a reader that only knows the store folder finds the server through the manifest
    store = store_mod.open_store(settings_mod.load(store=settings.store))
    assert store.mode == "server" and len(store.table()) == V41_ROWS + V61_ROWS
    hit = store.search("Vera Rubin NVL72 preview", k=1, where={"kind": "doc"})[0]
    assert hit["metadata"]["doc_id"] == "a.md"

    assert main(["status", "--json", "--store", settings.store]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["mode"] == "server" and info["chroma_url"] == chroma_server
    assert info["collection"] == store_mod.collection_name(first.generation)

    second = run_ingest(settings, progress=False, fresh=True)
    third = run_ingest(settings, progress=False, fresh=True)
    names = {c.name for c in client.list_collections()}
    # the first generation was pruned with its collection; current and previous remain
    assert store_mod.collection_name(first.generation) not in names
    assert {store_mod.collection_name(second.generation), store_mod.collection_name(third.generation)} <= names
    assert store_mod.open_store(settings).search("MI355X", k=1)


def test_an_unreachable_server_fails_fast_with_one_line_and_keeps_the_store(tmp_path, capsys):
    settings = mirror_settings(tmp_path)
    assert run_ingest(settings, progress=False).status == "built"
    before = store_mod.current_generation(store_mod.store_root(settings))
    url = f"http://127.0.0.1:{free_port()}"
    code = main(["ingest", "--quiet", "--store", settings.store, "--data", settings.data, "--sources",
                 settings.sources, "--embedder", "hash", "--chroma-url", url])
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0 and f"Chroma server at {url} is not reachable" in err
    assert store_mod.current_generation(store_mod.store_root(settings)) == before
    assert [p.name for p in store_mod.store_root(settings).glob("gen-*")] == [before.name]


def test_a_stalled_server_costs_a_search_its_timeout_not_the_worker(tmp_path, chroma_process, monkeypatch):
    """An API worker answers on its event loop: a Chroma server that stops answering must cost
    a bounded wait and an answer without quoted sources, never a frozen worker."""
    from assistant.engine import clear_cache, get_engine
    from assistant.offline import answer_question

    proc, url = chroma_process
    settings = mirror_settings(tmp_path, chroma_url=url)
    assert run_ingest(settings, progress=False).status == "built"
    monkeypatch.setattr(store_mod, "CHROMA_HTTP_TIMEOUT_S", 1.0)
    clear_cache()
    engine = get_engine(settings)  # opens the collection with the engine, off any event loop
    table_question = "How many results are in v6.1?"
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        table = answer_question(table_question, engine=engine)  # needs no search: unaffected
        table_s = time.monotonic() - started
        started = time.monotonic()
        docs = answer_question("What did the press say about Vera Rubin in v6.1?", engine=engine)
        docs_s = time.monotonic() - started
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert table.status == "answered" and "5 results" in table.answer and table_s < 1.0
    assert docs_s < 5.0 and not docs.passages  # gave up after the timeout, said nothing it had not found
    clear_cache()


def test_a_server_stalled_before_the_index_loads_costs_one_bounded_wait(tmp_path, chroma_process, monkeypatch):
    """The engine still loads and answers table questions; after one failed search the server is
    skipped for a while instead of every question waiting on it again."""
    from assistant.engine import clear_cache, get_engine
    from assistant.offline import answer_question

    proc, url = chroma_process
    settings = mirror_settings(tmp_path, chroma_url=url)
    assert run_ingest(settings, progress=False).status == "built"
    monkeypatch.setattr(store_mod, "CHROMA_HTTP_TIMEOUT_S", 1.0)
    clear_cache()
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        engine = get_engine(settings)
        load_s = time.monotonic() - started
        table = answer_question("How many results are in v6.1?", engine=engine)
        started = time.monotonic()
        docs = answer_question("What did the press say about Vera Rubin in v6.1?", engine=engine)
        again = answer_question("What did the press say about MI355X in v6.1?", engine=engine)
        docs_s = time.monotonic() - started
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert load_s < 5.0 and table.status == "answered" and "5 results" in table.answer
    assert not docs.passages and not again.passages and docs_s < 3.0  # skipped, not waited on twice
    clear_cache()
