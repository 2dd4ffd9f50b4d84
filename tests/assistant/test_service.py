"""The service entry point: bad input becomes an Answer, `ask` and `ask_stream` agree, turns
are remembered, and a model backend plugs in through the registry."""

from __future__ import annotations

import pytest

from assistant import engine as engine_mod
from assistant import service
from assistant.agent import AgentBackend
from assistant.answer import Answer
from assistant.backends import register
from assistant.conversation import Conversation
from assistant.engine import Engine
from ingest import settings as settings_mod
from tests.assistant.test_agent import BEST, QUESTION, _route, _table
from tests.helpers.scripted_llm import scripted_model


class ScriptedBackend(AgentBackend):
    """A model backend whose model replays `script` (refilled by each test)."""

    name = "scripted"
    script: list = []
    llms: list = []

    def make_model(self, settings, model):
        chat_model, llm = scripted_model(self.script)
        self.script = []
        self.llms.append(llm)
        return chat_model


BACKEND = register(ScriptedBackend())


@pytest.fixture
def settings(monkeypatch):
    settings = settings_mod.load(model_wording="model")  # the scripted model words these answers
    engine = Engine.from_table(_table(), settings)
    monkeypatch.setattr(engine_mod, "get_engine", lambda s=None: engine)
    BACKEND.llms.clear()
    return settings


def test_empty_and_oversized_questions_are_error_answers(settings):
    assert service.ask("   ", settings=settings).status == "error"
    huge = "why " * 25_000  # 100 kB
    answer = service.ask(huge, settings=settings, backend="scripted")
    assert answer.status == "error" and "too long" in answer.answer
    assert len(answer.question) <= 200 and BACKEND.llms == []  # no model was built for it


def test_unknown_backend_and_missing_store_are_error_answers(tmp_path):
    settings = settings_mod.load(store=str(tmp_path / "none"))
    assert "unknown backend" in service.ask(QUESTION, settings=settings, backend="gpt-17").answer
    missing = service.ask(QUESTION, settings=settings)
    assert missing.status == "error" and "resultsqa ingest" in missing.answer


def test_ask_through_a_model_backend_and_remember_the_turn(settings):
    BACKEND.script = [_route(), "Nvidia's Big box: 1,136,100.47 Tokens/s."]
    conversation = Conversation()
    answer = service.ask(QUESTION, settings=settings, backend="scripted", conversation=conversation)
    assert answer.answer == "Nvidia's Big box: 1,136,100.47 Tokens/s." and answer.backend == "scripted"
    assert answer.values[0].value == BEST and answer.llm_calls == 2
    assert [t.question for t in conversation.turns] == [QUESTION]


def test_history_is_replayed_for_a_follow_up(settings):
    BACKEND.script = [_route(scenario="Server"), "In Server the best is Nvidia's Small box with 700 Tokens/s."]
    answer = service.ask("And in the Server scenario?", history=[QUESTION], settings=settings, backend="scripted")
    assert answer.values[0].value == 700.0
    assert answer.answer == "In Server the best is Nvidia's Small box with 700 Tokens/s."


def test_ask_stream_yields_text_then_the_same_answer(settings):
    BACKEND.script = [_route(), "Nvidia's Big box: 1,136,100.47 Tokens/s."]
    conversation = Conversation()
    pieces = list(service.ask_stream(QUESTION, settings=settings, backend="scripted", conversation=conversation))
    final = pieces[-1]
    assert isinstance(final, Answer) and all(isinstance(p, str) for p in pieces[:-1])
    assert "".join(pieces[:-1]) == final.answer == "Nvidia's Big box: 1,136,100.47 Tokens/s."
    assert len(conversation.turns) == 1


def test_ask_stream_of_the_offline_backend_and_of_bad_input(settings):
    pieces = list(service.ask_stream(QUESTION, settings=settings, backend="offline"))
    assert "".join(pieces[:-1]) == pieces[-1].answer and pieces[-1].values[0].value == BEST
    bad = list(service.ask_stream("", settings=settings))
    assert bad[-1].status == "error" and bad[0] == bad[-1].answer


def test_unreachable_model_through_the_service(settings):
    import httpx

    BACKEND.script = [httpx.ConnectError("refused")]
    answer = service.ask(QUESTION, settings=settings, backend="scripted")
    assert answer.backend == "offline" and answer.values[0].value == BEST
    assert "could not be reached" in answer.answer
