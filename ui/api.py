"""The HTTP API (`resultsqa serve`): ask, SSE stream, OpenAI-compatible chat, sources, health.

Why it looks like this:
- Every answer comes from `assistant.service` — the API adds transport, never logic, so the
  JSON of `POST /v1/ask` is the `resultsqa ask --json` object plus `conversation_id`.
- The offline answerer is a few milliseconds of CPU-bound Python: it runs on the event loop
  and cores are used by one worker process each (INLINE_WHY below). Model backends wait on
  I/O for seconds and run in the threadpool, so health checks and streams keep flowing.
- Conversations live in a bounded LRU keyed by (caller identity, conversation_id): one caller
  cannot continue another caller's conversation, and memory stays bounded. The LRU is per
  worker process; with several workers clients send `history` (earlier questions) as well,
  which rebuilds the conversation on a worker that does not hold it, or use
  `/v1/chat/completions`, which is stateless like the OpenAI API.
- Errors never carry stack traces or settings: a generic 500 body with a request id, and the
  details only in the server log.
- `create_app(settings, service=...)` takes the assistant as a seam so contract tests can
  exercise the transport with a tiny fake as well as end to end with a real store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import time
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Iterator, Literal

from fastapi import Depends, FastAPI, HTTPException, Request, Response, Security
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.security import HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from assistant.answer import Answer
from assistant.spec import Filters
from ingest import settings as settings_mod
from ui import security

log = logging.getLogger("resultsqa.api")

WIDGET_DIR = Path(__file__).resolve().parent / "widget"
WIDGET_SUFFIXES = {".js", ".html", ".css"}
MAX_CONVERSATIONS = 1000
MAX_HISTORY = 20
MAX_MESSAGES = 50
MAX_SOURCES_IN_TEXT = 8
# INLINE_WHY: an offline answer is a few milliseconds of CPU-bound Python (commentary retrieval
# ~30 ms). In the threadpool it gains nothing — the GIL lets one thread run at a time — and the
# thread hop plus GIL hand-offs with the event loop cost as much CPU again: one worker served
# 140 answers/s that way and ~230/s with answers on the loop (2026-11-30, 50 clients). So offline
# answers run on the event loop, first come first served, once the engine is loaded (no lock to
# wait for) and when no history is replayed. That includes searching a Chroma server: sending
# only those answers to the pool made them queue behind the loop's work for the GIL (p99 3 s at
# 50 clients); a stalled server is bounded instead (ingest.store.CHROMA_HTTP_TIMEOUT_S). The
# first load after an ingest, history replays and model backends run in the threadpool, offline
# work in at most OFFLINE_THREAD_SLOTS threads at a time.
OFFLINE_THREAD_SLOTS = 2
HARD_MAX_CHARS = 100_000  # schema cap; the real limit is the max_question_chars setting
CONVERSATION_ID = r"^[A-Za-z0-9_-]{1,64}$"
# Filter columns, plus `dataset`: the id of a card table to pin the answer to ("default" = MLPerf Inference).
SCOPE_KEYS = [name for name, f in Filters.model_fields.items()
              if "list[str]" in str(f.annotation)] + ["dataset"]


# --- request and response shapes ------------------------------------------------------

class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(..., min_length=1, max_length=HARD_MAX_CHARS,
                          description="The question, in English or Swedish (limit: max_question_chars).")
    conversation_id: str | None = Field(None, pattern=CONVERSATION_ID,
                                        description="From an earlier answer, to ask a follow-up.")
    history: list[str] | None = Field(None, max_length=MAX_HISTORY,
                                      description="Earlier questions, for follow-ups without server state. "
                                      "With conversation_id too, they rebuild a conversation this worker does not "
                                      "hold (behind several workers); otherwise ignored.")
    scope: dict[str, list[str]] | None = Field(
        None, description=f"Filters that scope the answer, e.g. {{\"round\": [\"v6.1\"]}}; keys: {', '.join(SCOPE_KEYS)}.")


class AskResponse(Answer):
    conversation_id: str | None = None


class ContentPart(BaseModel):
    type: str = "text"
    text: str | None = None


class ChatMessage(BaseModel):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return " ".join(p.text or "" for p in self.content if p.type == "text")
        return self.content or ""


class ChatRequest(BaseModel):
    """The subset of OpenAI's chat request we honour; other fields (temperature, ...) are ignored."""

    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    messages: list[ChatMessage] = Field(..., min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False


class Health(BaseModel):
    status: str


# --- the assistant seam -----------------------------------------------------------------

class AssistantService:
    """What the API needs from the assistant, delegating to the modules that own each part."""

    def __init__(self, settings: settings_mod.Settings) -> None:
        self.settings = settings

    def ask(self, question: str, **kwargs: Any) -> Answer:
        from assistant import service

        return service.ask(question, settings=self.settings, **kwargs)

    def ask_stream(self, question: str, **kwargs: Any) -> Iterator[str | Answer]:
        from assistant import service

        return service.ask_stream(question, settings=self.settings, **kwargs)

    def new_conversation(self) -> Any:
        from assistant.conversation import Conversation

        return Conversation(history_tokens=int(self.settings.history_tokens))

    def manifest(self) -> dict[str, Any]:
        from ingest.store import current_manifest

        manifest = current_manifest(self.settings)
        if manifest is None:
            raise LookupError("no store generation")
        return manifest

    def ready(self) -> None:
        from assistant.engine import get_engine

        get_engine(self.settings)

    def loaded(self) -> bool:
        """The engine of the current generation is in memory (answering will not load it)."""
        from assistant.engine import is_loaded

        return is_loaded(self.settings)


    def generation(self) -> str | None:
        """The current index generation (a readlink), so cached answers never outlive an ingest."""
        from ingest.store import current_generation, store_root

        gen = current_generation(store_root(self.settings))
        return gen.name if gen else None

    def remember(self, conversation: Any, question: str, answer: Answer) -> None:
        """Record a turn answered from the cache, so follow-ups see it like any other."""
        conversation.add(question, answer)


@dataclass
class _ConversationEntry:
    conversation: Any
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    turns: int = 0


class AnswerCache:
    """Answers to first questions (no earlier turns), per index generation, for the offline backend.

    Why: the offline answerer is deterministic for a given question, scope and index, and wiki
    users ask the same popular questions; a repeat costs a dict lookup instead of ~50-300 ms of
    CPU. Follow-ups and model backends are never cached. Used from the event loop only.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._answers: OrderedDict[tuple, Answer] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def key(self, generation: str | None, question: str, scope: dict[str, list[str]] | None) -> tuple | None:
        if self.size <= 0 or not generation:
            return None
        return (generation, " ".join(question.lower().split()), json.dumps(scope, sort_keys=True))

    def get(self, key: tuple | None) -> Answer | None:
        answer = self._answers.get(key) if key else None
        if answer is None:
            self.misses += key is not None
            return None
        self._answers.move_to_end(key)
        self.hits += 1
        return answer.model_copy(deep=True)

    def put(self, key: tuple | None, answer: Answer) -> None:
        if key is None or answer.status != "answered":
            return
        self._answers[key] = answer.model_copy(deep=True)
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)


class ConversationStore:
    """Bounded LRU of conversations, keyed by (identity, conversation_id)."""

    def __init__(self, factory: Any, max_entries: int = MAX_CONVERSATIONS) -> None:
        self.factory = factory
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], _ConversationEntry] = OrderedDict()

    def get(self, identity: str, conversation_id: str | None) -> tuple[str, _ConversationEntry]:
        cid = conversation_id or secrets.token_urlsafe(12)
        key = (identity, cid)
        entry = self._entries.pop(key, None) or _ConversationEntry(self.factory())
        self._entries[key] = entry
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return cid, entry

    def __len__(self) -> int:
        return len(self._entries)


# --- helpers ------------------------------------------------------------------------------

def _check_question(question: str, settings: settings_mod.Settings) -> str:
    question = question.strip()
    if not question:
        raise HTTPException(422, "the question is empty")
    if len(question) > settings.max_question_chars:
        raise HTTPException(422, f"the question is too long ({len(question)} characters; "
                            f"the limit is {settings.max_question_chars})")
    return question


def _check_scope(scope: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
    if not scope:
        return None
    unknown = sorted(set(scope) - set(SCOPE_KEYS))
    if unknown:
        raise HTTPException(422, f"unknown scope key(s): {', '.join(unknown)}; use: {', '.join(SCOPE_KEYS)}")
    return {k: [str(v)[:200] for v in values[:50]] for k, values in scope.items() if values}


def _check_history(history: list[str] | None, settings: settings_mod.Settings) -> list[str] | None:
    if not history:
        return None
    return [_check_question(h, settings) for h in history if h.strip()] or None


def sources_markdown(answer: Answer, limit: int = MAX_SOURCES_IN_TEXT) -> str:
    """The citations as Markdown links, for chat clients that only show message text."""
    links: list[str] = []
    seen: set[str] = set()
    for c in answer.citations:
        if c.id in seen:
            continue
        seen.add(c.id)
        label = (c.title or c.id).replace("[", "(").replace("]", ")")
        links.append(f"[{label}]({c.url})" if c.url else label)
    if not links:
        return ""
    more = f" and {len(links) - limit} more" if len(links) > limit else ""
    return "\n\nSources: " + ", ".join(links[:limit]) + more


def chat_metadata(answer: Answer) -> dict[str, Any]:
    """The machine-readable part of a chat completion: what a wiki plugin may render itself."""
    data = answer.to_json()
    return {k: data[k] for k in ("status", "citations", "values", "notes", "query", "backend", "reading",
                                 "suggestions")}


def _public_manifest(value: Any) -> Any:
    """The manifest without server file paths (kept to their file names) or credentials in URLs."""
    if isinstance(value, dict):
        return {k: _public_manifest(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_public_manifest(v) for v in value]
    if isinstance(value, str):
        if value.startswith(("/", "~")) or re.match(r"^[A-Za-z]:\\", value):
            return Path(value).name
        return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@\s]*@", r"\1", value, flags=re.I)
    return value


def _sse_json(event: str, data: Any) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(data, ensure_ascii=False), event=event)


# --- the app ------------------------------------------------------------------------------

def create_app(settings: settings_mod.Settings | None = None, *, service: Any | None = None,
               warm: bool = True) -> FastAPI:
    """Build the app for one set of settings. Raises `security.ConfigError` if serving would be unsafe."""
    settings = settings or settings_mod.load()
    service = service or AssistantService(settings)
    keyring = security.KeyRing.from_settings(settings)
    require_keys = security.keys_required(settings, keyring)
    limiter = security.RateLimiter(int(settings.rate_limit_per_min))
    conversations = ConversationStore(service.new_conversation)
    cache = AnswerCache(int(settings.answer_cache) if settings.backend == "offline" else 0)
    offline = settings.backend == "offline"
    slots = asyncio.Semaphore(OFFLINE_THREAD_SLOTS) if offline else None

    def on_loop(kwargs: dict[str, Any]) -> bool:
        """Whether this answer runs on the event loop (see INLINE_WHY)."""
        return offline and not kwargs.get("history") and service.loaded()

    async def answer_work(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if on_loop(kwargs):
            return fn(*args, **kwargs)
        async with slots or contextlib.nullcontext():
            return await run_in_threadpool(fn, *args, **kwargs)

    async def answer_pieces(question: str, kwargs: dict[str, Any]) -> AsyncIterator[str | Answer]:
        """Iterate a streamed answer. On the loop (see `on_loop`) every piece is taken there — an
        offline answer is computed at the first and the rest are its words; otherwise the first
        piece takes a slot like `answer_work` and a model's later pieces come from the pool."""
        pieces = service.ask_stream(question, **kwargs)
        inline = on_loop(kwargs)
        first = True
        while True:
            if inline:
                piece = next(pieces, None)
            else:
                async with (slots if first and slots else contextlib.nullcontext()):
                    piece = await run_in_threadpool(next, pieces, None)
            first = False
            if piece is None:
                return
            yield piece

    async def cached_answer(question: str, scope: dict[str, list[str]] | None,
                            conversation: Any | None) -> tuple[Answer, str]:
        """The answer to a first question, from the cache when it can be; (answer, "hit"|"miss"|"off")."""
        started = time.perf_counter()
        key = cache.key(service.generation(), question, scope) if cache.size else None  # a readlink
        hit = cache.get(key)
        if hit is not None:
            hit.latency_ms = round((time.perf_counter() - started) * 1000, 2)
            if conversation is not None:
                service.remember(conversation, question, hit)
            return hit, "hit"
        kwargs: dict[str, Any] = {"scope": scope} if conversation is None else {"conversation": conversation,
                                                                                "scope": scope}
        answer = await answer_work(service.ask, question, **kwargs)
        cache.put(key, answer)
        return answer, "miss" if key else "off"

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:  # load the engine in the background so the first question is not the slow one
            loop = asyncio.get_running_loop()
            loop.run_in_executor(None, _warm, service)
        yield

    app = FastAPI(
        title="resultsqa API",
        version="1",
        summary="Questions about MLPerf Inference results; every number exact and cited.",
        description="See docs/api.md. Authenticate with `Authorization: Bearer <key>` when keys are configured.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.limiter = limiter
    app.state.conversations = conversations
    app.state.answer_cache = cache
    app.state.service = service

    bearer = HTTPBearer(auto_error=False, description="An API key; required unless the server is on loopback "
                        "with no keys configured.")

    async def identity(request: Request, _documented: Any = Security(bearer)) -> str:
        """Who is calling, as established by `security.GuardMiddleware` (key id or client address)."""
        return request.state.identity

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # Same shape as FastAPI's default minus the echoed input (which can be large).
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                  for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    # --- endpoints ---

    @app.get("/healthz", response_model=Health, tags=["health"])
    async def healthz() -> dict[str, str]:
        """Liveness: the process answers HTTP."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], responses={503: {"description": "No store or the engine cannot load."}})
    async def readyz() -> JSONResponse:
        """Readiness: the store opens and the engine for its current generation is loaded."""
        try:
            await run_in_threadpool(service.ready)
        except Exception as exc:
            log.warning("not ready: %s", exc)
            return JSONResponse({"status": "not_ready",
                                 "detail": "the index is not available; run `resultsqa ingest`"}, status_code=503)
        return JSONResponse({"status": "ready"})

    @app.get("/v1/sources", tags=["data"], responses={503: {"description": "No store."}})
    async def sources(who: str = Depends(identity)) -> JSONResponse:
        """What is indexed: the manifest of the current store generation (rounds, rows, documents, chunks)."""
        try:
            manifest = await run_in_threadpool(service.manifest)
        except Exception as exc:
            log.warning("sources unavailable: %s", exc)
            raise HTTPException(503, "the index is not available; run `resultsqa ingest`") from None
        return JSONResponse(_public_manifest(manifest))

    @app.post("/v1/ask", response_model=AskResponse, tags=["ask"])
    async def ask(body: AskRequest, who: str = Depends(identity)) -> Response:
        """Answer one question: the same JSON as `resultsqa ask --json`, plus `conversation_id`."""
        question = _check_question(body.question, settings)
        scope = _check_scope(body.scope)
        history = _check_history(body.history, settings)
        if history and not body.conversation_id:
            answer = await answer_work(service.ask, question, history=history, scope=scope)
            return _answer_response(answer, None)
        cid, entry = conversations.get(who, body.conversation_id)
        headers: dict[str, str] = {}
        async with entry.lock:
            if entry.turns == 0 and not history:
                answer, state = await cached_answer(question, scope, entry.conversation)
                headers["X-Answer-Cache"] = state
            else:
                # history rebuilds a conversation this worker does not hold; a held one needs none
                answer = await answer_work(service.ask, question, conversation=entry.conversation, scope=scope,
                                           history=history if entry.turns == 0 else None)
            entry.turns += 1
        return _answer_response(answer, cid, headers)

    @app.post("/v1/ask/stream", tags=["ask"], response_class=EventSourceResponse, responses={
        200: {"description": "Server-Sent Events: `token` events ({\"text\"}), then one `final` event "
              "(the /v1/ask object), or one `error` event.", "content": {"text/event-stream": {}}}})
    async def ask_stream(body: AskRequest, who: str = Depends(identity)) -> EventSourceResponse:
        """Answer one question as Server-Sent Events: text pieces, then the full answer with citations and rows."""
        question = _check_question(body.question, settings)
        scope = _check_scope(body.scope)
        history = _check_history(body.history, settings)
        if history and not body.conversation_id:
            cid, entry = None, None
            kwargs: dict[str, Any] = {"history": history, "scope": scope}
        else:
            cid, entry = conversations.get(who, body.conversation_id)
            kwargs = {"conversation": entry.conversation, "scope": scope,
                      "history": history if entry.turns == 0 else None}

        async def events() -> AsyncIterator[ServerSentEvent]:
            lock = entry.lock if entry else asyncio.Lock()
            async with lock:
                try:
                    async for piece in answer_pieces(question, kwargs):
                        if isinstance(piece, Answer):
                            if entry:
                                entry.turns += 1
                            yield _sse_json("final", {**piece.to_json(), "conversation_id": cid})
                        else:
                            yield _sse_json("token", {"text": str(piece)})
                except Exception:
                    request_id = secrets.token_hex(6)
                    log.exception("stream %s failed", request_id)
                    yield _sse_json("error", {"detail": "internal error", "request_id": request_id})

        return EventSourceResponse(events(), ping=15)

    @app.post("/v1/chat/completions", tags=["openai"], responses={
        200: {"description": "An OpenAI chat.completion object, or with `stream: true` a text/event-stream "
              "of chat.completion.chunk objects ending with `data: [DONE]`. Citations are Markdown links "
              "in the text and structured in `metadata`.", "content": {"text/event-stream": {}}}})
    async def chat_completions(body: ChatRequest, who: str = Depends(identity)) -> Any:
        """OpenAI-compatible chat: the last user message is the question, earlier user messages the history."""
        users = [m.text() for m in body.messages if m.role == "user"]
        if not users:
            raise HTTPException(422, "no user message")
        question = _check_question(users[-1], settings)
        history = _check_history(users[:-1][-MAX_HISTORY:], settings)
        model = body.model or f"resultsqa-{settings.backend}"
        completion_id = "chatcmpl-" + secrets.token_hex(12)
        created = int(time.time())
        if not body.stream:
            if history:
                answer = await answer_work(service.ask, question, history=history)
            else:
                answer, _ = await cached_answer(question, None, None)
            text = answer.answer + sources_markdown(answer)
            return {
                "id": completion_id, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop", "logprobs": None}],
                "usage": _usage(answer),
                "metadata": chat_metadata(answer),
            }

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            data = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
            return "data: " + json.dumps(data, ensure_ascii=False) + "\n\n"

        async def stream() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            async for data in stream_answer():
                yield data
            yield "data: [DONE]\n\n"

        async def stream_answer() -> AsyncIterator[str]:
            try:
                async for piece in answer_pieces(question, {"history": history}):
                    if isinstance(piece, Answer):
                        tail = sources_markdown(piece)
                        if tail:
                            yield chunk({"content": tail})
                        yield chunk({}, "stop", usage=_usage(piece), metadata=chat_metadata(piece))
                    else:
                        yield chunk({"content": str(piece)})
            except Exception:
                request_id = secrets.token_hex(6)
                log.exception("chat stream %s failed", request_id)
                yield "data: " + json.dumps({"error": {"message": "internal error", "type": "server_error",
                                                       "request_id": request_id}}) + "\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/v1/models", tags=["openai"])
    async def models(who: str = Depends(identity)) -> dict[str, Any]:
        """OpenAI-compatible model list (chat plugins call it to fill their model picker)."""
        return {"object": "list", "data": [{"id": f"resultsqa-{settings.backend}", "object": "model",
                                            "created": 0, "owned_by": "resultsqa"}]}

    @app.get("/widget/{name}", tags=["widget"], include_in_schema=True,
             responses={404: {"description": "No such widget file."}})
    async def widget(name: str) -> FileResponse:
        """The embeddable widget (`resultsqa-widget.js`) and its example page."""
        path = security.safe_file(WIDGET_DIR, name, WIDGET_SUFFIXES)
        if path is None:
            raise HTTPException(404, "not found")
        return FileResponse(path)

    # Middleware: the last added runs first. CORS outermost so 413/429/401 carry CORS headers
    # too (a browser widget can then show the real error instead of an opaque network failure).
    app.add_middleware(security.CatchAllMiddleware, logger=log)
    app.add_middleware(security.BodyLimitMiddleware, max_bytes=int(settings.max_body_kb) * 1024)
    app.add_middleware(security.GuardMiddleware, keyring=keyring, require_keys=require_keys, limiter=limiter)
    app.add_middleware(security.SecurityHeadersMiddleware)
    origins = [o.strip() for o in str(settings.cors_origins or "").split(",") if o.strip()]
    if origins:
        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "OPTIONS"],
                           allow_headers=["Authorization", "Content-Type"], allow_credentials=False,
                           max_age=600)
    return app


def _answer_response(answer: Answer, conversation_id: str | None, headers: dict[str, str] | None = None) -> Response:
    """The /v1/ask body in one pass of pydantic's encoder (returning a dict makes FastAPI dump the
    answer, validate it against `AskResponse` and dump it again). `AskResponse` stays the
    documented response model."""
    body = AskResponse.model_construct(**dict(answer), conversation_id=conversation_id).model_dump_json()
    return Response(content=body, media_type="application/json", headers=headers)


def _usage(answer: Answer) -> dict[str, int]:
    return {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens,
            "total_tokens": answer.prompt_tokens + answer.completion_tokens}


def _warm(service: Any) -> None:
    try:
        service.ready()
    except Exception as exc:  # readyz reports it; serving must still start
        log.warning("engine not loaded at start: %s", exc)


# --- running it ---------------------------------------------------------------------------

def app_from_env() -> FastAPI:
    """uvicorn factory for several workers: each worker process reads the settings from the env."""
    settings_mod.setup_offline_env()
    return create_app(settings_mod.load())


def _export_settings(settings: settings_mod.Settings) -> None:
    """Hand the resolved settings to worker processes through RESULTSQA_* variables."""
    from ui.cli import settings_env

    os.environ.update(settings_env(settings))


def main(args: Any, settings: settings_mod.Settings) -> int:
    """Run uvicorn (called by `resultsqa serve`). Refuses to start when serving would be unsafe."""
    import sys

    import uvicorn

    settings_mod.setup_offline_env()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    workers = int(getattr(args, "workers", None) or 1)
    try:
        app = create_app(settings)  # validates keys and bind address before anything listens
    except security.ConfigError as exc:
        print(f"resultsqa serve: {exc}", file=sys.stderr)
        return 2
    common = dict(host=settings.host, port=int(settings.port), log_level="info", server_header=False,
                  timeout_keep_alive=20, proxy_headers=False)
    if workers > 1:
        _export_settings(settings)
        uvicorn.run("ui.api:app_from_env", factory=True, workers=workers, **common)
    else:
        uvicorn.run(app, **common)
    return 0
