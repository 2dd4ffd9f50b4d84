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


LATENCY_ROWS = [  # the agentic edge benchmark: SingleStream latency, lower is better
    {"system_name": "Fast edge box", "result": 850.5, "units": "Latency (ms)", "lower_is_better": True},
    {"system_name": "Slow edge box", "result": 2400.0, "units": "Latency (ms)", "lower_is_better": True},
]


def test_ranking_bar_puts_the_best_first_and_labels_unit_and_direction():
    from ui.charts import build_chart

    chart = build_chart(_answer({"type": "bar", "x": "system_name", "y": "result"}, LATENCY_ROWS))
    enc = _encodings(chart)[0]
    assert enc["x"]["title"] == "Latency (ms) — lower is better"
    assert enc["y"]["sort"] == ["Fast edge box", "Slow edge box"]  # lowest latency on top

    rows = [dict(r, units="Tokens/s", lower_is_better=False) for r in LATENCY_ROWS]
    chart = build_chart(_answer({"type": "bar", "x": "system_name", "y": "result"}, rows))
    enc = _encodings(chart)[0]
    assert enc["x"]["title"] == "Tokens/s — higher is better"
    assert enc["y"]["sort"] == ["Slow edge box", "Fast edge box"]


def test_grouped_bar_and_line_charts():
    from ui.charts import build_chart

    rows = [
        {"system_name": "A", "round": "v6.0", "round_order": 600, "result": 10.0, "units": "Tokens/s"},
        {"system_name": "A", "round": "v6.1", "round_order": 601, "result": 12.0, "units": "Tokens/s"},
        {"system_name": "B", "round": "v6.0", "round_order": 600, "result": 8.0, "units": "Tokens/s"},
        {"system_name": "B", "round": "v5.1", "round_order": 501, "result": 4.0, "units": "Tokens/s"},
    ]
    grouped = build_chart(_answer({"type": "grouped_bar", "x": "system_name", "series": "round"}, rows))
    enc = _encodings(grouped)[0]
    assert enc["color"]["field"] == "round" and enc["yOffset"]["field"] == "round"
    assert "Tokens/s" in enc["x"]["title"]

    line = build_chart(_answer({"type": "line", "x": "round", "y": "result", "series": "system_name"}, rows))
    enc = _encodings(line)[0]
    assert enc["x"]["sort"] == ["v5.1", "v6.0", "v6.1"]  # rounds in time order, not text order
    assert enc["color"]["field"] == "system_name"


def test_no_chart_without_a_usable_spec():
    from ui.charts import build_chart

    assert build_chart(_answer(None, LATENCY_ROWS)) is None
    assert build_chart(_answer({"type": "pie"}, LATENCY_ROWS)) is None
    assert build_chart(_answer({"type": "bar"}, [])) is None
    assert build_chart(_answer({"type": "bar"}, [{"system_name": "x", "result": "n/a"}])) is None


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
