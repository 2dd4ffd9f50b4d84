"""A local GGUF model loaded in-process with llama-cpp-python.

Loading a model takes seconds and hundreds of MB, so its contexts are kept per (path, context
window, threads, slot) for the life of the process, each with the lock that keeps it to one
request at a time. With `llm_prefix_cache` (the default) each fixed system prompt keeps its
own context (up to PREFIX_SLOTS: the routing prompt and the wording prompt in each language),
so a question prefills only its own tokens (`assistant.llm.PrefixSlots`); the weights are
memory-mapped, so the contexts share them. Two threads by default because the project's
machines have two cores (setting `llm_threads`: on a busy machine one thread is several times
faster, since llama.cpp's threads wait for each other); ChatML because Qwen2.5 speaks it.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any

from assistant.backends.base import AgentBackend
from assistant.backends import register

PREFIX_SLOTS = 3  # routing, wording in English, wording in Swedish
_MODELS: dict[tuple[str, int, int, int], tuple[Any, threading.Lock]] = {}
_SLOTS: dict[tuple[str, int, int], Any] = {}  # (path, n_ctx, threads) -> assistant.llm.PrefixSlots
_LOCK = threading.Lock()


def _resolved(path: str) -> str:
    resolved = str(Path(path).expanduser().resolve())
    if not Path(resolved).is_file():
        raise FileNotFoundError(f"no GGUF model file at {path} (pass --model PATH; `make model` builds the default)")
    return resolved


def llama_context(path: str, n_ctx: int, n_threads: int = 2, slot: int = 0) -> tuple[Any, threading.Lock]:
    """The cached `llama_cpp.Llama` context `slot` of a GGUF file and its lock (FileNotFoundError
    when the file is missing)."""
    key = (_resolved(path), int(n_ctx), int(n_threads), int(slot))
    with _LOCK:
        if key not in _MODELS:
            from llama_cpp import Llama

            _MODELS[key] = (Llama(model_path=key[0], n_ctx=int(n_ctx), n_threads=int(n_threads),
                                  n_threads_batch=int(n_threads), chat_format="chatml", verbose=False, seed=0),
                            threading.Lock())
        return _MODELS[key]


def load_llama(path: str, n_ctx: int, n_threads: int = 2) -> Any:
    """The cached first `llama_cpp.Llama` context of a GGUF file (FileNotFoundError when it is missing)."""
    return llama_context(path, n_ctx, n_threads)[0]


@atexit.register
def _close_models() -> None:
    """Free the models before interpreter shutdown: llama-cpp's own finaliser runs after its
    C bindings are torn down and prints a TypeError traceback at every exit otherwise."""
    with _LOCK:
        while _MODELS:
            _, (llama, _lock) = _MODELS.popitem()
            try:
                llama.close()
            except Exception:  # pragma: no cover - best effort at exit
                pass


class LlamaCppBackend(AgentBackend):
    name = "llamacpp"

    def make_model(self, settings: Any, model: str | None) -> Any:
        from assistant.llm import LlamaCppModel, PrefixSlots

        path = model or settings.model
        if not path:
            raise FileNotFoundError("no GGUF model given (pass --model PATH)")
        n_ctx, threads = int(settings.context_window), int(settings.get("llm_threads") or 2)
        llama_context(path, n_ctx, threads)  # load now: a missing file is an offline answer, not a failed call
        slots = None
        if settings.get("llm_prefix_cache", True):
            with _LOCK:
                slots = _SLOTS.setdefault((_resolved(path), n_ctx, threads), PrefixSlots(PREFIX_SLOTS))
        return LlamaCppModel(lambda slot: llama_context(path, n_ctx, threads, slot), model_name=Path(path).name,
                             max_tokens=int(settings.max_tokens), timeout_s=float(settings.llm_timeout_s), slots=slots)


register(LlamaCppBackend())
