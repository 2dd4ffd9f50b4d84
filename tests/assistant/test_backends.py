"""The model backends over HTTP stand-ins (fast; the real small model is in test_real_model.py):
what they send, how they fall back, and that an API key never leaks."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assistant.backends import get_backend, names
from assistant.engine import Engine
from ingest import settings as settings_mod
from tests.assistant.test_agent import BEST, QUESTION, _route, _table
from tests.helpers.ollama_standin import OllamaStandin
from eval.procs import free_port

KEY = "sk-test-SECRET-0123456789abcdef"
FINAL = "Nvidia's Big box led with 1,136,100.47 Tokens/s in v6.1 (closed, Offline)."


@pytest.fixture
def engine():
    return Engine.from_table(_table(), settings_mod.load())



def _reply(schema_sent: bool) -> str:
    return json.dumps(_route()) if schema_sent else FINAL


class OpenAIStandin(ThreadingHTTPServer):
    """Enough of POST /v1/chat/completions (JSON and SSE) to drive OpenAILike; `reject=True`
    answers 401 and echoes the key the way hosted APIs partly do."""

    daemon_threads = True

    def __init__(self, reject: bool = False, object_only: bool = False):
        self.reject = reject
        self.object_only = object_only  # like llama.cpp's server: json_object + schema only
        self.bodies: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append(body)
                if server.object_only and body.get("response_format", {}).get("type") == "json_schema":
                    # what llama_cpp.server 0.3.36 really answers: a 500 naming response_format
                    data = b'{"error": {"message": "response_format.type: Input should be text or json_object"}}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if server.reject:
                    key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    data = json.dumps({"error": {"message": f"Incorrect API key provided: {key}",
                                                 "type": "invalid_request_error"}}).encode()
                    self.send_response(401)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                text = _reply("response_format" in body)
                base = {"id": "x", "created": 0, "model": body["model"]}
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for word in text.split(" "):
                        chunk = {**base, "object": "chat.completion.chunk",
                                 "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    return
                data = json.dumps({**base, "object": "chat.completion", "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), Handler)

    def __enter__(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _ask(name, engine, settings, model=None):
    return get_backend(name).answer(QUESTION, engine=engine, conversation=None, settings=settings, model=model)


def test_registry_has_every_backend():
    assert set(names()) >= {"offline", "ollama", "openai", "llamacpp"}
    for name in ("ollama", "openai", "llamacpp"):
        backend = get_backend(name)
        assert backend.name == name and hasattr(backend, "stream_answer")


# --- ollama ----------------------------------------------------------------------------

def _ollama_responder(messages, fmt, tools, options):
    return iter([_reply(isinstance(fmt, dict))])


def test_ollama_backend_through_the_standin(engine):
    with OllamaStandin(_ollama_responder, models=["tiny"]) as server:
        # the model words the answer here (a tag with no size would otherwise get our templates)
        settings = settings_mod.load(ollama_host=server.url, context_window=2048, max_tokens=99,
                                     model_wording="model")
        answer = _ask("ollama", engine, settings, model="tiny")
        chats = [body for method, path, body in server.requests if path == "/api/chat"]
    assert answer.answer == FINAL and (answer.backend, answer.model, answer.llm_calls) == ("ollama", "tiny", 2)
    assert answer.values[0].value == BEST and answer.citations[0].id == "6.1-0001"
    assert isinstance(chats[0]["format"], dict) and chats[0]["format"]["required"][0] == "tool"
    assert chats[0]["options"]["num_ctx"] == 2048 and chats[0]["options"]["num_predict"] == 99
    assert not any(path == "/api/show" for _, path, _ in server.requests)  # context window passed explicitly


def test_ollama_streams_over_ndjson(engine):
    with OllamaStandin(_ollama_responder, models=["tiny"]) as server:
        settings = settings_mod.load(ollama_host=server.url, model_wording="model")  # the wording is streamed
        pieces = list(get_backend("ollama").stream_answer(QUESTION, engine=engine, conversation=None,
                                                          settings=settings, model="tiny"))
        chats = [body for method, path, body in server.requests if path == "/api/chat"]
    assert "".join(pieces[:-1]) == pieces[-1].answer == FINAL
    assert chats[0]["stream"] is False and chats[1]["stream"] is True


def test_ollama_missing_model_or_server_answers_offline(engine):
    with OllamaStandin(_ollama_responder, models=["tiny"]) as server:
        missing = _ask("ollama", engine, settings_mod.load(ollama_host=server.url), model="nope")
    assert missing.backend == "offline" and "not found" in " ".join(missing.notes)
    down = _ask("ollama", engine, settings_mod.load(ollama_host=f"http://127.0.0.1:{free_port()}", llm_timeout_s=5),
                model="tiny")
    assert down.backend == "offline" and down.values[0].value == BEST
    assert down.answer.startswith("(The ollama model could not be reached")


# --- openai ----------------------------------------------------------------------------

def test_openai_backend_sends_a_json_schema_and_streams(engine):
    with OpenAIStandin() as server:
        settings = settings_mod.load(openai_base_url=server.url, openai_api_key=KEY)
        answer = _ask("openai", engine, settings, model="m")
        pieces = list(get_backend("openai").stream_answer(QUESTION, engine=engine, conversation=None,
                                                          settings=settings, model="m"))
    assert answer.answer == FINAL and answer.backend == "openai"
    fmt = server.bodies[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["properties"]["tool"]["enum"]
    assert "".join(pieces[:-1]).strip() == pieces[-1].answer.strip() == FINAL


def test_openai_switches_to_json_object_for_servers_that_need_it(engine):
    with OpenAIStandin(object_only=True) as server:
        settings = settings_mod.load(openai_base_url=server.url)
        first = _ask("openai", engine, settings, model="m")
        second = _ask("openai", engine, settings, model="m")
    formats = [b.get("response_format", {}).get("type") for b in server.bodies]
    assert formats == ["json_schema", "json_object", None, "json_object", None]
    assert server.bodies[1]["response_format"]["schema"]["required"][0] == "tool"
    assert first.answer == second.answer == FINAL and first.llm_calls == 2


def test_openai_key_never_appears_in_answers_notes_or_logs(engine, caplog):
    with caplog.at_level(logging.DEBUG):
        with OpenAIStandin(reject=True) as server:
            settings = settings_mod.load(openai_base_url=server.url, openai_api_key=KEY)
            rejected = _ask("openai", engine, settings, model="m")
        down = _ask("openai", engine, settings_mod.load(openai_base_url=f"http://127.0.0.1:{free_port()}/v1",
                                                        openai_api_key=KEY), model="m")
    for answer in (rejected, down):
        assert answer.backend == "offline" and answer.values[0].value == BEST
        assert KEY not in json.dumps(answer.to_json())
    assert "Incorrect API key" in " ".join(rejected.notes)  # the reason is kept, the key is not
    assert KEY not in caplog.text
    assert settings_mod.load(openai_api_key=KEY).public()["openai_api_key"] == "***"


def test_openai_without_a_base_url_answers_offline(engine):
    answer = _ask("openai", engine, settings_mod.load(), model="m")
    assert answer.backend == "offline" and "base URL" in " ".join(answer.notes)


# --- llamacpp ----------------------------------------------------------------------------

def test_llamacpp_missing_file_answers_offline(engine, tmp_path):
    answer = _ask("llamacpp", engine, settings_mod.load(), model=str(tmp_path / "missing.gguf"))
    assert answer.backend == "offline" and answer.values[0].value == BEST
    assert "no GGUF model file" in " ".join(answer.notes)
    assert _ask("llamacpp", engine, settings_mod.load()).backend == "offline"  # no --model at all


def test_openai_strict_mode_only_for_a_schema_that_requires_every_key():
    from assistant.llm import LlamaIndexModel
    from assistant.route_schema import route_schema

    model = LlamaIndexModel(object(), schema_style="openai", model_name="m")
    strict = {tier: model._schema_kwargs(route_schema(tier))["response_format"]["json_schema"]["strict"]
              for tier in ("narrow", "full")}
    assert strict == {"narrow": True, "full": False}
