"""The one entry point ui/ and eval/ call: question in, `Answer` out.

It picks the backend from the registry (`assistant.backends`), keeps the engine for the
current store generation cached, and never raises on bad input: an empty or oversized
question, a missing store or an unreachable model become an `Answer` with status `error`
or `no_data` and a message that says what to do.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from assistant.answer import Answer
from ingest import settings as settings_mod


def ask(
    question: str,
    *,
    history: list[str] | None = None,
    conversation: Any | None = None,
    settings: settings_mod.Settings | None = None,
    backend: str | None = None,
    model: str | None = None,
    scope: dict[str, list[str]] | None = None,
) -> Answer:
    """Answer one question.

    history: earlier user turns (replayed to rebuild context) when no `conversation` is given.
    conversation: an `assistant.conversation.Conversation` kept by the caller across turns;
      the new turn is appended to it.
    scope: filters that scope the conversation (e.g. {"round": ["v6.1"], "division": ["closed"]}),
      as set in the UI sidebar.
    """
    from assistant.backends import get_backend
    from assistant.conversation import Conversation
    from assistant.engine import get_engine, EngineUnavailable

    started = time.perf_counter()
    settings = settings or settings_mod.load(backend=backend, model=model)
    name = backend or settings.backend
    question = (question or "").strip()
    if not question:
        return Answer(question="", answer="Please type a question, for example: "
                      "\"Which system had the best Llama 2 70B Offline result in v6.1?\"", status="error",
                      backend=name)
    if len(question) > settings.max_question_chars:
        return Answer(question=question[:200], answer=f"The question is too long ({len(question)} characters; "
                      f"the limit is {settings.max_question_chars}). Please shorten it.", status="error",
                      backend=name)
    try:
        engine = get_engine(settings)
    except EngineUnavailable as exc:
        return Answer(question=question, answer=str(exc), status="error", backend=name)
    if conversation is None:
        conversation = Conversation()
        for earlier in history or []:
            conversation.add(earlier, get_backend("offline").answer(earlier, engine=engine,
                             conversation=conversation, settings=settings, scope=scope))
    answer = get_backend(name).answer(question, engine=engine, conversation=conversation,
                                      settings=settings, scope=scope, model=model or settings.model)
    answer.latency_ms = round((time.perf_counter() - started) * 1000, 2)
    conversation.add(question, answer)
    return answer


def ask_stream(question: str, **kwargs: Any) -> Iterator[str | Answer]:
    """Yield the answer text in pieces, then the final `Answer` (with citations and rows).

    Backends that stream natively provide `stream_answer`; others are chunked by words so
    the UI and SSE clients see one protocol.
    """
    from assistant.backends import get_backend

    settings = kwargs.get("settings") or settings_mod.load(backend=kwargs.get("backend"), model=kwargs.get("model"))
    kwargs["settings"] = settings
    backend = get_backend(kwargs.get("backend") or settings.backend)
    if hasattr(backend, "stream_answer") and (question or "").strip():
        yield from backend.stream_answer(question, **kwargs)
        return
    answer = ask(question, **kwargs)
    words = answer.answer.split(" ")
    for i, word in enumerate(words):
        yield word + (" " if i < len(words) - 1 else "")
    yield answer
