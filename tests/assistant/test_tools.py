"""The agent's tool registry: compact results with citation ids, errors instead of exceptions,
policies that see every call."""

from __future__ import annotations

import logging

import pytest

from assistant.answer import Passage
from assistant.engine import Engine
from assistant.tools import MAX_ROWS_SHOWN, ROW_COLUMNS, TOOL_NAMES, Toolbox, logging_policy
from ingest import settings as settings_mod
from tests.assistant.test_executor import row, table

SPEC = {"filters": {"round": ["v6.1"], "benchmark": ["llama2-70b-99.9"], "scenario": ["Offline"]}, "limit": 50}


@pytest.fixture
def engine():
    rows = [row(result=float(100 + i), result_id=f"6.1-{i:04d}", submitter=f"S{i}") for i in range(8)]
    rows.append(row(round="v6.0", round_order=600, result=5000.0, result_id="6.0-9999"))
    return Engine.from_table(table(*rows), settings_mod.load())


def test_query_results_is_compact_and_carries_result_ids(engine):
    result = Toolbox(engine).call("query_results", {"spec": SPEC})
    assert result.ok
    rows = result.content["rows"]
    assert len(rows) == MAX_ROWS_SHOWN and result.content["row_count"] == 8
    assert [r["result"] for r in rows] == [107.0, 106.0, 105.0, 104.0, 103.0]
    assert all(set(r) <= set(ROW_COLUMNS) for r in rows)
    assert "framework" not in rows[0] and "result_url" not in rows[0]
    assert result.result_ids[:2] == ["6.1-0007", "6.1-0006"]
    assert result.query_result.rows.iloc[0]["result"] == 107.0


def test_scope_fills_open_filters(engine):
    spec = {"filters": {"benchmark": ["llama2-70b-99.9"]}}
    scoped = Toolbox(engine, scope={"round": ["v6.0"]}).call("query_results", {"spec": spec})
    assert scoped.content["rows"][0]["result"] == 5000.0
    assert Toolbox(engine).call("query_results", {"spec": spec}).content["rows"][0]["result"] == 5000.0
    own = Toolbox(engine, scope={"round": ["v6.0"]}).call("query_results", {"spec": SPEC})
    assert own.content["rows"][0]["result"] == 107.0  # the question's own round wins


def test_a_spec_the_executor_rejects_is_an_error_result(engine):
    bad = {"filters": {"benchmark": ["llama9-1t"]}}
    result = Toolbox(engine).call("query_results", {"spec": bad})
    assert not result.ok and "llama9-1t" in result.content["error"]
    assert result.content["suggestions"]["benchmark"]  # the closest valid values, for one repair


def test_bad_arguments_and_unknown_tools_are_error_results(engine):
    box = Toolbox(engine)
    assert "unknown tool" in box.call("rm_rf", {}).content["error"]
    assert "bad arguments" in box.call("query_results", {"spec": {"op": "explode"}}).content["error"]
    assert "bad arguments" in box.call("list_values", {"colum": "benchmark"}).content["error"]
    assert "bad arguments" in box.call("describe_data", {"extra": 1}).content["error"]
    assert [r.ok for r in box.log] == [False, False, False, False]


def test_list_values_and_describe_data(engine):
    box = Toolbox(engine)
    values = box.call("list_values", {"column": "submitter", "contains": "s1"}).content
    assert values["values"] == ["S1"] and values["total"] == 1
    assert "unknown column" in box.call("list_values", {"column": "result_url"}).content["error"]
    described = box.call("describe_data", {}).content
    assert described["rounds"] == ["v6.0", "v6.1"] and described["rows"] == 9


def test_search_commentary_returns_passages_with_ids(engine):
    class Docs(Engine):
        def search(self, query, k=None, rounds=None, kind="doc"):
            self.seen = (query, k, rounds)
            return [Passage(id="a.md#0", title="A", text="x" * 5000, rounds=["v6.1"])]

    docs = Docs(engine.table, engine.settings)
    result = Toolbox(docs).call("search_commentary", {"query": "why", "rounds": ["v6.1"], "k": 2})
    assert docs.seen == ("why", 2, ["v6.1"])
    assert result.result_ids == ["a.md#0"] and result.passages[0].id == "a.md#0"
    assert len(result.content["passages"][0]["text"]) < 1000  # capped for the prompt


def test_policies_see_every_call_and_can_block(engine, caplog):
    seen = []

    def no_commentary(name, arguments):
        seen.append(name)
        return "commentary is off" if name == "search_commentary" else None

    logger = logging.getLogger("resultsqa.tools.test")
    box = Toolbox(engine, policies=[logging_policy(logger), no_commentary])
    with caplog.at_level(logging.INFO, logger="resultsqa.tools.test"):
        blocked = box.call("search_commentary", {"query": "why"})
        allowed = box.call("describe_data", {})
    assert not blocked.ok and "blocked by policy: commentary is off" in blocked.content["error"]
    assert allowed.ok and seen == ["search_commentary", "describe_data"]
    assert "search_commentary" in caplog.text and "describe_data" in caplog.text


def test_call_limit(engine):
    box = Toolbox(engine, max_calls=2)
    box.call("describe_data", {})
    box.call("describe_data", {})
    assert "limit" in box.call("describe_data", {}).content["error"]


def test_function_tools_use_the_docstrings_and_signatures(engine):
    tools = Toolbox(engine).function_tools()
    assert [t.metadata.name for t in tools] == list(TOOL_NAMES)
    by_name = {t.metadata.name: t for t in tools}
    assert "MLPerf Inference results table" in by_name["query_results"].metadata.description
    params = by_name["search_commentary"].metadata.get_parameters_dict()
    assert params["required"] == ["query"] and set(params["properties"]) == {"query", "rounds", "k"}
    assert "filters" in str(by_name["query_results"].metadata.get_parameters_dict())
