"""A schema reply from the in-process model is first written free and kept when it validates;
only otherwise is it written again under the schema's grammar (which halves the speed)."""

from __future__ import annotations

import threading

from assistant.llm import LlamaCppModel

SCHEMA = {"type": "object", "properties": {"op": {"enum": ["rows", "aggregate"]}}, "required": ["op"]}


class Replies:
    """A `Llama` context that streams one scripted reply per call and records each call's kwargs."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []
        self.streamed: list[int] = []  # pieces taken from each call's stream

    def reset(self) -> None:
        pass

    def create_chat_completion(self, messages, **kwargs):
        self.calls.append(kwargs)
        self.streamed.append(0)
        for piece in self.replies.pop(0).split(" "):
            self.streamed[-1] += 1
            yield {"choices": [{"delta": {"content": piece + " "}}]}


def _chat(context: Replies) -> str:
    lock = threading.Lock()
    model = LlamaCppModel(lambda i: (context, lock), model_name="m", max_tokens=64, timeout_s=60)
    text = model.chat([{"role": "user", "content": "q"}], schema=SCHEMA).text
    assert not lock.locked()  # a free reply cut short gives its context back
    return text


def test_a_free_reply_that_validates_is_kept_and_no_grammar_is_used():
    context = Replies('{"op": "rows"} and then some chatter after the object')
    assert _chat(context).strip() == '{"op": "rows"}'
    assert len(context.calls) == 1 and "response_format" not in context.calls[0]
    assert context.streamed == [2]  # generation stopped where the object closed


def test_a_free_reply_the_schema_refuses_is_written_again_under_the_grammar():
    context = Replies('{"op": "sum"}', '{"op": "aggregate"}')
    assert _chat(context).strip() == '{"op": "aggregate"}'
    assert [c.get("response_format", {}).get("schema") for c in context.calls] == [None, SCHEMA]


def test_a_free_reply_that_is_not_json_stops_at_once():
    context = Replies("Sure! Here is the route you asked for: " + "blah " * 100, '{"op": "rows"}')
    assert _chat(context).strip() == '{"op": "rows"}'
    assert context.streamed[0] == 1 and context.calls[1]["response_format"]["schema"] == SCHEMA


def test_what_follows_the_object_in_its_last_piece_is_left_out():
    context = Replies('{"op": "rows"}. Done')
    assert _chat(context) == '{"op": "rows"}' and len(context.calls) == 1


def test_an_object_that_never_closes_is_written_under_the_grammar():
    context = Replies('{"op": "rows", "limit": {"x": 1}', '{"op": "rows"}')
    assert _chat(context).strip() == '{"op": "rows"}' and len(context.calls) == 2
