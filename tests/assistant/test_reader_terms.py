"""Questions about MLPerf's own terms on the full table: the values a term names (preview, rdi)
and the columns a question quotes (result_id) exist only there, not in the small fixtures; and
"who won the round", which no MLPerf result answers on its own."""

from __future__ import annotations

import pytest

from assistant.catalog import Catalog
from assistant.conversation import Conversation
from assistant.engine import Engine
from assistant.offline import answer_question
from assistant.parse import parse
from ingest import settings as settings_mod


@pytest.fixture(scope="module")
def catalog(results_table) -> Catalog:
    return Catalog.from_table(results_table)


@pytest.mark.parametrize("question", [
    "if a system is marked preview can i actually go buy it right now?",  # the attribute "preview" is a value of
    "kan man köpa ett system som är preview?",
    "rdi?? nvidia has it on some rows",  # a bare term, then a remark
    "what's the id thing like 6.0-0087 in the result_id column, does it mean anything?",  # a column the table has
    # "which task", "is X about Y": what the benchmark is, not its best result
    "rgat, which task is that one doing?",
    "is the dlrm-v3 test about recommendations?",
    "vilken uppgift löser whisper?",
    "handlar dlrm-v3 om rekommendationer?",
    # benchmarks are never ranked against each other: two side by side, nothing measured, ask how they differ
    "dlrm-v2-99 vs dlrm-v2-99.9, which one is better?",
    "resnet vs retinanet in the tables, are they both vision tests?",
    "resnet mot retinanet i tabellerna, är båda bildtester?",
    # "fairly" doubts a comparison as "fair" does (the entry on systems of different sizes)
    "how do I fairly compare a 64-node cluster with a single 4-GPU box?",
    "can i compare a 72-node rack and a 8-gpu server fairly?",
    # "is X a different model from Y", "en annan modell än", "hur jämför jag"
    "is gpt-oss-120b interactive a different model from gpt-oss-120b server?",
    "är llama2-70b interactive en annan modell än server?",
    "hur jämför jag energieffektivitet mellan två system?",
    # "what does tokens/s count" is no count of results, "what unit is that" no lookup
    "what unit is that? some rows show watts and others millijoules",
    "what does 'samples/s' in the result column count?",
    "vilken enhet är det, watt eller millijoule?",
    # a word many systems' names share names a kind of rack or software
    "what's vllm?", "whats an nvl72?", "vad är tensorrt?",
])
def test_a_term_asked_about_goes_to_the_guide(catalog, question):
    p = parse(question, catalog)
    assert p.intent == "define" and p.spec is None, (p.intent, p.message)


@pytest.mark.parametrize("question", ["is the CoreWeave GB300 NVL72 commercially available?",  # a named system's field
                                      "kan man köpa coreweave gb300 nvl72?",
                                      "what is the banana_score of nvidia in v6.1?",  # still no such column
                                      "what is the CoreWeave GB300 NVL72?",  # one system's full name
                                      "is nvidia about to top whisper in v6.1?",  # opens with "is", asks results
                                      "gpt-oss-120b vs deepseek-r1 throughput",  # a measure compares results
                                      "compare the best gpt-oss-120b and deepseek-r1 results"])  # so does a ranking
def test_a_named_system_an_unknown_column_or_results_asked_is_no_term(catalog, question):
    assert parse(question, catalog).intent != "define"


@pytest.fixture(scope="module")
def engine(results_table):
    return Engine.from_table(results_table, settings=settings_mod.load())


@pytest.mark.parametrize("question, lead, rnd", [
    ("so who actually won mlperf 6.0 overall", "MLPerf names no overall winner", "v6.0"),
    ("vem vann mlperf 6.1?", "MLPerf utser ingen totalvinnare", "v6.1"),
])
def test_who_won_a_round_says_there_is_no_overall_winner_and_gives_each_benchmarks_best(
        engine, results_table, question, lead, rnd):
    answer = answer_question(question, engine=engine, conversation=Conversation(), settings=engine.settings)
    assert answer.answer.startswith(lead), answer.answer
    closed = results_table[(results_table["round"] == rnd) & (results_table["division"] == "closed")]
    named = [b for b in closed["benchmark"].unique() if f"{b} " in answer.answer]
    assert len(named) >= 3, answer.answer  # the leaders per benchmark still follow


def test_a_company_named_keeps_its_overview_without_the_no_winner_lead(engine):
    answer = answer_question("how did lenovo do in v5.1?", engine=engine, conversation=Conversation(),
                             settings=engine.settings)
    assert "overall winner" not in answer.answer and "Lenovo" in answer.answer


def test_a_ranking_that_asks_for_no_winner_gets_no_winner_lead(engine):
    answer = answer_question("show me the best results in 6.0", engine=engine, conversation=Conversation(),
                             settings=engine.settings)
    assert "overall winner" not in answer.answer and answer.status == "answered"


@pytest.mark.parametrize("question", [
    "my boss divided a rack's tokens/s by 72 and calls it the official per-gpu score. is that legit?",
    "min chef delade ett racks totala tokens/s med 72 och vill kalla det 'officiell mlperf-poäng per gpu'. "
    "är det okej?"])
def test_is_that_legit_asks_the_guide(catalog, question):
    """Whether a way of using the numbers is valid is a question for the guide, not for quotes."""
    assert parse(question, catalog).intent == "define"


def test_what_x_is_that_defines_only_at_the_end(catalog):
    """"what benchmark is that?" asks what a term is; "what model is that one based on?" asks a
    fact a document states."""
    assert parse("yolo-95 showed up in 6.0, what benchmark is that?", catalog).intent == "define"
    assert parse("wan-2.2-t2v-a14b?? what on earth is that benchmrk", catalog).intent == "define"
    assert parse("ieee spectrum says 5.1 added its smallest llm benchmark. what model is that one based on?",
                 catalog).intent != "define"


def test_a_remarks_measure_is_not_the_figure_asked(catalog):
    """"i read … that 5.1 added … bc industry wanted low latency": the remark runs past "5.1" (no
    clause ends inside a round), so its latency is why the user read on, not the figure asked."""
    from assistant.compose_docs import asked_figure

    p = parse("i read in ieee spectrum that 5.1 added its smallest llm benchmark so far bc industry wanted low "
              "latency. what model is that one based on?", catalog)
    assert asked_figure(p) != "latency"


@pytest.mark.parametrize("question", [
    "in the amd post about their v6 submission they list specs for the mi355x. what memory bandwidth do they quote?",
    "intel's blurb in the v4.1 discussion doc: what's the biggest speedup on bert?",
    "nvidias blogginlägg om 5.1 listade latenskraven. vilken tokentakt per användare krävs i interactive?"])
def test_a_post_a_blurb_or_what_they_quote_names_a_source(catalog, question):
    """"the amd post", "intel's blurb", "what … do they quote", "blogginlägg": the words of a
    document are asked, not the table's results."""
    p = parse(question, catalog)
    assert p.reading.has("cue", "source") and p.intent == "commentary", (p.intent, p.spec)


def test_a_place_after_a_known_company_is_no_unknown_submitter(catalog):
    """"Netweb from India": where the company is from, not a second party with no results."""
    p = parse("netweb from India showed up for the first time in 6.0. what server did they benchmark?", catalog)
    assert p.status != "no_data", p.message
    assert parse("best llama2-70b offline result by Cerebras in v6.1?", catalog).status == "no_data"


def test_a_year_is_no_claimed_figure():
    from assistant.parse import claimed_numbers

    assert claimed_numbers("the August 2024 round, since they started in 2021 (sedan 2021)") == []
    assert claimed_numbers("is it true they did 2024 tokens/s and 1,046,150 in v6.1?") == [2024.0, 1046150.0]


@pytest.mark.parametrize("question,meaning", [
    ("nvidia's blog says '12.5 tokens/second/user'... what does that even mean?", True),
    ("intel's blurb brags about xeon. what's the biggest speedup they quote for bert?", False)])
def test_only_a_question_about_words_falls_back_to_the_guide(catalog, question, meaning):
    """A figure no document states is answered from the guide only when the question asks what the
    words mean; a bare "what's" opens any question."""
    from assistant.offline import _asks_meaning

    assert _asks_meaning(parse(question, catalog).reading) is meaning


@pytest.mark.parametrize("question", ["is gpt oss 120 b basically chatgpt running inside the benchmark??",
                                      "rgat?? is that about graphs as in charts, or what",
                                      "är gpt oss typ chatgpt?"])
def test_a_yes_no_likening_a_benchmark_to_something_asks_the_guide(catalog, question):
    """"is X basically Y", "is that about Y": what the benchmark is, not its best result; a check
    naming a company or a figure stays a question about results."""
    assert parse(question, catalog).intent == "define"
    assert parse("is nvidia's llama 70b result like amd's?", catalog).intent != "define"


def test_a_statement_before_a_strong_definition_asks_nothing(catalog):
    """"There's a new one called qwen3-vl. What does the VL stand for": the statement says where the
    term was met ("new" asks for no list of new benchmarks); "stand for" asks what it means."""
    p = parse("There's a new one called qwen3-vl. What does the VL stand for, and what data is it tested on?",
              catalog)
    assert p.intent == "define", p.intent


@pytest.mark.parametrize("question", [
    "My boss looked at the SingleStream numbers and said the system with the biggest number wins, same as with "
    "throughput. That's right, isn't it?",
    "min chef sa att största siffran vinner på singlestream, precis som för genomströmning. det stämmer väl?",
])
def test_a_rule_of_which_number_wins_asks_which_way_is_better(catalog, question):
    """"the biggest number wins, right?" says "bigger is better" in other words: the guide's direction
    of better, not the biggest SingleStream result ("biggest" and "wins" rank nothing there)."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "better"), p.intent
    assert parse("which system wins on singlestream in v6.1?", catalog).intent != "define"


@pytest.mark.parametrize("question", ["what does the new agentic edge test in v6.1 measure?",
                                      "vad mäter det nya agenttestet för edge i v6.1?"])
def test_the_new_benchmark_named_in_a_round_is_defined_not_listed(catalog, question):
    """A benchmark named ("the new agentic edge test") is the term and "new" describes it; with none
    named, "what does the new benchmark in v6.1 measure" lists what is new first."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.explicit.get("benchmark") == ["qwen3.6-27b"], (p.intent, p.explicit)
    assert parse("what does the new benchmark in v6.1 measure?", catalog).intent != "define"


@pytest.mark.parametrize("question", [
    "DeepSeek-R1 hit 2.5 million tokens/s while Llama2-70B only got about 1 million, so DeepSeek must be the easier "
    "model to run?",
    "deepseek r1 fick 2,5 miljoner tokens/s men llama2-70b bara 1 miljon, så deepseek måste vara lättare att köra?",
])
def test_a_conclusion_that_one_benchmark_is_easier_asks_why_they_are_not_ranked(catalog, question):
    """"so X must be the easier model" draws a yes/no comparison of two benchmarks from their figures:
    the guide says why results of different benchmarks are never ranked, not X's best result."""
    p = parse(question, catalog)
    assert p.intent == "define", p.intent
    assert len({m.values[0] for m in p.entities if m.column == "benchmark"}) >= 2, p.entities


@pytest.mark.parametrize("question", ["nvidia körde spekulativ avkodning på deepseek-r1 interactive, är inte det fusk?",
                                      "NVIDIA used speculative decoding on deepseek-r1 interactive. Isn't that cheating?"])
def test_asking_whether_a_technique_is_cheating_asks_the_guide(catalog, question):
    """"fusk" is "cheating": whether a result can be trusted is a question about MLPerf's rules, not
    a lookup of NVIDIA's deepseek-r1 Interactive result."""
    assert parse(question, catalog).intent == "define"


@pytest.mark.parametrize("question", [
    "what is 'disaggregated serving' that nvidia keeps talking about in these rounds?",
    "vad är disaggregated serving som nvidia tjatar om?",
])
def test_a_relative_clause_that_says_who_talks_about_a_term_filters_nothing(catalog, question):
    """"… that nvidia keeps talking about" says where the term was met: a remark from its relative
    word, inside the sentence, so NVIDIA is no filter and the term is defined."""
    p = parse(question, catalog)
    assert p.intent == "define" and "submitter" not in p.explicit, (p.intent, p.explicit)


@pytest.mark.parametrize("question", [
    "folk räknar ut siffror per gpu från mlperf-resultaten, är det ett officiellt mått eller?",
    "newbie q: how do edge results differ from datacenter ones, like what do edge systems get tested on?",
    "what does the -99 vs -99.9 at the end of llama2-70b mean in the results?",
])
def test_asking_whether_a_figure_is_official_or_how_two_terms_differ_asks_the_guide(catalog, question):
    """"officiellt" is a plain word before a measure noun, as "official" is; "how do … differ" asks
    what sets two terms apart, as "how are … different" does; "what does … mean" may span a long
    name ("the -99 vs -99.9 at the end of llama2-70b")."""
    assert parse(question, catalog).intent == "define"


def test_which_one_after_a_yes_no_likening_ranks_nothing(catalog):
    """"are those both speech tests? which one is used where?": "which one" is "which of them", so
    the question still likens two terms, for the guide, rather than asking for a top result."""
    assert parse("whisper and rgat: are those both speech tests? which one is used where?", catalog).intent == "define"


@pytest.mark.parametrize("question", ["hur skiljer sig offline från server?",
                                      "vad skiljer deepseek-r1 från de vanliga språkmodelltesterna?"])
def test_swedish_skiljer_asks_what_sets_terms_apart(catalog, question):
    """"vad skiljer …", "hur skiljer sig …": the Swedish twins of "how do … differ" and "different
    from" ask the guide, not for deepseek-r1's best result."""
    assert parse(question, catalog).intent == "define"


@pytest.mark.parametrize("question", [
    "aren't the chip companies just grading themselves here? why should we trust any of it",
    "who really runs these mlperf benchmarks, intel?",
    "ärligt, rättar inte företagen sina egna läxor? varför ska man lita på det",
    "vem driver egentligen mlperf, är det amd?",
])
def test_doubting_who_runs_or_checks_mlperf_asks_the_guide(catalog, question):
    """Whether the numbers can be believed, and who runs the benchmark, are questions about MLPerf
    itself (the guide's MLCommons and Verified result entries): the company named is a guess."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "organiser", "review"), (p.intent, p.reading.tags)


def test_a_benchmark_beside_who_runs_it_asks_who_submitted_it(catalog):
    """"vem kör llama2 i mlperf" asks which submitters ran the benchmark, not who runs MLPerf."""
    assert parse("vem kör llama2-70b i mlperf?", catalog).intent != "define"


@pytest.mark.parametrize("question", [
    "for Latency (ms) results, is a smaller number better? yes or no",
    "för Latency (ms), är lägre bättre? ja eller nej",
])
def test_a_reply_form_asked_for_names_no_measure(catalog, question):
    """"yes or no" says how to answer; read as the words of an unknown measure after "better", it
    refused the question."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "better"), (p.intent, p.message)


def test_a_unit_per_second_is_no_ordinal(catalog):
    """"tokens per second per user": "second" inside the unit is no "second place", which ranked
    the question and took it from the guide."""
    p = parse("what is tokens per second per user", catalog)
    assert p.intent == "define" and not p.reading.has("direction", "ordinal"), (p.intent, p.reading.tags)
    assert parse("which system drew the most power in v4.1?", catalog).reading.has("direction", "most")


@pytest.mark.parametrize("question", [
    "can i put the offline number of one system next to the server number of another?",
    "kan jag ställa offline-siffran för ett system bredvid server-siffran för ett annat?",
])
def test_a_scenario_before_number_of_is_its_figure_not_a_count(catalog, question):
    """"the offline number of one system" is a scenario's figure; "the number of results" counts."""
    p = parse(question, catalog)
    assert not p.reading.has("operation", "count") and p.intent != "count", (p.intent, p.reading.tags)
    assert parse("what is the number of offline results in v6.1?", catalog).intent == "count"


@pytest.mark.parametrize("question", [
    "why doesn't mlperf just rank intel vs amd vs nvidia and be done with it?",
    "'amd beat nvidia' and 'nvidia crushed amd' can't both be true, so who is right?",
    "varför kan man inte bara ranka intel mot nvidia i mlperf?",
])
def test_asking_for_one_ranking_of_vendors_asks_the_guide(catalog, question):
    """One ranking of every vendor is what MLPerf does not give (the guide's "No overall score or
    winner"); the companies named are the user's examples, and a benchmark named asks results."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "overall"), (p.intent, p.reading.tags)
    assert parse("rank nvidia vs amd on llama2-70b offline in v6.1", catalog).intent != "define"


@pytest.mark.parametrize("question", ["vad är poängen med effektresultaten? vissa system har watt och andra inte",
                                      "vissa rader är i tokens/s och andra i queries/s, vad är skillnaden?"])
def test_swedish_andra_alone_means_others_not_second(catalog, question):
    """"vissa … och andra" is "some … and others": no ranking, so the question stays the guide's."""
    p = parse(question, catalog)
    assert p.intent == "define" and not p.reading.has("direction", "ordinal"), (p.intent, p.reading.tags)
    assert parse("vem kom på andra plats på llama2-70b offline i v6.1?", catalog).reading.has("direction", "ordinal")


@pytest.mark.parametrize("question", ["which round added the whisper benchmark?", "when was dlrm-v3 introduced?",
                                      "vilken runda lade till whisper?", "när infördes dlrm-v3?"])
def test_when_a_benchmark_began_asks_the_guide(catalog, question):
    """When a benchmark was added is its entry's (and the table's first round); "which round"
    with "added" is no list of rounds, and no best result."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "start"), (p.intent, p.reading.tags)


@pytest.mark.parametrize("question", [
    "does it matter if one result is a single node and the other a 16 node cluster when comparing?",
    "spelar det någon roll om ett resultat är en nod och ett annat ett kluster med 16 noder?",
])
def test_whether_size_matters_when_comparing_asks_the_guide(catalog, question):
    """"does it matter if …" doubts a comparison as "is it fair" does: no list of 16-node systems."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "fair"), (p.intent, p.reading.tags)


@pytest.mark.parametrize("question", ["is it fair to divide by the number of gpus?",
                                      "är det rättvist att dela med antalet gpu:er?"])
def test_dividing_by_the_gpus_is_a_per_accelerator_figure(catalog, question):
    """Dividing by the accelerators is how a per-GPU figure is made: the guide's derived figure."""
    assert parse(question, catalog).reading.has("measure", "per_accelerator")


@pytest.mark.parametrize("question", ["is mlperf independent, or does nvidia pay for the results?",
                                      "är mlperf oberoende, eller betalar nvidia för resultaten?"])
def test_whether_mlperf_is_independent_asks_the_guide_not_for_prices(catalog, question):
    """"pay for it" beside a doubt about MLPerf itself asks how results are reviewed, not a price."""
    p = parse(question, catalog)
    assert p.intent == "define" and p.reading.has("cue", "review"), (p.intent, p.message)
    assert parse("how much did nvidia pay for the b200?", catalog).status == "no_data"
