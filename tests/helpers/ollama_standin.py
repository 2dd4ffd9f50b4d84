"""A small HTTP server that speaks the part of Ollama's API our `ollama` backend uses.

Ollama itself cannot be installed on the project's machines, so this stands in for it:
GET /api/tags, POST /api/show, POST /api/chat (JSON or NDJSON streaming, `format` = "json" or
a JSON schema, `tools`), POST /api/embed. Replies come from a *responder*: `LlamaCppResponder`
forwards to the real small model through llama-cpp-python (end-to-end tests); a plain function
gives fast protocol tests. Run standalone: `python -m tests.helpers.ollama_standin MODEL.gguf`.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

# responder(messages, format, tools, options) -> iterator of text pieces, or a dict
# {"content": str, "tool_calls": [{"function": {"name": ..., "arguments": {...}}}]}
Responder = Callable[[list[dict[str, Any]], Any, Any, dict[str, Any]], "Iterator[str] | dict[str, Any]"]


def hash_embedding(text: str, dim: int = 64) -> list[float]:
    """A deterministic unit vector per text: enough for protocol tests of /api/embed."""
    values = [b / 255.0 - 0.5 for b in hashlib.sha256(text.encode()).digest() * (dim // 32 + 1)][:dim]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class LlamaCppResponder:
    """Forwards chats to a GGUF model in process (the same real model the other paths use)."""

    def __init__(self, model_path: str, n_ctx: int = 4096, n_threads: int = 2) -> None:
        from assistant.backends.llamacpp import load_llama

        self.llama = load_llama(model_path, n_ctx, n_threads)
        self.lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]], format: Any, tools: Any,
                 options: dict[str, Any]) -> Iterator[str]:
        kwargs: dict[str, Any] = {"max_tokens": int(options.get("num_predict") or 512),
                                  "temperature": float(options.get("temperature") or 0.0)}
        if isinstance(format, dict):
            kwargs["response_format"] = {"type": "json_object", "schema": format}
        elif format == "json":
            kwargs["response_format"] = {"type": "json_object"}
        chat = [{"role": m.get("role", "user"), "content": m.get("content") or ""} for m in messages]
        with self.lock:
            for chunk in self.llama.create_chat_completion(messages=chat, stream=True, **kwargs):
                delta = chunk["choices"][0].get("delta", {}).get("content")
                if delta:
                    yield delta


class _Handler(BaseHTTPRequestHandler):
    server: "OllamaStandin"

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def _model_ok(self, name: str | None) -> bool:
        if name not in self.server.models:
            self._json(404, {"error": f"model '{name}' not found"})
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self.server.requests.append(("GET", self.path, None))
        if self.path == "/api/tags":
            self._json(200, {"models": [{"name": m, "model": m, "modified_at": "2026-11-29T00:00:00Z", "size": 0,
                                         "digest": hashlib.sha256(m.encode()).hexdigest(),
                                         "details": {"format": "gguf", "family": "qwen2"}}
                                        for m in self.server.models]})
        elif self.path in ("/", "/api/version"):
            self._json(200, {"version": "0.0.0-standin"})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        body = self._body()
        self.server.requests.append(("POST", self.path, body))
        if self.path == "/api/show":
            if self._model_ok(body.get("model") or body.get("name")):
                self._json(200, {"modelinfo": {"general.architecture": "qwen2",
                                               "qwen2.context_length": self.server.context_length},
                                 "details": {"format": "gguf", "family": "qwen2"}, "template": "", "parameters": "",
                                 "capabilities": ["completion", "tools"]})
        elif self.path == "/api/embed":
            if self._model_ok(body.get("model")):
                texts = body.get("input")
                texts = [texts] if isinstance(texts, str) else list(texts or [])
                self._json(200, {"model": body["model"], "embeddings": [hash_embedding(t) for t in texts]})
        elif self.path == "/api/chat":
            if self._model_ok(body.get("model")):
                self._chat(body)
        else:
            self._json(404, {"error": "not found"})

    def _chat(self, body: dict[str, Any]) -> None:
        started = time.perf_counter()
        model = body["model"]
        out = self.server.responder(body.get("messages") or [], body.get("format"), body.get("tools"),
                                    body.get("options") or {})
        prompt_chars = sum(len(m.get("content") or "") for m in body.get("messages") or [])
        if isinstance(out, dict):
            pieces, tool_calls = [out.get("content") or ""], out.get("tool_calls") or []
        else:
            pieces, tool_calls = out, []
        base = {"model": model, "created_at": "2026-11-29T00:00:00Z"}
        if body.get("stream", True):
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            count = 0
            for piece in pieces:
                count += 1
                line = {**base, "message": {"role": "assistant", "content": piece}, "done": False}
                self.wfile.write((json.dumps(line) + "\n").encode())
                self.wfile.flush()
            final = {**base, "message": {"role": "assistant", "content": "",
                                         **({"tool_calls": tool_calls} if tool_calls else {})},
                     "done": True, "done_reason": "stop", "prompt_eval_count": prompt_chars // 4,
                     "eval_count": count, "total_duration": int((time.perf_counter() - started) * 1e9)}
            self.wfile.write((json.dumps(final) + "\n").encode())
            self.wfile.flush()
            return
        pieces = list(pieces)
        text = "".join(pieces)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            message["tool_calls"] = tool_calls
        self._json(200, {**base, "message": message, "done": True, "done_reason": "stop",
                         "prompt_eval_count": prompt_chars // 4, "eval_count": len(pieces),
                         "total_duration": int((time.perf_counter() - started) * 1e9)})


class OllamaStandin(ThreadingHTTPServer):
    """`with OllamaStandin(responder, models=[...]) as server:` serves at `server.url` in a thread."""

    daemon_threads = True

    def __init__(self, responder: Responder, *, models: list[str], host: str = "127.0.0.1", port: int = 0,
                 context_length: int = 4096) -> None:
        super().__init__((host, port), _Handler)
        self.responder = responder
        self.models = list(models)
        self.context_length = context_length
        self.requests: list[tuple[str, str, Any]] = []
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "OllamaStandin":
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


def main() -> None:  # pragma: no cover - manual use
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_path")
    parser.add_argument("--name", default="qwen2.5-coder:0.5b")
    parser.add_argument("--port", type=int, default=11434)
    args = parser.parse_args()
    server = OllamaStandin(LlamaCppResponder(args.model_path), models=[args.name], port=args.port)
    print(f"Ollama stand-in for {args.name} at {server.url}")
    server.serve_forever()


if __name__ == "__main__":  # pragma: no cover
    main()
