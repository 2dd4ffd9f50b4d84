"""The chat's memory across Streamlit reruns, and the one place the UI asks the assistant.

Streamlit re-executes the whole script on every interaction, so the turns shown, the
`Conversation` that gives follow-ups their context and a question waiting to be asked (from
an example button or a `?q=` permalink) live in `st.session_state`.

Asking goes through `assistant.service.ask_stream` only. Whatever goes wrong underneath
(an unreachable model server, a backend not installed, a missing GGUF file) becomes an
`Answer` with status `error` and a message that says how to fix it — never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

MESSAGES = "messages"
CONVERSATION = "conversation"
PENDING = "pending_question"
PERMALINK_DONE = "permalink_done"


@dataclass
class Turn:
    question: str
    answer: Any  # assistant.answer.Answer


def init(session: Any) -> None:
    """Create the keys this app keeps, once per browser session."""
    if MESSAGES not in session:
        session[MESSAGES] = []


def conversation(session: Any) -> Any:
    """The session's Conversation, made on the first question (so an empty page needs no engine)."""
    if session.get(CONVERSATION) is None:
        session[CONVERSATION] = new_conversation()
    return session[CONVERSATION]


def new_conversation() -> Any:
    from assistant.conversation import Conversation

    return Conversation()


def reset(session: Any) -> None:
    """Forget every turn: the next question starts a fresh conversation."""
    session[MESSAGES] = []
    session[CONVERSATION] = None


def queue(session: Any, question: str) -> None:
    """Ask `question` on the next run (used by example buttons, as a widget callback)."""
    session[PENDING] = question


def take_pending(session: Any) -> str | None:
    return session.pop(PENDING, None)


def friendly_error(exc: BaseException, backend: str, settings: Any) -> str:
    """Say what went wrong in words a non-specialist can act on."""
    from assistant.llm import is_unreachable, redact

    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    text = redact(text, [settings.get("openai_api_key")])[:300]
    name = type(exc).__name__
    if is_unreachable(exc):
        where = {"ollama": settings.get("ollama_host"), "openai": settings.get("openai_base_url")}.get(backend)
        fix = {"ollama": "Start Ollama (`ollama serve`) and pull a model (`ollama pull qwen2.5:0.5b`)",
               "openai": "Check the base URL and that the server is running"}.get(backend, "Check the model server")
        return (f"Couldn't reach the model server for the **{backend}** backend"
                f"{f' at `{where}`' if where else ''}. {fix}, or pick **offline** in the sidebar — "
                f"it answers without a model. ({text})")
    if isinstance(exc, FileNotFoundError):
        return (f"A file the **{backend}** backend needs is missing: {text}. For the local model run "
                f"`make model`, or pick **offline** in the sidebar.")
    if isinstance(exc, ValueError) and "unknown backend" in text:
        return (f"The **{backend}** backend isn't available in this installation ({text}). "
                f"Pick **offline** in the sidebar.")
    if isinstance(exc, ImportError):
        return (f"The **{backend}** backend needs a package that isn't installed ({text}). "
                f"Pick **offline** in the sidebar, or install the extra (e.g. `pip install -e '.[llamacpp]'`).")
    return (f"Sorry — something went wrong while answering ({name}: {text}). "
            f"The **offline** backend in the sidebar answers without a model.")


def stream_answer(question: str, *, conversation: Any, settings: Any, backend: str, model: str | None,
                  scope: dict[str, list[str]] | None, out: list) -> Iterator[str]:
    """Yield the answer's text pieces for `st.write_stream`; append the final `Answer` to `out`.

    `st.write_stream` only accepts text, so the final Answer (rows, citations, chart) is handed
    back through `out` rather than yielded.
    """
    from assistant import service
    from assistant.answer import Answer

    try:
        for piece in service.ask_stream(question, conversation=conversation, settings=settings,
                                        backend=backend, model=model, scope=scope or None):
            if isinstance(piece, Answer):
                out.append(piece)
            elif piece:
                yield str(piece)
    except Exception as exc:  # noqa: BLE001 - the user sees a fix, never a traceback
        out.append(Answer(question=question, answer=friendly_error(exc, backend, settings), status="error",
                          backend=backend, model=model))
    if not out:
        out.append(Answer(question=question, answer="No answer came back. Please try again, or pick the "
                          "**offline** backend in the sidebar.", status="error", backend=backend, model=model))
