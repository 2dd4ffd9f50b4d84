"""A rounded or bounded figure a question attributes to someone, checked against the full table:
the claim as quoted, the matching row with its id, and a verdict computed by code. Every
expectation is computed here with plain pandas from `results_table`, never from the answerer."""

from __future__ import annotations

import pytest

from assistant.catalog import Catalog
from assistant.conversation import Conversation
from assistant.engine import Engine
from assistant.offline import answer_question
from assistant.reader import read
from ingest import settings as settings_mod


@pytest.fixture(scope="module")
def engine(results_table):
    return Engine.from_table(results_table, settings=settings_mod.load())


def ask(engine, question):
    return answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)


@pytest.mark.parametrize("question, low, high", [
    ("they say it did 1.55 million tokens/s", 1_540_000, 1_560_000),  # one unit of the last digit either side
    ("de säger 1,55 miljoner tokens/s", 1_540_000, 1_560_000),  # a Swedish decimal comma
    ("nvidia claims 1m tokens/s", 950_000, 1_050_000),  # never wider than 5 %
])
def test_a_rounded_figure_is_the_interval_its_rounding_allows(results_table, question, low, high):
    r = read(question, Catalog.from_table(results_table))
    assert [(c.min, c.max) for c in r.stated] == [(pytest.approx(low), pytest.approx(high))]
    assert not any(c.column == "result" for c in r.conditions)  # a claim to check, never a filter


def test_a_bound_is_a_condition_not_a_stated_figure(results_table):
    r = read("amd says it passed 1 million tokens/s", Catalog.from_table(results_table))
    assert not r.stated and [c.min for c in r.conditions if c.column == "result"] == [1_000_000]


def _mi355x_llama_v60(t):
    return t[(t["round"] == "v6.0") & (t["accelerator_family"] == "MI355X") & (t["division"] == "closed")
             & t["benchmark"].str.startswith("llama2-70b") & (t["number_of_nodes"] >= 2)]


@pytest.mark.parametrize("question, holds, lead", [
    ("AMD says multi-node MI355X passed 1 million tokens/s on Llama 2 70B in v6.0", True,
     "The figure in the question (“passed 1 million tokens/s”) agrees with the table"),
    ("amd påstår att mi355x på flera noder passerade 2 miljoner tokens/s på llama 2 70b i v6.0", False,
     "Siffran i frågan (”passerade 2 miljoner tokens/s”) stämmer inte med tabellen"),
])
def test_a_bound_claimed_is_checked_on_the_hardware_named(engine, results_table, question, holds, lead):
    best = _mi355x_llama_v60(results_table)["result"].max()
    assert best >= 1_000_000 and not best >= 2_000_000  # what the verdicts rest on
    assert holds == (best >= (1_000_000 if holds else 2_000_000))
    a = ask(engine, question)
    assert a.answer.startswith(lead), a.answer
    assert a.rows and all(r["accelerator_family"] == "MI355X" for r in a.rows)


@pytest.fixture(scope="module")
def with_publishers(results_table):
    """An engine whose catalog knows the article's publisher, so the question asks the documents."""
    engine = Engine.from_table(results_table, settings=settings_mod.load())
    engine.catalog.add_publishers(["v6.0_digitaltoday_news.md"])
    return engine


@pytest.mark.parametrize("documents", [False, True])
def test_a_rounded_figure_from_an_article_is_found_beside_the_quote(engine, with_publishers, results_table,
                                                                     documents):
    t = results_table
    near = t[(t["round"] == "v6.0") & (t["benchmark"] == "deepseek-r1") & (t["result"] >= 1_540_000)
             & (t["result"] <= 1_560_000)]
    assert len(near)
    a = ask(with_publishers if documents else engine,
            "Digital Today says 72 GB300 nodes with 288 GPUs processed 1.55 million tokens/s on DeepSeek-R1 in v6.0")
    assert (a.reading.split("·")[0].strip().startswith("Read as: what the documents say")) == documents, a.reading
    assert a.answer.startswith("The figure in the question (“1.55 million tokens/s”) agrees with the table"), a.answer
    assert {r["result_id"] for r in a.rows} & set(near["result_id"])
    assert any(c.kind == "row" and c.id in set(near["result_id"]) for c in a.citations)
    assert ("claim" in a.query) == documents  # beside the documents, the query that checked it is shown


def test_a_figure_of_another_unit_cannot_be_checked(engine):
    a = ask(engine, "an article says resnet singlestream did 2k tokens/s in v6.1")  # latency rows only
    assert "cannot be checked from the table" in a.answer, a.answer


@pytest.mark.parametrize("question", ["AMD says 0 million tokens/s", "AMD says 0m tokens/s", "AMD says 1,5m tokens/s"])
def test_odd_figures_read_without_error(results_table, question):
    read(question, Catalog.from_table(results_table))  # no ZeroDivisionError, no ValueError


def test_a_filter_over_a_figure_is_no_claim(engine):
    a = ask(engine, "top 5 official results over 500k tokens/s on llama 2 70b offline in 6.0")
    assert "figure in the question" not in a.answer and len(a.rows) > 1


def test_a_claim_is_checked_only_against_rows_in_its_unit(engine, results_table):
    t = results_table
    samples = t[(t["benchmark"] == "retinanet") & (t["accelerator_family"] == "H200") & (t["units"] == "Samples/s")]
    assert len(samples)  # beside Queries/s rows of Server
    a = ask(engine, "nvidia claims its H200 passed 1 samples/s on retinanet")
    assert "agrees with the table" in a.answer and all(r["units"] == "Samples/s" for r in a.rows), a.answer


def test_a_claim_is_checked_in_the_round_that_has_the_rows(engine, results_table):
    """No round named and none in the latest round: the earlier round that has them is checked."""
    t = results_table
    a = ask(engine, "AMD says MI355X passed 1 million tokens/s on llama 2 70b")
    cited = {r["result_id"] for r in a.rows}
    held = t[t["result_id"].isin(cited) & (t["result"] >= 1_000_000) & (t["accelerator_family"] == "MI355X")]
    assert a.answer.startswith("The figure in the question (“passed 1 million tokens/s”) agrees") and len(held)
