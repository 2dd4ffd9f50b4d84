"""A local GGUF model loaded in-process with llama-cpp-python.

Loading a model takes seconds and hundreds of MB, so one `Llama` is kept per (path, context
window, threads) for the life of the process. Two threads by default because the project's
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

_MODELS: dict[tuple[str, int, int], Any] = {}
_LOCK = threading.Lock()


def load_llama(path: str, n_ctx: int, n_threads: int = 2) -> Any:
    """The cached `llama_cpp.Llama` for a GGUF file (FileNotFoundError when it is missing)."""
    resolved = str(Path(path).expanduser().resolve())
    if not Path(resolved).is_file():
        raise FileNotFoundError(f"no GGUF model file at {path} (pass --model PATH; `make model` builds the default)")
    key = (resolved, int(n_ctx), int(n_threads))
    with _LOCK:
        if key not in _MODELS:
            from llama_cpp import Llama

            _MODELS[key] = Llama(model_path=resolved, n_ctx=int(n_ctx), n_threads=int(n_threads),
                                 n_threads_batch=int(n_threads),
                                 chat_format="chatml", verbose=False, seed=0)
        return _MODELS[key]


@atexit.register
def _close_models() -> None:
    """Free the models before interpreter shutdown: llama-cpp's own finaliser runs after its
    C bindings are torn down and prints a TypeError traceback at every exit otherwise."""
    with _LOCK:
        while _MODELS:
            _, llama = _MODELS.popitem()
            try:
                llama.close()
            except Exception:  # pragma: no cover - best effort at exit
                pass


class LlamaCppBackend(AgentBackend):
    name = "llamacpp"

    def make_model(self, settings: Any, model: str | None) -> Any:
        from assistant.llm import LlamaCppModel

        path = model or settings.model
        if not path:
            raise FileNotFoundError("no GGUF model given (pass --model PATH)")
        llama = load_llama(path, int(settings.context_window), int(settings.get("llm_threads") or 2))
        return LlamaCppModel(llama, model_name=Path(path).name, max_tokens=int(settings.max_tokens),
                             timeout_s=float(settings.llm_timeout_s))


register(LlamaCppBackend())
