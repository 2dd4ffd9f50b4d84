"""The Streamlit chat: ask MLPerf Inference results questions in plain language, get cited answers.

Start it with `resultsqa ui` (which passes the store and settings through `RESULTSQA_*`
environment variables). URL parameters: `?q=QUESTION` asks on load (a permalink);
`?embed=true` shows the chat only, for iframes in wikis.

The script is a thin arrangement of the ui/ modules: `sidebar` (choices), `state` (session
and the call into `assistant.service`), `render` (one answer), `charts` (Altair from
`Answer.chart`). Numbers come only from the assistant's Answer; this file computes nothing.
"""

from __future__ import annotations

import streamlit as st

from ingest import settings as settings_mod
from ui import render, sidebar, state
from ui.examples import EXAMPLES
from ui.status import store_status

TITLE = "MLPerf results Q&A"
INTRO = ("Ask about published **MLPerf Inference** results in plain language (English or Swedish). "
         "Every number is exact and links to its official result.")
EMBED_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stSidebarCollapseButton"] {display: none !important;}
.block-container {padding-top: 1rem !important;}
</style>
"""
PAGE_CSS = """
<style>
.block-container {max-width: 60rem;}
[data-testid="stChatMessage"] p {font-size: 1.05rem;}
</style>
"""


def _embedded() -> bool:
    """`?embed=true`: Streamlit keeps `embed` out of st.query_params and reports it here instead."""
    try:
        return bool(st.context.is_embedded)
    except Exception:  # noqa: BLE001 - no browser context: not embedded
        return False


def _first_screen() -> None:
    """One line of explanation and clickable example questions."""
    st.markdown(INTRO)
    st.markdown("**Try one of these:**")
    cols = st.columns(2)
    for i, question in enumerate(EXAMPLES):
        cols[i % 2].button(question, key=f"example-{i}", width="stretch",
                           on_click=state.queue, args=(st.session_state, question))


def _empty_store(status, settings) -> None:
    st.info(status.message, icon=":material/inventory_2:")
    sidebar.ingest_button(settings, label="Index the default data now", key="ingest_main")


def _ask(question: str, choices: sidebar.Choices, settings) -> None:
    """Show the question, stream the answer, then its sources, chart and details; remember the turn."""
    session = st.session_state
    with st.chat_message("user"):
        st.markdown(question)
    with st.chat_message("assistant"):
        placeholder = st.empty()
        out: list = []
        pieces = state.stream_answer(question, conversation=state.conversation(session), settings=settings,
                                     backend=choices.backend, model=choices.model, scope=choices.scope, out=out)
        with placeholder.container():
            st.write_stream(pieces)
        answer = out[-1]
        with placeholder.container():
            render.answer_body(answer)
        turn = state.Turn(question=question, answer=answer)
        session[state.MESSAGES].append(turn)
        render.answer_extras(answer, key=str(len(session[state.MESSAGES]) - 1))


def main() -> None:
    settings_mod.setup_offline_env()
    params = st.query_params
    embed = _embedded()
    st.set_page_config(page_title=TITLE, page_icon=":material/query_stats:", layout="centered",
                       initial_sidebar_state="collapsed" if embed else "expanded")
    st.markdown(EMBED_CSS if embed else PAGE_CSS, unsafe_allow_html=True)
    session = st.session_state
    state.init(session)

    try:
        base = settings_mod.load()
    except (ValueError, KeyError) as exc:  # a typo in resultsqa.toml or a RESULTSQA_* variable
        st.error(f"The settings could not be read: {exc}. Fix the file or variable; "
                 f"`resultsqa settings` lists every valid setting.", icon=":material/error:")
        st.stop()
    status = store_status(base)
    choices = sidebar.defaults(base) if embed else sidebar.render(base, status)
    settings = settings_mod.load(backend=choices.backend, model=choices.model, **choices.overrides)

    if not embed:
        st.title(f":material/query_stats: {TITLE}")
    if not status.ok:
        _empty_store(status, settings)

    question = st.chat_input("Ask about MLPerf Inference results…")
    if not question and params.get("q") and not session.get(state.PERMALINK_DONE):
        question = params.get("q")
    session[state.PERMALINK_DONE] = True
    question = question or state.take_pending(session)

    turns = session[state.MESSAGES]
    if not turns and not question and status.ok:
        _first_screen()
    for i, turn in enumerate(turns):
        render.past_turn(turn, i)
    if question:
        _ask(question, choices, settings)


main()
