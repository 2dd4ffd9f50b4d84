"""The sidebar: which backend answers, what the conversation is scoped to, and what is indexed.

It returns the user's choices as data (`Choices`) so the chat code never reads widgets
directly, and embed mode can skip the sidebar entirely and use the configured defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from ui import state
from ui.status import StoreStatus, ollama_models

KNOWN_BACKENDS = ["offline", "ollama", "openai", "llamacpp"]
BACKEND_LABELS = {
    "offline": "Offline (no model)",
    "ollama": "Ollama",
    "openai": "OpenAI-compatible API",
    "llamacpp": "llama.cpp (GGUF file)",
}
DIVISIONS = ["closed", "open", "network"]
AVAILABILITY = ["available", "preview", "rdi"]
DEFAULT_ROUNDS = ["v4.1", "v5.1", "v6.0", "v6.1"]


@dataclass
class Choices:
    backend: str
    model: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)  # settings changed in the sidebar
    scope: dict[str, list[str]] = field(default_factory=dict)


def backend_options() -> list[str]:
    """Registered backends first, then the known ones (an unregistered pick gets a friendly error)."""
    try:
        from assistant.backends import names

        registered = list(names())
    except Exception:  # noqa: BLE001
        registered = []
    return list(dict.fromkeys(registered + KNOWN_BACKENDS))


@st.cache_data(ttl=30, show_spinner=False)
def _cached_ollama_models(host: str) -> list[str] | None:
    return ollama_models(host)


def defaults(settings: Any) -> Choices:
    """The configured backend and model, untouched (embed mode and the first run)."""
    return Choices(backend=settings.backend, model=settings.model)


def _backend_section(settings: Any) -> Choices:
    st.subheader("Answering with")
    options = backend_options()
    index = options.index(settings.backend) if settings.backend in options else 0
    backend = st.selectbox("Backend", options, index=index, key="backend",
                           format_func=lambda n: BACKEND_LABELS.get(n, n))
    choices = Choices(backend=backend, model=settings.model if backend == settings.backend else None)
    if backend == "ollama":
        host = st.text_input("Ollama URL", value=settings.ollama_host, key="ollama_host")
        choices.overrides["ollama_host"] = host
        models = _cached_ollama_models(host)
        if models is None:
            st.warning(f"Ollama isn't reachable at {host}. Start it with `ollama serve`, or pick Offline.")
            choices.model = st.text_input("Model", value=settings.model or "", key="ollama_model") or None
        elif not models:
            st.warning("Ollama has no models yet: run `ollama pull qwen2.5:0.5b`.")
        else:
            preferred = models.index(settings.model) if settings.model in models else 0
            choices.model = st.selectbox("Model", models, index=preferred, key="ollama_model")
    elif backend == "openai":
        url = st.text_input("Base URL", value=settings.openai_base_url or "", key="openai_base_url",
                            placeholder="http://127.0.0.1:8080/v1")
        choices.overrides["openai_base_url"] = url or None
        choices.model = st.text_input("Model", value=settings.model or "", key="openai_model") or None
        st.caption("The API key comes from `RESULTSQA_OPENAI_API_KEY` or `OPENAI_API_KEY`.")
    elif backend == "llamacpp":
        guess = settings.model or str(Path(settings.store).parent / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
        path = st.text_input("GGUF file", value=guess, key="gguf_path")
        choices.model = path or None
        if path and not Path(path).expanduser().is_file():
            st.warning(f"No file at `{path}`. `make model` downloads the small local model.")
    else:
        st.caption("Answers come straight from the results table: instant, exact, no model.")
    return choices


def _scope_section(status: StoreStatus) -> dict[str, list[str]]:
    st.subheader("Scope")
    rounds = status.rounds or DEFAULT_ROUNDS
    scope = {
        "round": st.multiselect("Round", rounds, key="scope_round", placeholder="All rounds"),
        "division": st.multiselect("Division", DIVISIONS, key="scope_division",
                                   placeholder="Closed (default)"),
        "availability": st.multiselect("Availability", AVAILABILITY, key="scope_availability",
                                       placeholder="All"),
    }
    if status.datasets:  # a card table beside the default one: let the user pin either
        from assistant.datasets import default_dataset

        own = default_dataset()
        titles = {"": "Chosen by the question"} | {"default": own.title if own else "Default table"} \
            | dict(status.datasets)
        pinned = st.selectbox("Data set", list(titles), format_func=titles.get, key="scope_dataset")
        scope["dataset"] = [pinned] if pinned else []
    return {k: v for k, v in scope.items() if v}


def _index_section(status: StoreStatus, settings: Any) -> None:
    st.subheader("What is indexed")
    if not status.ok:
        st.caption("Nothing indexed yet.")
    else:
        lines = []
        if status.rounds:
            lines.append(f"**Rounds:** {', '.join(status.rounds)}")
        if status.rows is not None:
            lines.append(f"**Result rows:** {status.rows:,}")
        if status.documents is not None:
            lines.append(f"**Documents:** {status.documents:,}")
        if status.chunks is not None:
            lines.append(f"**Chunks:** {status.chunks:,}")
        if status.last_ingest:
            lines.append(f"**Last ingest:** {status.last_ingest}")
        st.markdown("  \n".join(lines) or "Indexed.")
    ingest_button(settings, label="Re-run ingest", key="ingest_sidebar")


def ingest_button(settings: Any, *, label: str, key: str) -> None:
    """A button that (re)builds the index from the configured sources, showing progress."""
    if not st.button(label, key=key, help="Read data/sources.toml and rebuild the index (safe: "
                                          "the current index stays until the new one is complete)."):
        return
    with st.status("Indexing the MLPerf results and commentary…", expanded=True) as box:
        try:
            from ingest.dataset_ingest import ingest_default_cards
            from ingest.pipeline import run_ingest

            report = run_ingest(settings, progress=False)
            ingest_default_cards(settings)  # the default cards' tables too, as `resultsqa ingest` does
        except Exception as exc:  # noqa: BLE001 - shown as a message with the command to run
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            box.update(label="Ingest failed", state="error")
            st.error(f"Ingest failed: {first}. Run `resultsqa ingest` in a terminal for details.")
            return
        if report.status == "unchanged":
            box.update(label="Already up to date: no source changed", state="complete")
        else:
            box.update(label="Index rebuilt", state="complete")
        st.write(f"{report.rows:,} result rows, {report.documents} documents, {report.chunks} chunks "
                 f"in {report.seconds:.0f} s.")
    st.cache_data.clear()
    st.cache_resource.clear()


def render(settings: Any, status: StoreStatus) -> Choices:
    """Draw the sidebar and return what the user picked."""
    with st.sidebar:
        st.markdown("### :material/query_stats: MLPerf results Q&A")
        choices = _backend_section(settings)
        choices.scope = _scope_section(status)
        if st.button("New conversation", key="new_conversation", help="Forget earlier questions"):
            state.reset(st.session_state)
        _index_section(status, settings)
    return choices
