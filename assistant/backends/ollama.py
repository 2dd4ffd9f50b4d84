"""An Ollama server through llama-index's `Ollama` LLM.

The context window is passed explicitly: otherwise llama-index asks the server (`/api/show`)
on first use, one more round trip that fails confusingly when the model is missing.
"""

from __future__ import annotations

from typing import Any

from assistant.backends.base import AgentBackend
from assistant.backends import register


class OllamaBackend(AgentBackend):
    name = "ollama"

    def make_model(self, settings: Any, model: str | None) -> Any:
        from llama_index.llms.ollama import Ollama

        from assistant.llm import LlamaIndexModel

        name = model or settings.model
        if not name:
            raise ValueError("no Ollama model given (pass --model NAME, e.g. qwen2.5-coder:0.5b)")
        llm = Ollama(model=name, base_url=str(settings.ollama_host).rstrip("/"), temperature=0.0,
                     context_window=int(settings.context_window), request_timeout=float(settings.llm_timeout_s),
                     additional_kwargs={"num_predict": int(settings.max_tokens)},
                     is_function_calling_model=settings.get("agent_mode") == "tools")
        return LlamaIndexModel(llm, schema_style="ollama", model_name=name)


register(OllamaBackend())
