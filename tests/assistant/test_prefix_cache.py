"""The llama.cpp prompt prefix cache: each fixed system prompt keeps its own context, so a
question prefills only its own tokens. A stand-in context counts what it would prefill the
way llama-cpp-python does (the longest prefix it shares with what it evaluated last is
skipped); the real model checks the same with llama.cpp's own counter (slow)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from assistant.llm import LlamaCppModel, PrefixSlots
from ingest import settings as settings_mod

ROUTE, ANSWER = "route instructions " * 40, "answer instructions " * 30


class StandInContext:
    """A `Llama` that keeps its last evaluated text and counts what each call must prefill."""

    def __init__(self) -> None:
        self.evaluated = ""
        self.prefilled: list[int] = []

    def reset(self) -> None:
        self.evaluated = ""

    def create_chat_completion(self, messages, **kwargs):
        prompt = "".join(f"<{m['role']}>{m['content']}" for m in messages) + "<assistant>"
        self.prefilled.append(len(prompt) - len(os.path.commonprefix([self.evaluated, prompt])))
        self.evaluated = prompt + "ok"
        yield {"choices": [{"delta": {"content": "ok"}}]}


def _model(slots):
    contexts: dict[int, tuple[StandInContext, threading.Lock]] = {}

    def context(i):
        return contexts.setdefault(i, (StandInContext(), threading.Lock()))

    return LlamaCppModel(context, model_name="m", max_tokens=8, timeout_s=60, slots=slots), contexts


def _questions(model, n=3):
    for i in range(n):
        model.chat([{"role": "system", "content": ROUTE}, {"role": "user", "content": f"question {i}"}], schema={})
        model.chat([{"role": "system", "content": ANSWER}, {"role": "user", "content": f"rows of question {i}"}])


def test_with_the_cache_a_question_prefills_only_its_own_tokens():
    model, contexts = _model(PrefixSlots(3))
    _questions(model)
    assert len(contexts) == 2  # one context per fixed prefix
    for context, _ in contexts.values():
        first, *later = context.prefilled
        assert first > len(ROUTE) // 2 and all(p < 40 for p in later), context.prefilled


def test_without_the_cache_every_call_prefills_everything():
    model, contexts = _model(None)
    _questions(model)
    assert list(contexts) == [0]
    assert all(p > len(ANSWER) for p in contexts[0][0].prefilled)


def test_the_least_recently_used_prefix_gives_up_its_context():
    slots = PrefixSlots(2)
    assert [slots.pick(p) for p in ("route", "answer en", "route", "answer sv", "route")] == [0, 1, 0, 1, 0]
    assert slots.pick("answer en") == 1  # "answer sv" was the least recently used


def test_one_context_serves_one_request_at_a_time():
    model, contexts = _model(PrefixSlots(1))
    model.chat([{"role": "system", "content": ROUTE}, {"role": "user", "content": "q"}])
    _, lock = contexts[0]
    with lock:
        started = threading.Event()
        done = threading.Event()

        def other():
            started.set()
            model.chat([{"role": "system", "content": ROUTE}, {"role": "user", "content": "q2"}])
            done.set()

        threading.Thread(target=other, daemon=True).start()
        started.wait(5)
        assert not done.wait(0.2)  # waits for the lock
    assert done.wait(5)


def test_the_setting_turns_the_cache_off(monkeypatch, tmp_path):
    from assistant.backends import llamacpp

    monkeypatch.setattr(llamacpp, "llama_context", lambda *a, **k: (StandInContext(), threading.Lock()))
    monkeypatch.setattr(llamacpp, "_resolved", lambda path: path)
    backend = llamacpp.LlamaCppBackend()
    on = backend.make_model(settings_mod.load(), str(tmp_path / "m.gguf"))
    off = backend.make_model(settings_mod.load(llm_prefix_cache=False), str(tmp_path / "m.gguf"))
    assert isinstance(on.slots, PrefixSlots) and off.slots is None
    monkeypatch.setenv("RESULTSQA_LLM_PREFIX_CACHE", "0")
    assert backend.make_model(settings_mod.load(), str(tmp_path / "m.gguf")).slots is None


# --- the real model ----------------------------------------------------------------------------------

MODEL = Path(__file__).resolve().parents[2] / "data" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


@pytest.mark.slow
def test_the_real_model_prefills_only_the_question_after_the_first(tmp_path):
    pytest.importorskip("llama_cpp")
    if not MODEL.is_file():
        pytest.skip(f"the small model is missing: {MODEL} (run `make model`)")
    import llama_cpp

    from assistant.backends.llamacpp import LlamaCppBackend

    settings = settings_mod.load(context_window=2048, max_tokens=4, llm_timeout_s=900)
    model = LlamaCppBackend().make_model(settings, str(MODEL))
    route = [{"role": "system", "content": ROUTE}]
    answer = [{"role": "system", "content": ANSWER}]
    prefilled = []
    for i in range(2):
        for prefix in (route, answer):
            slot = model.slots.pick(prefix[0]["content"])
            llama, _ = model.contexts(slot)
            llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
            model.chat([*prefix, {"role": "user", "content": f"Question {i}: which system was best?"}])
            prefilled.append(llama_cpp.llama_perf_context(llama._ctx.ctx).n_p_eval)
    system_tokens = len(model.contexts(0)[0].tokenize(ROUTE.encode()))
    assert min(prefilled[:2]) > system_tokens // 2  # the first question prefills the fixed prefixes
    assert max(prefilled[2:]) < 40, prefilled  # the second only its own words
