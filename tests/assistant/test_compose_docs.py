"""Figures from commentary, stated plainly: the figure of the kind asked, from the sentence that
says what it counts, in the document the question names; people and organisations quoted;
nothing quoted when no sentence states such a figure. Small inline passages and table."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from assistant.answer import Passage
from assistant.catalog import Catalog
from assistant.compose_docs import figure_answer, asked_figure
from assistant.parse import parse
from tests.helpers.tables import small_table

STATEMENTS = "MLCommons (statements written by the submitters)"


def _table() -> pd.DataFrame:
    rows = [("v6.0", 600, "llama2-70b-99.9", "Offline", "Tokens/s", "AMD", "MI355X", "AMD"),
            ("v6.0", 600, "llama2-70b-99.9", "Interactive", "Tokens/s", "NVIDIA", "B200", "NVIDIA"),
            ("v6.0", 600, "llama2-70b-99.9", "Offline", "Tokens/s", "HPE", "B200", "NVIDIA"),
            ("v4.1", 410, "llama2-70b-99.9", "Offline", "Tokens/s", "Dell", "H200", "NVIDIA"),
            ("v4.1", 410, "llama2-70b-99.9", "Offline", "Tokens/s", "UntetherAI", "speedAI240", "UntetherAI")]
    return small_table(rows)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    catalog = Catalog.from_table(_table())
    catalog.add_publishers(["v6.0_pubgpclite_amd-news.md", "v6.0_mlcommons_supplemental-discussion.pdf",
                            "v4.1_mlcommons_supplemental-discussion.pdf", "v6.0_amd_vendor-blog.md"])
    return catalog


def _doc(doc: str, i: int, text: str, **kw) -> Passage:
    return Passage(id=f"doc:{doc}:{i}", text=text, title=kw.pop("title", doc), rounds=kw.pop("rounds", ["v6.0"]),
                   **kw)


AGGREGATOR = [
    _doc("v6.0_pubgpclite_amd-news.md", 0,
         "The aggregator pubgpclite.com restates AMD's MLPerf Inference 6.0 claims for the Instinct MI355X: over "
         "1 million tokens/s in multi-node runs.\n\n**MI355X hardware (as listed)**\n\n"
         "- 3nm process, CDNA 4 architecture, 185 billion transistors.\n"
         "- Partners reproduced AMD's scores within +/-4% (sometimes +/-1%) across four generations.\n\n"
         "| benchmark | scenario | vs B200 | vs B300 |\n|---|---|---|---|\n"
         "| Llama 2 70B | Offline | 100% (matches) | 92% |\n| Llama 2 70B | Interactive | 119% | 104% |",
         source="pubgpclite.com (aggregator; restates AMD's claims)"),
    _doc("v6.0_amd_vendor-blog.md", 1,
         "AMD's first results ever on two new benchmarks, gpt-oss-120b and Wan2.2. Its FP4 support is quoted at "
         "up to 20 petaflops, with 288 GB of HBM3 memory and 8TB/s of memory bandwidth.", source="AMD ROCm Blogs"),
]
HPE = _doc("v6.0_mlcommons_supplemental-discussion.pdf", 14,
           "HPE\n\nMLPerf Inference v6.0 marks a milestone for HPE as the 10th round of results it has published in "
           "MLCommons MLPerf Inference, and marks more than 600 inference results submitted by HPE since v1.0. "
           "This round, HPE published 86 results featuring 14 configurations of HPE ProLiant Compute servers.",
           source=STATEMENTS, title="MLPerf Inference v6.0 Supplemental Discussion", page=9)
V41 = "v4.1_mlcommons_supplemental-discussion.pdf"
STATEMENTS_V41 = [
    _doc(V41, 9, "Dell Technologies\n\nDell Technologies has once again proven its commitment in MLPerf Inference "
                 "v4.1. With 130 submissions across 11 different system configurations, Dell continues to "
                 "contribute.", rounds=["v4.1"], source=STATEMENTS, page=7, title="MLPerf Inference v4.1 Discussion"),
    _doc(V41, 33, "Red Hat\n\nOur llama-2-70b results showcase a cost-effective way to run AI inference on Dell "
                  "servers.", rounds=["v4.1"], source=STATEMENTS, page=20, title="MLPerf Inference v4.1 Discussion"),
    _doc(V41, 40, "These factors are what makes these benchmarks so objective,” commented Bob Beachler, VP of "
                  "Product at Untether AI. By expertly integrating support for speedAI 240 into KILT, KRAI helped "
                  "Untether AI.", rounds=["v4.1"], source=STATEMENTS, page=23,
         title="MLPerf Inference v4.1 Discussion"),
]


def _ask(catalog, question, passages):
    parsed = parse(question, catalog)
    figure = asked_figure(parsed)
    assert figure, question
    return figure_answer(question, passages, parsed, figure)


@pytest.mark.parametrize("question, figure, source", [
    # the figure next to the word asked, not the first number of the first sentence
    ("how many transistors does the mi355x have, according to the pubgpclite write-up of amd's mlperf 6.0 claims?",
     "185 billion", "pubgpclite.com"),
    # a unit written against its number, in the publisher's own blog ("AMD's own blog", not the aggregator)
    ("according to amd's own v6.0 mlperf blog, how much memory bandwidth does the mi355x have?", "8TB/s",
     "AMD ROCm Blogs"),
    # a table row read with its column headings; a tolerance ("+/-4%") is not a figure stated
    ("On Llama 2 70B Interactive in v6.0, what percentage of NVIDIA B200's single-node result did a single "
     "MI355X node reach, according to pubgpclite?", "119%", "pubgpclite.com"),
])
def test_the_figure_of_the_kind_asked_leads_from_the_sentence_that_states_it(catalog, question, figure, source):
    answer = _ask(catalog, question, AGGREGATOR)
    assert answer.status == "answered"
    assert answer.answer.startswith(f"According to {source}, {figure}:"), answer.answer
    assert "not a verified result" in answer.answer


def test_a_ratio_with_its_x_attached_is_a_figure(catalog):
    """"a 5x shorter TPOT": the x written against the number is still how many times."""
    news = _doc("v6.0_pubgpclite_amd-news.md", 2,
                "Compared with the base test, Llama 2 70B Interactive requires a 5x shorter TPOT and a 4,4x lower "
                "TTFT. Versus the previous round the best score was 3.3 times faster.",
                source="pubgpclite.com (aggregator; restates AMD's claims)")
    answer = _ask(catalog, "according to pubgpclite, how many times shorter a time per output token does llama 2 "
                           "70b interactive require than the base test?", [news])
    assert answer.answer.startswith("According to pubgpclite.com, 5x:"), answer.answer


def test_a_round_the_table_lacks_is_no_refusal_when_a_document_is_asked(catalog):
    """Documents may name any round ("since v1.0"); only a question for the table needs it in the data."""
    asked = parse("how many results has hpe submitted since v1.0, according to its v6.0 statement?", catalog)
    assert asked.status == "ok" and asked.needs_commentary
    assert parse("how many results were there in v1.0?", catalog).status == "no_data"


def test_the_count_beside_the_counted_word_wins_and_the_statement_owner_is_the_source(catalog):
    answer = _ask(catalog, "how many results did hpe publish in mlperf inference v6.0 according to its "
                           "supplemental statement?", [HPE])
    assert answer.answer.startswith("According to HPE (MLPerf Inference v6.0 Supplemental Discussion), 86:")


def test_a_swedish_question_finds_the_english_sentence_by_its_subject_and_skips_model_names(catalog):
    answer = _ask(catalog, "hur många resultat lämnade Dell in i MLPerf Inference v4.1 enligt Dells eget uttalande "
                           "i MLCommons supplemental discussion?", STATEMENTS_V41)
    assert answer.answer.startswith("Enligt Dell Technologies"), answer.answer
    assert ", 130:" in answer.answer


def test_a_person_quoted_is_a_name_beside_the_quote_not_the_organisation_asked(catalog):
    answer = _ask(catalog, "who at untether ai is quoted in the mlperf inference v4.1 supplemental discussion?",
                  STATEMENTS_V41)
    assert "Bob Beachler" in answer.answer.split(":")[0], answer.answer


def test_the_document_named_answers_when_it_states_such_a_figure(catalog):
    """Another document's sentence may share more of the question's words; it is not the one asked."""
    blog = _doc("v6.0_amd_vendor-blog.md", 1, "The MI355X has 288 GB of HBM3E memory and 8TB/s of memory bandwidth.",
                source="AMD ROCm Blogs")
    news = _doc("v6.0_pubgpclite_amd-news.md", 0, "The MI355X carries 256GB HBM3E, room for larger models.",
                source="pubgpclite.com")
    answer = _ask(catalog, "how much hbm memory does the mi355x have, according to pubgpclite?", [blog, news])
    assert answer.answer.startswith("According to pubgpclite.com, 256GB:"), answer.answer


def test_an_organisation_said_is_its_own_blog_and_its_section_of_the_discussion(catalog):
    """"what did AMD say": AMD's section of MLCommons' discussion is AMD's own words, as its blog is,
    while a news piece about AMD is not; naming another publisher keeps that publisher's document."""
    heading = _doc("v6.0_mlcommons_supplemental-discussion.pdf", 3, "AMD\n\nAMD is proud of its submission.",
                   source=STATEMENTS, title="MLPerf Inference v6.0 Supplemental Discussion", page=4)
    section = _doc("v6.0_mlcommons_supplemental-discussion.pdf", 4,
                   "Using disaggregated prefill, the MI355X cluster raised throughput by 1.7x over one node.",
                   source=STATEMENTS, title="MLPerf Inference v6.0 Supplemental Discussion", page=4)
    blog = _doc("v6.0_amd_vendor-blog.md", 1, "AMD's first results ever, at up to 20 petaflops of FP4.",
                source="AMD ROCm Blogs")
    news = _doc("v6.0_pubgpclite_amd-news.md", 0, "Disaggregated prefill raised MI355X cluster throughput 2.1x, "
                "the site estimates.", source="pubgpclite.com")
    question = "by how much did amd say disaggregated prefill raised cluster throughput in v6.0?"
    answer = _ask(catalog, question, [heading, section, blog, news])
    assert answer.answer.startswith("According to AMD (MLPerf Inference v6.0 Supplemental Discussion), 1.7x:"), \
        answer.answer
    named = _ask(catalog, question.replace("did amd say", "did pubgpclite say"), [heading, section, blog, news])
    assert named.answer.startswith("According to pubgpclite.com, 2.1x:"), named.answer


def test_a_second_ask_quotes_the_sentence_of_the_same_statement_that_answers_it(catalog):
    """"…, and by how much did software raise H200 performance?": beside the figure's sentence, the
    sentence of the same statement that states the other figure asked; asked once, only the first."""
    nvidia = _doc(V41, 28, "NVIDIA\n\nIn its MLPerf debut, Blackwell delivered up to 4X higher Llama 2 70B "
                           "throughput per GPU than H100. Blackwell also ships with a new Transformer Engine and "
                           "great software. Through software improvements, H200 performance increased by up to 27% "
                           "over the prior round.", rounds=["v4.1"], source=STATEMENTS, page=16,
                  title="MLPerf Inference v4.1 Discussion")
    other = _doc(V41, 9, "Dell Technologies\n\nOur software raised H200 performance by 31% this round.",
                 rounds=["v4.1"], source=STATEMENTS, page=7, title="MLPerf Inference v4.1 Discussion")
    both = _ask(catalog, "in v4.1 how much higher per-gpu llama 2 70b throughput did nvidia say blackwell delivered "
                         "than h100, and by how much did software raise h200 performance over the prior round?",
                [nvidia, other])
    assert both.answer.startswith("According to NVIDIA (MLPerf Inference v4.1 Discussion), "), both.answer
    assert "higher Llama 2 70B throughput per GPU than H100. … Through software improvements, H200 performance " \
        "increased by up to 27%" in both.answer.split("” (")[0], both.answer  # both, in the statement's order
    assert "31%" not in both.answer.split("” (")[0]
    once = _ask(catalog, "in v4.1 how much higher per-gpu llama 2 70b throughput did nvidia say blackwell delivered "
                         "than h100?", [nvidia, other])
    assert " … " not in once.answer.split("” (")[0], once.answer


_BYLINE = _doc("v6.0_blockchain-news_nvidia-news.md", 0,
               "A news piece by Iris Coleman (Apr 01, 2026, 15:38) relays NVIDIA's claims about Blackwell Ultra. "
               "The 2.7x speedup was achieved by partner Nebius, which the article presents as proof of open "
               "software. Practical effect claimed: the cost of producing tokens on existing infrastructure fell "
               "by over 60%.", source="unknown (byline Iris Coleman)")


def test_a_name_the_question_gives_is_not_the_name_asked(catalog):
    """"article by iris coleman: which partner …": the byline is how the user names the article."""
    answer = _ask(catalog, "article by iris coleman on blackwell ultra in mlperf 6.0: which partner pulled off the "
                                    "2.7x speedup?",
                  [_BYLINE])
    assert answer.answer.split(":")[0].endswith("Nebius"), answer.answer


def test_a_month_written_short_is_no_organisation(catalog):
    """"(Apr 01, 2026)": a date, not a company that "Apr" names."""
    from assistant.compose_docs import _asked, _people

    parsed = parse("which partner is named?", catalog)
    sentence = "A news piece (Apr 01, 2026, 15:38) relays claims about a chip."
    assert _people(sentence, _asked("which partner is named?", parsed), _BYLINE, [_BYLINE], "organisation") == []


def test_a_second_ask_finds_its_sentence_by_the_glossarys_words_for_it(catalog):
    """"by how much did token costs drop": the document's "fell by over 60%"."""
    answer = _ask(catalog, "article by iris coleman on blackwell ultra in 6.0: which partner pulled off the 2.7x "
                           "speedup, and by how much did it say token costs dropped?", [_BYLINE])
    assert "60%" in answer.answer.split("” (")[0], answer.answer


@pytest.mark.parametrize("heading, name, wrote", [
    ("Dell Technologies", "Dell", True),  # more words after the name asked
    ("MangoBoost", "Dell_MangoBoost", True),  # a joint submitter is each of its parties
    ("TheStage AI", "The_Stage", True),  # an underscore for a space, and more words after it
    ("University of Florida", "University-of-Florida", True),  # the table's spelling
    ("MLCommons Supplemental Discussion", "supplemental discussion", False),  # not a word prefix
    ("Krai", "MangoBoost", False),
])
def test_who_wrote_a_section_of_the_discussion(heading, name, wrote):
    from assistant.compose_docs import written_by

    top = _doc(V41, 1, f"{heading}\n\nOur statement.", source=STATEMENTS, page=3)
    body = _doc(V41, 2, "We reached 94% scaling.", source=STATEMENTS, page=3)
    assert written_by(body, [top, body], [name]) is wrote


def test_a_figure_is_never_quoted_from_our_own_guide(catalog):
    guide = Passage(id="doc:mlperf-inference.md:0", doc_kind="guide", language="en", title="MLPerf Inference",
                    text="The tables hold 937 result rows for v4.1 and 492 for v6.1.")
    answer = _ask(catalog, "how many results were there in v6.0 according to the mlcommons announcement?", [guide])
    assert answer.status == "no_data" and "937" not in answer.answer


def test_no_sentence_with_such_a_figure_says_so_and_quotes_nothing(catalog):
    passages = [_doc("v6.0_amd_vendor-blog.md", 0, "AMD is proud of its partners and its open software stack.")]
    answer = _ask(catalog, "how many transistors does the mi355x have according to amd's blog?", passages)
    assert answer.status == "no_data" and "“" not in answer.answer


GUIDE = Passage(id="doc:scenarios.md:0", doc_kind="guide", language="en", title="Scenarios",
                text="## Scenario\n\nA scenario is how queries reach the system.\n\n"
                     "## Offline\n\nOffline is the scenario in which all the work arrives at once as one batch.\n\n"
                     "## Interactive\n\nInteractive is the scenario for chat, with a tight time to first token.\n\n"
                     "## Offline versus Interactive results\n\nAn Offline figure is never an Interactive one.")


def test_the_difference_between_two_terms_quotes_each_term_and_the_comparison(catalog):
    from assistant.compose_docs import define_answer

    question = "what is the difference between offline and interactive?"
    answer = define_answer(question, [GUIDE], parse(question, catalog), [])
    assert "Offline is the scenario in which all the work arrives" in answer.answer
    assert "Interactive is the scenario for chat" in answer.answer
    assert "never an Interactive one" in answer.answer


COMPARING_EN = Passage(id="doc:comparing-results.md:0", doc_kind="guide", language="en",
                       title="Comparing results fairly",
                       text="## Same benchmark, scenario and unit\n\nResults are ranked only within one benchmark, "
                            "one scenario and one unit.")
COMPARING_SV = Passage(id="doc:sv/comparing-results.sv.md:0", doc_kind="guide", language="sv",
                       title="Så jämför du resultat rättvist",
                       text="## Same benchmark, scenario and unit\n\nResultat rangordnas bara inom samma benchmark, "
                            "samma scenario och samma enhet.")
SCENARIOS_SV = Passage(id="doc:sv/scenarios.sv.md:0", doc_kind="guide", language="sv", title="Scenarier",
                       text="## Offline\n\nOffline är scenariot där allt arbete kommer på en gång.\n\n"
                            "## Interactive\n\nInteractive är scenariot för chatt med kort tid till första token.")


@pytest.mark.parametrize("question, verdict, rule", [
    ("can i compare offline numbers with interactive numbers?", "Not directly:", "ranked only within one"),
    ("kan man jämföra offline-siffror med interactive-siffror rakt av?", "Inte rakt av:", "rangordnas bara inom"),
])
def test_asked_whether_two_scenarios_compare_the_answer_says_no_and_quotes_the_rule(catalog, question, verdict,
                                                                                     rule):
    from assistant.compose_docs import define_answer

    scenarios = Passage(id="doc:scenarios.md:0", doc_kind="guide", language="en", title="Scenarios",
                        text=GUIDE.text.split("## Offline versus")[0])  # no section compares the two
    answer = define_answer(question, [scenarios, SCENARIOS_SV, COMPARING_EN, COMPARING_SV], parse(question, catalog),
                           [])
    assert answer.answer.startswith(verdict), answer.answer
    assert rule in answer.answer


def test_a_swedish_definition_quotes_the_swedish_twin_of_the_best_section(catalog):
    """The English section may share more of the question's words; the answer is still Swedish."""
    from assistant.compose_docs import define_answer

    question = "vad betyder interactive, chat with a tight time to first token?"
    answer = define_answer(question, [GUIDE, SCENARIOS_SV], parse(question, catalog), [])
    assert "Interactive är scenariot för chatt" in answer.answer and "tight time" not in answer.answer


COLUMNS_GUIDE = Passage(
    id="doc:reading-results.md:0", doc_kind="guide", language="en", title="Reading results",
    text="## Result\n\nA result is one row of the results: a system's figure on one benchmark.\n\n"
         "## Units of results\n\nThe unit of results depends on the benchmark and the scenario.\n\n"
         "## Inferred results\n\nAn inferred result is one that MLPerf lets a submitter calculate from other "
         "results instead of running it.\n\n"
         "## Software and precision columns\n\nThe framework column names the software stack the submitter used, "
         "for example TensorRT or vLLM.\n\n"
         "## Time to first token and time per output token\n\nTime to first token (TTFT) is how long a user waits "
         "for the first word; time per output token (TPOT) is the gap between the words that follow.")


@pytest.mark.parametrize("question, expected", [
    # a rare word of the question ("framework") outweighs a common one ("results") in the heading
    ("what does 'framework' mean in the results, stuff like tensorrt or vllm?", "The framework column"),
    # the words a framing phrase spans are the subject ("what do TTFT and TPOT mean")
    ("what do TTFT and TPOT mean?", "Time to first token (TTFT)"),
])
def test_a_definition_quotes_the_section_about_the_questions_rare_words(catalog, question, expected):
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [COLUMNS_GUIDE], parse(question, catalog), [])
    assert expected in answer.answer, answer.answer


def test_a_unit_asked_about_quotes_the_section_on_units(catalog):
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:units.md:0", doc_kind="guide", language="en", title="Units",
                    text="## bert-99\n\nbert-99 is reported in Samples/s in Offline and Queries/s in Server.\n\n"
                         "## Units of results\n\nThe unit tells what was counted: Samples/s are inputs processed "
                         "per second.")
    question = "samples/s means what exactly"
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert "The unit tells what was counted" in answer.answer, answer.answer


def test_results_is_not_the_subject_when_the_question_names_something_else(catalog):
    from assistant.compose_docs import define_answer

    units = Passage(id="doc:units.md:0", doc_kind="guide", language="en", title="Units",
                    text="## Inferred results\n\nAn inferred result is a submission's result calculated from "
                         "another scenario.\n\n## Watts\n\nWatts are the unit of power: what the system drew.")
    question = "vissa resultat har watt, vad mäter det egentligen"
    answer = define_answer(question, [units], parse(question, catalog), [])
    assert "Watts are the unit" in answer.answer, answer.answer


@pytest.mark.parametrize("question, figure", [
    ("samples/s means what exactly", None),  # a unit word alone asks what it is
    ("why is latency a result? is a small number good or bad", None),
    ("according to nvidia, what tokens/s did the b200 reach in v6.0?", "tokens"),
    ("how many tokens/s did the b200 reach in v6.0, per the amd blog?", "tokens"),
    ("what throughput gains did amd report from pruning in v5.1?", "ratio"),  # plural: "gains"
    ("which improvements did nvidia claim from its new software in v6.0?", "ratio"),
    ("which oems did amd say submitted results on its gpus in v6.0?", "organisation"),  # names asked
    ("vilka partner nämnde amd i v6.0?", "organisation"),
])
def test_a_figure_is_asked_only_when_a_number_is(catalog, question, figure):
    assert asked_figure(parse(question, catalog)) == figure


ROUNDS_GUIDE = Passage(
    id="doc:mlperf-inference.md:0", doc_kind="guide", language="en", title="MLPerf Inference",
    text="## MLPerf Inference\n\nMLPerf Inference is a benchmark suite that MLCommons runs.\n\n"
         "## MLCommons\n\nMLCommons is the industry consortium that owns the MLPerf name.\n\n"
         "## Submitter\n\nThe submitter is the organisation or company that ran a result, often not NVIDIA.\n\n"
         "## Round cadence\n\nMLPerf rounds take place twice a year, so results appear about every six months.\n\n"
         "## Verified result\n\nA verified MLPerf result went through MLCommons review before it was published.\n\n"
         "## Latency\n\nIn MLPerf, latency is the time a system takes to answer one request.\n\n"
         "## Time to first token and time per output token\n\nTime per output token (TPOT) is the gap between "
         "the tokens that follow the first.")
ROUNDS_GUIDE_SV = Passage(
    id="doc:sv/mlperf-inference.sv.md:0", doc_kind="guide", language="sv", title="MLPerf Inference",
    text="## MLPerf Inference\n\nMLPerf Inference är en samling prestandatest som MLCommons driver.\n\n"
         "## MLCommons\n\nMLCommons är det branschkonsortium som äger namnet MLPerf.\n\n"
         "## Submitter\n\nInlämnaren är den organisation eller det företag som körde ett resultat, ofta inte NVIDIA.\n\n"
         "## Round cadence\n\nMLPerf-omgångarna hålls två gånger om året, ungefär var sjätte månad.\n\n"
         "## Verified result\n\nEtt verifierat resultat har gått igenom MLCommons granskning.\n\n"
         "## Latency\n\nI MLPerf är latens den tid det tar att besvara en förfrågan.\n\n"
         "## Time to first token and time per output token\n\nTid per utdatatoken (TPOT) är mellanrummet "
         "mellan varje token som följer.")


@pytest.mark.parametrize("question, expected", [
    ("how often are there new mlperf results?", "twice a year"),
    ("hur ofta kommer det nya mlperf-resultat?", "två gånger om året"),  # a topic cue names the section
    ("vad är tpot för nåt", "mellanrummet"),  # the word typed, not its tag's other words ("latency")
    ("who actually runs mlperf? is it nvidia", "industry consortium"),  # "who runs mlperf" names MLCommons
    ("vem är det som håller i mlperf egentligen? är det nvidia", "branschkonsortium"),  # no submitter from "vem"
    ("who checks the results? couldn't nvidia just make up numbers", "went through MLCommons review"),
    ("vem granskar resultaten? kan inte nvidia bara hitta på siffror", "MLCommons granskning"),
])
def test_a_definition_follows_the_words_that_name_its_topic(catalog, question, expected):
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [ROUNDS_GUIDE, ROUNDS_GUIDE_SV], parse(question, catalog), [])
    assert expected in answer.answer, answer.answer


def test_a_later_sentence_of_the_entry_answers_the_rest_of_the_question(catalog):
    from assistant.compose_docs import define_answer

    entry = Passage(id="doc:benchmarks.md:0", doc_kind="guide", language="en", title="Benchmarks",
                    text="## gpt-oss-120b\n\ngpt-oss-120b is a language-model benchmark. It reports Tokens/s. "
                         "It has an Offline scenario. Its quality target is 99 percent. Its dataset is a set of questions. "
                         "It was retired when llama2-70b-99.9 replaced it in v6.1.\n\n"
                         "## Offline\n\nOffline sends all the work at once. It reports throughput.")
    asked = define_answer("what is gpt-oss-120b and what replaced it?", [entry],
                          parse("what is gpt-oss-120b and what replaced it?", catalog), [])
    assert "language-model benchmark" in asked.answer and "… It was retired" in asked.answer, asked.answer
    plain = define_answer("what is gpt-oss-120b", [entry], parse("what is gpt-oss-120b", catalog), [])
    assert "retired" not in plain.answer  # only a word of the question pulls in a later sentence


@pytest.mark.parametrize("question, lead", [
    ("lambda in 5.1: how much higher throughput on llama 3.1-405b than the round before, according to them?",
     "According to MLCommons, 15%"),
    ("lambda i 5.1: hur mycket högre genomströmning på llama 3.1-405b än förra rundan, enligt dem?",
     "Enligt MLCommons, 15%"),
])
def test_a_statement_whose_heading_was_not_retrieved_stays_the_documents(question, lead):
    """The chunk of Lambda's page that states the figure, without the page's heading: it names
    Lambda, but a name in a chunk is no author, so the claim stays the document's; "Llama 2-70B"
    is a model's name, never the figure, and "how much higher" asks a ratio."""
    from assistant.compose_docs import figure_answer

    catalog = Catalog.from_table(small_table([("v5.1", 510, "llama3.1-405b", "Offline", "Tokens/s", "Lambda", "B200",
                                               "NVIDIA")]))
    chunk = _doc("v5.1_mlcommons_supplemental-discussion.pdf", 21,
                 "Our benchmarks on Llama 2-70B and Llama 3.1-405B ran on a Lambda Cloud cluster. We observed gains "
                 "over the previous round, up to 15% higher for Llama 3.1-405B.", rounds=["v5.1"], source=STATEMENTS,
                 title="MLPerf Inference v5.1 Supplemental Discussion", page=12)
    parsed = parse(question, catalog)
    answer = figure_answer(question, [chunk], parsed, asked_figure(parsed))
    assert answer.answer.startswith(lead), answer.answer


@pytest.mark.parametrize("question, expected", [
    ("which scenario is the one for a batch of work arriving at once?", "Offline is the scenario"),
    ("vilket scenario är det för en batch av arbete som kommer på en gång?", "Offline is the scenario"),
])
def test_which_scenario_fits_a_description_is_answered_by_a_scenarios_own_section(catalog, question, expected):
    """The general "Scenario" section shares "scenario" and more; the kind asked names no section."""
    from assistant.compose_docs import asked_kind, define_answer

    parsed = parse(question, catalog)
    assert parsed.intent == "define" and asked_kind(parsed) == "scenario"
    answer = define_answer(question, [GUIDE], parsed, [], choices=["Offline", "Server", "Interactive"])
    assert expected in answer.answer, answer.answer


UNITS_GUIDE = Passage(
    id="doc:systems.md:0", doc_kind="guide", language="en", title="Systems",
    text="## MLPerf Inference\n\nMLPerf Inference is a benchmark suite that MLCommons runs.\n\n"
         "## System under test\n\nThe system under test is the computer a test measures, a company's machine.\n\n"
         "## Watts\n\nWatts are the unit of power results, the average power a system drew.\n\n"
         "## Millijoules\n\nMillijoules are the unit of energy per query for edge power results.\n\n"
         "## Direction of better\n\nWhether a bigger number is better depends on the unit: lower is better for "
         "latency.\n\n"
         "## llama2-70b-99.9\n\nllama2-70b-99.9 is the high-accuracy Llama 2 70B benchmark, in Tokens/s.")


@pytest.mark.parametrize("question, expected", [
    ("ok dumb question but what even is mlperf? a company, a test, a ranking site?", ["benchmark suite"]),
    ("some rows are in watts and others in millijoules?? what are those", ["average power", "energy per query"]),
    ("llama2-70b-99.9 is in tokens/s.. so higher is better there?", ["depends on the unit"]),
    ("är lägre bättre för latens?", ["depends on the unit"]),
])
def test_a_definition_finds_the_entry_its_words_name(catalog, question, expected):
    """The word after "what even is"; two entries named by their headings; a topic ("is smaller
    better") over the benchmark it was seen on."""
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [UNITS_GUIDE], parse(question, catalog), [])
    assert all(e in answer.answer for e in expected), answer.answer


def test_lining_up_two_units_says_they_are_never_compared(catalog):
    from assistant.compose_docs import define_answer

    question = "can i just line up llama2-70b-99.9 tokens/s against samples/s to see which gpu is best?"
    answer = define_answer(question, [UNITS_GUIDE], parse(question, catalog), [])
    assert answer.answer.startswith("Not directly: results in different units"), answer.answer


@pytest.mark.parametrize("question, lead", [
    ("is llama2-70b-99.9 better than llama2-70b-99?", "Not directly: different benchmarks"),
    ("är llama2-70b-99.9 bättre än llama2-70b-99?", "Inte rakt av: olika benchmarks"),
])
def test_which_of_two_benchmarks_is_better_says_they_are_never_ranked(question, lead):
    from assistant.compose_docs import define_answer

    both = Catalog.from_table(small_table([("v6.0", 600, b, "Offline", "Tokens/s", "AMD", "MI355X", "AMD")
                                           for b in ("llama2-70b-99", "llama2-70b-99.9")]))
    answer = define_answer(question, [UNITS_GUIDE], parse(question, both), [])
    assert answer.answer.startswith(lead), answer.answer


@pytest.mark.parametrize("question, expected", [
    ("what does scenario mean?", "A scenario is how queries reach the system"),  # the kind itself, no "which"
    ("how does mlcommons define the offline scenario", "Offline is the scenario"),  # a name, not the organiser
])
def test_a_kind_or_a_publisher_named_in_a_definition_keeps_its_own_entry(catalog, question, expected):
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [GUIDE, ROUNDS_GUIDE], parse(question, catalog), [])
    assert expected in answer.answer, answer.answer


@pytest.mark.parametrize("question", ["what is mlperf endpoints?", "vad är mlperf endpoints för nåt?"])
def test_a_term_no_guide_section_names_gets_no_entry_and_the_documents_that_name_it(catalog, question):
    """The nearest section ("Offline") would answer another question; a document naming the term
    may answer it, and one that does not name it is never quoted."""
    from assistant.compose_docs import define_answer, on_asked_term

    parsed = parse(question, catalog)
    parsed.intent = "define"
    assert define_answer(question, [GUIDE], parsed, []).status == "no_data"
    naming = _doc("v6.1_studio-global_analysis-sv.md", 0, "MLCommons previewed MLPerf Endpoints as a direction.")
    other = _doc("v6.0_amd_vendor-blog.md", 0, "AMD is proud of its partners and its open software stack.")
    assert on_asked_term(parsed, [naming, other, GUIDE]) == [naming]


def test_a_term_the_guide_names_is_defined_from_it(catalog):
    from assistant.compose_docs import define_answer

    answer = define_answer("what is offline?", [GUIDE], parse("what is offline?", catalog), [])
    assert answer.status == "answered" and "all the work arrives at once" in answer.answer


def test_a_small_count_written_as_a_word_is_a_figure(catalog):
    """Documents write small counts in words ("nine OEMs", "tre servrar"); "one of" is no count."""
    passages = [_doc("official/v6.0_mlcommons_supplemental-discussion.pdf", 0,
                     "AMD saw strong ecosystem momentum, with nine OEMs submitting results on AMD Instinct platforms. "
                     "One of the results used a new liquid-cooled rack.")]
    answer = _ask(catalog, "how many OEMs submitted on amd gpus in v6.0 according to the supplemental discussion?",
                  passages)
    assert answer.status == "answered" and "nine" in answer.answer.split("“")[0], answer.answer





def test_one_rare_word_of_the_second_ask_finds_its_sentence(catalog):
    """"how many transistors …, and within what +/- % …": beside the tolerance, the only sentence of
    the article that says "transistors", though it shares no second word with the ask."""
    passages = [_doc("v6.0_pubgpclite_amd-news.md", 0,
                     "3nm process, CDNA 4 architecture, 185 billion transistors. The article says 1 million "
                     "tokens per second was passed. Partners reproduced AMD's scores within +/-4%.")]
    answer = _ask(catalog, "pubgpclite article: how many transistors does the mi355x have, and within what +/- % "
                           "did partners reproduce amd's scores?", passages)
    assert "4%" in answer.answer.split("“")[0] and "185 billion transistors" in answer.answer, answer.answer
    assert "1 million" not in answer.answer  # "article" names the document, not what a sentence states


def test_two_units_side_by_side_are_a_question_about_units(catalog):
    """"tokens per second vs samples per second, why …": the entry on units, not the entry whose
    heading names one of the two."""
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:scenarios.md:1", doc_kind="guide", language="en", title="Scenarios",
                    text="## Tokens per second\n\nTokens per second is the throughput unit of language models.\n\n"
                         "## Units of results\n\nA unit tells what was counted: tokens per second for language "
                         "models, samples per second for images.\n\n"
                         "## Scenario\n\nA scenario is how queries reach the system.")
    question = "tokens per second vs samples per second, why do some results use one and some the other?"
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert "A unit tells what was counted" in answer.answer, answer.answer
    one = define_answer("what is tokens per second?", [guide], parse("what is tokens per second?", catalog), [])
    assert "throughput unit of language models" in one.answer, one.answer



def test_a_statement_headed_with_two_names_is_written_by_either():
    """"GIGABYTE (Giga Computing)": the results name the submitter GigaComputing."""
    from assistant.compose_docs import written_by

    p = Passage(id="doc:v4.1_mlcommons_supplemental-discussion.pdf:13", title="Discussion", page=9,
                source="MLCommons (statements written by the submitters)",
                text="GIGABYTE (Giga Computing)\n\nThe MLPerf results show our H200 servers.")
    assert written_by(p, [p], ["GigaComputing"]) and written_by(p, [p], ["Gigabyte"])
    assert not written_by(p, [p], ["Lenovo"])


@pytest.mark.parametrize("question, first, second", [
    ("how often are there new mlperf results, and who runs mlperf?", "twice a year", "industry consortium"),
    ("hur ofta kommer det nya mlperf-resultat, och vem står bakom mlperf?", "två gånger om året", "branschkonsortium"),
])
def test_two_topics_asked_get_an_entry_each(catalog, question, first, second):
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [ROUNDS_GUIDE, ROUNDS_GUIDE_SV], parse(question, catalog), [])
    assert first in answer.answer and second in answer.answer, answer.answer
    one = define_answer("how often are there new mlperf results?", [ROUNDS_GUIDE],
                        parse("how often are there new mlperf results?", catalog), [])
    assert "industry consortium" not in one.answer


# (document, its text, question, the figure the answer must lead with): the sentence that states
# the figure asked is found however the question words it.
LEADS = [
    # "configs" is "configurations" clipped; the remark's words ("called it a milestone") tie nothing
    ("official/v6.0_mlcommons_supplemental-discussion.pdf",
     "HPE called this round a milestone, with more than 600 results since v1.0. "
     "The submission spanned 14 configurations of ProLiant servers.",
     "how many configs did hpe have in v6.0? they called it a milestone", "14"),
    # Swedish words find the English sentence through the glossary ("fyranodskluster": four-node cluster)
    ("v5.1_itbrief_amd-news.md",
     "MI355X in FP4 gave 2.7-fold the tokens per second of MI325X in FP8. A four-node MI355X cluster "
     "delivered 3.4-fold the token throughput of a four-node cluster of the previous generation.",
     "hur mycket mer tokengenomströmning gav ett fyranodskluster jämfört med förra generationen, enligt amd?",
     "3.4"),
    # "within what +/- %": the tolerance is the figure asked
    ("v6.0_pubgpclite_amd-news.md",
     "The MI355X matched the B200 at 100% on Llama 2 70B Offline. "
     "Partners reproduced AMD's scores within +/-4%, across four Instinct generations.",
     "within what +/- % did partners reproduce amd's scores, per pubgpclite?", "4%"),
    # the noun "how many" counts is a word the sentence must say, not the article's reading time
    ("v5.1_explainer_analysis.md",
     "An explainer explains how to read the v5.1 results (reading time: about 11 minutes). 27 submitters took part.",
     "how many submitters were in mlperf inference 5.1 per that explainer article", "27"),
]


@pytest.mark.parametrize("doc, text, question, lead", LEADS, ids=[c[3] for c in LEADS])
def test_the_figure_asked_leads_however_the_question_words_it(catalog, doc, text, question, lead):
    answer = _ask(catalog, question, [_doc(doc, 0, text, rounds=[re.search(r"v\d\.\d", doc).group()])])
    assert answer.status == "answered" and lead in re.split("[“”]", answer.answer)[0], answer.answer


@pytest.mark.parametrize("question", [
    "which organisations submitted to mlperf inference for the first time in v6.0, according to amd?",
    "vilka organisationer skickade in för första gången i v6.0, enligt amd?",
])
def test_organisations_asked_are_the_names_a_sentence_gives(catalog, question):
    """"which organisations …": a single-word name ("Inventec") is an organisation too, the first
    word of a sentence or a label before ":" is none, and what they did ("submitted for the first
    time") is the subject the sentence must share, not a frame."""
    blog = _doc("v6.0_amd_vendor-blog.md", 2,
                "24 organisations submitted, three of them for the first time. Shopify built the catalogue "
                "test. First-time submitters: Inventec, Netweb Technologies India and Stevens Institute of "
                "Technology.", source="AMD ROCm Blogs")
    answer = _ask(catalog, question, [blog])
    assert answer.answer.startswith(("According to AMD", "Enligt AMD")) and "Inventec, Netweb" in answer.answer, \
        answer.answer
    assert "Shopify" not in answer.answer and "24 organisations" not in answer.answer


RESULTS = _doc("v6.0_pubgpclite_amd-news.md", 3,
               "AMD says the MI355X is its fastest part yet, with 288 GB of memory. One MI355X node reached 648k "
               "tok/s on Llama 2 70B Offline, and on Qwen3-VL it served 79 samples/sec. Four Trillium chips "
               "delivered 4.49 server queries/second.",
               source="pubgpclite.com (aggregator; restates AMD's claims)")


@pytest.mark.parametrize("question, figure", [
    # a wh-word that asks for a result's value: its figure in a result's unit, not the memory's
    ("what throughput did amd say one mi355x node reached on llama 2 70b offline in v6.0?", "648k tok/s"),
    ("what score did the mi355x get on qwen3-vl according to pubgpclite?", "79 samples/sec"),
    ("vilken poäng fick mi355x på qwen3-vl enligt pubgpclite?", "79 samples/sec"),
    # the scenario between the number and its unit, the unit spelled out
    ("what throughput did four trillium chips deliver, according to pubgpclite?", "4.49 server queries/second"),
])
def test_a_result_asked_for_is_a_figure_in_a_results_unit(catalog, question, figure):
    assert asked_figure(parse(question, catalog)) == "result"
    assert figure + ":" in _ask(catalog, question, [RESULTS]).answer


@pytest.mark.parametrize("question", [
    "on which two benchmarks did amd post its first-ever results in v6.0, according to its blog?",
    "which cloud provider does the swedish article credit with leading results on b200?",
])
def test_results_named_after_another_noun_ask_for_that_noun(catalog, question):
    assert asked_figure(parse(question, catalog)) != "result"


HPE_CHIPS = _doc("v6.0_mlcommons_supplemental-discussion.pdf", 15,
                 "HPE\n\nThis round HPE ProLiant Compute servers ran with NVIDIA B200 and H200 GPUs, and the results "
                 "showed strong scaling across 14 configurations.",
                 source=STATEMENTS, title="MLPerf Inference v6.0 Supplemental Discussion", page=10)
AMD_CHIPS = _doc("v6.0_amd_vendor-blog.md", 2, "AMD's partners ran the MI355X, and HPE praised the B200 in a panel.",
                 source="AMD ROCm Blogs")


@pytest.mark.parametrize("question", [
    "which gpus did hpe use in v6.0, according to its statement?",
    "hpe was in 6.0 again - which gpus did they run in their own statement?",  # a wh-word inside
    "vilka gpuer körde hpe i v6.0 enligt sitt eget uttalande?",
])
def test_the_names_of_a_column_asked_lead_from_the_askers_own_sentence(catalog, question):
    parsed = parse(question, catalog)
    assert asked_figure(parsed) == "accelerator_family"
    answer = figure_answer(question, [AMD_CHIPS, HPE_CHIPS], parsed, "accelerator_family", catalog=catalog)
    assert re.search(r"HPE \(MLPerf Inference v6.0 Supplemental Discussion\), B200, H200: ", answer.answer), \
        answer.answer


def test_a_column_asked_that_no_sentence_names_is_no_figure(catalog):
    question = "which gpus did hpe use in v6.0, according to its statement?"
    answer = figure_answer(question, [HPE], parse(question, catalog), "accelerator_family", catalog=catalog)
    assert answer.status == "no_data"


def test_what_a_term_is_asks_no_names(catalog):
    assert asked_figure(parse("the article has a line about what a benchmark really is, what does it say?",
                              catalog)) is None


def test_a_compound_word_and_a_month_are_no_organisations(catalog):
    """"an AI-generated piece … on April 1": neither "AI" nor "April" is a company that took part;
    nor does the publisher's own name in its summary line make that line the answer."""
    news = [_doc("v6.0_pubgpclite_amd-news.md", 4, "pubgpclite.com (an AI-generated piece) says which companies "
                 "took part in v6.0, on April 1.", source="pubgpclite.com (aggregator; restates AMD's claims)"),
            _doc("v6.0_pubgpclite_amd-news.md", 5, "Companies taking part included Lenovo this time.",
                 source="pubgpclite.com (aggregator; restates AMD's claims)")]
    answer = _ask(catalog, "which companies took part in v6.0, according to pubgpclite?", news)
    assert answer.answer.startswith("According to pubgpclite.com, Lenovo:"), answer.answer


@pytest.mark.parametrize("question", [
    "who skipped v6.0 according to pubgpclite?",
    "which vendors stayed out of v6.0, according to pubgpclite?",
    "vilka företag hoppade över v6.0 enligt pubgpclite?",
])
def test_a_question_in_other_words_finds_the_sentence_that_answers(catalog, question):
    """"skipped", "stayed out", "hoppade över": the document says "Absentees"."""
    news = [_doc("v6.0_pubgpclite_amd-news.md", 6, "NVIDIA claimed records with Blackwell Ultra systems of 288 GPUs.",
                 source="pubgpclite.com (aggregator; restates AMD's claims)"),
            _doc("v6.0_pubgpclite_amd-news.md", 7, "Absentees: Google sent no results, and inference specialists "
                 "such as Cerebras did not take part.", source="pubgpclite.com (aggregator; restates AMD's claims)")]
    answer = _ask(catalog, question, news)
    assert "Google" in answer.answer.split(":")[0], answer.answer


def test_two_benchmarks_compared_each_get_their_own_entry():
    """"wan-2.2 vs qwen3-vl: aren't both 'vision' benchmarks? what's the difference": qwen3-vl's two
    heading words outweighed wan's one, so its entry was chosen for both; for each term, the other
    term's words now count for nothing."""
    from assistant.compose_docs import define_answer

    catalog = Catalog.from_table(small_table([
        ("v6.1", 610, "wan-2.2-t2v-a14b", "Offline", "Samples/s", "NVIDIA", "B300", "NVIDIA"),
        ("v6.1", 610, "qwen3-vl-235b-a22b", "Offline", "Samples/s", "NVIDIA", "B300", "NVIDIA")]))
    filler = "".join(f"## Entry {i}\n\nEntry {i} is about something else.\n\n" for i in range(150))  # a guide's size
    guide = Passage(id="doc:benchmarks.md:16", doc_kind="guide", language="en", title="Benchmarks",
                    text=filler + "## qwen3-vl-235b-a22b\n\nqwen3-vl-235b-a22b is the vision-language benchmark, in "
                                  "which Qwen3-VL reads product pictures.\n\n"
                                  "## wan-2.2-t2v-a14b\n\nwan-2.2-t2v-a14b is the text-to-video benchmark.")
    question = "wan-2.2 vs qwen3-vl: aren't both of them 'vision' benchmarks? what's the difference"
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert "the text-to-video benchmark" in answer.answer and "vision-language benchmark" in answer.answer, \
        answer.answer


@pytest.mark.parametrize("question", ["ttft?? keeps showin up next to the llama 2 numbers",
                                      "ttft?? den dyker upp bredvid llama 2-siffrorna"])
def test_where_a_term_was_seen_does_not_choose_its_entry(catalog, question):
    """"ttft?? keeps showing up next to the llama 2 numbers": the remark says where TTFT was seen;
    the benchmark's entry, which its words name, is not what is asked."""
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:benchmarks.md:3", doc_kind="guide", language="en", title="Guide",
                    text="## llama2-70b-99.9\n\nllama2-70b-99.9 is the Llama 2 70B benchmark, whose numbers are in "
                         "tokens per second.\n\n"
                         "## Time to first token (TTFT)\n\nTime to first token (TTFT) is how long a user waits "
                         "before the answer starts.")
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert answer.answer[1:].startswith("Time to first token"), answer.answer  # after “ or ”


@pytest.mark.parametrize("asked,expected", [("samples", "3.1x"), ("queries", "2.9x")])
def test_respectively_maps_each_figure_to_its_item(asked, expected):
    """"a 3.1x and 2.9x improvement for samples/second and queries/second, respectively": the
    figure of the item the question names, not the one standing closest to its word."""
    from assistant.compose import stem as _stem
    from assistant.compose_docs import FIGURES, _nearest

    sentence = ("Trillium delivered a 3.1x and 2.9x throughput improvement for samples/second and "
                "queries/second, respectively, compared to its predecessor.")
    matches = list(FIGURES["ratio"].finditer(sentence))
    assert [m.group(0).strip() for m in matches] == ["3.1x", "2.9x"]
    match, _ = _nearest(sentence, matches, {_stem(asked): 1.0, _stem("second"): 1.0})
    assert match.group(0).strip() == expected


_FOUR_FIGURES = ("(Four TPU v5e chips delivered 1.75 offline samples/second and 1.55 server queries/second, while "
                 "four Trillium chips delivered 5.44 offline samples/second and 4.49 server queries/second).")


def test_a_scenario_between_figure_and_unit_is_part_of_the_figure():
    """"5.44 offline samples/second" is a samples figure, scenario and all."""
    from assistant.compose_docs import FIGURES

    assert [m.group(0) for m in FIGURES["samples"].finditer(_FOUR_FIGURES)] == [
        "1.75 offline samples/s", "1.55 server queries/s", "5.44 offline samples/s", "4.49 server queries/s"]


def test_tps_is_a_tokens_figure():
    """"87,334 TPS on 3 servers": tokens per second, as the statements abbreviate it."""
    from assistant.compose_docs import FIGURES

    sentence = "achieving 58,617 TPS on 2 servers and 87,334 TPS on 3 servers"
    for kind in ("tokens", "result"):
        assert [m.group(0) for m in FIGURES[kind].finditer(sentence)] == ["58,617 TPS", "87,334 TPS"], kind


@pytest.mark.parametrize("asked, expected", [("three", "87,334"), ("two", "58,617"), ("tre", "87,334")])
def test_a_number_word_asked_finds_the_digit_beside_a_figure(asked, expected):
    """"what did they get on three servers": the figure "on 3 servers", not the one on 2."""
    from assistant.compose import stem as _stem
    from assistant.compose_docs import FIGURES, _nearest

    sentence = "achieving 58,617 TPS on 2 servers and 87,334 TPS on 3 servers"
    match, _ = _nearest(sentence, list(FIGURES["tokens"].finditer(sentence)), {_stem(asked): 1.0, "server": 1.0})
    assert match.group(0).startswith(expected)


@pytest.mark.parametrize("asked, expected", [(("four", "offline", "samples"), "5.44"),
                                             (("server", "queries"), "1.55")])
def test_the_figure_whose_own_words_are_asked_wins(asked, expected):
    """Offline samples asked of four chips: the figure that says "offline samples", not the one a
    word "four" happens to follow."""
    from assistant.compose import stem as _stem
    from assistant.compose_docs import FIGURES, _nearest

    matches = list(FIGURES["samples"].finditer(_FOUR_FIGURES))
    match, _ = _nearest(_FOUR_FIGURES, matches, {_stem(w): 1.0 for w in asked})
    assert match.group(0).startswith(expected)


@pytest.mark.parametrize("question", [
    "Besides closed and open I read somewhere that MLPerf also had a 'network' division. what is that one about?",
    "förutom closed och open läste jag att det finns en 'network'-division. vad handlar den om?"])
def test_the_terms_a_question_leaves_out_choose_no_entry(catalog, question):
    """"besides closed and open …": those two are what the user already knows; the entry on the
    network division answers, not the one comparing closed and open."""
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:divisions.md:1", doc_kind="guide", language="en", title="Guide",
                    text="## Closed versus open\n\nClosed and open division results differ: the closed division "
                         "runs the same model, the open division may change it.\n\n## Network division\n\nThe "
                         "network division sends requests over the network to the system.")
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert answer.answer[1:].startswith("The network division"), answer.answer


@pytest.mark.parametrize("text, names", [
    ("Intel® Arc™ Pro B-Series GPUs led the round", []),
    ("said Anil Nanduri, VP of Intel", ["Anil Nanduri"]),
    ("Jean-Luc Picard and Kearney O'Neil commented", ["Jean-Luc Picard", "Kearney O'Neil"]),
    ("Yide Ran and Zhaozhuo Xu from Stevens Institute of Technology", ["Yide Ran", "Zhaozhuo Xu",
                                                                       "Stevens Institute of Technology"]),
])
def test_a_persons_name_is_capitalised_words_of_letters(text, names):
    """A product's letter before a hyphen ("Pro B-Series") is no name ("Pro B-" was quoted as the
    person asked for); hyphens and apostrophes inside a name stay."""
    from assistant.compose_docs import FIGURES

    assert [m.group() for m in FIGURES["person"].finditer(text)] == names


# (the organisation's own statement, whose capitals name nobody; a news piece quoting a person):
# two capitalised words are a person only with a speaking or role word near, and "by" is one only
# for an author, never in "varies by use" or "powered by Managed Lustre"
UNSPOKEN = [
    ("who at dell was quoted about the h200 servers in v4.1?",
     _doc(V41, 9, "Dell Technologies\n\nNotices & Disclaimers Performance varies by use, configuration and other "
                  "factors.", rounds=["v4.1"], source=STATEMENTS, page=7, title="MLPerf Inference v4.1"),
     _doc("v4.1_example_dell-news.md", 0, "Jane Smith, Dell's CTO, said the H200 servers led in v4.1.",
          rounds=["v4.1"], source="Example News"), "Jane Smith"),
    ("who at hpe is quoted about the v6.0 results?",
     _doc("v6.0_mlcommons_supplemental-discussion.pdf", 9, "HPE\n\nThe cluster pairs RDMA networking with "
          "high-performance storage solutions powered by Managed Lustre.", source=STATEMENTS, page=7,
          title="MLPerf Inference v6.0 Supplemental Discussion"),
     _doc("v6.0_example_hpe-news.md", 0, "\"A record round,\" said Peter Salanki, CTO at HPE.", source="Example News"),
     "Peter Salanki"),
]


@pytest.mark.parametrize("question, own, news, person", UNSPOKEN, ids=[c[3] for c in UNSPOKEN])
def test_a_person_asked_is_a_name_someone_speaks_as_not_capitalised_words(catalog, question, own, news, person):
    """"who at dell was quoted": the organisation's own statement names nobody, so the news piece
    quoting its executive answers."""
    answer = _ask(catalog, question, [own, news])
    assert answer.answer.startswith(f"According to Example News, {person}:"), answer.answer


@pytest.mark.parametrize("question, asks_person", [
    ("there was an individual submitter in 5.1 who ran on a macbook. which onnx version did he use?", False),
    ("a single person who submitted to 5.1 on a laptop?? what machine was that", False),
    ("who at dell was quoted? and what did he say?", True),
])
def test_who_in_a_sentence_before_the_question_describes_and_asks_no_person(catalog, question, asks_person):
    """"a submitter who ran …": a relative "who" sets the scene; only one that opens its sentence asks."""
    assert (asked_figure(parse(question, catalog)) == "person") is asks_person


def test_the_name_asked_for_is_the_sentence_that_gives_it(catalog):
    """"whats the name of the optimisation tool": the sentence naming it ("ANNA (Automated …)") comes
    shortly after the one about optimisation (spelled "optimization"), without the word "tool"."""
    from assistant.compose import compose_commentary

    page = _doc("v5.1_mlcommons_supplemental-discussion.pdf", 40,
                "TheStage AI\n\nWe build tools that make neural networks run faster. Our focus is simple – automate "
                "the hard parts of optimization so models reach production in hours. From generative AI to vision "
                "systems, we work where speed and quality meet.\n\nTo make this practical, we developed ANNA "
                "(Automated Neural Networks Accelerator). In this MLPerf Inference v5.1 submission, we used Stable "
                "Diffusion XL, a text-to-image model, for data centers.", rounds=["v5.1"], source=STATEMENTS)
    for question in ("whats the name of the optimisation tool TheStage AI used with stable diffusion xl in 5.1?",
                     "TheStage AI ran stable diffusion xl in 5.1, whats the name of the optimisation tool they used?"):
        answer = compose_commentary(question, [page], parse(question, catalog))
        assert "ANNA" in answer.answer, answer.answer


@pytest.mark.parametrize("question, term, organiser", [
    ("whats mlperf and who is behind it", "benchmark suite", "industry consortium"),
    ("what is mlperf inference and who runs it?", "benchmark suite", "industry consortium"),
    ("vad är mlperf egentligen och vem står bakom det?", "samling prestandatest", "branschkonsortium"),
    ("wtf is MLPerf? who actually runs it, or is it just an nvidia marketing thing?", "benchmark suite",
     "industry consortium"),
])
def test_a_term_and_who_runs_it_get_the_terms_entry_and_the_organisers(catalog, question, term, organiser):
    """"who is behind it" after a term asks its organiser (the MLCommons entry) as well as the term."""
    from assistant.compose_docs import define_answer

    answer = define_answer(question, [ROUNDS_GUIDE, ROUNDS_GUIDE_SV], parse(question, catalog), [])
    assert term in answer.answer and organiser in answer.answer, answer.answer


def test_an_entry_whose_heading_begins_the_chosen_ones_answers_when_its_extra_words_are_not_asked(catalog):
    """"every result has an id like '6.0-0001'": the example is in the formats entry's text, but
    the question asks what a result ID is; "what do the result id formats look like" asks the other."""
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:reading-results.md:0", doc_kind="guide", language="en", title="Reading results",
                    text="## Result ID\n\nA result ID is the identifier MLCommons gives to one system's entry.\n\n"
                         "## Result ID formats in this data\n\nIDs look different per round: v6.0 IDs have the form "
                         "6.0-0001 and v4.1 IDs the form v4.1-0001.")
    for question, opening in (("every result has an id like '6.0-0001' - what is that id for?", "A result ID is"),
                              ("what do the result id formats look like?", "IDs look different")):
        answer = define_answer(question, [guide], parse(question, catalog), [])
        assert answer.answer[1:].startswith(opening), answer.answer


@pytest.mark.parametrize("question", [
    "dell had a quote from their cto in the v4.1 supplemental discussion, whats his name?",
    "dell citerade sin cto i v4.1 supplemental discussion, vad heter han?",
])
def test_his_name_asks_for_the_person_not_the_company_after_the_role(catalog, question):
    """"whats his name" asks for a person; in "Dr Daniel Kearney, CTO of Firmus Technologies" the
    name after "CTO of" is the company the person is with."""
    statement = _doc(V41, 9, "Dell Technologies\n\nDr Daniel Kearney, CTO of Firmus Technologies: \"Our first "
                             "MLPerf Inference results affirm our cloud.\"", rounds=["v4.1"], source=STATEMENTS,
                     page=7, title="MLPerf Inference v4.1 Discussion")
    parsed = parse(question, catalog)
    assert asked_figure(parsed) == "person", question
    answer = figure_answer(question, [statement], parsed, "person")
    assert answer.answer.split(":")[0].endswith("Dr Daniel Kearney"), answer.answer


def test_the_thing_a_source_is_said_to_mention_is_the_noun_asked(catalog):
    """"the article mentions a nickname people use for mlperf, what is it?": "it" is the nickname,
    so the sentence with "nicknamed" is quoted, not the article's summary of MLPerf."""
    from assistant.compose import compose_commentary

    article = _doc("v5.1_ieee-spectrum_news.md", 0,
                   "IEEE Spectrum covers MLPerf Inference v5.1, where NVIDIA led the MLPerf field. The MLPerf "
                   "results came from many companies. MLPerf (run twice a year and sometimes nicknamed \"the "
                   "Olympics of AI\") added three new tests. Blackwell Ultra led in MLPerf reasoning.",
                   rounds=["v5.1"], source="IEEE Spectrum")
    question = "ieee spectrum's v5.1 article mentions a nickname people use for mlperf, what is it?"
    answer = compose_commentary(question, [article], parse(question, catalog))
    assert "Olympics of AI" in answer.answer, answer.answer


def test_the_noun_counted_outweighs_the_words_that_name_the_article(catalog):
    """"the pubgpclite article restating amd's claims … how many transistors?": "restating" and the
    names say which article; the count is of transistors, in another sentence of it."""
    question = "the pubgpclite article restating amd's mlperf 6.0 claims lists mi355x specs - how many transistors?"
    answer = _ask(catalog, question, AGGREGATOR)
    assert answer.answer.startswith("According to pubgpclite.com, 185 billion:"), answer.answer


def test_a_round_only_the_documents_cover_is_the_round_asked(catalog):
    """"in 5.0": the documents are about v5.0 (their file names say so), so a bare "5.0" names that
    round, and the sentence from a v5.0 document answers before one from v6.0."""
    other = Catalog.from_table(_table())
    assert other.round_mentions("nvidia's gb200 nvl72 in 5.0") == ([], [])
    other.add_publishers(["v5.0_it-online_nvidia-news.md"])
    assert other.round_mentions("nvidia's gb200 nvl72 in 5.0") == ([], ["v5.0"])
    assert other.round_mentions("llama 3.1 405b") == ([], [])
    newer = _doc("v6.0_mlcommons_supplemental-discussion.pdf", 3, "NVIDIA's NVLink domain grew 2x larger.",
                 source=STATEMENTS, rounds=["v6.0"])
    older = _doc("v5.0_it-online_nvidia-news.md", 0, "NVIDIA's NVLink domain grew 9x larger.", source="IT-Online",
                 rounds=["v5.0"])
    question = "that south african it site on nvidia in 5.0 - how many times bigger was the nvlink domain?"
    answer = _ask(other, question, [newer, older])
    assert answer.answer.startswith("According to IT-Online, 9x"), answer.answer


@pytest.mark.parametrize("question", [
    "who from dell was the co-chair who called v6.0 the biggest revision ever?",
    "vem var det från dell som var co-chair och kallade v6.0 den största revideringen nånsin?",
])
def test_a_person_is_named_without_the_role_before_or_the_company_asked_after(catalog, question):
    """"Co-chair Frank Han of Dell": the person is Frank Han; with "of Dell" the name held the
    company asked and was dropped, and a role asked is never answered from the guide."""
    news = _doc("v6.0_megaoneai_news.md", 0, "Co-chair Frank Han of Dell described it as the biggest revision "
                "the Inference suite has ever had.", source="MegaOne AI")
    answer = _ask(catalog, question, [news])
    assert answer.answer.split(":")[0].endswith(", Frank Han"), answer.answer


def test_a_quoted_word_an_entry_names_is_the_term_asked(catalog):
    """"llama2-70b-99.9 gets called a 'dense' model - dense meaning what": the benchmark is where
    the word was seen; the entry the quoted word names answers."""
    from assistant.compose_docs import define_answer

    guide = Passage(id="doc:benchmarks.md:0", doc_kind="guide", language="en", title="Benchmarks",
                    text="## Dense models (dense)\n\nA dense model uses every parameter for every token.\n\n"
                         "## llama2-70b-99.9\n\nllama2-70b-99.9 is the high-accuracy Llama 2 70B benchmark.")
    question = "llama2-70b-99.9 gets called a 'dense' model - dense meaning what"
    answer = define_answer(question, [guide], parse(question, catalog), [])
    assert answer.answer[1:].startswith("A dense model uses"), answer.answer
    plain = "what is llama2-70b-99.9, isn't it a dense model?"  # no quotes: the benchmark's entry
    assert define_answer(plain, [guide], parse(plain, catalog), []).answer[1:].startswith("llama2-70b-99.9 is")


@pytest.mark.parametrize("question, replaced", [
    ("llama2-70b-99.9 was in 4.1 but i dont see it later, what was it and what replaced it?", "Llama 3.1 8B replaced"),
    ("vad ersatte llama2-70b-99.9 efter v4.1?", "Llama 3.1 8B ersatte"),
])
def test_what_replaced_a_benchmark_quotes_the_entrys_sentence_on_it(catalog, question, replaced):
    """"what replaced it": a definition, and "replaced" is its subject, not a word that frames it, so
    the entry's later sentence on the successor follows the opening."""
    from assistant.compose_docs import define_answer

    text = {"en": "## llama2-70b-99.9\n\nllama2-70b-99.9 is a summary benchmark. Its target is 99.9%. Its unit is "
                  "Tokens/s. Results exist for many rounds here. It is gone after v4.1, as Llama 3.1 8B replaced it.",
            "sv": "## llama2-70b-99.9\n\nllama2-70b-99.9 är ett sammanfattningstest. Målet är 99,9 procent. Enheten är "
                  "Tokens/s. Resultat finns för många omgångar här. Det försvann efter v4.1 då Llama 3.1 8B ersatte det."}
    guide = [Passage(id=f"doc:benchmarks.{lang}.md:0", doc_kind="guide", language=lang, title="Benchmarks",
                     text=body) for lang, body in text.items()]
    parsed = parse(question, catalog)
    assert parsed.intent == "define", parsed.intent
    assert replaced in define_answer(question, guide, parsed, []).answer


@pytest.mark.parametrize("question, leaving", [
    ("what is llama2-70b-99.9? i cant find it in the newest round", "Llama 3.1 8B replaced"),
    ("vad är llama2-70b-99.9? jag hittar inte den i senaste rundan", "Llama 3.1 8B ersatte"),
])
def test_a_term_looked_for_in_vain_quotes_the_entrys_sentence_on_its_leaving(catalog, question, leaving):
    """"cant find it in the newest round": the entry's sentence on what replaced it follows the opening."""
    from assistant.compose_docs import define_answer

    text = {"en": "## llama2-70b-99.9\n\nllama2-70b-99.9 is a summary benchmark. Its target is 99.9%. Its unit is "
                  "Tokens/s. Results exist for many rounds here. It is gone after v4.1, as Llama 3.1 8B replaced it.",
            "sv": "## llama2-70b-99.9\n\nllama2-70b-99.9 är ett sammanfattningstest. Målet är 99,9 procent. Enheten är "
                  "Tokens/s. Resultat finns för många omgångar här. Det försvann efter v4.1 då Llama 3.1 8B ersatte det."}
    guide = [Passage(id=f"doc:benchmarks.{lang}.md:0", doc_kind="guide", language=lang, title="Benchmarks",
                     text=body) for lang, body in text.items()]
    assert leaving in define_answer(question, guide, parse(question, catalog), []).answer


def test_an_ize_verbs_forms_are_one_word(catalog):
    """"optimizer tool" asks about the sentence on "optimization": the forms of one "-ize" verb, in either
    spelling, match; a short word that only ends so ("size", "prize") stays itself."""
    from assistant.compose import compose_commentary, stem, word_form

    assert {word_form(w) for w in ("optimizer", "optimisation", "optimizations", "optimized")} == {"optimiz"}
    assert word_form("size") == "size" and word_form("prize") == "prize" and stem("tools") == "tool"
    page = _doc("v5.1_mlcommons_supplemental-discussion.pdf", 40,
                "TheStage AI\n\nWe build software for data centers. Our focus is simple – automate the hard parts "
                "of optimization so models reach production in hours.\n\nTo make this practical, we developed ANNA "
                "(Automated Neural Networks Accelerator). In this MLPerf Inference v5.1 submission, we used Stable "
                "Diffusion XL, a text-to-image model, for data centers.", rounds=["v5.1"], source=STATEMENTS)
    question = "whats the name of the optimizer TheStage AI used with stable diffusion xl in 5.1?"
    answer = compose_commentary(question, [page], parse(question, catalog))
    assert "ANNA" in answer.answer, answer.answer


def test_each_ask_of_a_two_part_question_gets_its_sentence(catalog):
    """"… how many times the throughput …? and how much bigger was the nvlink domain": the two
    sentences quoted are the best for each ask, not the two best for the first one."""
    from assistant.compose import compose_commentary

    page = _doc("v5.0_it-online_nvidia-news.md", 0,
                "GB200 NVL72 reached up to 30x the Llama 3.1 405B throughput of the H200 NVL8 entry. The GB200 NVL72 "
                "Llama 3.1 405B throughput claim covers the H200 NVL8 entry too. NVIDIA credits an NVLink domain 9x "
                "larger.", rounds=["v5.0"])
    question = ("nvidia claimed gb200 nvl72 was up to how many times the llama 3.1 405b throughput of h200 nvl8? "
                "and how much bigger was the nvlink domain")
    answer = compose_commentary(question, [page], parse(question, catalog))
    assert "30x" in answer.answer and "9x larger" in answer.answer, answer.answer
