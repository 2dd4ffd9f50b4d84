"""Catalog: each alias family resolves to the right table values, and nothing else."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from assistant.catalog import _STOP, Catalog, compact


def _table() -> pd.DataFrame:
    rows = [
        # round, order, benchmark, raw label, scenario, units, submitter, family, vendor, system
        ("v6.0", 600, "llama2-70b-99", "llama2-70b-99", "Offline", "Tokens/s", "NVIDIA", "B200", "NVIDIA", "DGX B200"),
        ("v6.0", 600, "llama2-70b-99.9", "llama2-70b-99.9", "Offline", "Tokens/s", "AMD", "MI355X", "AMD", "MI355X box"),
        ("v6.1", 601, "llama2-70b-99.9", "llama2-70b-99.9", "Offline", "Tokens/s", "CoreWeave", "GB300", "NVIDIA",
         "CoreWeave GB300 NVL72"),
        ("v6.1", 601, "gpt-oss-120b", "gpt-oss-120b", "Offline", "Tokens/s", "Crusoe", "MI355X", "AMD", "Crusoe 64x8"),
        ("v6.1", 601, "deepseek-r1", "deepseek-r1", "Server", "Tokens/s", "Nebius", "VR200", "NVIDIA", "VR200 NVL72"),
        ("v6.1", 601, "whisper", "whisper", "Offline", "Tokens/s", "Dell_MangoBoost", "MI350X", "AMD", "Dell box"),
        ("v6.1", 601, "wan-2.2-t2v-a14b", "text_to_video", "SingleStream", "Latency (s)", "NVIDIA", "B300", "NVIDIA",
         "B300 box"),
        ("v6.1", 601, "qwen3.6-27b", "agentic edge", "SingleStream", "Latency (ms)", "NVIDIA", "Jetson AGX Thor",
         "NVIDIA", "Thor kit"),
        ("v6.1", 601, "e2e-rag-qna", "end to end question-answering", "Offline", "Tasks/s", "Intel", "Arc Pro B70",
         "Intel", "Arc box"),
        ("v6.1", 601, "e2e-rag-db", "end to end vector-database", "Offline", "Samples/s", "Intel", "Arc Pro B70",
         "Intel", "Arc box"),
        ("v6.1", 601, "resnet", "resnet", "Offline", "Samples/s", "Google", "GB200", "NVIDIA", "Some GB200 box"),
    ]
    cols = ["round", "round_order", "benchmark", "benchmark_raw", "scenario", "units", "submitter",
            "accelerator_family", "accelerator_vendor", "system_name"]
    df = pd.DataFrame(rows, columns=cols)
    for c in cols:
        if c != "round_order":
            df[c] = df[c].astype("string")
    df["division"] = pd.array(["closed"] * len(df), dtype="string")
    return df


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.from_table(_table())


def _values(catalog: Catalog, text: str, column: str) -> set[str]:
    return {v for m in catalog.resolve(text) if m.column == column for v in m.values}


def test_compact_makes_spellings_one_key():
    assert compact("Llama 2 70B") == compact("llama2-70b") == compact("LLAMA2 70b")
    assert compact("gpt-oss-120b") == compact("GPT OSS 120B")


def test_llama2_70b_names_both_accuracy_variants(catalog):
    assert _values(catalog, "best Llama 2 70B result", "benchmark") == {"llama2-70b-99", "llama2-70b-99.9"}
    assert _values(catalog, "llama2-70b-99.9 Offline", "benchmark") == {"llama2-70b-99.9"}
    assert catalog.benchmarks_in("v6.1") >= {"llama2-70b-99.9"}
    assert "llama2-70b-99" not in catalog.benchmarks_in("v6.1")


@pytest.mark.parametrize("text,expected", [
    ("Blackwell Ultra", {"B300", "GB300"}),
    ("Blackwell", {"B200", "GB200"}),
    ("Vera Rubin", {"VR200"}),
    ("MI355X", {"MI355X"}),
    ("mi355x systems", {"MI355X"}),
])
def test_accelerator_families(catalog, text, expected):
    assert _values(catalog, text, "accelerator_family") == expected


def test_mi350x_is_not_mi355x(catalog):
    assert _values(catalog, "MI350X", "accelerator_family") == {"MI350X"}
    # A chip that differs by one digit is never a fuzzy match.
    assert _values(catalog, "MI356X", "accelerator_family") == set()


@pytest.mark.parametrize("text,expected", [
    ("DeepSeek", {"deepseek-r1"}),
    ("Whisper", {"whisper"}),
    ("gpt-oss", {"gpt-oss-120b"}),
    ("text-to-video", {"wan-2.2-t2v-a14b"}),
    ("text_to_video", {"wan-2.2-t2v-a14b"}),
    ("agentic edge", {"qwen3.6-27b"}),
    ("the agent test", {"qwen3.6-27b"}),
    ("agenttestet", {"qwen3.6-27b"}),
    ("the new agent tests", {"qwen3.6-27b"}),
    ("nya agenttester", {"qwen3.6-27b"}),
    ("RAG", {"e2e-rag-db", "e2e-rag-qna"}),
    ("end to end question-answering", {"e2e-rag-qna"}),
])
def test_benchmark_aliases(catalog, text, expected):
    assert _values(catalog, f"results for {text} please", "benchmark") == expected


def test_vendor_and_submitter_are_separate_columns(catalog):
    cols = {m.column for m in catalog.resolve("NVIDIA")}
    assert cols == {"accelerator_vendor", "submitter"}
    assert {m.column for m in catalog.resolve("CoreWeave")} == {"submitter"}
    assert _values(catalog, "Dell MangoBoost", "submitter") == {"Dell_MangoBoost"}


def test_fuzzy_only_for_long_words(catalog):
    assert _values(catalog, "Corewave", "submitter") == {"CoreWeave"}
    assert catalog.resolve("the best result of them all") == []


def test_a_name_with_a_stop_word_inside_is_found_one_letter_off(catalog):
    """"text to vidoe": a typo in a name that has "to" in it; a stop word at either end of the
    words, or two letters off, is no name."""
    assert _values(catalog, "how many text to vidoe results", "benchmark") == {"wan-2.2-t2v-a14b"}
    assert _values(catalog, "how many txet to vidoe results", "benchmark") == set()
    assert catalog.resolve("what is the best result to date") == []


def test_latest_round_in_english_and_swedish(catalog):
    assert catalog.latest_round == "v6.1"
    assert _values(catalog, "in the latest round", "round") == {"v6.1"}
    assert _values(catalog, "i senaste rundan", "round") == {"v6.1"}
    assert catalog.previous_round("v6.1") == "v6.0"
    assert catalog.previous_round("v6.0") is None


def test_round_mentions_known_and_unknown(catalog):
    assert catalog.round_mentions("compare v6.0 and v6.1") == (["v6.0", "v6.1"], [])
    assert catalog.round_mentions("results in v3.0") == ([], ["v3.0"])
    # "Llama 3.1 8B": a bare model version is not a round.
    assert catalog.round_mentions("Llama 3.1 8B") == ([], [])


def test_unknown_entities(catalog):
    assert catalog.unknown_entities("best H300 result") == ["H300"]
    assert catalog.unknown_entities("Gaudi 3 on llama") == ["Gaudi 3"]
    assert catalog.unknown_entities("best GB300 result on Llama 2 70B") == []


def test_an_article_and_a_count_joined_to_a_noun_is_no_chip(catalog):
    """"a 64-node cluster" reads "a 64" as an A-series model number only if the hyphen is ignored: a
    count joined to the noun it counts is a size; a model number typed in two words still is one."""
    assert catalog.unknown_entities("a 64-node cluster against a single 4-GPU box") == []
    assert catalog.unknown_entities("is the RTX 5090 in the data?") == ["RTX 5090"]


def test_chip_shaped_words_follow_the_declared_prefixes():
    """Which words look like a chip's model number is data ([chip_names]), so a card's table can
    declare its own; a table that declares none flags no unknown chip."""
    bare = Catalog.from_table(_table(), aliases_file=None)
    assert bare.unknown_entities("best H300 result") == []
    bare.use_chip_prefixes(["zx"])
    assert bare.unknown_entities("best ZX 9 result, or H300") == ["ZX 9"]
    assert bare.unknown_entities("the zx9 in v6.1") == ["zx9"]  # the word after it is not a suffix
    assert bare.chip_shaped("zx90") and not bare.chip_shaped("h300")
    bare.use_chip_prefixes([])
    assert not bare.chip_shaped("zx90")


def test_suggest_closest_values(catalog):
    assert catalog.suggest("submitter", "Corewev", 3)[0] == "CoreWeave"
    assert catalog.suggest("round", "v6.2", 2)[0] in {"v6.1", "v6.0"}


def test_scenarios_for_benchmark(catalog):
    assert catalog.scenarios_for(["qwen3.6-27b"]) == {"SingleStream": {"Latency (ms)"}}
    assert catalog.rounds_with(["llama2-70b-99"]) == ["v6.0"]


def test_full_table_catalog(results_table):
    cat = Catalog.from_table(results_table)
    assert cat.rounds == ["v4.1", "v5.1", "v6.0", "v6.1"]
    # README: v6.1 has only llama2-70b-99.9 (not -99).
    assert "llama2-70b-99.9" in cat.benchmarks_in("v6.1") and "llama2-70b-99" not in cat.benchmarks_in("v6.1")
    assert _values(cat, "Llama 2 70B", "benchmark") == {"llama2-70b-99", "llama2-70b-99.9"}
    assert _values(cat, "Blackwell Ultra", "accelerator_family") == {"B300", "GB300"}
    assert _values(cat, "agentic edge", "benchmark") == {"qwen3.6-27b"}
    assert _values(cat, "Crusoe", "submitter") == {"Crusoe"}


# --- the name rules hold for every chip in the data, not only the one a question was about ------------

@pytest.fixture(scope="module")
def real_catalog(results_table) -> Catalog:
    return Catalog.from_table(results_table)


def _words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[0-9A-Za-z]+", name)]


def test_every_family_is_found_with_a_word_left_out(real_catalog, results_table):
    families = sorted(set(results_table["accelerator_family"].dropna()))
    tried = 0
    for family in families:
        names = _words(family)
        for i in range(1, len(names) - 1):  # a middle word left out ("jetson thor": Jetson AGX Thor)
            words = names[:i] + names[i + 1:]
            if any(w in _STOP for w in words):
                continue
            others = [f for f in families if f != family and _in_order(words, _words(f))]
            found = real_catalog._family_with_words(words)
            tried += 1
            assert (found and found[0].values == (family,)) if not others else found is None, (family, words)
    assert tried >= 3


def test_every_model_number_is_found_without_its_last_letter(real_catalog, results_table):
    families = sorted(set(results_table["accelerator_family"].dropna()))
    tried = 0
    for family in families:  # a family that is one model number ("MI355X"), asked without its letter ("mi355")
        number = compact(family)
        if not re.fullmatch(r"[a-z]+\d+[a-z]", number):
            continue
        stem = number[:-1]
        rivals = {f for f in families if re.fullmatch(rf"{stem}[a-z]", compact(f))}
        found = real_catalog._chip_without_suffix(stem)
        tried += 1
        assert (found and {e.values for e in found} == {(family,)}) if rivals == {family} else not found, family
    assert tried >= 3


def _in_order(words: list[str], names: list[str]) -> bool:
    it = iter(names)
    return len(names) > len(words) and all(w in it for w in words)


def test_a_placeholder_value_is_never_suggested():
    """"none" is the accelerator of a CPU-only system, not a chip to offer ("did you mean none?")."""
    df = _table()
    cpu = df.iloc[[0]].copy()
    cpu["accelerator_family"] = pd.array(["none"], dtype="string")
    catalog = Catalog.from_table(pd.concat([df, cpu], ignore_index=True))
    assert "none" in catalog.vocab["accelerator_family"]
    assert "none" not in catalog.suggest("accelerator_family", "nvl division", 10)


def test_a_family_named_in_words_is_found_by_its_model_number_alone():
    """"b60" names "Arc Pro B60" once chip names start with "b"; a word two families end in, or one
    that is not chip-shaped ("Orin"), does not."""
    df = pd.DataFrame({"round": ["v6.0"] * 4, "accelerator_family": ["Arc Pro B60", "Arc Pro B70", "Jetson AGX Orin",
                                                                     "Other Pro B70"],
                       "benchmark": ["whisper"] * 4})
    cat = Catalog.from_table(df, aliases_file=None)
    assert cat.resolve("b60 vs the other one") == []
    cat.use_chip_prefixes(["b"])
    assert [(m.column, m.values) for m in cat.resolve("b60 on whisper") if m.column != "benchmark"] == [
        ("accelerator_family", ("Arc Pro B60",))]
    assert all(m.values != ("Arc Pro B70",) for m in cat.resolve("how fast is the b70"))  # two families end in it
    assert all("Jetson AGX Orin" not in m.values for m in cat.resolve("orin results"))


def test_an_architecture_name_after_a_chip_is_part_of_its_name(results_table):
    """"RTX PRO 6000 Blackwell" is one chip; "b200 and blackwell ultra" are two."""
    cat = Catalog.from_table(results_table)
    named = [m.values for m in cat.resolve("the RTX PRO 6000 Blackwell vs the H200") if m.column == "accelerator_family"]
    assert named == [("RTX PRO 6000",), ("H200",)]
    assert [m.values for m in cat.resolve("mi355x instinct vs b200")] == [("MI355X",), ("B200",)]
    two = [m.values for m in cat.resolve("b200 and blackwell ultra") if m.column == "accelerator_family"]
    assert len(two) == 2 and two[0] == ("B200",)


def test_a_chip_with_its_form_factor_names_those_accelerators(results_table):
    """"H200 NVL" is the NVL card, not every H200; the words come from the accelerator names."""
    cat = Catalog.from_table(results_table)
    nvl = sorted({a for a in results_table["accelerator"].dropna().unique()
                  if "H200-NVL" in a or "H200 NVL" in a})
    assert nvl
    [match] = [m for m in cat.resolve("the h200 nvl on llama 3.1 8b") if m.column.startswith("accelerator")]
    assert match.column == "accelerator" and sorted(match.values) == nvl
    assert [m.column for m in cat.resolve("h200 on llama 3.1 8b") if m.column.startswith("accelerator")] == [
        "accelerator_family"]


@pytest.mark.parametrize("text, name", [
    ("are those both speech recognition tests?", "speech recognition"),
    ("are all vector database tests?", "vector database"),
])
def test_a_fuzzy_match_takes_no_plain_word_beside_a_name(catalog, text, name):
    """"are those both object detection tests": "both object detection" was one fuzzy name, so the
    likeness "both" was lost; plain words ("both", "all", sv "båda") are never part of a fuzzy name."""
    spans = [text[m.span[0]:m.span[1]] for m in catalog.resolve(text)]
    assert spans == [name], spans


def test_words_a_slash_parts_are_not_joined_into_a_name(catalog):
    """"w/ an" is "with an": joining its words gives "wan", an alias of wan-2.2-t2v-a14b."""
    assert not [m for m in catalog.resolve("inventec in 6.0 w/ an air cooled epyc") if m.column == "benchmark"]
    assert [m.values for m in catalog.resolve("wan 2.2 results") if m.column == "benchmark"] == [("wan-2.2-t2v-a14b",)]
