"""The Streamlit chat, driven headless with `streamlit.testing.v1.AppTest`.

Most tests hand the app Answers built by hand (the UI's contract is the Answer model), through
a fake `assistant.service.ask_stream` that records what the UI passed it. The end-to-end tests
at the bottom ask the real assistant over the store built from the default data, with gold
values read from ../shared/data/mlperf/README.md ("Five facts recomputed from the verified table").
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from assistant.answer import Answer, Citation, Passage
from eval.procs import free_port

APP = str(Path(__file__).resolve().parents[2] / "ui" / "app.py")
TIMEOUT = 60

URL_0104 = "https://github.com/mlcommons/inference_results_v6.1/tree/main/closed/CoreWeave/results/x"
RANKING_ROWS = [
    {"result_id": "v6.1-csvrow-0104", "round": "v6.1", "submitter": "CoreWeave",
     "system_name": "CoreWeave GB300 NVL72 (72x GB300-288GB_aarch64)", "benchmark": "llama2-70b-99.9",
     "scenario": "Offline", "result": 1136100.0, "units": "Tokens/s", "lower_is_better": False,
     "number_of_nodes": 18, "total_accelerators": 72, "result_url": URL_0104},
    {"result_id": "v6.1-csvrow-0001", "round": "v6.1", "submitter": "Other", "system_name": "Small box",
     "benchmark": "llama2-70b-99.9", "scenario": "Offline", "result": 100.0, "units": "Tokens/s",
     "lower_is_better": False, "number_of_nodes": 1, "total_accelerators": 8,
     "result_url": "https://example.org/1"},
]


def ranking_answer(question: str) -> Answer:
    return Answer(
        question=question,
        answer="CoreWeave's GB300 NVL72 had the best result: 1,136,100 Tokens/s [v6.1-csvrow-0104].",
        rows=RANKING_ROWS,
        citations=[Citation(kind="row", id="v6.1-csvrow-0104", url=URL_0104),
                   Citation(kind="doc", id="v6.1_studio-global_analysis-sv.md#2", title="Studio Global analysis",
                            url="https://example.org/article")],
        passages=[Passage(id="v6.1_studio-global_analysis-sv.md#2", text="Rack-scale systems led the round.",
                          title="Studio Global analysis", source="studio-global", url="https://example.org/article")],
        chart={"type": "bar", "x": ["CoreWeave: CoreWeave GB300 NVL72", "Other: Small box"], "y": [1136100.0, 100.0],
               "unit": "Tokens/s", "lower_is_better": False, "title": "llama2-70b-99.9 Offline, v6.1"},
        query={"op": "rows", "filters": {"round": ["v6.1"]}, "pandas": "df[df['round'].isin(['v6.1'])]"},
        notes=["Closed division (the default when a question names none)."],
    )


class FakeConversation:
    def __init__(self) -> None:
        self.turns: list[tuple[str, Answer]] = []

    def add(self, question: str, answer: Answer) -> None:
        self.turns.append((question, answer))


class FakeService:
    """Stands in for assistant.service.ask_stream; records every call's keyword arguments."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.make = ranking_answer
        self.error: BaseException | None = None

    def __call__(self, question: str, **kwargs):
        self.calls.append({"question": question, **kwargs})
        if self.error is not None:
            yield "partial "
            raise self.error
        answer = self.make(question)
        for word in answer.answer.split(" "):
            yield word + " "
        kwargs["conversation"].add(question, answer)
        yield answer


@pytest.fixture
def fake(monkeypatch):
    import assistant.service
    import ui.state
    import ui.status

    service = FakeService()
    monkeypatch.setattr(assistant.service, "ask_stream", service)
    monkeypatch.setattr(ui.state, "new_conversation", FakeConversation)
    monkeypatch.setattr(ui.status, "store_status", lambda settings: ui.status.StoreStatus(
        True, "", {"rounds": ["v4.1", "v5.1", "v6.0", "v6.1"], "rows": 3397, "documents": 31}))
    return service


def app():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def texts(at) -> str:
    """Every markdown, caption, alert and code text on the page, for 'is it shown' checks."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [c.value for c in at.code]
    parts += [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(str(p) for p in parts)


def vega_specs(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("vega_lite_chart")]


def axis_titles(spec) -> list[str]:
    """Every axis title in a Vega-Lite spec (layered or not)."""
    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "title" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for layer in spec.get("layer", [spec]):
        walk(layer.get("encoding", {}))
    return found


# --- first screen, asking, answer display -----------------------------------------------------

def test_first_screen_offers_six_examples_and_clicking_one_asks_it(fake):
    from ui.examples import EXAMPLES

    at = app().run()
    assert not at.exception
    labels = [b.label for b in at.button]
    assert all(q in labels for q in EXAMPLES) and len(EXAMPLES) == 6
    assert any("Vilket" in q for q in EXAMPLES)  # one in Swedish
    at.button(key="example-3").click().run()
    assert [c["question"] for c in fake.calls] == [EXAMPLES[3]]
    assert "1,136,100 Tokens/s" in texts(at)
    assert not [b for b in at.button if b.key and b.key.startswith("example-")]  # first screen gone


def test_answer_shows_text_citations_chart_and_collapsed_details(fake):
    at = app().run()
    at.chat_input[0].set_value("Which system had the best Llama 2 70B Offline result in v6.1?").run()
    assert not at.exception
    page = texts(at)
    assert "1,136,100 Tokens/s" in page
    assert f"[[v6.1-csvrow-0104]]({URL_0104})" in page  # the cited id in the text links to its result page
    assert f"[v6.1-csvrow-0104]({URL_0104})" in page  # and so does the Sources line
    assert "[Studio Global analysis](https://example.org/article)" in page  # document citation
    assert "Closed division" in page  # notes are shown

    specs = vega_specs(at)
    assert len(specs) == 1
    titles = axis_titles(specs[0])
    assert any("Tokens/s" in t and "higher is better" in t for t in titles), titles

    expander = [e for e in at.expander if e.label == "How this was computed"]
    assert len(expander) == 1
    inside = "\n".join(c.value for c in expander[0].code)
    assert "df['round'].isin(['v6.1'])" in inside and '"op": "rows"' in inside
    table = expander[0].dataframe[0].value
    assert list(table["result_id"]) == ["v6.1-csvrow-0104", "v6.1-csvrow-0001"]
    assert URL_0104 in list(table["result_url"])
    assert "Rack-scale systems led the round." in "\n".join(m.value for m in expander[0].markdown)
    assert any("backend **offline**" in c.value for c in expander[0].caption)
    assert [d for d in at.get("download_button")]  # rows as CSV


def test_follow_up_uses_the_same_conversation(fake):
    at = app().run()
    at.chat_input[0].set_value("Which system had the best Llama 2 70B Offline result in v6.1?").run()
    at.chat_input[0].set_value("And in the Server scenario?").run()
    assert not at.exception
    first, second = fake.calls
    assert second["conversation"] is first["conversation"]
    assert [q for q, _ in second["conversation"].turns] == [first["question"], second["question"]]
    # both turns stay on the page
    page = texts(at)
    assert "And in the Server scenario?" in page and first["question"] in page


def test_new_conversation_forgets_the_turns(fake):
    at = app().run()
    at.chat_input[0].set_value("first question").run()
    at.sidebar.button(key="new_conversation").click().run()
    assert "first question" not in texts(at)
    at.chat_input[0].set_value("second question").run()
    assert fake.calls[1]["conversation"] is not fake.calls[0]["conversation"]
    assert len(fake.calls[1]["conversation"].turns) == 1


def test_scope_filters_are_passed_to_the_assistant(fake):
    at = app().run()
    at.sidebar.multiselect(key="scope_round").set_value(["v6.1"])
    at.sidebar.multiselect(key="scope_availability").set_value(["available"]).run()
    at.chat_input[0].set_value("best llama").run()
    assert fake.calls[0]["scope"] == {"round": ["v6.1"], "availability": ["available"]}


# --- backends -----------------------------------------------------------------------------------

class _Tags(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        if self.path != "/api/tags":
            self.send_error(404)
            return
        body = json.dumps({"models": [{"name": "qwen2.5:0.5b"}, {"name": "llama3.2:1b"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def ollama_stub():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Tags)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()



def test_switching_to_ollama_lists_its_models_and_asks_with_them(fake, ollama_stub, monkeypatch):
    import streamlit as st

    st.cache_data.clear()
    monkeypatch.setenv("RESULTSQA_OLLAMA_HOST", ollama_stub)
    at = app().run()
    at.sidebar.selectbox(key="backend").set_value("ollama").run()
    models = at.sidebar.selectbox(key="ollama_model")
    assert list(models.options) == ["llama3.2:1b", "qwen2.5:0.5b"]
    models.set_value("qwen2.5:0.5b").run()
    at.chat_input[0].set_value("best llama").run()
    call = fake.calls[0]
    assert (call["backend"], call["model"]) == ("ollama", "qwen2.5:0.5b")
    assert call["settings"].ollama_host == ollama_stub
    at.sidebar.selectbox(key="backend").set_value("offline").run()
    at.chat_input[0].set_value("again").run()
    assert fake.calls[1]["backend"] == "offline"


def test_unreachable_model_is_a_friendly_message_not_a_traceback(fake, monkeypatch):
    import streamlit as st

    st.cache_data.clear()
    host = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("RESULTSQA_OLLAMA_HOST", host)
    at = app().run()
    at.sidebar.selectbox(key="backend").set_value("ollama").run()
    assert any("isn't reachable" in w.value and host in w.value for w in at.sidebar.warning)
    fake.error = ConnectionError("Connection refused")
    at.chat_input[0].set_value("best llama").run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Couldn't reach" in errors[0] and "offline" in errors[0]
    assert "Traceback" not in texts(at)


# --- store, embed, permalink ---------------------------------------------------------------------

def test_empty_store_says_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setenv("RESULTSQA_STORE", str(tmp_path / "no-store-here"))
    at = app().run()
    assert not at.exception
    assert any("No data indexed yet" in i.value and "resultsqa ingest" in i.value for i in at.info)
    assert at.button(key="ingest_main").label == "Index the default data now"
    assert not [b for b in at.button if b.key and b.key.startswith("example-")]


def test_embed_mode_shows_the_chat_without_sidebar(fake):
    at = app()
    at.context["is_embedded"] = True  # what Streamlit reports for ?embed=true
    at.run()
    assert not at.exception
    assert len(at.sidebar.children) == 0
    assert len(at.chat_input) == 1
    assert not at.title  # no page title either: chat only
    at.chat_input[0].set_value("best llama").run()
    assert "1,136,100 Tokens/s" in texts(at)
    assert fake.calls[0]["backend"] == "offline"


def test_permalink_asks_once_on_load(fake):
    at = app()
    at.query_params["q"] = "How many submitters were there in v6.1?"
    at.run()
    assert [c["question"] for c in fake.calls] == ["How many submitters were there in v6.1?"]
    at.run()  # any later interaction must not ask it again
    assert len(fake.calls) == 1
    assert "?q=How+many+submitters+were+there+in+v6.1%3F" in texts(at)


def test_no_data_and_error_answers_are_styled_and_have_no_chart(fake):
    fake.make = lambda q: Answer(question=q, answer="There is no round v9.9 in the data.", status="no_data")
    at = app().run()
    at.chat_input[0].set_value("best in v9.9").run()
    assert [w.value for w in at.warning] == ["There is no round v9.9 in the data."]
    assert not vega_specs(at)


def test_clarify_shows_its_reading_and_suggestions_and_a_click_asks_one(fake):
    choices = ["How many submitters were there in v6.1?", "Which benchmarks are new in v6.1?"]
    fake.make = lambda q: Answer(question=q, answer="Name a chip, a company, a benchmark or a round.",
                                 status="clarify", suggestions=choices, reading="Read as: nothing specific named.")
    at = app().run()
    at.chat_input[0].set_value("hello?").run()
    assert not at.exception
    assert [i.value for i in at.info] == ["Name a chip, a company, a benchmark or a round."]
    assert "Read as: nothing specific named." in texts(at)
    buttons = [b for b in at.button if b.key and b.key.startswith("suggest-")]
    assert [b.label for b in buttons] == choices
    buttons[1].click().run()
    assert [c["question"] for c in fake.calls] == ["hello?", choices[1]]


# --- end to end: the real assistant over the store built from the default data ----------------------
# Gold values read by hand from ../shared/data/mlperf/mlperf_inference_all_rounds_results.csv (closed
# division, the default) and its README's "Five facts", not from our code.

GOLD = {
    0: ["1,136,100", "CoreWeave", "v6.1-csvrow-0104"],           # best llama2-70b-99.9 Offline, v6.1
    1: ["5,749,440", "Crusoe", "512", "v6.1-csvrow-0110"],       # top gpt-oss-120b and its GPU count
    2: ["33"],                                                     # distinct submitters in v6.1
    3: ["e2e-rag-db", "e2e-rag-qna", "qwen3.6-27b"],               # benchmarks in v6.1 and not in v6.0
    4: ["Jetson AGX Thor", "v6.1-csvrow-0324"],                    # lowest qwen3.6-27b SingleStream latency
    5: ["CoreWeave", "v6.1-csvrow-0104"],                          # the Swedish version of question 0
}


@pytest.fixture
def real_store(store_settings, monkeypatch):
    """The app reads its settings from RESULTSQA_* like under `resultsqa ui`."""
    from ui.cli import settings_env

    for key, value in settings_env(store_settings).items():
        monkeypatch.setenv(key, value)
    return store_settings


def _last_answer_text(at) -> str:
    return at.session_state["messages"][-1].answer.answer


@pytest.mark.parametrize("index", sorted(GOLD))
def test_example_questions_answer_correctly_offline(real_store, index):
    from ui.examples import EXAMPLES

    at = app().run()
    assert not at.exception
    at.button(key=f"example-{index}").click().run()
    assert not at.exception
    turn = at.session_state["messages"][-1]
    assert turn.question == EXAMPLES[index]
    assert turn.answer.status == "answered", turn.answer.answer
    for expected in GOLD[index]:
        assert expected in turn.answer.answer, (expected, turn.answer.answer)
    page = texts(at)
    assert all(expected in page for expected in GOLD[index])  # and it stays on the page after the stream


def test_real_follow_up_reuses_the_previous_question(real_store):
    at = app().run()
    at.button(key="example-0").click().run()
    at.chat_input[0].set_value("And in the Server scenario?").run()
    assert not at.exception
    text = _last_answer_text(at)
    assert "944,902" in text and "v6.1-csvrow-0105" in text, text  # best llama2-70b-99.9 Server, v6.1
    assert len(vega_specs(at)) >= 1  # a ranking answer has its chart
    assert any(e.label == "How this was computed" for e in at.expander)


def test_a_bad_setting_is_a_message_not_a_traceback(monkeypatch):
    monkeypatch.setenv("RESULTSQA_UI_PORT", "not-a-number")
    at = app().run()
    assert not at.exception
    assert any("settings could not be read" in e.value for e in at.error)


def test_index_button_builds_the_store_and_the_chat_becomes_ready(tmp_path, monkeypatch, shared_data):
    monkeypatch.setenv("RESULTSQA_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("RESULTSQA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RESULTSQA_DATA", str(shared_data))
    monkeypatch.setenv("RESULTSQA_EMBEDDER", "hash")  # the fast test embedder: this is about the button
    at = app().run()
    at.button(key="ingest_main").click().run(timeout=600)
    assert not at.exception
    assert any("3,397 result rows" in m.value for m in at.markdown), texts(at)  # README: all four rounds
    at.run()
    assert "**Result rows:** 3,397" in "\n".join(m.value for m in at.sidebar.markdown)
    assert [b for b in at.button if b.key and b.key.startswith("example-")]  # first screen is back


@pytest.mark.parametrize("question, expected", [
    ("How many submitters and results are in v6.1?", ["33 distinct submitters", "492 results", "# part 2"]),
    ("Which system used the most GPUs in v6.1?", ["512 accelerators", "Crusoe"]),
])
def test_joined_counts_and_size_rankings_render_with_their_query(real_store, question, expected):
    at = app().run()
    at.chat_input[0].set_value(question).run()
    assert not at.exception
    page = texts(at)
    assert all(e in page for e in expected), page[-2000:]
