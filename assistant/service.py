"""The one entry point ui/ and eval/ call: question in, `Answer` out.

It picks the backend from the registry (`assistant.backends`), keeps the engine for the
current store generation cached, and never raises on bad input: an empty or oversized
question, a missing store or an unreachable model become an `Answer` with status `error`
or `no_data` (or an offline answer that says the model was unreachable) and a message that
says what to do. `ask` and `ask_stream` share one preparation step so they cannot drift.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

from assistant.answer import Answer
from ingest import settings as settings_mod


@dataclass
class _Prepared:
    question: str
    name: str
    settings: settings_mod.Settings
    engine: Any
    conversation: Any
    model: str | None


def _prepare(question: str, *, history: list[str] | None, conversation: Any, settings: settings_mod.Settings | None,
             backend: str | None, model: str | None, scope: dict | None) -> _Prepared | Answer:
    """Validate the question, open the engine and rebuild the conversation; an Answer means stop."""
    from assistant.backends import get_backend
    from assistant.conversation import Conversation
    from assistant.engine import EngineUnavailable, get_engine

    settings = settings or settings_mod.load(backend=backend, model=model)
    name = backend or settings.backend
    question = (question or "").strip()
    if not question:
        from assistant.prompts import help_question

        return Answer(question="", answer=f"Please type a question, for example: \"{help_question()}\"",
                      status="error", backend=name)
    if len(question) > settings.max_question_chars:
        return Answer(question=question[:200], answer=f"The question is too long ({len(question)} characters; "
                      f"the limit is {settings.max_question_chars}). Please shorten it.", status="error",
                      backend=name)
    try:
        get_backend(name)
    except ValueError as exc:
        return Answer(question=question, answer=str(exc), status="error", backend=name)
    try:
        engine = get_engine(settings)
    except EngineUnavailable as exc:
        return Answer(question=question, answer=str(exc), status="error", backend=name)
    if conversation is None:
        conversation = Conversation(history_tokens=int(settings.history_tokens))
    if not conversation.turns:  # a new conversation, or one this process never saw: rebuild it
        for earlier in history or []:
            conversation.add(earlier, get_backend("offline").answer(earlier, engine=engine,
                             conversation=conversation, settings=settings, scope=scope))
    return _Prepared(question, name, settings, engine, conversation, model or settings.model)


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

    history: earlier user turns, replayed offline to rebuild the context when `conversation` is
      absent or empty (an API worker that never saw this conversation: another worker did).
    conversation: an `assistant.conversation.Conversation` kept by the caller across turns;
      the new turn is appended to it.
    scope: filters that scope the conversation (e.g. {"round": ["v6.1"], "division": ["closed"]}),
      as set in the UI sidebar.
    """
    from assistant.backends import get_backend

    started = time.perf_counter()
    prepared = _prepare(question, history=history, conversation=conversation, settings=settings, backend=backend,
                        model=model, scope=scope)
    if isinstance(prepared, Answer):
        return prepared
    answer = get_backend(prepared.name).answer(prepared.question, engine=prepared.engine,
                                               conversation=prepared.conversation, settings=prepared.settings,
                                               scope=scope, model=prepared.model)
    answer.latency_ms = round((time.perf_counter() - started) * 1000, 2)
    prepared.conversation.add(prepared.question, answer)
    return answer


def ask_stream(question: str, **kwargs: Any) -> Iterator[str | Answer]:
    """Yield the answer text in pieces, then the final `Answer` (with citations and rows).

    Same keyword arguments as `ask`. Backends that stream natively provide `stream_answer`;
    others are chunked by words so the UI and SSE clients see one protocol. The final Answer is
    authoritative: when a model's streamed wording fails the number check, the stream stops
    before the unsupported number and continues with the deterministic answer, which is then
    also `Answer.answer`.
    """
    from assistant.backends import get_backend

    started = time.perf_counter()
    scope = kwargs.get("scope")
    prepared = _prepare(question, history=kwargs.get("history"), conversation=kwargs.get("conversation"),
                        settings=kwargs.get("settings"), backend=kwargs.get("backend"), model=kwargs.get("model"),
                        scope=scope)
    if isinstance(prepared, Answer):
        yield prepared.answer
        yield prepared
        return
    impl = get_backend(prepared.name)
    final: Answer | None = None
    if hasattr(impl, "stream_answer"):
        for piece in impl.stream_answer(prepared.question, engine=prepared.engine,
                                        conversation=prepared.conversation, settings=prepared.settings,
                                        scope=scope, model=prepared.model):
            if isinstance(piece, Answer):
                final = piece
            else:
                yield piece
    else:
        final = impl.answer(prepared.question, engine=prepared.engine, conversation=prepared.conversation,
                            settings=prepared.settings, scope=scope, model=prepared.model)
        words = final.answer.split(" ")
        for i, word in enumerate(words):
            yield word + (" " if i < len(words) - 1 else "")
    assert final is not None
    final.latency_ms = round((time.perf_counter() - started) * 1000, 2)
    prepared.conversation.add(prepared.question, final)
    yield final
