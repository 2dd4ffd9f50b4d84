"""Contract tests of the HTTP API: every endpoint's status codes, schemas and SSE framing.

Most tests run the transport against a tiny fake assistant (the `service` seam of
`create_app`) so they are fast and can force errors; the `*_real_store` tests run the real
answerer over the ingested default data and check the API passes its answers through intact.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from fastapi.testclient import TestClient

from assistant.answer import Answer, Citation, Value
from ingest import settings as settings_mod
from ui.api import AskResponse, ConversationStore, create_app, sources_markdown
from eval.procs import free_port


class FakeService:
    """A stand-in assistant: echoes the question, cites one row, records what it was given."""

    def __init__(self, manifest: dict | None = None, ready_error: Exception | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._manifest = manifest if manifest is not None else {"rows": 3, "path": "/srv/secret/store/manifest.json"}
        self.ready_error = ready_error

    def ask(self, question: str, **kwargs: Any) -> Answer:
        self.calls.append((question, kwargs))
        if "boom" in question:
            raise RuntimeError("exploded at /srv/secret/path with token sk-test-123")
        conversation = kwargs.get("conversation")
        if conversation is not None:
            conversation.append(question)
        return Answer(
            question=question, answer=f"Answer to: {question}",
            values=[Value(value=42.5, unit="tokens/s", result_ids=["6.1-0001"])],
            rows=[{"result_id": "6.1-0001", "result": 42.5}],
            citations=[Citation(kind="row", id="6.1-0001", url="https://example.org/r/6.1-0001", title="6.1-0001"),
                       Citation(kind="doc", id="news.md#2", url=None, title="News [v6.1]")],
        )

    def ask_stream(self, question: str, **kwargs: Any) -> Iterator[str | Answer]:
        answer = self.ask(question, **kwargs)
        words = answer.answer.split(" ")
        for i, word in enumerate(words):
            yield word + (" " if i < len(words) - 1 else "")
        yield answer

    def new_conversation(self) -> list[str]:
        return []

    generation_name = "gen-1"

    def generation(self) -> str | None:
        return self.generation_name

    def remember(self, conversation: list[str], question: str, answer: Answer) -> None:
        conversation.append(question)

    def manifest(self) -> dict:
        return self._manifest

    def ready(self) -> None:
        if self.ready_error:
            raise self.ready_error

    def loaded(self) -> bool:
        return self.ready_error is None


def make_client(service: FakeService | None = None, **overrides: Any) -> TestClient:
    settings = settings_mod.load(**overrides)
    return TestClient(create_app(settings, service=service or FakeService(), warm=False))


def sse_events(text: str) -> list[tuple[str, str]]:
    """Parse an SSE body by the spec's framing rules: blank-line separated blocks of field lines."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            events.append((name, "\n".join(data)))
    return events


# --- health --------------------------------------------------------------------------------

def test_healthz_needs_no_store():
    r = make_client(FakeService(ready_error=RuntimeError("no store"))).get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_readyz_reports_ready_and_not_ready_without_details():
    assert make_client().get("/readyz").status_code == 200
    r = make_client(FakeService(ready_error=RuntimeError("no store at /srv/secret/store"))).get("/readyz")
    assert r.status_code == 503
    assert r.json()["status"] == "not_ready"
    assert "/srv/secret" not in r.text


# --- /v1/ask -------------------------------------------------------------------------------

def test_ask_returns_the_answer_object_and_a_conversation_id():
    r = make_client().post("/v1/ask", json={"question": "Best Llama result?"})
    assert r.status_code == 200
    body = AskResponse.model_validate(r.json())
    assert body.answer == "Answer to: Best Llama result?"
    assert body.citations[0].url == "https://example.org/r/6.1-0001"
    assert body.rows == [{"result_id": "6.1-0001", "result": 42.5}]
    assert body.conversation_id


def test_follow_up_continues_the_same_conversation():
    service = FakeService()
    client = make_client(service)
    first = client.post("/v1/ask", json={"question": "Best Llama result in v6.1?"}).json()
    client.post("/v1/ask", json={"question": "and in v6.0?", "conversation_id": first["conversation_id"]})
    conversation = service.calls[1][1]["conversation"]
    assert conversation == ["Best Llama result in v6.1?", "and in v6.0?"]
    other = client.post("/v1/ask", json={"question": "unrelated"}).json()
    assert other["conversation_id"] != first["conversation_id"]
    assert service.calls[2][1]["conversation"] == ["unrelated"]


def test_repeated_first_questions_come_from_the_cache_follow_ups_never():
    service = FakeService()
    client = make_client(service)
    first = client.post("/v1/ask", json={"question": "Best  Llama result?"})
    again = client.post("/v1/ask", json={"question": "best llama result?"})
    assert (first.headers["x-answer-cache"], again.headers["x-answer-cache"]) == ("miss", "hit")
    assert len(service.calls) == 1
    assert again.json()["answer"] == first.json()["answer"] and again.json()["citations"] == first.json()["citations"]
    cid = again.json()["conversation_id"]
    follow = client.post("/v1/ask", json={"question": "best llama result?", "conversation_id": cid})
    assert "x-answer-cache" not in follow.headers and len(service.calls) == 2
    assert service.calls[1][1]["conversation"] == ["best llama result?", "best llama result?"]  # the hit is a turn
    other_scope = client.post("/v1/ask", json={"question": "best llama result?", "scope": {"round": ["v6.0"]}})
    assert other_scope.headers["x-answer-cache"] == "miss"


def test_cache_never_outlives_an_index_generation_and_can_be_off():
    service = FakeService()
    client = make_client(service)
    client.post("/v1/ask", json={"question": "q"})
    service.generation_name = "gen-2"
    assert client.post("/v1/ask", json={"question": "q"}).headers["x-answer-cache"] == "miss"
    off = make_client(FakeService(), answer_cache=0)
    assert [off.post("/v1/ask", json={"question": "q"}).headers["x-answer-cache"] for _ in range(2)] == ["off"] * 2
    model = make_client(FakeService(), backend="ollama")
    assert model.post("/v1/ask", json={"question": "q"}).headers["x-answer-cache"] == "off"


def test_history_is_passed_for_stateless_follow_ups():
    service = FakeService()
    r = make_client(service).post("/v1/ask", json={"question": "and v6.0?", "history": ["Best Llama in v6.1?"]})
    assert r.status_code == 200 and r.json()["conversation_id"] is None
    assert service.calls[0][1]["history"] == ["Best Llama in v6.1?"]


def test_scope_is_checked_against_the_filter_fields():
    service = FakeService()
    client = make_client(service)
    ok = client.post("/v1/ask", json={"question": "best?", "scope": {"round": ["v6.1"], "division": ["closed"]}})
    assert ok.status_code == 200
    assert service.calls[0][1]["scope"] == {"round": ["v6.1"], "division": ["closed"]}
    bad = client.post("/v1/ask", json={"question": "best?", "scope": {"__class__": ["x"]}})
    assert bad.status_code == 422 and len(service.calls) == 1
    pinned = client.post("/v1/ask", json={"question": "fastest?", "scope": {"dataset": ["mlperf-training"]}})
    assert pinned.status_code == 200 and service.calls[1][1]["scope"] == {"dataset": ["mlperf-training"]}


@pytest.mark.parametrize("question", ["", "   ", "x" * 2001])
def test_empty_or_too_long_question_is_422_and_never_reaches_the_answerer(question):
    service = FakeService()
    r = make_client(service).post("/v1/ask", json={"question": question})
    assert r.status_code == 422
    assert service.calls == []


def test_question_limit_follows_the_setting():
    service = FakeService()
    client = make_client(service, max_question_chars=10)
    assert client.post("/v1/ask", json={"question": "x" * 10}).status_code == 200
    assert client.post("/v1/ask", json={"question": "x" * 11}).status_code == 422


# --- /v1/ask/stream ------------------------------------------------------------------------

def test_stream_is_sse_tokens_then_one_final_event():
    r = make_client().post("/v1/ask/stream", json={"question": "Best Llama result?"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r.text)
    names = [name for name, _ in events]
    assert names[-1] == "final" and names.count("final") == 1
    assert set(names[:-1]) == {"token"}
    text = "".join(json.loads(data)["text"] for name, data in events if name == "token")
    final = json.loads(events[-1][1])
    assert text == final["answer"] == "Answer to: Best Llama result?"
    assert final["citations"][0]["id"] == "6.1-0001" and final["rows"] and final["conversation_id"]


def test_stream_failure_is_an_error_event_without_details():
    r = make_client().post("/v1/ask/stream", json={"question": "boom"})
    events = sse_events(r.text)
    assert events[-1][0] == "error"
    assert json.loads(events[-1][1])["detail"] == "internal error"
    assert "secret" not in r.text and "sk-test" not in r.text and "Traceback" not in r.text


# --- /v1/chat/completions --------------------------------------------------------------------

def test_chat_completion_has_openai_shape_markdown_citations_and_metadata():
    service = FakeService()
    r = make_client(service).post("/v1/chat/completions", json={
        "model": "anything", "temperature": 0.2,
        "messages": [{"role": "system", "content": "be brief"},
                     {"role": "user", "content": "Best Llama result in v6.1?"},
                     {"role": "assistant", "content": "..."},
                     {"role": "user", "content": [{"type": "text", "text": "and in v6.0?"}]}]})
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    message = body["choices"][0]["message"]
    assert message["role"] == "assistant" and body["choices"][0]["finish_reason"] == "stop"
    assert "[6.1-0001](https://example.org/r/6.1-0001)" in message["content"]
    assert body["metadata"]["citations"][0]["id"] == "6.1-0001"
    assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    question, kwargs = service.calls[0]
    assert question == "and in v6.0?" and kwargs["history"] == ["Best Llama result in v6.1?"]


def test_chat_without_a_user_message_is_422():
    r = make_client().post("/v1/chat/completions", json={"messages": [{"role": "system", "content": "hi"}]})
    assert r.status_code == 422


def test_chat_stream_is_chunks_then_done():
    r = make_client().post("/v1/chat/completions",
                           json={"stream": True, "messages": [{"role": "user", "content": "Best Llama?"}]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    datas = [data for _, data in sse_events(r.text)]
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["metadata"]["citations"][0]["id"] == "6.1-0001"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text.startswith("Answer to: Best Llama?") and "(https://example.org/r/6.1-0001)" in text


def test_models_lists_one_model():
    body = make_client().get("/v1/models").json()
    assert body["object"] == "list" and body["data"][0]["object"] == "model"


# --- sources, docs, widget, errors ----------------------------------------------------------------

def test_sources_is_the_manifest_without_server_paths():
    r = make_client().get("/v1/sources")
    assert r.status_code == 200
    assert r.json() == {"rows": 3, "path": "manifest.json"}


def test_sources_without_a_store_is_503():
    class NoStore(FakeService):
        def manifest(self) -> dict:
            raise FileNotFoundError("/srv/secret/store")

    r = make_client(NoStore()).get("/v1/sources")
    assert r.status_code == 503 and "/srv/secret" not in r.text


def test_openapi_documents_every_endpoint():
    paths = make_client().get("/openapi.json").json()["paths"]
    for path in ["/v1/ask", "/v1/ask/stream", "/v1/chat/completions", "/v1/sources", "/v1/models",
                 "/healthz", "/readyz"]:
        assert path in paths


def test_widget_files_are_served():
    client = make_client()
    js = client.get("/widget/resultsqa-widget.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    page = client.get("/widget/example.html")
    assert page.status_code == 200 and "data-resultsqa" in page.text


def test_internal_error_is_a_generic_500_and_is_not_re_raised():
    # raise_server_exceptions stays on: an exception escaping to the server would make
    # uvicorn drop the keep-alive connection (connection resets under load).
    client = make_client()
    r = client.post("/v1/ask", json={"question": "boom"})
    assert r.status_code == 500
    assert r.json()["detail"] == "internal error" and r.json()["request_id"]
    assert "secret" not in r.text and "sk-test" not in r.text and "Traceback" not in r.text


def test_conversation_store_is_bounded_and_keyed_by_caller():
    store = ConversationStore(list, max_entries=3)
    cid, entry = store.get("ip:a", None)
    assert store.get("ip:a", cid)[1] is entry
    assert store.get("ip:b", cid)[1] is not entry  # another caller cannot continue it
    for i in range(5):
        store.get("ip:a", f"c{i}")
    assert len(store) == 3
    assert store.get("ip:a", cid)[1] is not entry  # evicted


def test_sources_markdown_dedupes_and_only_links_urls():
    answer = Answer(question="q", answer="a", citations=[
        Citation(kind="row", id="r1", url="https://x/r1"), Citation(kind="row", id="r1", url="https://x/r1"),
        Citation(kind="doc", id="d1", title="Doc [1]")])
    assert sources_markdown(answer) == "\n\nSources: [r1](https://x/r1), Doc (1)"


# --- end to end over the real store ---------------------------------------------------------


class LiveServer:
    """uvicorn in a thread on a loopback port, for clients that need real HTTP."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("uvicorn did not start")

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def real_client(store_settings):
    with TestClient(create_app(store_settings, warm=False)) as client:
        yield client


def test_ask_real_store_passes_the_answer_through(real_client, store_settings):
    from assistant.service import ask

    question = "Which system had the best Llama 2 70B Offline result in v6.1?"
    r = real_client.post("/v1/ask", json={"question": question})
    assert r.status_code == 200
    body = r.json()
    direct = ask(question, settings=store_settings).to_json()
    assert body["answer"] == direct["answer"]
    assert body["status"] == direct["status"] == "answered"
    assert [c["id"] for c in body["citations"]] == [c["id"] for c in direct["citations"]]
    assert all(c["url"] for c in body["citations"] if c["kind"] == "row")


def test_stream_real_store_final_matches_tokens(real_client):
    r = real_client.post("/v1/ask/stream", json={"question": "How many submitters were there in v6.0?"})
    events = sse_events(r.text)
    assert events[-1][0] == "final"
    final = json.loads(events[-1][1])
    text = "".join(json.loads(d)["text"] for n, d in events if n == "token")
    assert text.strip() == final["answer"].strip() and final["status"] == "answered"


def test_sources_and_readyz_real_store(real_client, store_settings):
    assert real_client.get("/readyz").status_code == 200
    manifest = real_client.get("/v1/sources").json()
    assert str(store_settings.store) not in json.dumps(manifest)
    assert manifest


def test_load_smoke_has_no_errors(store_settings):
    from eval.load import run_load

    unlimited = settings_mod.Settings({**store_settings, "rate_limit_per_min": 0})
    with LiveServer(create_app(unlimited, warm=False)) as live:
        figures = run_load(live.url, clients=5, seconds=3)
    assert figures["ok"] > 0
    assert figures["errors"] == 0, figures["error_kinds"]


def test_public_manifest_drops_paths_and_url_credentials():
    from ui.api import _public_manifest

    manifest = {"sources": [{"path": "/work/shared/data/mlperf/raw/v6.1/summary.csv", "sha256": "ab"}],
                "chroma": {"url": "http://admin:hunter2@127.0.0.1:8000", "path": "chroma"},
                "docs": ["https://mlcommons.org/x"]}
    assert _public_manifest(manifest) == {
        "sources": [{"path": "summary.csv", "sha256": "ab"}],
        "chroma": {"url": "http://127.0.0.1:8000", "path": "chroma"},
        "docs": ["https://mlcommons.org/x"]}


def test_a_follow_up_reaching_another_worker_is_rebuilt_from_history(store_settings):
    """Two apps over one store stand for two workers: a conversation_id is only known to the
    worker that issued it, so the widget sends the earlier questions too, and the other worker
    answers the follow-up exactly as the first one would have."""
    first_question = "Which system had the best Llama 2 70B Offline result in v6.1?"
    follow_up = "And in the Server scenario?"
    with TestClient(create_app(store_settings, warm=False)) as one, \
            TestClient(create_app(store_settings, warm=False)) as two:
        cid = one.post("/v1/ask", json={"question": first_question}).json()["conversation_id"]
        same_worker = one.post("/v1/ask", json={"question": follow_up, "conversation_id": cid}).json()
        other_worker = two.post("/v1/ask", json={"question": follow_up, "conversation_id": cid,
                                                 "history": [first_question]}).json()
        forgotten = two.post("/v1/ask", json={"question": follow_up, "conversation_id": cid + "x"}).json()
    assert same_worker["status"] == "answered" and same_worker["query"]["filters"]["scenario"] == ["Server"]
    assert same_worker["query"]["filters"]["benchmark"] == ["llama2-70b-99.9"]  # carried over from turn one
    assert other_worker["answer"] == same_worker["answer"]
    assert [c["id"] for c in other_worker["citations"]] == [c["id"] for c in same_worker["citations"]]
    assert forgotten["answer"] != same_worker["answer"]  # without history the context is gone


class WhereService(FakeService):
    """Records whether each answer ran on the event loop's thread or in a worker thread."""

    def __init__(self, loaded: bool = True) -> None:
        super().__init__()
        self.is_loaded = loaded
        self.on_loop: list[bool] = []

    def loaded(self) -> bool:
        return self.is_loaded

    def ask(self, question: str, **kwargs: Any) -> Answer:
        import asyncio

        try:
            asyncio.get_running_loop()
            self.on_loop.append(True)
        except RuntimeError:
            self.on_loop.append(False)
        return super().ask(question, **kwargs)


@pytest.mark.parametrize("setup, body, expected", [
    ({}, {"question": "q"}, True),  # embedded index, engine loaded: pure computation
    ({}, {"question": "q", "history": ["earlier"]}, False),  # replaying history
    ({"loaded": False}, {"question": "q"}, False),  # the first answer after an ingest loads the engine
    ({"chroma_url": "http://127.0.0.1:9"}, {"question": "q"}, True),  # a Chroma server: bounded by a timeout
    ({"backend": "ollama"}, {"question": "q"}, False),  # a model waits on I/O
])
def test_only_answers_that_just_compute_run_on_the_event_loop(setup, body, expected):
    service = WhereService(loaded=setup.pop("loaded", True))
    client = make_client(service, answer_cache=0, **setup)
    assert client.post("/v1/ask", json=body).status_code == 200
    stream = client.post("/v1/ask/stream", json=body)
    assert stream.status_code == 200 and "event: final" in stream.text
    assert service.on_loop == [expected, expected]


def test_a_follow_up_on_the_worker_that_holds_it_stays_on_the_loop():
    # The widget sends history with every follow-up; only a worker without the conversation replays it.
    service = WhereService()
    client = make_client(service, answer_cache=0)
    cid = client.post("/v1/ask", json={"question": "q"}).json()["conversation_id"]
    client.post("/v1/ask", json={"question": "and then?", "conversation_id": cid, "history": ["q"]})
    assert service.on_loop == [True, True] and service.calls[1][1]["history"] is None


def test_a_training_question_is_answered_from_the_training_table(real_client, store_settings):
    """Both data sets are ingested by default; the API answers each from its own table."""
    import pandas as pd

    from ingest.dataset_ingest import default_cards

    assert default_cards(store_settings)
    r = real_client.post("/v1/ask", json={"question": "which system trained llama 3.1 405b fastest in v5.1?"})
    body = r.json()
    assert r.status_code == 200 and body["status"] == "answered" and body["reading"].startswith("MLPerf Training")
    raw = pd.read_csv(Path(store_settings.data) / "mlperf-training" / "mlperf_training_results.csv")
    best = raw[(raw["round"] == "v5.1") & (raw["benchmark"] == "llama31_405b") & (raw["division"] == "closed")]
    assert body["rows"][0]["result"] == best["time_to_train_min"].min()
    pinned = real_client.post("/v1/ask", json={"question": "how many submitters in v5.1?",
                                                "scope": {"dataset": ["mlperf-training"]}}).json()
    assert f"{raw[raw['round'] == 'v5.1']['submitter'].nunique()}" in pinned["answer"]
