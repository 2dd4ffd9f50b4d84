"""The library of verified questions: written from passing gold answers, indexed as chunks of
kind "verified", found by nearness, and handed to a model's routing turn as worked examples."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from assistant.agent import Agent
from assistant.verified import nearest
from eval.verified import verified
from ingest.errors import SourceError
from ingest.verified import load_chunks

SPEC = {"op": "rows", "filters": {"benchmark": ["gpt-oss-120b"], "round": ["v6.1"]}, "order": "best"}


class FakeStore:
    def __init__(self, hits):
        self.hits, self.calls = hits, []

    def search(self, text, k, where=None):
        self.calls.append((text, k, where))
        return self.hits[:k]


def _hit(question, score, spec=SPEC):
    return {"id": "verified:gold.jsonl:1", "text": question, "score": score,
            "metadata": {"kind": "verified", "spec": json.dumps(spec), "shape": "best"}}


def test_only_passing_single_turn_table_answers_are_verified():
    ok = {"question": "top gpt-oss offline v6.1?", "score": {"pass": True}, "eval": {"lang": "en"},
          "query": {**SPEC, "pandas": "df", "parsed": {"shape": "best"}}}
    failed = dict(ok, score={"pass": False})
    follow_up = dict(ok, history=["earlier"])
    documents = dict(ok, query={"parsed": {"shape": "commentary"}})
    got = verified([ok, failed, follow_up, documents])
    assert got == [{"question": "top gpt-oss offline v6.1?", "lang": "en", "shape": "best", "spec": SPEC}]


def test_each_line_is_a_verified_chunk_and_a_broken_line_names_itself(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"question": "Q?", "spec": SPEC, "shape": "best", "lang": "sv"}) + "\n\n")
    [chunk] = load_chunks(path)
    assert chunk.text == "Q?" and chunk.metadata["kind"] == "verified" and json.loads(chunk.metadata["spec"]) == SPEC
    path.write_text(json.dumps({"question": "Q?", "spec": SPEC}) + "\n" + '{"question": "no spec"}\n')
    with pytest.raises(SourceError, match="line 2"):
        load_chunks(path)


def test_nearest_keeps_close_valid_examples_other_than_the_question():
    store = FakeStore([_hit("best gpt-oss offline in v6.1", 0.95), _hit("who won gpt-oss?", 0.91),
                       _hit("bad", 0.9, spec={"op": "explode"}), _hit("far away", 0.5)])
    got = nearest(store, "Who won gpt-oss?", k=3)
    assert [v.question for v in got] == ["best gpt-oss offline in v6.1"]  # itself, invalid and far are left out
    assert got[0].spec.filters.benchmark == ["gpt-oss-120b"] and store.calls[0][2] == {"kind": "verified"}
    assert nearest(None, "q") == [] and nearest(store, "   ") == []


def test_the_agent_offers_the_nearest_verified_questions_when_the_reader_has_no_spec():
    store = FakeStore([_hit("best gpt-oss offline in v6.1", 0.95)])
    agent = SimpleNamespace(engine=SimpleNamespace(store=store))
    examples = Agent.examples_for(agent, "top gpt oss 6.1")
    assert [(q, s.filters.round) for q, s in examples] == [("best gpt-oss offline in v6.1", ["v6.1"])]
    assert Agent.examples_for(agent, "top gpt oss 6.1", read=True) == []  # the reader's spec needs none
