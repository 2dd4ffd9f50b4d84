"""The official `openai` client against /v1/chat/completions, for real over HTTP on loopback.

This is what a wiki chat plugin does: point an OpenAI client at our base URL with a key and
get a cited answer back, streamed or not.
"""

from __future__ import annotations

import re

import pytest

from ingest import settings as settings_mod
from tests.ui.test_api import LiveServer
from ui.api import create_app

KEY = "rqa-openai-client-key"
QUESTION = "Which system had the best Llama 2 70B Offline result in v6.1?"
LINK = re.compile(r"\[[^\]]+\]\((https?://[^)\s]+)\)")


@pytest.fixture(scope="module")
def live(store_settings):
    settings = settings_mod.Settings({**store_settings, "api_keys": KEY, "rate_limit_per_min": 0})
    with LiveServer(create_app(settings, warm=False)) as server:
        yield server


@pytest.fixture()
def client(live):
    from openai import OpenAI

    return OpenAI(base_url=live.url + "/v1", api_key=KEY, max_retries=0, timeout=60)


def _row_urls(metadata: dict) -> set[str]:
    return {c["url"] for c in metadata["citations"] if c["kind"] == "row" and c["url"]}


def test_openai_client_gets_a_cited_answer(client, store_settings):
    from assistant.service import ask

    completion = client.chat.completions.create(model="resultsqa", messages=[{"role": "user", "content": QUESTION}])
    message = completion.choices[0].message
    assert message.role == "assistant" and completion.choices[0].finish_reason == "stop"
    metadata = completion.model_extra["metadata"]
    assert metadata["status"] == "answered"
    direct = ask(QUESTION, settings=store_settings)
    assert message.content.startswith(direct.answer)
    linked = set(LINK.findall(message.content))
    assert linked and linked <= _row_urls(metadata) | {c["url"] for c in metadata["citations"]}


def test_openai_client_streams_the_same_answer(client):
    stream = client.chat.completions.create(model="resultsqa", stream=True,
                                            messages=[{"role": "user", "content": QUESTION}])
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert chunks[-1].choices[0].finish_reason == "stop"
    metadata = chunks[-1].model_extra["metadata"]
    assert metadata["citations"] and LINK.search(text)
    plain = client.chat.completions.create(model="resultsqa", messages=[{"role": "user", "content": QUESTION}])
    assert text.strip() == plain.choices[0].message.content.strip()


def test_openai_client_follow_up_uses_earlier_user_turns(client, store_settings):
    from assistant.service import ask

    first = "Which system had the best Llama 2 70B Offline result in v6.1?"
    follow = "and in v6.0?"
    completion = client.chat.completions.create(model="resultsqa", messages=[
        {"role": "user", "content": first}, {"role": "assistant", "content": "..."},
        {"role": "user", "content": follow}])
    direct = ask(follow, history=[first], settings=store_settings)
    assert completion.choices[0].message.content.startswith(direct.answer)


def test_openai_client_with_a_wrong_key_gets_401(live):
    import openai

    bad = openai.OpenAI(base_url=live.url + "/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="resultsqa", messages=[{"role": "user", "content": QUESTION}])


def test_openai_client_lists_models(client):
    assert [m.id for m in client.models.list()] == ["resultsqa-offline"]
