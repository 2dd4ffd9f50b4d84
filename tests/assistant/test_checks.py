"""The wording checks, on the false statements issue 14 saw small and larger models write.

Each example is reproduced with the scripted model over an inline table holding the figures
it misstated: the model confirms the reader's reading, then writes the issue's sentence. Every
one must end in the deterministic answer with a note saying which check failed; a faithful
wording of the same answer must still be shown. The scan of eval answer files is tested on
inline JSONL records.
"""

from __future__ import annotations

import json

import pytest

from assistant.agent import Agent
from assistant.checks import check_wording, models_wording, scan_answers, scan_record
from assistant.engine import Engine
from assistant.facts import build_facts
from assistant.offline import answer_question
from ingest import settings as settings_mod
from tests.assistant.test_executor import row, table
from tests.helpers.scripted_llm import scripted_model

LENOVO = "ThinkSystem SR680a V3 (8x B200-SXM-180GB, TensorRT)"


def _table():
    return table(
        row(round="v5.1", round_order=510, result_id="5.1-0061", submitter="Lenovo", system_name=LENOVO,
            accelerator_family="B200", accelerator_vendor="NVIDIA", accelerator="B200-SXM-180GB", result=102909.0),
        row(round="v5.1", round_order=510, result_id="5.1-0062", submitter="Dell", system_name="PowerEdge XE9680",
            accelerator_family="H200", accelerator_vendor="NVIDIA", result=90000.0),
        row(round="v4.1", round_order=410, result_id="4.1-0038", submitter="Lenovo", system_name=LENOVO,
            accelerator_family="B200", accelerator_vendor="NVIDIA", benchmark="bert-99", units="Samples/s",
            result=70369.8),
        row(round="v6.1", result_id="6.1-0101", submitter="Intel", system_name="1-node-2S-Xeon_6787P",
            accelerator_family="Xeon", accelerator_vendor="Intel", benchmark="e2e-rag-db", units="Samples/s",
            result=22.6141, accuracy="ROUGE1: 44.5321 ROUGE2: 22.1191", total_accelerators=2, accelerators_per_node=2),
        row(round="v6.1", result_id="6.1-0102", submitter="NVIDIA",
            system_name="NVIDIA Vera Rubin NVL72 (72x VR-288GB_aarch64)", accelerator_family="VR200",
            accelerator_vendor="NVIDIA", result=652750.0, number_of_nodes=18, total_accelerators=72),
        row(round="v6.1", result_id="6.1-0103", submitter="Nebius",
            system_name="Nebius VR200 NVL72 (36x VR200-288GB_aarch64, TensorRT)", accelerator_family="VR200",
            accelerator_vendor="NVIDIA", result=600000.0, number_of_nodes=9, total_accelerators=36),
        row(round="v5.1", round_order=510, result_id="5.1-0072", submitter="NVIDIA", system_name="GB300 NVL72",
            accelerator_family="GB300", accelerator_vendor="NVIDIA", benchmark="deepseek-r1", scenario="Server",
            result=575580.0, number_of_nodes=18, total_accelerators=72),
        row(round="v6.0", round_order=600, result_id="6.0-0082", submitter="NVIDIA", system_name="GB300 NVL72",
            accelerator_family="GB300", accelerator_vendor="NVIDIA", benchmark="deepseek-r1", scenario="Server",
            result=1555110.0, number_of_nodes=18, total_accelerators=72),
        row(round="v6.1", result_id="6.1-0104", submitter="AMD", system_name="AMD MI355X 8-GPU",
            accelerator_family="MI355X", accelerator_vendor="AMD", benchmark="wan-2.2", units="Samples/s",
            result=0.0783824),
    )


@pytest.fixture(scope="module")
def settings():
    return settings_mod.load(model_wording="model")  # these tests are about the model's wording


@pytest.fixture(scope="module")
def engine(settings):
    return Engine.from_table(_table(), settings)


def _confirm(messages, kwargs):
    """The routing reply of a model that confirms the reader's reading."""
    return json.loads(messages[-1]["content"].split("Parser reading: ", 1)[1].split("\n", 1)[0])


def _ask(engine, settings, question, wording):
    model, _ = scripted_model([_confirm, wording])
    return Agent(model, engine=engine, settings=settings, backend="llamacpp").answer(question)


BEST_L2 = "Which system had the best Llama 2 70B Offline result in v5.1?"
INTEL = "What did Intel post on e2e-rag-db in v6.1?"
VR200 = "Which submitters ran VR200 systems in v6.1?"
TREND = "How has the best DeepSeek-R1 Server result changed from v5.1 to v6.0?"
WAN = "What was the best Wan 2.2 Offline result in v6.1?"
ROUNDS = "In which rounds does the Lenovo ThinkSystem SR680a V3 appear?"

# (question, what the model wrote in the issue, the check that must catch it)
SEEN = [
    (INTEL, "Intel reported a 22.6141 Samples/s accuracy on e2e-rag-db in v6.1.", "labelled 22.6141 Samples/s as "
     "accuracy"),
    (VR200, "2 submitters ran Vera Rubin or VR200 systems in v6.1.", "left out NVIDIA, Nebius"),
    (BEST_L2, "According to the TOOL RESULTS, Lenovo's ThinkSystem SR680a V3 led with 102,909 Tokens/s.",
     "internal words (TOOL RESULTS)"),
    (BEST_L2, "The Lenovo ThinkSystem SR680a V3 with 8x B200 draw on Llama 2 70B Offline in v5.1 is 102,909 "
     "Tokens/s.", "labelled 102,909 Tokens/s as power"),
    (TREND, "According to NVIDIA, the DeepSeek-R1 Server throughput per GPU reached 1,555,110 Tokens/s in v6.0, "
     "compared to 575,580 Tokens/s in v5.1.", "as per_accelerator"),
    (BEST_L2, "Lenovo's ThinkSystem SR680a V3 drew 102,909 Tokens/s on Llama 2 70B Offline in v5.1.",
     "labelled 102,909 Tokens/s as power"),
    (WAN, "AMD claimed its MI355X achieved a relative performance of 0.0783824 Samples/s on Wan 2.2 Offline in "
     "v6.1.", "as relative"),
    (ROUNDS, "The Lenovo ThinkSystem SR680a V3 appears in two rounds: v4.1 and v5.1-closed, with 70,369.8 Samples/s "
     "and 102,909 Tokens/s.", "named v5.1-closed"),
    (BEST_L2, "The ThinkSystem SR680a V3 had the best result, 102,909 Tokens/s, on Llama 2 70B Offline in v5.1.",
     "left out Lenovo"),
]

# The same answers, worded faithfully: these must be shown.
FAITHFUL = [
    (INTEL, "Intel's 1-node-2S-Xeon_6787P reached 22.6141 Samples/s on e2e-rag-db in v6.1."),
    (VR200, "2 submitters ran VR200 systems in v6.1: NVIDIA and Nebius."),
    (BEST_L2, "Lenovo's ThinkSystem SR680a V3 (8x B200) led Llama 2 70B Offline in v5.1 with 102,909 Tokens/s."),
    (TREND, "NVIDIA's GB300 NVL72 went from 575,580 Tokens/s in v5.1 to 1,555,110 Tokens/s in v6.0 on DeepSeek-R1 "
     "Server, a change of +170.2%."),
    (WAN, "AMD's MI355X 8-GPU system had the best Wan 2.2 Offline result in v6.1: 0.0783824 Samples/s."),
    (ROUNDS, "Lenovo's ThinkSystem SR680a V3 appears in two rounds: v4.1 (70,369.8 Samples/s on bert-99) and v5.1 "
     "(102,909 Tokens/s on Llama 2 70B Offline)."),
]


@pytest.mark.parametrize("question, wording, caught", SEEN, ids=[c for _, _, c in SEEN])
def test_each_false_wording_from_the_issue_is_caught(engine, settings, question, wording, caught):
    answer = _ask(engine, settings, question, wording)
    assert answer.answer == answer_question(question, engine=engine, settings=settings).answer
    assert any(caught in n and "showing the deterministic answer" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("question, wording", FAITHFUL, ids=[q for q, _ in FAITHFUL])
def test_a_faithful_wording_of_the_same_answer_is_shown(engine, settings, question, wording):
    answer = _ask(engine, settings, question, wording)
    assert answer.answer == wording, answer.notes


def test_a_false_wording_is_never_streamed(engine, settings):
    for question, wording, _ in SEEN:
        model, _ = scripted_model([_confirm, wording])
        pieces = list(Agent(model, engine=engine, settings=settings, backend="llamacpp").run(question))
        assert wording not in "".join(p for p in pieces if isinstance(p, str)), wording


# --- the checks on their own --------------------------------------------------------------------------

def _facts(engine, settings, question, **kw):
    checked = answer_question(question, engine=engine, settings=settings)
    return build_facts(checked, question=question, table_text=checked.answer, catalog=engine.catalog, **kw)


@pytest.mark.parametrize("words", ["tool_results", "the query_results tool", '"result_id": "x"', "<document>",
                                   "the total_accelerators field", "Checked summary",
                                   "The correct answer reworded is"])
def test_internal_words_are_refused(engine, settings, words):
    facts = _facts(engine, settings, BEST_L2)
    why = check_wording(f"Lenovo's ThinkSystem SR680a V3 led with 102,909 Tokens/s ({words}).", facts)
    assert why and "internal words" in why


def test_a_unit_that_is_not_the_figures_own_is_refused(engine, settings):
    facts = _facts(engine, settings, BEST_L2)
    assert "Samples/s" in check_wording("Lenovo's ThinkSystem SR680a V3 led with 102,909 Samples/s.", facts)


def test_a_figure_a_quoted_passage_of_its_source_states_may_be_attributed(engine, settings):
    from assistant.answer import Passage

    checked = answer_question(BEST_L2, engine=engine, settings=settings)
    quoted = Passage(id="lenovo.md#0", title="Lenovo press release", text="Lenovo reached 102,909 tokens/s.")
    facts = build_facts(checked.model_copy(update={"passages": [quoted]}), question=BEST_L2,
                        table_text=checked.answer, catalog=engine.catalog)
    text = "According to Lenovo, its ThinkSystem SR680a V3 reached 102,909 Tokens/s."
    assert check_wording(text, facts) is None
    assert "to NVIDIA" in check_wording(text.replace("According to Lenovo", "According to NVIDIA"), facts)


def test_names_the_results_do_not_hold_are_refused(engine, settings):
    facts = _facts(engine, settings, BEST_L2)
    assert "AMD" in check_wording("Lenovo's ThinkSystem SR680a V3 beat AMD with 102,909 Tokens/s.", facts)
    assert "Server" in check_wording("Lenovo's ThinkSystem SR680a V3 led Server with 102,909 Tokens/s.", facts)


def test_a_field_of_a_named_system_must_say_whose_it_is(engine, settings):
    """The 0.5B model once worded "which accelerator did Intel use for e2e-rag-db in 6.1?" as
    "submitter, system and key figure; GPU": no number to check, so it passed."""
    question = "which accelerator did intel use for e2e-rag-db in 6.1?"
    facts = _facts(engine, settings, question)
    assert facts.key_names == ["Intel"] and facts.names_required == 1
    assert check_wording("submitter, system and key figure; GPU", facts) is not None
    assert "Intel" in check_wording("The 1-node-2S-Xeon_6787P used Chip X in v6.1.", facts)
    assert check_wording("Intel's 1-node-2S-Xeon_6787P used Chip X in v6.1.", facts) is None


def test_a_list_answer_needs_its_items_up_to_the_cap(engine, settings):
    facts = _facts(engine, settings, VR200)
    assert facts.key_names == ["NVIDIA", "Nebius"] and facts.names_required == 2
    assert "Nebius" in check_wording("NVIDIA ran VR200 systems in v6.1, 2 submitters in all.", facts)


# --- the scan of eval answer files ----------------------------------------------------------------------

def _record(engine, settings, question, wording, **over):
    """An eval record as `resultsqa eval --out` writes it: the Answer JSON plus id and score."""
    answer = answer_question(question, engine=engine, settings=settings)
    record = answer.model_copy(update={"answer": wording, "backend": "llamacpp", "llm_calls": 2}).to_json()
    record.update({"id": f"q{abs(hash(wording)) % 10_000}", "score": {"correct": True}}, **over)
    return record


def test_the_scan_finds_every_false_wording_in_an_answers_file(engine, settings, tmp_path):
    path = tmp_path / "answers-llamacpp.jsonl"
    records = [_record(engine, settings, q, w) for q, w, _ in SEEN] + [_record(engine, settings, q, w)
                                                                      for q, w in FAITHFUL]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n{\"torn", encoding="utf-8")
    found = scan_answers([path], engine)
    assert [f["id"] for f in found] == [r["id"] for r in records[:len(SEEN)]]
    for item, (_, _, caught) in zip(found, SEEN):
        assert caught in item["problem"], item


def test_the_scan_without_an_index_still_finds_what_the_records_show(engine, settings):
    for question, wording, caught in SEEN:
        if "left out" in caught:
            continue  # what an answer rests on needs its query run again
        assert scan_record(_record(engine, settings, question, wording)) is not None, wording


def test_the_scan_skips_text_that_is_ours(engine, settings):
    question, wording, _ = SEEN[0]
    offline = _record(engine, settings, question, wording, backend="offline", llm_calls=0)
    shown_ours = _record(engine, settings, question, wording, notes=["The model's wording ...; showing the "
                                                                     "deterministic answer."])
    assert scan_record(offline, engine) is None and scan_record(shown_ours, engine) is None
    from assistant.answer import Answer

    assert models_wording(Answer.model_validate({k: v for k, v in _record(engine, settings, question, wording).items()
                                                 if k in Answer.model_fields}))


def test_the_scan_cli_exits_non_zero_on_a_failure(engine, settings, tmp_path, capsys):
    from assistant.checks import main

    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(_record(engine, settings, *SEEN[2][:2])) + "\n", encoding="utf-8")
    assert main(["--no-engine", str(path)]) == 1
    assert "TOOL RESULTS" in capsys.readouterr().out


def test_the_wording_prompt_carries_two_good_answers_that_pass_the_checks(engine, settings):
    from assistant.prompts import answer_system

    examples = [line[2:] for line in answer_system().splitlines() if line.startswith("- ")]
    assert len(examples) == 2
    for question, example in zip((BEST_L2, VR200), examples):
        assert check_wording(example, _facts(engine, settings, question)) is None, example


# --- the checks that decide between two readings (issue 14, item 3) -----------------------------------------

def _parsed(question):
    from assistant.parse import parse
    from tests.assistant import test_agent

    engine = Engine.from_table(test_agent._table(), settings_mod.load())
    return parse(question, engine.catalog)


def test_a_reading_must_use_every_name_condition_and_measure_the_question_states():
    from assistant.answer import Answer
    from assistant.checks import check_reading, unused_names

    ranged = _parsed("Llama 2 70B Offline results in v6.1 with more than 4 accelerators")
    assert unused_names(ranged.spec, ranged) == []
    no_range = ranged.spec.model_copy(update={"filters": ranged.spec.filters.model_copy(
        update={"total_accelerators": None})})
    assert unused_names(no_range, ranged) == ["the condition on total_accelerators"]
    no_round = ranged.spec.model_copy(update={"filters": ranged.spec.filters.model_copy(update={"round": None})})
    assert unused_names(no_round, ranged) == ["v6.1"]
    per_gpu = _parsed("Best Llama 2 70B Offline result per accelerator in v6.1?")
    assert unused_names(per_gpu.spec.model_copy(update={"metric": "result"}), per_gpu) == \
        ["the measure result_per_accelerator"]
    # what an "is it true that AMD ...?" question checks must not filter the ranking: not required
    checked = _parsed("Is it true that AMD had the highest token throughput of any v6.1 result?")
    assert unused_names(checked.spec, checked) == []

    answered = Answer(question="q", answer="a", rows=[{"result": 1.0}])
    assert check_reading("parser", ranged.spec, answered, ranged).passes
    empty = check_reading("parser", ranged.spec, Answer(question="q", answer="none", status="no_data"), ranged)
    assert not empty.passes and empty.failed() == "returned no rows, dead-ended"
    unread = check_reading("parser", None, None, ranged)
    assert unread.failed().startswith("returned no rows, left out")


def test_the_model_wins_only_when_its_checks_pass_and_the_readers_do_not():
    from assistant.checks import ReadingCheck, prefer

    good = ReadingCheck("parser", True, (), False)
    bad = ReadingCheck("parser", False, (), True)
    model_good, model_bad = ReadingCheck("model", True, (), False), ReadingCheck("model", True, ("AMD",), False)
    assert prefer(bad, model_good) is model_good
    assert prefer(good, model_good) is good  # a tie: the reader wins
    assert prefer(bad, model_bad) is bad and prefer(good, None) is good


# --- the question's language ---------------------------------------------------------------------------------

SV_QUESTION = "Vilket system hade bäst resultat på Llama 2 70B Offline i v6.1?"


def test_a_swedish_question_answered_in_english_shows_the_swedish_answer():
    from tests.assistant import test_agent

    engine = Engine.from_table(test_agent._table(), settings_mod.load())
    english = ("The best result for Llama 2 70B Offline in v6.1 is 1,136,100.47 Tokens/s, achieved by Nvidia's "
               "Big box.")
    wording = settings_mod.load(model_wording="model")
    model, _ = scripted_model([test_agent._route(), english])
    answer = Agent(model, engine=engine, settings=wording, backend="scripted").answer(SV_QUESTION)
    assert answer.answer == answer_question(SV_QUESTION, engine=engine, settings=settings_mod.load()).answer
    assert any("in English, not the question's Swedish" in n for n in answer.notes)
    swedish = "Nvidias Big box hade det bästa resultatet, 1 136 100,47 Tokens/s i v6.1."
    model, _ = scripted_model([test_agent._route(), swedish])
    assert Agent(model, engine=engine, settings=wording, backend="scripted").answer(SV_QUESTION).answer == swedish


@pytest.mark.parametrize("text, language, other", [
    ("The best result for Vera Rubin NVL72 in Qwen3-VL is 2 392,70 Samples/s, achieved by NVIDIA.", "sv", "en"),
    ("Det bästa resultatet (qwen3-vl Offline, v6.1, closed-divisionen) är 2 392,70 Samples/s, av NVIDIA.", "sv", None),
    ("Det bästa resultatet är 2 392,70 Samples/s och det hade NVIDIA.", "en", "sv"),
    ('NVIDIA: "the highest result of the round was achieved with the best stack" (v6.1).', "sv", None),  # a quote
    ("Nvidia's Big box: 1,136,100.47 Tokens/s.", "sv", None),  # too few words to judge
    ("The best result is 1,136,100.47 Tokens/s.", None, None),  # no language given: not checked
])
def test_the_language_of_a_wording(text, language, other):
    from assistant.wording import other_language

    assert other_language(text, language) == other
