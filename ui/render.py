"""How one answer looks in the chat: the text, its sources, its chart, and how it was computed.

Trust comes from being able to check: every answer shows the result ids it cites (linked to
the public MLPerf result pages) and, one click away, the exact query that produced the
numbers, the rows, the commentary passages and what it cost. The details are collapsed so a
non-specialist first sees a short answer and a chart.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import streamlit as st

from ui.charts import build_chart, chart_height

# Row columns shown in the table, in this order (the rest stay in the CSV download).
ROW_COLUMNS = ["result_id", "submitter", "system_name", "result", "units", "number_of_nodes", "total_accelerators",
               "accelerator", "benchmark", "scenario", "round", "division", "availability", "result_url"]
_MAX_SOURCE_LINKS = 8


def answer_body(answer: Any, placeholder: Any = None) -> None:
    """The answer text itself, styled by status (errors and no-data in coloured boxes)."""
    target = placeholder if placeholder is not None else st
    if answer.status == "error":
        target.error(answer.answer, icon=":material/error:")
    elif answer.status == "no_data":
        target.warning(answer.answer, icon=":material/search_off:")
    elif answer.status == "clarify":
        target.info(answer.answer, icon=":material/help:")
    else:
        target.markdown(linked(answer))


def suggestion_buttons(answer: Any, key: str) -> None:
    """Follow-up questions as buttons: a click asks that question next (never a dead end)."""
    from ui import state

    if not answer.suggestions:
        return
    row = st.container(horizontal=True, gap="small")
    for i, text in enumerate(answer.suggestions[:3]):
        row.button(text, key=f"suggest-{key}-{i}", icon=":material/arrow_forward:", width="content",
                   on_click=state.queue, args=(st.session_state, text))


def linked(answer: Any) -> str:
    """The answer text with each cited `[result id]` turned into a link to its result page."""
    text = answer.answer
    for c in answer.citations:
        if c.kind == "row" and c.url and f"[{c.id}]" in text:
            text = text.replace(f"[{c.id}]", f"[[{c.id}]]({c.url})")
    return text


def sources_line(answer: Any) -> str | None:
    """A compact 'Sources:' line of linked result ids and document titles."""
    links: list[str] = []
    seen: set[str] = set()
    for c in answer.citations:
        key = f"{c.kind}:{c.id}"
        if key in seen:
            continue
        seen.add(key)
        label = c.id if c.kind == "row" else (c.title or c.id)
        label = label.replace("[", "(").replace("]", ")")
        links.append(f"[{label}]({c.url})" if c.url else label)
    if not links:
        return None
    more = len(links) - _MAX_SOURCE_LINKS
    text = " · ".join(links[:_MAX_SOURCE_LINKS]) + (f" · and {more} more" if more > 0 else "")
    return f":material/link: Sources: {text}"


def compact_json(query: dict[str, Any]) -> str:
    """The spec one key per line: short enough to read at a glance, still valid JSON."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in query.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def rows_frame(answer: Any):
    import pandas as pd

    return pd.DataFrame(answer.rows)


def permalink(question: str) -> str:
    """A link that asks this question again when opened (`?q=`), relative to the app's own URL."""
    base = ""
    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - no browser context (tests): a relative link works too
        base = ""
    return f"{base}?{urllib.parse.urlencode({'q': question})}"


def answer_extras(answer: Any, key: str) -> None:
    """Everything under the answer text: how it was read, suggestions, notes, sources, chart,
    actions and the details expander."""
    if answer.reading:
        st.caption(":material/manage_search: " + answer.reading)
    suggestion_buttons(answer, key)
    if answer.notes:
        st.caption(":material/info: " + " · ".join(answer.notes))
    sources = sources_line(answer)
    if sources:
        st.caption(sources)
    chart = build_chart(answer) if answer.status == "answered" else None
    if chart is not None:
        st.altair_chart(chart, width="stretch", height=chart_height(chart))

    if answer.rows or answer.question:
        row = st.container(horizontal=True, vertical_alignment="center", gap="medium")
        if answer.rows:
            row.download_button("Rows as CSV", rows_frame(answer).to_csv(index=False).encode("utf-8"),
                                 file_name="resultsqa-rows.csv", mime="text/csv", key=f"csv-{key}",
                                 icon=":material/download:", on_click="ignore")
        if answer.question:
            row.markdown(f":material/share: [Link to this question]({permalink(answer.question)})", width="content")

    if answer.status == "error" and not answer.rows and not answer.query:
        return
    with st.expander("How this was computed", expanded=False):
        details(answer)


def details(answer: Any) -> None:
    """The inside of "How this was computed": query, rows, passages, backend and cost."""
    query = dict(answer.query or {})
    pandas_code = query.pop("pandas", None)
    parsed = query.pop("parsed", None)
    if query:
        st.markdown("**The query that was run** (filled in by the assistant, checked and run by our code)")
        st.code(compact_json(query), language="json", wrap_lines=True)
    if parsed:
        st.caption("How the question was read")
        st.json(parsed, expanded=False)
    if pandas_code:
        st.markdown("**The same query as pandas code**")
        st.code(pandas_code, language="python", wrap_lines=True)
    if answer.rows:
        st.markdown(f"**Rows used** ({len(answer.rows)}) — each links to its official MLPerf result page")
        df = rows_frame(answer)
        shown = [c for c in ROW_COLUMNS if c in df.columns] or list(df.columns)
        st.dataframe(
            df[shown], hide_index=True, width="stretch",
            column_config={
                "result_url": st.column_config.LinkColumn("Result page", display_text="open"),
                "result_id": st.column_config.TextColumn("Result id"),
                "result": st.column_config.NumberColumn("Result", format="localized"),
                "system_name": st.column_config.TextColumn("System", width="large"),
                "submitter": st.column_config.TextColumn("Submitter"),
                "units": st.column_config.TextColumn("Unit"),
                "number_of_nodes": st.column_config.NumberColumn("Nodes"),
                "total_accelerators": st.column_config.NumberColumn("Accelerators"),
            },
        )
    if answer.values:
        derived = [v for v in answer.values if v.derived]
        if derived:
            st.caption("Derived figures (not official MLPerf metrics): "
                       + "; ".join(f"{v.label or 'value'} = {v.value:,.6g} {v.unit or ''}".strip() for v in derived))
    if answer.passages:
        st.markdown("**Commentary passages**")
        for p in answer.passages:
            text = p.text if len(p.text) <= 700 else p.text[:700].rsplit(" ", 1)[0] + " …"
            st.markdown("> " + text.replace("\n", "\n> "))
            where = ", ".join(x for x in (p.source, p.published, f"page {p.page}" if p.page else "") if x)
            title = p.title or p.id
            st.caption(f"— [{title}]({p.url})" + (f" ({where})" if where else "") if p.url
                       else f"— {title}" + (f" ({where})" if where else ""))
    cost = [f"backend **{answer.backend}**"]
    if answer.model:
        cost.append(f"model `{answer.model}`")
    cost.append(f"{answer.llm_calls} model call{'s' if answer.llm_calls != 1 else ''}")
    if answer.tool_calls:
        cost.append(f"{answer.tool_calls} tool calls")
    cost.append(f"{answer.prompt_tokens:,} prompt + {answer.completion_tokens:,} completion tokens")
    cost.append(f"{answer.latency_ms:,.0f} ms")
    st.caption(" · ".join(cost))


def past_turn(turn: Any, index: int) -> None:
    """Re-draw one earlier turn (Streamlit redraws the whole page on every interaction)."""
    with st.chat_message("user"):
        st.markdown(turn.question)
    with st.chat_message("assistant"):
        answer_body(turn.answer)
        answer_extras(turn.answer, key=str(index))
