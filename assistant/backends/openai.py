"""Any OpenAI-compatible chat API (OpenAI, vLLM, LM Studio, llama.cpp's server) through
llama-index's `OpenAILike`.

The API key comes from settings or OPENAI_API_KEY and is handed to `AgentBackend` as a secret,
so it is redacted from every note and error text that could reach a log or an answer.
"""

from __future__ import annotations

from typing import Any

from assistant.backends.base import AgentBackend
from assistant.backends import register


class OpenAIBackend(AgentBackend):
    name = "openai"

    def secrets(self, settings: Any) -> list[str | None]:
        return [settings.get("openai_api_key")]

    def make_model(self, settings: Any, model: str | None) -> Any:
        from llama_index.llms.openai_like import OpenAILike

        from assistant.llm import LlamaIndexModel

        base_url = settings.get("openai_base_url")
        if not base_url:
            raise ValueError("no OpenAI-compatible base URL given (--openai-base-url or OPENAI_BASE_URL)")
        name = model or settings.model or "default"
        llm = OpenAILike(model=name, api_base=str(base_url), api_key=settings.get("openai_api_key") or "none",
                         is_chat_model=True, is_function_calling_model=settings.get("agent_mode") == "tools",
                         context_window=int(settings.context_window), max_tokens=int(settings.max_tokens),
                         timeout=float(settings.llm_timeout_s), max_retries=0, temperature=0.0)
        return LlamaIndexModel(llm, schema_style="openai", model_name=name)


register(OpenAIBackend())
