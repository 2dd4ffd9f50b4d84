"""The one registry of answer backends, in the style of simonw/llm's model registry.

A backend is an object with `name` and
`answer(question, *, engine, conversation, settings, scope=None, model=None) -> Answer`
(and optionally `stream_answer(...)`). Backends register themselves with `@register`;
`get_backend(name)` imports the built-in ones lazily so `offline` never pays for llama-index.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol


class Backend(Protocol):
    name: str

    def answer(self, question: str, *, engine: Any, conversation: Any, settings: Any,
               scope: dict | None = None, model: str | None = None) -> Any: ...


_REGISTRY: dict[str, Backend] = {}
# name -> module that registers it on import
BUILTIN: dict[str, str] = {
    "offline": "assistant.backends.offline",
    "ollama": "assistant.backends.ollama",
    "openai": "assistant.backends.openai",
    "llamacpp": "assistant.backends.llamacpp",
}


def register(backend: Backend) -> Backend:
    _REGISTRY[backend.name] = backend
    return backend


def names() -> list[str]:
    return list(BUILTIN)


def get_backend(name: str) -> Backend:
    if name not in _REGISTRY and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; choose one of: {', '.join(names())}") from None
