"""A results table of our own, answered through its card with no code change (issue 13).

The fixture is the compile-times card of tests/ingest/test_dataset_cards.py: seconds, lower is
better, no scenario, its own names and words. Beside the real Inference table it is asked
ranked, count and lookup questions; the router sends each question to the table it is about.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.datasets import Router, from_card
from assistant.engine import Engine
from assistant.offline import answer_question
from ingest.dataset_card import load_card, read_card_table
from tests.ingest.test_dataset_cards import CARD, write_fixture


@pytest.fixture(scope="module")
def compile_card(tmp_path_factory):
    return load_card(write_fixture(tmp_path_factory.mktemp("card")))


@pytest.fixture(scope="module")
def engines(results_table, compile_card):
    """(default engine over the Inference table, engine over the compile-times table)."""
    default = Engine.from_table(results_table)
    table, _ = read_card_table(compile_card, default.settings)
    own = default.with_dataset(from_card(compile_card), table)
    default._router = Router(default, [own])
    return default, own


def ask(engines, question: str, **kw):
    return answer_question(question, engine=engines[0], commentary=False, **kw)


def test_the_fastest_build_is_the_lowest_time(engines):
    a = ask(engines, "which team had the fastest llvm build in 2025-09?")
    assert a.status == "answered"
    assert a.reading.startswith("Compile times")
    assert a.rows[0]["result_id"] == "b-0102"  # 1150.125 s, the only 2025-09 llvm build
    assert "1,150.125" in a.answer and "Team Green" in a.answer


def test_answers_use_the_cards_display_names(engines):
    """[display.columns] result = "compile time", [display.values.benchmark] linux-kernel = "Linux kernel"."""
    a = ask(engines, "fastest linux-kernel build in 2025-03?")
    assert a.answer.startswith("The best compile time (Linux kernel (linux-kernel), 2025-03"), a.answer


def test_a_ranking_runs_in_the_cards_direction(engines):
    a = ask(engines, "slowest kernel build in 2025-03")
    assert a.rows[0]["result_id"] == "b-0002"  # 655.25 s beats nobody: the slowest
    best = ask(engines, "quickest build of the kernel in 2025-03")
    assert best.rows[0]["result_id"] == "b-0001"  # 412.5 s, lower is better
    assert "lower is better" in best.answer


def test_a_count_and_a_lookup_on_the_cards_table(engines):
    count = ask(engines, "how many builds did Team Blue have in 2025-03?")
    assert count.status == "answered" and count.reading.startswith("Compile times")
    assert count.values[0].value == 2
    look = ask(engines, "what was team red's compile time for the kernel in 2025-09")
    assert look.rows[0]["result_id"] == "b-0101" and "398" in look.answer


def test_a_card_s_decimals_round_what_answers_show_and_the_rows_stay_exact(engines, compile_card, tmp_path):
    """`[measure] decimals`: the answer shows the card's places and says so; the cited row is exact."""
    default, _ = engines
    text = CARD.replace('direction = "lower"\n', 'direction = "lower"\ndecimals = 1\n', 1)
    card = load_card(write_fixture(tmp_path, text))
    table, _ = read_card_table(card, default.settings)
    rounded = default.with_dataset(from_card(card), table)
    question = "which team had the fastest llvm build in 2025-09?"
    a = answer_question(question, engine=rounded, commentary=False)
    assert a.rows[0]["result"] == 1150.125 and "1,150.1 seconds" in a.answer and "1,150.125" not in a.answer
    assert "seconds are rounded in the text (decimal places: 1); the cited rows give the exact values" in a.notes
    sv = answer_question("vilket team hade snabbast llvm-bygge i 2025-09?", engine=rounded, commentary=False)
    assert "1\u00a0150,1 seconds" in sv.answer and any("antal decimaler: 1" in n for n in sv.notes), sv.answer
    exact = ask(engines, question)  # the card without `decimals`: the value as stored, no note
    assert "1,150.125" in exact.answer and not any("decimal places" in n for n in exact.notes)


def test_a_question_about_results_stays_on_the_default_table(engines):
    a = ask(engines, "best llama2-70b-99 offline result in v5.1")
    assert a.status == "answered"
    assert not a.reading.startswith("Compile times")
    assert a.rows[0]["round"] == "v5.1" and a.rows[0]["benchmark"] == "llama2-70b-99"


def test_a_pinned_data_set_wins_over_the_words(engines):
    a = ask(engines, "how many results in 2025-09?", scope={"dataset": ["compile-times"]})
    assert a.reading.startswith("Compile times") and a.values[0].value == 3


def test_an_unknown_pinned_data_set_is_named_not_ignored(engines):
    a = ask(engines, "how many results in 2025-09?", scope={"dataset": ["nope"]})
    assert a.status == "no_data" and "'nope'" in a.answer and "compile-times" in a.answer and not a.values


def test_a_name_only_the_other_table_knows_routes_there(engines):
    a = ask(engines, "best llvm result in 2025-03")
    assert a.reading.startswith("Compile times")
    assert a.rows[0]["result_id"] == "b-0004"  # 1204.75 s


def test_the_cards_words_do_not_leak_into_the_default_table(engines):
    default, own = engines
    assert own.catalog.lexicon("en").phrases("direction", "best") != default.catalog.lexicon("en").phrases(
        "direction", "best")
    assert "quickest build" not in default.catalog.lexicon("en").phrases("direction", "best")


@pytest.fixture(scope="module")
def mlperf(results_table, shared_data):
    """(default engine over Inference routing to Training, the Training table): both real tables."""
    from ingest import settings as settings_mod

    default = Engine.from_table(results_table, settings_mod.load(data=str(shared_data)))
    card = load_card(Path(__file__).resolve().parents[2] / "data" / "cards" / "mlperf-training.toml")
    table, _ = read_card_table(card, default.settings)
    default._router = Router(default, [default.with_dataset(from_card(card), table)])
    return default, table


def test_training_times_are_shown_to_the_card_s_three_places(mlperf):
    """Times recomputed at full double precision read as 0.403 minutes; the row keeps every digit."""
    default, table = mlperf
    a = answer_question("which system trained llama 2 70b lora fastest in v5.1?", engine=default, commentary=False)
    rows = table[(table["round"] == "v5.1") & (table["benchmark"] == "llama2_70b_lora")]
    best = rows["result"].min()
    assert a.rows[0]["result"] == best and repr(best) not in a.answer
    assert f"{best:.3f} minutes" in a.answer, a.answer


def test_a_round_only_training_has_routes_there_and_says_so(mlperf):
    """MLPerf Training v4.0 exists, MLPerf Inference v4.0 does not: the answer says both."""
    default, table = mlperf
    a = answer_question("slowest bert result in v4.0", engine=default, commentary=False)
    assert a.answer.startswith("MLPerf Inference has no round v4.0; this answer is from MLPerf Training.")
    assert a.rows[0]["round"] == "v4.0" and a.rows[0]["benchmark"] == "bert"
    slowest = table[(table["round"] == "v4.0") & (table["benchmark"] == "bert")]["result"].max()
    assert a.rows[0]["result"] == slowest  # the longest time: lower is better, so this is the worst


def test_a_benchmark_the_default_names_keeps_it_there_beside_the_others_alias(mlperf):
    """"objektdetektering" is an alias only Training has, but yolo-95 is Inference's own name."""
    default, _ = mlperf
    route = default.router.route("hobbyprojekt med objektdetektering här. lägsta latens på yolo-95 singlestream i 6.1?")
    assert route.engine is default
    assert default.router.route("which system trained llama 2 70b lora fastest in v5.1").engine is not default


@pytest.mark.parametrize("question", ["ttft and tpot... which one is the 'how long until it starts typing' one",
                                      "hur lång tid tar det till första token, vad betyder ttft"])
def test_an_inference_only_measure_keeps_the_question_on_inference(mlperf, question):
    """"how long" is a Training word, but TTFT and TPOT are measured only in Inference."""
    default, _ = mlperf
    assert default.router.route(question).engine is default
    assert default.router.route("how long did the fastest llama 2 70b lora run take to train").engine is not default


@pytest.mark.parametrize("question", [
    "how long before the submission had the MI355X launched, according to AMD's statement",
    "hur lång tid tog det enligt AMD:s text innan MI355X kom ut?",
])
def test_a_hint_word_does_not_route_a_question_about_a_document(mlperf, question):
    """"how long" suggests Training, but a question about what AMD wrote is asked of the
    documents; a card's `dataset` words ("trained") still route it."""
    default, _ = mlperf
    assert default.router.route(question).engine is default
    assert default.router.route(question.replace("MI355X", "MI355X trained")).engine is not default
    assert default.router.route("how long did tinycorp's tinybox take on bert").engine is not default
    # only a source named outright holds a hint back; "reported" or "summary" do not
    assert default.router.route("how long did the best bert run take? give me a summary").engine is not default
    assert default.router.route("in minutes, which system had the best reported bert result").engine \
        is not default


def test_a_question_naming_no_table_is_answered_from_both_labelled(mlperf, results_table):
    default, table = mlperf
    a = answer_question("how many submitters were there in v5.1?", engine=default, commentary=False)
    inference, training = a.answer.split(" MLPerf Training: ")
    assert inference.startswith("MLPerf Inference: ")
    assert str(results_table.loc[results_table["round"] == "v5.1", "submitter"].nunique()) in inference
    assert str(table.loc[table["round"] == "v5.1", "submitter"].nunique()) in training
    # a name only one table knows keeps the question on that table
    whisper = answer_question("best whisper result in v5.1", engine=default, commentary=False)
    assert "MLPerf Training" not in whisper.answer and whisper.rows[0]["benchmark"] == "whisper"


def test_reader_words_that_hold_on_any_table(engines):
    """'how many minutes' asks for a value, 'second fastest' for a place in a ranking, and an
    overview of a table without scenarios names no scenario."""
    minutes = ask(engines, "team red kernel compile time in 2025-03, how many seconds?")
    assert minutes.rows and minutes.rows[0]["result_id"] == "b-0001" and "412.5" in minutes.answer
    second = ask(engines, "who came second fastest on the llvm build in 2025-03?")
    assert [r["result_id"] for r in second.rows[:2]] == ["b-0004", "b-0003"]
    overview = ask(engines, "how did team blue do in 2025-09 builds?")
    assert "None" not in overview.answer and "chromium" in overview.answer


def test_each_table_quotes_only_its_own_commentary(engine):
    """The Training Supplemental Discussion is indexed for the Training table only: an Inference
    answer never quotes it, and a Training answer quotes nothing else."""
    training = engine.router.by_id("mlperf-training")
    question = "according to the v5.1 supplemental discussion, what did submitters say?"
    own = training.search(question, k=8)
    assert own and all(p.id.startswith("doc:training-v5.1_") for p in own)
    default = engine.search(question, k=8)
    assert default and not any("training-v5.1" in p.id for p in default)
    a = answer_question("what did submitters say in the mlperf training v5.1 supplemental discussion?", engine=engine)
    assert a.reading.startswith("MLPerf Training") and a.passages
    assert all("training-v5.1" in p.id for p in a.passages)


def test_a_model_backend_routes_between_tables_as_the_offline_answerer_does(mlperf):
    """The model reads questions about the default table; a question about another table is
    answered by the reader there at no model call, and one naming no table from both, labelled."""
    from assistant.agent import Agent
    from ingest import settings as settings_mod
    from tests.helpers.scripted_llm import scripted_model

    default, _ = mlperf
    settings = settings_mod.load(**{**default.settings, "model_wording": "template"})
    for question in ("slowest bert result in v4.0", "which system trained llama 2 70b lora fastest in v5.1"):
        model, llm = scripted_model([])
        answer = Agent(model, engine=default, settings=settings, backend="scripted").answer(question)
        assert answer.llm_calls == 0 and answer.answer == answer_question(question, engine=default).answer
    question = "how many submitters were there in v5.1?"
    model, _ = scripted_model(["not json"])  # the route does not parse: the reader's reading is used
    answer = Agent(model, engine=default, settings=settings, backend="scripted").answer(question)
    assert answer.llm_calls == 1 and answer.answer == answer_question(question, engine=default).answer
    assert answer.answer.startswith("MLPerf Inference: ") and " MLPerf Training: " in answer.answer
    pinned = Agent(scripted_model([])[0], engine=default, settings=settings, backend="scripted").answer(
        question, scope={"dataset": ["mlperf-training"]})
    assert pinned.llm_calls == 0 and pinned.answer == answer_question(
        question, engine=default, scope={"dataset": ["mlperf-training"]}).answer


@pytest.mark.parametrize("question", [
    "krai ran the new text-to-video benchmark in 6.0. in the closed division, how long did it take?",
    "hur lång tid tog krais körning av text-till-video i v6.0?",
])
def test_a_benchmark_only_inference_has_outweighs_a_training_hint(mlperf, question):
    """"how long" hints at Training's time to train, but text-to-video is a benchmark only the
    Inference table has; a benchmark both have ("bert") still follows the hint."""
    default, _ = mlperf
    assert default.router.route(question).engine is default
    assert default.router.route("how long did tinycorp's tinybox take on bert").engine is not default


def test_a_name_only_training_has_in_a_question_about_a_publisher_stays(mlperf):
    """"gpt3" is a Training benchmark, but asked of what IEEE Spectrum wrote it is a word in an
    article, not a benchmark: the documents of the default table answer."""
    default, _ = mlperf
    default.catalog.add_publishers(["v5.0_ieee-spectrum_news.md"])  # the store's documents name them
    question = "the ieee spectrum write-up of the v5.0 round: what parameter count does it give for gpt3?"
    assert default.router.route(question).engine is default
    assert default.router.route("fastest gpt3 training time in v5.0?").engine is not default
