"""A thin adapter so the agent talks to every model the same way.

The agent needs three things from a model: a reply constrained to a JSON schema (how small
models route and fill specs reliably), a free-text reply it can stream (the final answer),
and — for models with native tool calling — llama-index's `chat_with_tools` path. Each
backend wraps its client in one of the classes here; tests wrap a scripted llama-index LLM.

Token accounting has one path, `Usage.record`: tiktoken (cl100k_base, bundled with
llama-index-core, counted by `assistant.conversation.count_tokens`) on the text we send and
receive, so every backend and every call (JSON, streamed, tool-calling) is measured with the
same ruler. The model wrappers do not count.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol, Sequence

from assistant.conversation import count_tokens


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class Reply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def completion_text(self) -> str:
        """What the model wrote, tool calls included: the text its completion tokens are counted on."""
        if not self.tool_calls:
            return self.text
        return self.text + json.dumps([{"name": c.name, "arguments": c.arguments} for c in self.tool_calls],
                                      default=str)


class ModelUnreachable(RuntimeError):
    """The model could not be reached (connection refused, timeout, missing file): answer offline."""


class ChatModel(Protocol):
    model_name: str

    def chat(self, messages: list[dict[str, str]], *, schema: dict | None = None,
             tools: Sequence[Any] | None = None) -> Reply: ...

    def stream(self, messages: list[dict[str, str]]) -> Iterator[str]: ...


# --- token accounting ----------------------------------------------------------------------

def count_messages(messages: Sequence[dict[str, str]]) -> int:
    """Prompt tokens of a chat: content plus the ~4 tokens of role framing per message."""
    return sum(count_tokens(m.get("content") or "") + 4 for m in messages) + 2


@dataclass
class Usage:
    """Model calls and tokens of one question; every call is recorded here and nowhere else."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def record(self, messages: Sequence[dict[str, str]], completion: str, tools: Sequence[Any] = ()) -> None:
        """One call: its messages, what the model wrote, and the tool definitions sent with it
        (native tool calling sends them with every call: ~2,700 tokens for our four tools)."""
        self.calls += 1
        self.prompt_tokens += count_messages(messages)
        if tools:
            self.prompt_tokens += count_tokens(json.dumps([t.metadata.to_openai_tool() for t in tools], default=str))
        self.completion_tokens += count_tokens(completion)


# --- errors ----------------------------------------------------------------------------------

_UNREACHABLE_NAMES = {"ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException", "APIConnectionError",
                      "APITimeoutError", "ConnectionError", "ConnectionRefusedError", "TimeoutError",
                      "RemoteProtocolError", "AuthenticationError", "NotFoundError", "ResponseError"}


def is_unreachable(exc: BaseException) -> bool:
    """True for errors that mean 'no usable model here', as opposed to a bad reply."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (ModelUnreachable, ConnectionError, TimeoutError)):
            return True
        if type(exc).__name__ in _UNREACHABLE_NAMES:
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def redact(text: str, secrets: Sequence[str | None]) -> str:
    """Remove secrets (API keys) from a message before it reaches a log, a note or an answer."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


# --- llama-index LLMs (Ollama, OpenAILike, scripted test models) ------------------------------

_SCHEMA_STYLE: dict[str, str] = {}  # OpenAI-compatible base URL -> how it takes a JSON schema

class LlamaIndexModel:
    """Wraps a llama-index LLM. `schema_style` says how the server takes a JSON schema:
    "ollama" (`format=`), "openai" (`response_format=`) or "kwarg" (`schema=`, test models)."""

    def __init__(self, llm: Any, *, schema_style: str = "kwarg", model_name: str | None = None) -> None:
        self.llm = llm
        self.model_name = model_name or getattr(llm, "model", None) or type(llm).__name__
        self.schema_style = _SCHEMA_STYLE.get(self._server_key(), schema_style) if schema_style == "openai" \
            else schema_style

    def _server_key(self) -> str:
        return str(getattr(self.llm, "api_base", None) or getattr(self.llm, "base_url", None) or "")

    @staticmethod
    def _messages(messages: Sequence[dict[str, str]]) -> list[Any]:
        from llama_index.core.llms import ChatMessage

        return [ChatMessage(role=m["role"], content=m.get("content") or "") for m in messages]

    def _schema_kwargs(self, schema: dict | None) -> dict[str, Any]:
        if schema is None:
            return {}
        if self.schema_style == "ollama":
            return {"format": schema}
        if self.schema_style == "openai":
            # OpenAI's strict mode takes only schemas whose every key is required (the narrow route).
            strict = set(schema.get("required", [])) == set(schema.get("properties", {})) and "$defs" not in schema
            return {"response_format": {"type": "json_schema",
                                        "json_schema": {"name": "reply", "schema": schema, "strict": strict}}}
        if self.schema_style == "openai_object":  # llama.cpp's server: json_object + schema
            return {"response_format": {"type": "json_object", "schema": schema}}
        return {"schema": schema}

    def chat(self, messages: list[dict[str, str]], *, schema: dict | None = None,
             tools: Sequence[Any] | None = None) -> Reply:
        chat_messages = self._messages(messages)
        if tools:
            response = self.llm.chat_with_tools(list(tools), chat_history=chat_messages)
            selections = self.llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
            calls = [ToolCall(name=s.tool_name, arguments=dict(s.tool_kwargs or {}), id=s.tool_id)
                     for s in selections]
            return Reply(text=response.message.content or "", tool_calls=calls)
        try:
            response = self.llm.chat(chat_messages, **self._schema_kwargs(schema))
        except Exception as exc:
            # OpenAI-compatible servers disagree on how a schema is passed: OpenAI and vLLM take
            # `json_schema`, llama.cpp's server only `json_object` + `schema` (and rejects the other
            # with 400/422, or a 500 naming response_format). Switch once per server and remember it.
            rejected = getattr(exc, "status_code", None) in (400, 422) or (
                getattr(exc, "status_code", None) == 500 and "response_format" in str(exc))  # llama.cpp's server
            if schema is None or self.schema_style != "openai" or not rejected:
                raise
            self.schema_style = "openai_object"
            _SCHEMA_STYLE[self._server_key()] = self.schema_style
            response = self.llm.chat(chat_messages, **self._schema_kwargs(schema))
        return Reply(text=response.message.content or "")

    def stream(self, messages: list[dict[str, str]]) -> Iterator[str]:
        for chunk in self.llm.stream_chat(self._messages(messages)):
            if chunk.delta:
                yield chunk.delta


# --- llama-cpp-python in process ------------------------------------------------------------

Context = tuple[Any, threading.Lock]  # a loaded `llama_cpp.Llama` and the lock that serialises its use


class PrefixSlots:
    """Which of a model's llama.cpp contexts keeps which fixed prompt prefix.

    On a CPU the prompt, not the answer, is most of a call's time (~195 prompt tokens/s for
    the 0.5B model on two quiet cores), and most of each prompt is the same every time: the
    routing instructions, fields and worked examples, or the wording instructions and good
    answers. llama-cpp-python (0.3.x) already skips the longest token prefix a prompt shares
    with what its context last evaluated (`Llama.generate`), but the routing and the wording
    prompts alternate, so one context never holds the prefix the next call needs. Keeping one
    context per system prompt makes every call after the first prefill only its own tokens.
    (`Llama.set_cache(LlamaRAMCache())` saves and restores whole states instead; a state holds
    the logits buffer too, ~175 MB and ~1 s per save for the 0.5B model's 151k-token vocabulary,
    so it costs more than it saves here.) The least recently used prefix gives up its context."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._owner: dict[str, int] = {}  # prefix -> context index, least recently used first
        self._lock = threading.Lock()

    def pick(self, prefix: str) -> int:
        with self._lock:
            if prefix in self._owner:
                self._owner[prefix] = self._owner.pop(prefix)
            elif len(self._owner) < self.size:
                self._owner[prefix] = len(self._owner)
            else:
                self._owner[prefix] = self._owner.pop(next(iter(self._owner)))
            return self._owner[prefix]


class LlamaCppModel:
    """Wraps loaded `llama_cpp.Llama` contexts. A JSON reply is written free first and kept when it
    validates against the schema; only otherwise is it written again under the schema's grammar.

    `contexts(i)` gives the i-th context of the model (loaded on first use); with `slots`, each
    fixed system prompt keeps its own context (`PrefixSlots`); without, one context is reset
    before every call, so nothing is reused (to measure what the prefix cache is worth)."""

    def __init__(self, contexts: Callable[[int], Context], *, model_name: str, max_tokens: int, timeout_s: float,
                 slots: PrefixSlots | None = None) -> None:
        self.contexts = contexts
        self.slots = slots
        self.model_name = model_name
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s

    def _generate(self, messages: list[dict[str, str]], deadline: float | None = None,
                  **kwargs: Any) -> Iterator[str]:
        """Stream pieces, stopping at the time limit (`deadline`, else `timeout_s` from now):
        `create_chat_completion` takes no stopping criteria, and the in-process model has no
        HTTP timeout to lean on."""
        system = messages[0] if messages and messages[0].get("role") == "system" else {}
        prefix = system.get("content") or ""
        llama, lock = self.contexts(self.slots.pick(prefix) if self.slots else 0)
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout_s
        with lock:  # one llama context cannot serve two requests at once
            if self.slots is None:
                llama.reset()
            for chunk in llama.create_chat_completion(messages=messages, max_tokens=self.max_tokens,
                                                      temperature=0.0, stream=True, **kwargs):
                delta = chunk["choices"][0].get("delta", {}).get("content")
                if delta:
                    yield delta
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the model did not finish within {self.timeout_s:g} s")

    def chat(self, messages: list[dict[str, str]], *, schema: dict | None = None,
             tools: Sequence[Any] | None = None) -> Reply:
        if schema is None:
            return Reply(text="".join(self._generate(messages)))
        # Sampling under the schema's grammar checks every token of the vocabulary (151k for
        # Qwen2.5) against it at every step: 2-4x slower here (docs/agent.md). The prompt shows
        # the JSON to write, so the reply is first written free and kept when it validates; only
        # otherwise is it written again under the grammar (with the prefix cache on, the prompt
        # is still in the context). Both share one time limit: this is one call.
        deadline = time.monotonic() + self.timeout_s
        free = _free_json(self._generate(messages, deadline))
        if free is not None and _valid_json(free, schema):
            return Reply(text=free)
        return Reply(text="".join(self._generate(messages, deadline,
                                                 response_format={"type": "json_object", "schema": schema})))

    def stream(self, messages: list[dict[str, str]]) -> Iterator[str]:
        yield from self._generate(messages)


def _free_json(pieces: Iterator[str]) -> str | None:
    """The JSON object a free reply writes, read until it closes; None as soon as the reply is
    not a JSON object (so a rambling reply costs a few tokens, not `max_tokens`)."""
    text = ""
    try:
        for piece in pieces:
            text += piece
            head = text.lstrip()
            if head and not head.startswith("{"):
                return None
            if "}" in piece:
                try:
                    _, end = json.JSONDecoder().raw_decode(head)
                except ValueError:
                    continue
                return head[:end]  # what follows the object ("}." or a code fence) is not part of it
        return None
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()  # stop generating: the object is complete (or it never will be one)


def _valid_json(text: str, schema: dict) -> bool:
    """Whether `text` is one JSON value that `schema` accepts."""
    import jsonschema

    try:
        jsonschema.validate(json.loads(text), schema)
    except (ValueError, jsonschema.ValidationError, jsonschema.SchemaError):
        return False
    return True
