"""The route a model fills: one schema derived from QuerySpec, in two tiers, and the prompt's
fixed prefix. Through the agent with a scripted model: the full tier lets a model read what
the reader could not, and the narrow tier is what small models get."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from assistant.agent import Agent
from assistant.parse import parse
from assistant.route import built_in_examples, route_messages, route_system
from assistant.route_schema import (HIDDEN_SPEC, NARROW_FILTERS, NARROW_SPEC, FullRoute, NarrowRoute, pick_tier,
                                    route_from_spec, route_schema, size_in_billions)
from assistant.spec import Filters, QuerySpec
from ingest import settings as settings_mod
from tests.assistant.test_agent import QUESTION, _route, engine, settings  # noqa: F401 - fixtures
from tests.helpers.scripted_llm import ScriptedLLM

GROUPED = "Break down the v6.1 results by accelerator vendor"  # the reader has no spec for this


def _agent(engine, settings, script, model_name="scripted", **kw):
    from assistant.llm import LlamaIndexModel

    llm = ScriptedLLM(script)
    return Agent(LlamaIndexModel(llm, model_name=model_name), engine=engine, settings=settings,
                 backend="llamacpp", **kw), llm


# --- one schema ---------------------------------------------------------------------------------

def test_the_full_route_has_every_spec_field_with_its_own_type():
    for name, info in QuerySpec.model_fields.items():
        if name in HIDDEN_SPEC:
            assert name not in FullRoute.model_fields
            continue
        assert FullRoute.model_fields[name].annotation == (info.annotation | None), name
        assert FullRoute.model_fields[name].description == info.description


def test_the_narrow_route_is_the_spec_fields_small_models_fill():
    assert set(NarrowRoute.model_fields) == {"tool", "search_query", *NARROW_SPEC, *NARROW_FILTERS}
    schema = route_schema("narrow")
    assert schema["properties"]["op"]["anyOf"][0]["enum"] == list(get_args(QuerySpec.model_fields["op"].annotation))
    assert schema["properties"]["metric"]["anyOf"][0]["enum"] == \
        list(get_args(QuerySpec.model_fields["metric"].annotation))
    assert schema["required"] == list(schema["properties"]) and schema["additionalProperties"] is False
    assert list(schema["properties"])[-1] == "search_query"


def test_a_spec_goes_through_each_tier_and_back():
    spec = QuerySpec(limit=3, filters=Filters(round=["v6.1"], benchmark=["llama2-70b-99.9"], scenario=["Offline"]))
    for tier in ("narrow", "full"):
        assert QuerySpec.model_validate(route_from_spec(spec, tier).spec_data()) == spec, tier
    grouped = QuerySpec(op="aggregate", aggregate="count", group_by=["submitter"], order="desc",
                        filters=Filters(round=["v6.1"], total_accelerators={"min": 8}),
                        sides=None, other=Filters(round=["v6.0"]))
    assert QuerySpec.model_validate(route_from_spec(grouped, "full").spec_data()) == grouped


@pytest.mark.parametrize("tier", ["narrow", "full"])
def test_the_built_in_examples_are_valid_routes_of_their_tier(tier, engine):
    from assistant.executor import validate

    for worked in built_in_examples(tier):
        spec = worked.spec
        route = route_from_spec(spec, tier, tool=worked.tool, search_query=worked.search_query)
        assert QuerySpec.model_validate(route.spec_data()) == spec, worked.question
        assert f"Question: {worked.question}" in route_system(tier)
        validate(spec.model_copy(update={"filters": Filters()}) if tier == "narrow" else spec.model_copy(
            update={"filters": Filters(), "sides": [Filters(), Filters()]}), engine.table)


# --- which tier -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, backend, tier", [
    ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "llamacpp", "narrow"),
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "llamacpp", "full"),
    ("qwen2.5:0.5b", "ollama", "narrow"),
    ("llama-3.1-70b", "openai", "full"),
    ("gpt-4o-mini", "openai", "full"),
    ("my-model.gguf", "llamacpp", "narrow"),
])
def test_auto_picks_the_tier_by_the_size_the_model_name_states(name, backend, tier):
    assert pick_tier("auto", backend=backend, model_name=name) == tier
    assert pick_tier("narrow", backend=backend, model_name=name) == "narrow"
    assert pick_tier("full", backend=backend, model_name=name) == "full"


def test_size_in_billions_ignores_version_numbers():
    assert size_in_billions("Qwen2.5-Coder-1.5B-Instruct") == 1.5
    assert size_in_billions("qwen2.5") is None


def test_the_agent_sends_the_tier_of_its_model(engine, settings):
    small, small_llm = _agent(engine, settings, [_route(), "Big box: 1,136,100.47 Tokens/s."],
                              model_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    small.answer(QUESTION)
    assert small_llm.requests[0]["kwargs"]["schema"] == route_schema("narrow")
    forced = settings_mod.load(route_tier="full")
    big, big_llm = _agent(engine, forced, [{"tool": "query_results", "op": "rows"}, "Big box: 1,136,100.47 Tokens/s."],
                          model_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    big.answer(QUESTION)
    assert big_llm.requests[0]["kwargs"]["schema"] == route_schema("full")
    assert '"filters":{' in big_llm.requests[0]["messages"][-1]["content"]  # the reading in the full shape


# --- the full tier reads what the reader could not ------------------------------------------------------

GROUPED_ROUTE = {"tool": "query_results", "op": "aggregate", "aggregate": "count",
                 "group_by": ["accelerator_vendor"], "order": "desc", "filters": {"round": ["v6.1"]}}


def test_a_full_tier_model_answers_a_grouping_the_reader_cannot_read(engine, settings):
    unread = parse(GROUPED, engine.catalog)
    assert unread.spec is None and not unread.parts and unread.status == "ok"  # the model is asked
    wording = "In v6.1, NVIDIA, AMD and ChipCo chips have 1 result each."
    agent, llm = _agent(engine, settings, [GROUPED_ROUTE, wording], model_name="qwen2.5-coder-1.5b-instruct")
    answer = agent.answer(GROUPED)
    assert answer.query["group_by"] == ["accelerator_vendor"] and answer.query["filters"]["round"] == ["v6.1"]
    assert sorted(v.label for v in answer.values) == ["AMD", "ChipCo", "NVIDIA"]
    assert answer.answer == wording and answer.llm_calls == 2


def test_the_full_tier_grounds_every_filter_in_the_question(engine, settings):
    invented = dict(GROUPED_ROUTE, filters={"round": ["v6.1"], "submitter": ["AMD"]},
                    sides=None, other={"round": ["v6.0"]})
    agent, _ = _agent(engine, settings, [invented, "whatever"], model_name="qwen2.5-coder-1.5b-instruct")
    answer = agent.answer(GROUPED)
    assert "submitter" not in answer.query["filters"]
    assert any("submitter='AMD'" in n and "does not name" in n for n in answer.notes)


# --- the prompt: a fixed prefix, then what changes --------------------------------------------------------

def test_the_routing_prompt_starts_with_the_same_prefix_for_every_question(engine):
    first = route_messages(QUESTION, parse(QUESTION, engine.catalog), "narrow")
    second = route_messages(GROUPED, parse(GROUPED, engine.catalog), "narrow")
    assert first[0] == second[0] and first[0]["role"] == "system"
    assert QUESTION not in first[0]["content"] and "Parser reading" in first[-1]["content"]


def test_few_shot_examples_come_after_the_prefix_as_earlier_turns(engine):
    spec = QuerySpec(op="aggregate", aggregate="count", group_by=["submitter"], filters=Filters(round=["v6.0"]))
    messages = route_messages(QUESTION, parse(QUESTION, engine.catalog), "full",
                              examples=[("Who posted most in v6.0?", spec)])
    assert messages[0]["content"] == route_system("full")
    assert messages[1] == {"role": "user", "content": "Question: Who posted most in v6.0?"}
    assert json.loads(messages[2]["content"])["group_by"] == ["submitter"] and messages[2]["role"] == "assistant"
    assert messages[3]["content"].startswith(f"Question: {QUESTION}")


def test_a_routing_prompt_stays_within_its_token_share(engine):
    from assistant.llm import count_messages

    for tier, share in (("narrow", 750), ("full", 900)):
        assert count_messages(route_messages(QUESTION, parse(QUESTION, engine.catalog), tier)) <= share, tier


# --- one repair -------------------------------------------------------------------------------------------

def test_a_spec_error_goes_back_to_the_model_once_with_the_closest_values(engine, settings):
    wrong = dict(GROUPED_ROUTE, group_by=["vendor"])
    wording = "In v6.1, NVIDIA, AMD and ChipCo chips have 1 result each."
    agent, llm = _agent(engine, settings, [wrong, GROUPED_ROUTE, wording], model_name="qwen2.5-coder-1.5b-instruct")
    answer = agent.answer(GROUPED)
    repair = llm.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": json.dumps(wrong)}
    assert "cannot group by 'vendor'" in repair[-1]["content"] and "accelerator_vendor" in repair[-1]["content"]
    assert "schema" in llm.requests[1]["kwargs"] and "schema" not in llm.requests[2]["kwargs"]
    assert answer.query["group_by"] == ["accelerator_vendor"] and answer.answer == wording
    assert answer.llm_calls == 3 and any("repair" in n for n in answer.notes)


def test_an_unknown_value_is_repaired_to_one_the_question_names(engine, settings):
    wrong = dict(GROUPED_ROUTE, filters={"round": ["v6.1-closed"]})
    agent, llm = _agent(engine, settings, [wrong, GROUPED_ROUTE, "NVIDIA, AMD and ChipCo: 1 result each in v6.1."],
                        model_name="qwen2.5-coder-1.5b-instruct")
    answer = agent.answer(GROUPED)
    assert "no round 'v6.1-closed'" in llm.requests[1]["messages"][-1]["content"]
    assert "v6.1" in llm.requests[1]["messages"][-1]["content"].split("Closest valid values:")[1]
    assert answer.query["filters"]["round"] == ["v6.1"] and answer.llm_calls == 3


def test_a_failed_repair_shows_the_offline_answer_and_makes_no_fourth_call(engine, settings):
    wrong = dict(GROUPED_ROUTE, group_by=["vendor"])
    agent, llm = _agent(engine, settings, [wrong, wrong, "should not be asked", "nor this"],
                        model_name="qwen2.5-coder-1.5b-instruct")
    answer = agent.answer(GROUPED)
    from assistant.offline import answer_question

    assert answer.llm_calls <= 3 and llm.remaining >= 1
    assert answer.answer == answer_question(GROUPED, engine=engine, settings=settings).answer


def test_the_readers_own_reading_is_never_sent_for_repair(engine, settings):
    agent, llm = _agent(engine, settings, [_route(), "Big box: 1,136,100.47 Tokens/s."],
                        model_name="qwen2.5-coder-0.5b-instruct")
    agent.answer(QUESTION.replace("v6.1", "v6.0"))  # the reader's spec runs (empty or not): no repair
    assert len(llm.requests) <= 2
