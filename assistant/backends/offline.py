"""The deterministic answerer as a backend: no model, instant, offline."""

from __future__ import annotations

from typing import Any

from assistant.backends import register


class OfflineBackend:
    name = "offline"

    def answer(self, question: str, *, engine: Any, conversation: Any, settings: Any,
               scope: dict | None = None, model: str | None = None) -> Any:
        from assistant.offline import answer_question

        return answer_question(question, engine=engine, conversation=conversation, settings=settings, scope=scope)


register(OfflineBackend())
