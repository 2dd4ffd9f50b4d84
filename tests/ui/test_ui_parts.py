"""The UI's helper modules on their own: charts from Answer.chart, the store/Ollama status, the CLI."""

from __future__ import annotations

import http.server
import json
import socket
import threading

import pytest

from assistant.answer import Answer


def _answer(chart, rows) -> Answer:
    return Answer(question="q", answer="a", chart=chart, rows=rows)


def _encodings(chart) -> list[dict]:
    spec = chart.to_dict()
    return [layer["encoding"] for layer in spec.get("layer", [spec])]


def _enc(chart) -> dict:
    """The encoding of the main mark (bars or line) of a layered chart."""
    return _encodings(chart)[0]


# The agentic edge benchmark is SingleStream latency: lower is better (values made up).
LATENCY = {"type": "bar", "x": ["Slow edge box", "Fast edge box"], "y": [2400.0, 850.5],
           "unit": "Latency (ms)", "lower_is_better": True}


def test_ranking_bar_puts_the_best_first_and_labels_unit_and_direction():
    from ui.charts import build_chart

    enc = _enc(build_chart(_answer(LATENCY, [])))
    assert enc["x"]["title"] == "Latency (ms) — lower is better"
    assert enc["y"]["sort"] == ["Fast edge box", "Slow edge box"]  # lowest latency on top

    throughput = dict(LATENCY, unit="Tokens/s", lower_is_better=False)
    enc = _enc(build_chart(_answer(throughput, [])))
    assert enc["x"]["title"] == "Tokens/s — higher is better"
    assert enc["y"]["sort"] == ["Slow edge box", "Fast edge box"]

    derived = dict(throughput, unit="Tokens/s per accelerator", derived=True)
    assert "derived, not an official MLPerf metric" in _enc(build_chart(_answer(derived, [])))["x"]["title"]

    counts = {"type": "bar", "x": ["v6.0", "v6.1"], "y": [30, 33], "unit": "submitters", "lower_is_better": False}
    assert _enc(build_chart(_answer(counts, [])))["x"]["title"] == "submitters"  # a count has no 'better'


def test_grouped_bar_and_line_charts():
    from ui.charts import build_chart

    compare = {"type": "grouped_bar", "x": ["B200", "MI355X"], "y": [10.0, 12.0], "series": ["accelerator_family"],
               "unit": "Tokens/s", "lower_is_better": False}
    enc = _enc(build_chart(_answer(compare, [])))
    assert enc["y"]["sort"] == ["MI355X", "B200"] and enc["color"]["field"] == "label"
    assert enc["x"]["title"] == "Tokens/s — higher is better"

    trend = {"type": "line", "x": ["v5.1", "v6.0", "v6.1"], "y": [4.0, 8.0, 12.0], "unit": "Tokens/s",
             "lower_is_better": False}
    enc = _enc(build_chart(_answer(trend, [])))
    assert enc["x"]["sort"] == ["v5.1", "v6.0", "v6.1"] and enc["x"]["title"] == "MLPerf round"

    # a chart that names row columns instead of carrying values: rounds in time order, not text order
    rows = [{"round": "v6.1", "round_order": 601, "result": 12.0, "units": "Tokens/s", "system_name": "A"},
            {"round": "v10.0", "round_order": 1000, "result": 14.0, "units": "Tokens/s", "system_name": "A"},
            {"round": "v5.1", "round_order": 501, "result": 4.0, "units": "Tokens/s", "system_name": "A"}]
    enc = _enc(build_chart(_answer({"type": "line", "x": "round", "y": "result"}, rows)))
    assert enc["x"]["sort"] == ["v5.1", "v6.1", "v10.0"]
    assert enc["y"]["title"] == "Tokens/s — higher is better"


def test_no_chart_without_a_usable_spec():
    from ui.charts import build_chart

    assert build_chart(_answer(None, [])) is None
    assert build_chart(_answer(dict(LATENCY, type="pie"), [])) is None
    assert build_chart(_answer(dict(LATENCY, x=["only one label"]), [])) is None  # lengths differ
    assert build_chart(_answer({"type": "bar", "x": ["a"], "y": ["n/a"]}, [])) is None


def test_store_status_reads_the_manifest_and_reports_a_missing_store(tmp_path):
    from ingest import settings as settings_mod
    from ui.status import StoreStatus, store_status

    missing = store_status(settings_mod.load(store=str(tmp_path / "none")))
    assert not missing.ok and "resultsqa ingest" in missing.message

    status = StoreStatus(True, "", {"rows": 3397, "rows_per_round": {"v6.1": 492, "v4.1": 937},
                                    "documents": 31, "chunks": 200, "created": "2026-11-29T22:00:00+00:00"})
    assert status.rounds == ["v4.1", "v6.1"]
    assert (status.rows, status.documents, status.chunks) == (3397, 31, 200)
    assert status.last_ingest.startswith("2026-11-29")


class _Tags(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        body = json.dumps({"models": [{"name": "b:1"}, {"name": "a:2"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_ollama_models_lists_tags_and_returns_none_when_unreachable():
    from ui.status import ollama_models

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert ollama_models(f"http://127.0.0.1:{server.server_address[1]}") == ["a:2", "b:1"]
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    assert ollama_models(f"http://127.0.0.1:{closed}") is None


def test_ui_command_passes_settings_as_env_and_runs_headless_on_loopback():
    from assistant.cli import build_parser, settings_from_args
    from ui.cli import settings_env, streamlit_command

    args = build_parser().parse_args(["ui", "--store", "/tmp/s", "--ui-port", "8599", "--read-only", "true"])
    settings = settings_from_args(args)
    env = settings_env(settings)
    assert env["RESULTSQA_STORE"] == "/tmp/s" and env["RESULTSQA_UI_PORT"] == "8599"
    assert env["RESULTSQA_READ_ONLY"] == "true"
    assert "RESULTSQA_MODEL" not in env  # unset settings stay unset
    cmd = streamlit_command(settings, address=args.address)
    joined = " ".join(cmd)
    assert "--server.address 127.0.0.1" in joined and "--server.port 8599" in joined
    assert "--browser.gatherUsageStats false" in joined and "--server.headless true" in joined


@pytest.mark.parametrize("exc, words", [
    (ConnectionError("Connection refused"), "Couldn't reach"),
    (FileNotFoundError("/x/model.gguf"), "make model"),
    (ValueError("unknown backend 'zzz'; choose one of: offline"), "isn't available"),
    (RuntimeError("boom"), "something went wrong"),
])
def test_errors_become_messages_with_a_fix(exc, words):
    from ingest import settings as settings_mod
    from ui.state import friendly_error

    text = friendly_error(exc, "ollama", settings_mod.load())
    assert words in text and "offline" in text


def test_error_messages_never_show_the_api_key():
    from ingest import settings as settings_mod
    from ui.state import friendly_error

    settings = settings_mod.load(openai_api_key="sk-test-0123456789")
    text = friendly_error(RuntimeError("401: key sk-test-0123456789 rejected"), "openai", settings)
    assert "sk-test-0123456789" not in text and "rejected" in text
