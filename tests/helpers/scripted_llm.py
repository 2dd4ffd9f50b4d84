"""A scripted llama-index LLM that replays replies, like simonw/llm's echo model.

Each script item is one model reply, consumed in order:
- a str: the reply text (streamed word by word by `stream_chat`);
- a dict: a JSON reply (serialised);
- `tool_calls([...])`: a reply that calls tools (name + arguments), for the tools path;
- an Exception instance: raised, e.g. `httpx.ConnectError` to play an unreachable server;
- a callable(messages, kwargs) -> any of the above: a reply that depends on the prompt.

It records every request (`.requests`: messages + kwargs), so tests can assert what the
model was shown — e.g. that a document is fenced as data and a schema was sent.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from llama_index.core.base.llms.types import (ChatMessage, ChatResponse, ChatResponseGen, CompletionResponse,
                                              CompletionResponseGen, LLMMetadata, TextBlock, ToolCallBlock)
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from pydantic import PrivateAttr


class ToolCalls(list):
    """Marks a script item as a tool-calling reply."""


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> ToolCalls:
    return ToolCalls(calls)


class ScriptedLLM(FunctionCallingLLM):
    model: str = "scripted"
    _script: list[Any] = PrivateAttr(default_factory=list)
    _requests: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    def __init__(self, script: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script = list(script)
        self._requests = []

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._requests

    @property
    def remaining(self) -> int:
        return len(self._script)

    @classmethod
    def class_name(cls) -> str:
        return "ScriptedLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=512, is_chat_model=True,
                           is_function_calling_model=True, model_name=self.model)

    def _next(self, messages: Sequence[ChatMessage], kwargs: dict[str, Any]) -> ChatResponse:
        self._requests.append({"messages": [{"role": str(m.role.value), "content": m.content or ""}
                                            for m in messages], "kwargs": dict(kwargs)})
        item: Any = self._script.pop(0) if self._script else ""
        if callable(item) and not isinstance(item, (ToolCalls, Exception)):
            item = item(self._requests[-1]["messages"], kwargs)
        if isinstance(item, Exception):
            raise item
        blocks: list[Any]
        if isinstance(item, ToolCalls):
            blocks = [TextBlock(text="")] + [ToolCallBlock(tool_name=name, tool_kwargs=args) for name, args in item]
        elif isinstance(item, dict):
            blocks = [TextBlock(text=json.dumps(item))]
        else:
            blocks = [TextBlock(text=str(item))]
        return ChatResponse(message=ChatMessage(role="assistant", blocks=blocks))

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._next(messages, kwargs)

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        response = self._next(messages, kwargs)
        text = response.message.content or ""

        def gen() -> ChatResponseGen:
            so_far = ""
            for i, word in enumerate(text.split(" ")):
                delta = word if i == 0 else " " + word
                so_far += delta
                yield ChatResponse(message=ChatMessage(role="assistant", content=so_far), delta=delta)

        return gen()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.chat([ChatMessage(role="user", content=prompt)], **kwargs).message.content)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        raise NotImplementedError

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages, **kwargs)

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return self.complete(prompt, **kwargs)

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _prepare_chat_with_tools(self, tools: Sequence[Any], user_msg: Any = None,
                                 chat_history: list[ChatMessage] | None = None, verbose: bool = False,
                                 allow_parallel_tool_calls: bool = False, tool_required: bool = False,
                                 **kwargs: Any) -> dict[str, Any]:
        messages = list(chat_history or [])
        if user_msg:
            messages.append(user_msg if isinstance(user_msg, ChatMessage) else ChatMessage(role="user", content=user_msg))
        return {"messages": messages, "tools": [t.metadata.to_openai_tool(skip_length_check=True) for t in tools]}

    def get_tool_calls_from_response(self, response: ChatResponse, error_on_no_tool_call: bool = True,
                                     **kwargs: Any) -> list[ToolSelection]:
        calls = [b for b in response.message.blocks if isinstance(b, ToolCallBlock)]
        if not calls and error_on_no_tool_call:
            raise ValueError("no tool call")
        return [ToolSelection(tool_id=f"call{i}", tool_name=b.tool_name, tool_kwargs=b.tool_kwargs)
                for i, b in enumerate(calls)]


def scripted_model(script: Sequence[Any]) -> Any:
    """A ChatModel (assistant.llm) around a ScriptedLLM, plus the LLM for inspecting requests."""
    from assistant.llm import LlamaIndexModel

    llm = ScriptedLLM(script)
    return LlamaIndexModel(llm, schema_style="kwarg", model_name="scripted"), llm
