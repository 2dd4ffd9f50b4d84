"""Table questions from the mlperf-dev15 tuning set, read on the full table.

Each expectation is computed here with plain pandas from `results_table` (the official raw files),
never taken from the answerer, and each case has a Swedish or a second wording."""

from __future__ import annotations

import pytest

from assistant.catalog import Catalog
from assistant.parse import parse


@pytest.fixture(scope="module")
def catalog(results_table) -> Catalog:
    return Catalog.from_table(results_table)


@pytest.mark.parametrize("question", ["vilka benchmarks körde intel i 6.1?", "which benchmarks did intel run in 6.1?"])
def test_a_company_that_ran_something_is_the_submitter_in_either_word_order(catalog, question):
    """Swedish puts the verb first ("körde intel"): Intel ran them, as in "did intel run"."""
    p = parse(question, catalog)
    assert p.explicit.get("submitter") == ["Intel"] and "accelerator_vendor" not in p.explicit, p.explicit
    assert "submitter" not in parse("which systems ran nvidia gpus in v6.1?", catalog).explicit


@pytest.mark.parametrize("question", [
    "how did the new nvidia chip, vera rubin, do on the deepseek one in 6.1? offline and server",
    "hur gick det för nvidias nya chip vera rubin på deepseek i 6.1, offline och server?",
])
def test_the_new_chip_named_is_described_and_each_scenario_named_is_shown(catalog, question, results_table):
    """"the new nvidia chip, vera rubin": the chip is named, so "new" lists nothing; with two
    scenarios named, each one's best result (the table has both for VR200 on deepseek-r1)."""
    p = parse(question, catalog)
    assert p.intent == "overview" and sorted(p.explicit["scenario"]) == ["Offline", "Server"], (p.intent, p.explicit)
    rows = results_table[(results_table["round"] == "v6.1") & (results_table["accelerator_family"] == "VR200")
                         & (results_table["benchmark"] == "deepseek-r1")]
    assert {"Offline", "Server"} <= set(rows["scenario"])
    assert parse("which chips were new in 6.1?", catalog).intent == "difference"


@pytest.mark.parametrize("question", [
    "my boss wants numbers for the vision-language model benchmark. top offline result in 6.1?",
    "siffror för vision-language-modellens benchmark, bästa offline i 6.1?",
])
def test_words_after_a_benchmark_before_benchmark_describe_it(catalog, question):
    """"the vision-language model benchmark" is qwen3-vl, not an unknown "model benchmark"."""
    p = parse(question, catalog)
    assert p.status != "no_data" and p.explicit.get("benchmark") == ["qwen3-vl-235b-a22b"], (p.status, p.message)


@pytest.mark.parametrize("question", [
    "forget the nvl72 racks - whats the best llama 405b offline result from a single 8-gpu box in 5.1?",
    "glöm nvl72-racken, vad är bästa llama 405b offline från en enda 8-gpu-server i 5.1?",
])
def test_forgetting_a_kind_of_system_leaves_it_out(catalog, question):
    p = parse(question, catalog)
    assert p.excluded and "system_name" not in p.explicit, (p.excluded, p.explicit)


@pytest.mark.parametrize("question", ["how many submitters were there in 6.1? count everyone, open division too",
                                      "hur många inskickare fanns det i 6.1, open också?"])
def test_the_open_division_too_counts_every_division(catalog, question):
    p = parse(question, catalog)
    assert set(p.explicit.get("division", [])) >= {"closed", "open"}, p.explicit
