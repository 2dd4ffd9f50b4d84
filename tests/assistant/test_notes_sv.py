"""Swedish caveats: every note the executor writes for the gold questions has a Swedish wording,
and a Swedish answer carries its caveats in Swedish with the data values untouched."""

from __future__ import annotations

from assistant import notes_sv
from assistant.executor import SpecError
from assistant.parse import parse
from eval.questions import GOLD_PATH, load_questions


# Specs that reach the caveats the gold questions do not (mixed units, empty sides, groups...).
EXTRA_SPECS = [
    {"filters": {"round": ["v4.1"], "submitter": ["Krai"]}},
    {"filters": {"round": ["v6.1"]}, "metric": "result_per_accelerator"},
    {"filters": {"round": ["v6.1"]}},
    {"filters": {"round": ["v4.1"], "accelerator_family": ["MI355X"], "benchmark": ["resnet"]}},
    {"filters": {"round": ["v6.1"], "number_of_nodes": {"min": 500}, "benchmark": ["llama2-70b-99.9"]}},
    {"op": "aggregate", "aggregate": "max", "filters": {"round": ["v6.1"]}},
    {"op": "aggregate", "aggregate": "mean", "filters": {"round": ["v6.1"], "benchmark": ["llama2-70b-99.9"]}},
    {"op": "aggregate", "aggregate": "count", "group_by": ["submitter"], "limit": 3, "filters": {"round": ["v6.1"]}},
    {"op": "difference", "column": "benchmark", "filters": {"round": ["v6.1"]}, "other": {"round": ["v6.1"]}},
    {"op": "compare", "filters": {"round": ["v6.1"], "benchmark": ["llama2-70b-99.9"], "scenario": ["Offline"]},
     "sides": [{"accelerator_family": ["GB300"]}, {"accelerator_family": ["MI355X"], "round": ["v4.1"]}]},
    {"op": "compare", "filters": {"round": ["v6.1"], "scenario": ["Offline"]},
     "sides": [{"benchmark": ["llama2-70b-99.9"]}, {"benchmark": ["gpt-oss-120b"]}]},
    {"op": "trend", "filters": {"division": ["closed"]}},
    {"op": "trend", "filters": {"round": ["v4.1", "v6.1"], "benchmark": ["resnet"], "scenario": ["Offline"]}},
    {"filters": {"round": ["v5.1"], "benchmark": ["llama2-70b-99"], "scenario": ["Offline"]}, "metric": "power"},
    {"filters": {"round": ["v5.1"], "benchmark": ["llama2-70b-99"], "scenario": ["Offline"]}, "metric": "efficiency"},
]


def test_every_executor_note_of_the_gold_questions_has_a_swedish_wording(engine):
    seen: set[str] = set()
    for spec in EXTRA_SPECS:
        try:
            seen.update(engine.execute(spec).notes)
        except SpecError as exc:  # a spec here that no longer runs is a broken test, not a skip
            raise AssertionError(f"{spec}: {exc}") from None
    for q in load_questions(GOLD_PATH):
        parsed = parse(q.question, engine.catalog)
        if parsed.spec is None:
            continue
        try:
            seen.update(engine.execute(parsed.spec).notes)
        except SpecError:
            continue
    assert len(seen) > 15  # the gold set exercises most caveats
    missing = sorted(n for n in seen if notes_sv.translate(n) is None)
    assert not missing, missing


def test_a_swedish_answer_has_swedish_caveats_with_the_values_kept(engine, store_settings):
    from assistant.service import ask

    english = ask("Compare B200 and MI355X on Llama 2 70B Server in v6.1", settings=store_settings)
    swedish = ask("Jämför B200 och MI355X på Llama 2 70B Server i v6.1", settings=store_settings)
    assert any(n.startswith("side 1: ") and "(1 node, 8× B200)" in n for n in english.notes)
    side = next(n for n in swedish.notes if n.startswith("sida 1: "))
    assert "(1 nod, 8× B200)" in side and "v6.1, closed, available, Server" in side
    assert not any(n.startswith("side ") for n in swedish.notes)


def test_an_unknown_note_stays_in_english_rather_than_being_lost():
    assert notes_sv.in_swedish(["a caveat nobody translated", "latency: lower is better"]) == \
        ["a caveat nobody translated", "latens: lägre är bättre"]
    assert notes_sv.translate("includes multi-node systems (up to 18 nodes); compare per node or per accelerator "
                              "with care") == ("inkluderar system med flera noder (upp till 18 noder); jämför per nod "
                                               "eller per accelerator med försiktighet")
