"""What the model backends share: build the model, run the agent, and fall back to the
offline answerer when the model cannot be built or reached — saying so in the answer.

A model is an addition to the offline answerer, never a condition for an answer: a missing
GGUF file, a refused connection or a server error mid-question all end in the offline
answer, with a first sentence and a note that say the model was not used.
"""

from __future__ import annotations

from typing import Any, Iterator

from assistant.answer import Answer
from assistant.llm import ChatModel, is_unreachable, redact


def offline_fallback(question: str, exc: BaseException, *, backend: str, secrets: list[str | None], engine: Any,
                     conversation: Any, settings: Any, scope: dict | None) -> Answer:
    """The offline answer to `question`, marked as standing in for the `backend` model that
    failed with `exc` (secrets redacted from the reason)."""
    from assistant.offline import answer_question

    reason = redact(f"{type(exc).__name__}: {exc}", secrets)[:300]
    offline = answer_question(question, engine=engine, conversation=conversation, settings=settings, scope=scope)
    unreachable = is_unreachable(exc)
    lead = "could not be reached" if unreachable else "is not available"
    what = "was unreachable" if unreachable else "failed"
    return offline.model_copy(update={
        "backend": "offline",
        "answer": f"(The {backend} model {lead}, so this is the offline answer.) " + offline.answer,
        "notes": list(offline.notes) + [f"The {backend} model {what} ({reason}); answered offline instead."],
    })


def words(text: str) -> Iterator[str]:
    """A finished text as stream pieces, one word each, so every answer streams the same way."""
    parts = text.split(" ")
    for i, word in enumerate(parts):
        yield word + (" " if i < len(parts) - 1 else "")


class AgentBackend:
    """Base of the model backends: subclasses say how to build their `ChatModel`."""

    name = "agent"

    def make_model(self, settings: Any, model: str | None) -> ChatModel:  # pragma: no cover - abstract
        raise NotImplementedError

    def secrets(self, settings: Any) -> list[str | None]:
        return []

    def _agent(self, engine: Any, settings: Any, model: str | None) -> Any:
        from assistant.agent import Agent

        chat_model = self.make_model(settings, model)
        return Agent(chat_model, engine=engine, settings=settings, backend=self.name, secrets=self.secrets(settings))

    def answer(self, question: str, *, engine: Any, conversation: Any, settings: Any,
               scope: dict | None = None, model: str | None = None) -> Answer:
        try:
            agent = self._agent(engine, settings, model)
        except Exception as exc:  # noqa: BLE001 - a missing model must become an offline answer
            return offline_fallback(question, exc, backend=self.name, secrets=self.secrets(settings), engine=engine,
                                    conversation=conversation, settings=settings, scope=scope)
        return agent.answer(question, conversation=conversation, scope=scope)

    def stream_answer(self, question: str, *, engine: Any, conversation: Any, settings: Any,
                      scope: dict | None = None, model: str | None = None) -> Iterator[str | Answer]:
        try:
            agent = self._agent(engine, settings, model)
        except Exception as exc:  # noqa: BLE001
            answer = offline_fallback(question, exc, backend=self.name, secrets=self.secrets(settings), engine=engine,
                                      conversation=conversation, settings=settings, scope=scope)
            yield from words(answer.answer)
            yield answer
            return
        yield from agent.run(question, conversation=conversation, scope=scope, streaming=True)
