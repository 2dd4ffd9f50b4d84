"""Caveats are codes with parameters: every note the executor writes for the gold questions is a
`Note` whose code every language's templates have, and a Swedish answer carries its caveats in
Swedish, rendered from the code, with the data values untouched."""

from __future__ import annotations

from assistant import templates
from assistant.executor import SpecError
from assistant.notes import Note, localize
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


def test_every_executor_note_of_the_gold_questions_is_a_code_with_a_swedish_template(engine):
    seen: list[str] = []
    for spec in EXTRA_SPECS:
        try:
            seen += engine.execute(spec).notes
        except SpecError as exc:  # a spec here that no longer runs is a broken test, not a skip
            raise AssertionError(f"{spec}: {exc}") from None
    for q in load_questions(GOLD_PATH):
        parsed = parse(q.question, engine.catalog)
        if parsed.spec is None:
            continue
        try:
            seen += engine.execute(parsed.spec).notes
        except SpecError:
            continue
    codes = {n.code for n in seen if isinstance(n, Note)}
    assert len(codes) > 15  # the gold set exercises most caveats
    assert not [n for n in seen if not isinstance(n, Note)], "a note written as text, not as a code"
    swedish = templates.load("sv")["note"]
    assert codes <= set(swedish) and set(swedish) == set(templates.load("en")["note"])


def test_a_swedish_answer_has_swedish_caveats_with_the_values_kept(engine, store_settings):
    from assistant.service import ask

    english = ask("Compare B200 and MI355X on Llama 2 70B Server in v6.1", settings=store_settings)
    swedish = ask("Jämför B200 och MI355X på Llama 2 70B Server i v6.1", settings=store_settings)
    assert any(n.startswith("side 1: ") and "(1 node, 8× B200)" in n for n in english.notes)
    side = next(n for n in swedish.notes if n.startswith("sida 1: "))
    assert "(1 nod, 8× B200)" in side and "v6.1, closed, available, Server" in side
    assert not any(n.startswith("side ") for n in swedish.notes)


def test_a_note_renders_from_its_code_and_text_without_one_stays_as_written():
    multi = Note("multi_node", nodes=18)
    assert multi == "includes multi-node systems (up to 18 nodes); compare per node or per accelerator with care"
    assert localize(["a caveat nobody coded", Note("latency_direction"), str(multi)], "sv") == [
        "a caveat nobody coded", "latens: lägre är bättre",
        "inkluderar system med flera noder (upp till 18 noder); jämför per nod eller per accelerator med försiktighet"]
    assert localize([multi], "en") == [str(multi)]


def test_the_readers_caveats_are_codes_too(engine):
    """What the reader assumed ("no scenario named") is a Note, in the question's language."""
    from assistant.conversation import Conversation
    from assistant.offline import answer_question
    from assistant.parse import parse

    parsed = parse("best llama 2 70b result in v6.1", engine.catalog)
    assert parsed.notes and all(isinstance(n, Note) for n in parsed.notes)
    swedish = answer_question("bästa llama 2 70b-resultatet i v6.1", engine=engine, conversation=Conversation(),
                              settings=engine.settings)
    assert any(n.startswith("Inget scenario angivet: Offline används") for n in swedish.notes)
    assert not any(n.startswith("No scenario named") for n in swedish.notes)
