"""`resultsqa ask` / `resultsqa chat` through the real dispatcher and service, on the full table."""

from __future__ import annotations

import io
import json

import pytest

from assistant import cli
from assistant.engine import Engine
from ingest import settings as settings_mod

ANSWER_KEYS = {"question", "answer", "status", "values", "rows", "query", "citations", "backend", "model",
               "llm_calls", "prompt_tokens", "completion_tokens", "latency_ms"}


@pytest.fixture
def table_engine(results_table, monkeypatch):
    engine = Engine.from_table(results_table, settings=settings_mod.load())
    monkeypatch.setattr("assistant.engine.get_engine", lambda settings=None: engine)
    return engine


def test_ask_json_prints_one_answer_object(table_engine, capsys):
    rc = cli.main(["ask", "--json", "How many submitters are in v6.1?"])
    out = capsys.readouterr().out
    data = json.loads(out)  # exactly one JSON document
    assert rc == 0 and ANSWER_KEYS <= set(data)
    assert data["status"] == "answered" and data["values"][0]["value"] == 33.0
    assert data["backend"] == "offline" and data["llm_calls"] == 0


def test_ask_text_shows_rows_links_and_query(table_engine, capsys):
    rc = cli.main(["ask", "Which system had the best Llama 2 70B Offline result in v6.1?"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "1,136,100 Tokens/s" in out and "Rows used:" in out and "v6.1-csvrow-0104" in out
    assert "https://github.com/mlcommons/inference_results_v6.1/tree/main/" in out
    assert "Query:" in out and "sort_values" in out


def test_ask_with_history_answers_a_followup(table_engine, tmp_path, capsys):
    history = tmp_path / "history.json"
    history.write_text(json.dumps(["Which system had the best Llama 2 70B Offline result in v6.1?"]))
    rc = cli.main(["ask", "--json", "--history", str(history), "And in the Server scenario?"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["values"][0]["value"] == 944902.0
    assert data["values"][0]["result_ids"] == ["v6.1-csvrow-0105"]


def test_no_data_exits_zero_and_error_exits_one(table_engine, capsys):
    assert cli.main(["ask", "--json", "How many results are in v3.0?"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "no_data"
    assert cli.main(["ask", "--json", "   "]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "error"


def test_bad_history_file_is_an_error(table_engine, tmp_path, capsys):
    bad = tmp_path / "h.json"
    bad.write_text('{"not": "a list"}')
    assert cli.main(["ask", "--history", str(bad), "anything"]) == 1
    assert "expected a JSON list" in capsys.readouterr().err


def test_missing_store_is_an_error(tmp_path, capsys):
    rc = cli.main(["ask", "--json", "--store", str(tmp_path / "nostore"), "How many results in v6.1?"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1 and data["status"] == "error" and "ingest" in data["answer"]


def test_chat_keeps_context_until_exit(table_engine, monkeypatch, capsys):
    lines = "Which system had the best Llama 2 70B Offline result in v6.1?\nHow many nodes did it have?\nexit\n" \
            "How many results are in v6.1?\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    rc = cli.main(["chat", "--json"])
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert rc == 0 and len(answers) == 2  # stopped at "exit"
    assert answers[1]["values"][0]["value"] == 18.0


def test_commentary_question_through_the_real_store(store_settings, capsys):
    """End to end on the ingested store: a what-did-they-say question is answered from the
    commentary with document citations and no numbers of our own."""
    rc = cli.main(["ask", "--json", "--store", str(store_settings.store),
                   "What did AMD say about the MI355X in MLPerf Inference v6.0?"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["status"] == "answered"
    docs = [c for c in data["citations"] if c["kind"] == "doc"]
    assert docs and all(c["id"] for c in docs) and data["passages"]
    assert data["values"] == [] and "MI355X" in data["answer"]
