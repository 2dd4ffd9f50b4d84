"""Dataset cards (ingest/dataset_card.py, ingest/dataset_ingest.py, data/cards/, docs/datasets.md).

The two shipped cards fit their data. A table of our own, in another unit and direction, goes
through `resultsqa ingest --card` into the store as its own table with a manifest entry and
nothing re-embedded; a bad card is one line naming the card field and leaves the store exactly
as it was; the default ingest writes what it wrote before and carries card tables forward.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from assistant.cli import main
from ingest import settings as settings_mod
from ingest import store as store_mod
from ingest.dataset_card import (COMPUTED, LEXICON_KINDS, CardError, check_columns, check_table, load_card,
                                 read_card_table)
from ingest.pipeline import run_ingest
from ingest.schema import COLUMN_NAMES
from tests.ingest.test_bad_input import _args
from tests.ingest.test_pipeline import generations, mirror_settings

PROJECT = Path(__file__).resolve().parents[2]
CARDS = PROJECT / "data" / "cards"
TRAINING_ROWS = {"v4.0": 178, "v4.1": 153, "v5.0": 201, "v5.1": 184}  # the mirror's mlperf-training/README.md

# --- a table of our own: compile times in seconds, lower is better, two releases, three projects ----
MARCH = """build,release,project,team,machine,cpu,cores,compile_s,peak_rss_gb
b-0001,2025-03,linux-kernel,Team Red,ci-large-01,AMD EPYC 9654,96,412.5,6.1
b-0002,2025-03,linux-kernel,Team Blue,ci-small-02,Intel Xeon 8480+,56,655.25,5.9
b-0003,2025-03,llvm,Team Red,ci-large-01,AMD EPYC 9654,96,1310.0,22.4
b-0004,2025-03,llvm,Team Green,ci-arm-03,Ampere Altra Max,128,1204.75,
b-0005,2025-03,chromium,Team Blue,ci-small-02,Intel Xeon 8480+,56,5400.5,41.0
"""
SEPTEMBER = [  # written as Parquet: the second reader
    {"build": "b-0101", "release": "2025-09", "project": "linux-kernel", "team": "Team Red",
     "machine": "ci-large-01", "cpu": "AMD EPYC 9654", "cores": 96, "compile_s": 398.0, "peak_rss_gb": 6.0},
    {"build": "b-0102", "release": "2025-09", "project": "llvm", "team": "Team Green",
     "machine": "ci-arm-03", "cpu": "Ampere Altra Max", "cores": 128, "compile_s": 1150.125, "peak_rss_gb": 21.5},
    {"build": "b-0103", "release": "2025-09", "project": "chromium", "team": "Team Blue",
     "machine": "ci-small-02", "cpu": "Intel Xeon 8480+", "cores": 56, "compile_s": 5105.0, "peak_rss_gb": 40.2},
]
CARD = """
id = "compile-times"
title = "Compile times"
description = "How long our CI machines take to build three projects, per release."

[[source]]
path = "compile_2025-03.csv"
reader = "csv"

[[source]]
path = "compile_2025-09.parquet"
reader = "parquet"

[dimensions]
round = "release"
benchmark = "project"

[entities]
submitter = "team"
system_name = "machine"
host_processor = "cpu"

[measure]
column = "compile_s"
name = "compile time"
unit = "seconds"
direction = "lower"

[secondary.peak_memory]
column = "peak_rss_gb"
unit = "GB"
direction = "lower"

[columns]
keep = ["cores"]

[citation]
id_column = "build"
url_template = "https://ci.example.org/{project}/{build}"

[defaults]
round = "2025-09"

[display.columns]
result = "compile time"

[display.values.benchmark]
linux-kernel = "Linux kernel"

[[alias]]
phrases = ["kernel", "linux"]
column = "benchmark"
values = ["linux-kernel"]

[lexicon.en.dataset]
compile-times = ["compile", "compiled", "build", "builds"]

[lexicon.en.measure]
compile_time = ["seconds to compile", "compile time", "build time"]

[lexicon.en.direction]
best = ["fastest to compile", "quickest build"]
"""
FIXTURE_COLUMNS = ["result_id", "round", "round_order", "benchmark", "submitter", "system_name", "host_processor",
                   "result", "units", "lower_is_better", "peak_memory", "peak_memory_units", "cores", "result_url",
                   "source_file"]


def write_fixture(folder: Path, card_text: str = CARD) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compile_2025-03.csv").write_text(MARCH, encoding="utf-8")
    pd.DataFrame(SEPTEMBER).to_parquet(folder / "compile_2025-09.parquet", index=False)
    card = folder / "compile-times.toml"
    card.write_text(card_text, encoding="utf-8")
    return card


def built_store(tmp_path: Path):
    settings = mirror_settings(tmp_path)
    run_ingest(settings, progress=False)
    return settings


def snapshot(settings) -> dict:
    """Everything a reader of the store could see: the generations, `current` and its manifest and files."""
    root = store_mod.store_root(settings)
    gen = store_mod.current_generation(root)
    return {"generations": generations(settings), "current": gen.name,
            "manifest": (gen / store_mod.MANIFEST).read_bytes(),
            "files": sorted(str(p.relative_to(gen)) for p in gen.rglob("*") if "chroma" not in p.parts)}


# --- the shipped cards ------------------------------------------------------------------------------

def test_the_training_card_reads_its_csv_exactly(shared_data):
    card = load_card(CARDS / "mlperf-training.toml")
    table, reads = read_card_table(card, settings_mod.load(data=str(shared_data)))
    raw = pd.read_csv(shared_data / "mlperf-training" / "mlperf_training_results.csv")
    assert list(table.columns) == card.output_columns() and "scenario" not in table.columns
    assert len(table) == len(raw) == 716 and reads[0].sha256 == card.sources[0].sha256
    assert table["result"].tolist() == raw["time_to_train_min"].tolist()  # every score to the last bit
    assert set(table["units"]) == {"minutes"} and table["lower_is_better"].all()
    assert table["result_id"].tolist() == raw["result_id"].tolist()
    assert table["result_url"].tolist() == raw["details_url"].tolist()
    assert table["platform"].tolist() == raw["system_id"].tolist()
    assert table["round"].value_counts().to_dict() == TRAINING_ROWS
    assert table.groupby("round")["round_order"].first().to_dict() == {"v4.0": 400, "v4.1": 401, "v5.0": 500,
                                                                         "v5.1": 501}
    assert str(table["total_accelerators"].dtype) == "Int64" and str(table["runs_used"].dtype) == "Int64"
    # a published claim in the mirror's README: NVIDIA's best Llama 3.1 8B time in v5.1, on 512 GB300
    best = table[(table["round"] == "v5.1") & (table["benchmark"] == "llama31_8b")].nsmallest(1, "result").iloc[0]
    assert round(best["result"], 4) == 5.2187 and best["total_accelerators"] == 512
    assert best["accelerator_family"] == "GB300" and best["accelerator_vendor"] == "NVIDIA"


def test_the_training_card_checks_from_the_command_line(shared_data, tmp_path, capsys):
    assert main(["ingest", "--card", str(CARDS / "mlperf-training.toml"), "--dry-run", "--data", str(shared_data),
                 "--store", str(tmp_path / "store")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: dataset card mlperf-training checked against its data; nothing written")
    assert "716 rows (v4.0: 178, v4.1: 153, v5.0: 201, v5.1: 184)" in out
    assert "time to train (time_to_train_min) in minutes, lower is better" in out
    assert not (tmp_path / "store").exists()


def test_the_inference_card_describes_the_table_ingest_builds(results_table):
    card = load_card(CARDS / "mlperf-inference.toml")
    assert card.describes_default_table
    check_columns(card, list(results_table.columns), store_mod.TABLE)
    check_table(card, results_table, store_mod.TABLE)  # defaults, aliases, display values; the direction rule
    assert all(role == column for role, column in card.roles.items())  # the card's names are the table's
    described = {column for _, column in card.referenced()} | set(COMPUTED)
    assert described - set(COMPUTED) <= set(COLUMN_NAMES)
    assert set(COLUMN_NAMES) - described == set(), "a column of ingest/schema.py the Inference card does not describe"
    rule = [card.measure.lower_is_better(u) for u in results_table["units"]]
    assert rule == results_table["lower_is_better"].astype(bool).tolist()
    assert card.measure.unit_column == "units" and card.defaults == {"division": "closed"}


def test_the_inference_card_is_refused_by_card_ingest(tmp_path, capsys):
    settings = built_store(tmp_path)
    before = snapshot(settings)
    assert main(["ingest", "--card", str(CARDS / "mlperf-inference.toml"), *_args(settings)]) == 1
    err = capsys.readouterr().err.strip()
    assert "source[1].reader: a 'sources' card describes the table the default `resultsqa ingest` builds" in err
    assert snapshot(settings) == before


def test_card_lexicon_kinds_are_the_reader_s_tag_kinds():
    en = tomllib.loads((PROJECT / "assistant" / "lexicon" / "en.toml").read_text(encoding="utf-8"))
    phrase_kinds = {kind for kind, tags in en.items() if kind != "language" and isinstance(tags, dict)
                    and all(isinstance(v, list) for v in tags.values())}
    assert set(LEXICON_KINDS) - {"dataset", "dataset_hint"} == phrase_kinds
    for path in sorted(CARDS.glob("*.toml")):
        card = load_card(path)
        assert card.lexicon["en"]["dataset"] == {card.id: card.lexicon["en"]["dataset"][card.id]}
    training = load_card(CARDS / "mlperf-training.toml")
    assert "time to train" in training.lexicon["en"]["measure"]["time_to_train"]
    assert "fastest to train" in training.lexicon["en"]["direction"]["best"]


# --- a table of our own through --card -------------------------------------------------------------

def test_a_table_of_our_own_is_ingested_through_its_card(tmp_path, capsys, monkeypatch):
    settings = built_store(tmp_path)
    card = write_fixture(tmp_path / "mine")
    before = snapshot(settings)
    vectors_before = store_mod.open_store(settings).collection().count()

    def no_embedding(*args, **kwargs):
        raise AssertionError("a card ingest must not embed anything")

    with monkeypatch.context() as patched:
        patched.setattr("ingest.embed.embed_passages", no_embedding)
        patched.setattr("ingest.embed.get_embedder", no_embedding)
        assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 0
    out = capsys.readouterr().out
    assert "dataset added compile-times" in out and "compile time (compile_s) in seconds, lower is better" in out
    assert "8 rows (2025-03: 5, 2025-09: 3)" in out and "none embedded" in out

    store = store_mod.open_store(settings)
    assert store.generation != before["current"] and store.generation in generations(settings)
    assert store.collection().count() == vectors_before  # the vectors came along, under the new generation
    assert store.manifest["chroma"]["collection"] == store_mod.collection_name(store.generation)
    assert store.search("Vera Rubin NVL72 preview", k=1, where={"kind": "doc"})[0]["metadata"]["doc_id"] == "a.md"
    old = json.loads(before["manifest"])
    assert {k: v for k, v in store.manifest.items() if k not in ("generation", "chroma", "datasets")} == \
        {k: v for k, v in old.items() if k not in ("generation", "chroma")}  # the default ingest's part, as it was
    assert store.table().equals(pd.read_parquet(store_mod.store_root(settings) / before["current"] / "results.parquet"))
    assert store_mod.read_cards(store.path) == store_mod.read_cards(store_mod.store_root(settings) / before["current"])
    assert len(store_mod.read_cards(store.path)) == old["cards"] > 0  # the entity cards came along too

    [entry] = store.datasets
    assert entry["id"] == "compile-times" and entry["rows"] == 8 and entry["columns"] == FIXTURE_COLUMNS
    assert entry["measure"] == {"column": "result", "name": "compile time", "source_column": "compile_s",
                                "unit": "seconds", "direction": "lower"}
    assert entry["secondary"]["peak_memory"]["unit"] == "GB"
    assert entry["rows_per_round"] == {"2025-03": 5, "2025-09": 3} and entry["defaults"] == {"round": "2025-09"}
    assert [s["reader"] for s in entry["sources"]] == ["csv", "parquet"]
    assert (store.path / entry["card"]).read_text(encoding="utf-8") == CARD

    table = store.dataset_table("compile-times")
    assert list(table.columns) == FIXTURE_COLUMNS and len(table) == 8
    assert table["result"].tolist() == [412.5, 655.25, 1310.0, 1204.75, 5400.5, 398.0, 1150.125, 5105.0]
    assert set(table["units"]) == {"seconds"} and table["lower_is_better"].all()
    assert table["round_order"].tolist() == [1] * 5 + [2] * 3  # "2025-03" before "2025-09": natural order
    assert table["result_id"].tolist()[:2] == ["b-0001", "b-0002"]
    assert table["result_url"].iloc[0] == "https://ci.example.org/linux-kernel/b-0001"
    assert pd.isna(table["peak_memory"].iloc[3]) and pd.isna(table["peak_memory_units"].iloc[3])
    assert str(table["cores"].dtype) == "Int64" and table["source_file"].iloc[-1] == "compile_2025-09.parquet"
    # direction-aware: the fastest llvm build of the newer release is the smallest number
    newest = table[(table["round"] == "2025-09") & (table["benchmark"] == "llvm")]
    assert newest.nsmallest(1, "result")["submitter"].item() == "Team Green"

    # the same card again: nothing to do
    assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 0
    assert capsys.readouterr().out.startswith("unchanged: dataset compile-times already in generation")

    assert main(["status", "--store", settings.store]) == 0
    assert ("dataset      compile-times: 8 rows (2025-03, 2025-09); compile time in seconds, lower is better; "
            "tables/compile-times.parquet") in capsys.readouterr().out
    assert main(["status", "--json", "--store", settings.store]) == 0
    [listed] = json.loads(capsys.readouterr().out)["datasets"]
    assert listed["id"] == "compile-times" and listed["direction"] == "lower" and listed["unit"] == "seconds"


def test_the_default_ingest_keeps_card_tables_and_drop_card_removes_them(tmp_path, capsys):
    settings = built_store(tmp_path)
    card = write_fixture(tmp_path / "mine")
    assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 0
    capsys.readouterr()
    entry = store_mod.open_store(settings).datasets[0]

    assert run_ingest(settings, progress=False).status == "unchanged"  # its sources did not change
    rebuilt = run_ingest(settings, progress=False, fresh=True)  # a full rebuild carries the table forward
    store = store_mod.open_store(settings)
    assert rebuilt.status == "built" and store.generation == rebuilt.generation
    assert store.datasets == [entry] and len(store.dataset_table("compile-times")) == 8

    assert main(["ingest", "--quiet", "--drop-card", "compile-times", *_args(settings)]) == 0
    assert "dataset removed compile-times" in capsys.readouterr().out
    store = store_mod.open_store(settings)
    assert store.datasets == [] and "datasets" not in store.manifest and not (store.path / "tables").exists()
    assert main(["ingest", "--quiet", "--drop-card", "compile-times", *_args(settings)]) == 1
    assert "--drop-card: no dataset 'compile-times' in the store; datasets are none" in capsys.readouterr().err


def test_the_default_ingest_writes_no_dataset_state(tmp_path):
    settings = built_store(tmp_path)
    gen = store_mod.current_generation(store_mod.store_root(settings))
    assert sorted(p.name for p in gen.iterdir()) == ["cards.jsonl", "chroma", "manifest.json", "results.parquet"]
    assert "datasets" not in store_mod.read_manifest(gen)
    assert store_mod.open_store(settings).datasets == []


def test_card_ingest_needs_a_store(tmp_path, capsys):
    card = write_fixture(tmp_path / "mine")
    assert main(["ingest", "--card", str(card), "--store", str(tmp_path / "store"), "--embedder", "hash"]) == 3
    err = capsys.readouterr().err
    assert "run `resultsqa ingest` first (a dataset card adds its table to the current generation)" in err


def test_a_source_given_by_url_is_downloaded_into_the_cache(tmp_path, capsys):
    from tests.ingest.test_sources import _Server

    settings = built_store(tmp_path)
    write_fixture(tmp_path / "served")
    server = _Server(tmp_path / "served")
    try:
        text = CARD.replace('path = "compile_2025-03.csv"', f'url = "{server.url}/compile_2025-03.csv"')
        card = write_fixture(tmp_path / "mine", text)
        (tmp_path / "mine" / "compile_2025-03.csv").unlink()  # only the server has it
        assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 0
        assert "dataset added compile-times" in capsys.readouterr().out
        [entry] = store_mod.open_store(settings).datasets
        assert entry["sources"][0] == {"path": f"{server.url}/compile_2025-03.csv", "root": "url", "reader": "csv",
                                       "sha256": hashlib.sha256(MARCH.encode()).hexdigest(), "size": len(MARCH)}
        assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 0
        assert capsys.readouterr().out.startswith("unchanged")
        assert server.downloads == ["/compile_2025-03.csv"]  # the second read was answered by the cache
    finally:
        server.close()


# --- bad cards: one line naming the field; the store as it was ---------------------------------------

def _swap(old: str, new: str):
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new)
    return change


BAD_CARDS = {
    "unknown-column": (_swap('column = "compile_s"', 'column = "banana"'),
                       "measure.column: no column 'banana' in compile_2025-03.csv; columns are build, release, "
                       "project, team, machine, cpu, cores, compile_s, peak_rss_gb"),
    "missing-measure": (_swap('[measure]\ncolumn = "compile_s"\nname = "compile time"\nunit = "seconds"\n'
                              'direction = "lower"\n', ""),
                        "measure: missing; a card needs [measure] with column, unit and direction"),
    "bad-direction": (_swap('unit = "seconds"\ndirection = "lower"', 'unit = "seconds"\ndirection = "up"'),
                      "measure.direction must be 'lower' or 'higher', got 'up'"),
    "bad-decimals": (_swap('unit = "seconds"\ndirection = "lower"',
                           'unit = "seconds"\ndirection = "lower"\ndecimals = 2.5'),
                     "measure.decimals must be a whole number from 0 to 12, got 2.5"),
    "decimals-on-a-secondary": (_swap('unit = "GB"', 'unit = "GB"\ndecimals = 1'),
                                "secondary.peak_memory.decimals: only in [measure] with `unit`"),
    "unknown-reader": (_swap('reader = "csv"', 'reader = "xlsx"'),
                       "source[1].reader must be one of csv, parquet, got 'xlsx'"),
    "missing-source-file": (_swap('path = "compile_2025-09.parquet"', 'path = "compile_2025-10.parquet"'),
                            "source[2].path: no such file "),
    "not-a-number": (_swap('column = "compile_s"', 'column = "machine"'),
                     "measure.column: row 1 of compile_2025-03.csv: 'ci-large-01' is not a number"),
    "unknown-field": (_swap("[columns]", "[colums]"), "colums: unknown field; fields here are id, title"),
    "unknown-role": (_swap('submitter = "team"', 'company = "team"'),
                     "entities.company: unknown field; fields here are submitter, system_name"),
    "default-not-in-data": (_swap('round = "2025-09"', 'round = "2024-09"'),
                            "defaults.round: no value '2024-09' in column round of compile_2025-03.csv, "
                            "compile_2025-09.parquet; values are 2025-03, 2025-09"),
    "order-not-in-data": (_swap('round = "2025-09"',
                                'round = "2025-09"\n\n[order]\nsystem_name = ["ci-large-01", "ci-xxl"]'),
                          "order.system_name: no value 'ci-xxl' in column system_name of compile_2025-03.csv, "
                          "compile_2025-09.parquet; values are "),
    "template-column": (_swap("{project}/{build}", "{project}/{job}"),
                        "citation.url_template: no column 'job' in compile_2025-03.csv"),
    "bad-id": (_swap('id = "compile-times"', 'id = "Compile Times"'),
               "id must be lower-case letters, digits, '.', '-' or '_' (at most 64), got 'Compile Times'"),
    "chip-names-not-a-list": (_swap("[columns]", '[chip_names]\nprefixes = "ci"\n\n[columns]'),
                              "chip_names.prefixes must be a list of non-empty strings, got 'ci'"),
    "not-toml": (_swap('title = "Compile times"', 'title = Compile times'), "not valid TOML"),
    "hint-of-another-card": (_swap("[lexicon.en.dataset]", '[lexicon.en.dataset_hint]\nmlperf-training = ["how long"]'
                                   "\n\n[lexicon.en.dataset]"),
                             "lexicon.en.dataset_hint.mlperf-training: dataset_hint words are keyed by this card's "
                             "id ('compile-times')"),
}


@pytest.mark.parametrize("case", list(BAD_CARDS))
def test_a_bad_card_is_one_line_naming_the_field_and_the_store_is_unchanged(tmp_path, capsys, case):
    settings = built_store(tmp_path)
    change, expected = BAD_CARDS[case]
    card = write_fixture(tmp_path / "mine", change(CARD))
    before = snapshot(settings)
    assert main(["ingest", "--quiet", "--card", str(card), *_args(settings)]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and not captured.out, captured.err
    assert lines[0].startswith(f"resultsqa ingest: {card}: ") and expected in lines[0], lines[0]
    assert snapshot(settings) == before


def test_a_failure_while_writing_removes_the_new_generation(tmp_path, monkeypatch):
    from ingest import dataset_ingest

    settings = built_store(tmp_path)
    card = write_fixture(tmp_path / "mine")
    before = snapshot(settings)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(dataset_ingest, "_copy_index", broken)
    with pytest.raises(OSError):
        dataset_ingest.ingest_cards(settings, [card], progress=False)
    assert snapshot(settings) == before


def test_a_card_error_names_the_card_file():
    with pytest.raises(CardError) as err:
        load_card(PROJECT / "data" / "cards" / "no-such-card.toml")
    assert str(err.value).endswith("no-such-card.toml: card file not found")


# --- server mode: the vectors are copied into the new generation's own collection -------------------

def test_a_card_ingest_through_a_chroma_server(tmp_path, chroma_server):
    settings = mirror_settings(tmp_path, chroma_url=chroma_server)
    first = run_ingest(settings, progress=False)
    card = write_fixture(tmp_path / "mine")
    assert main(["ingest", "--quiet", "--card", str(card), *_args(settings),
                 "--chroma-url", chroma_server]) == 0
    store = store_mod.open_store(settings_mod.load(store=settings.store))
    assert store.mode == "server" and store.generation != first.generation
    assert store.manifest["chroma"]["collection"] == store_mod.collection_name(store.generation)
    assert store.search("Vera Rubin NVL72 preview", k=1, where={"kind": "doc"})[0]["metadata"]["doc_id"] == "a.md"
    assert len(store.dataset_table("compile-times")) == 8


from tests.ingest.test_chroma_server import chroma_process, chroma_server  # noqa: E402,F401  (fixtures)


def test_the_default_ingest_adds_the_default_cards_and_skips_one_without_data(tmp_path, capsys, monkeypatch):
    """`resultsqa ingest` adds the tables of setting `cards` beside the default data; a card whose
    files are missing is skipped with a warning and the default data still ingests."""
    card = write_fixture(tmp_path / "own")
    missing = tmp_path / "gone" / "compile-times.toml"
    write_fixture(missing.parent)
    (missing.parent / "compile_2025-03.csv").unlink()
    settings = mirror_settings(tmp_path)
    monkeypatch.setenv("RESULTSQA_CARDS", f"{card},{missing}")
    assert main(["ingest", *_args(settings)]) == 0
    out, err = capsys.readouterr()
    assert "dataset    compile-times: 8 rows" in out
    assert "dataset card compile-times.toml skipped" in err
    gen = store_mod.current_generation(store_mod.store_root(settings))
    manifest = json.loads((gen / store_mod.MANIFEST).read_text())
    assert [e["id"] for e in manifest["datasets"]] == ["compile-times"]
    assert manifest["rows"] > 0  # the default data is there too
    assert main(["ingest", *_args(settings)]) == 0  # a second run rebuilds nothing
    assert "unchanged" in capsys.readouterr().out


def test_a_warm_default_ingest_knows_its_card_tables_are_unchanged_without_reading_them(tmp_path, capsys,
                                                                                       monkeypatch):
    card = write_fixture(tmp_path / "own")
    settings = mirror_settings(tmp_path)
    monkeypatch.setenv("RESULTSQA_CARDS", str(card))
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    capsys.readouterr()

    def no_read(*args, **kwargs):
        raise AssertionError("a card table read on a warm ingest")

    monkeypatch.setattr("ingest.dataset_ingest.read_card_table", no_read)
    assert main(["ingest", "--quiet", *_args(settings)]) == 0
    out = capsys.readouterr().out
    assert "unchanged: dataset compile-times already in generation" in out and "dataset    compile-times: 8 rows" in out
    (tmp_path / "own" / "compile_2025-03.csv").write_text(MARCH.replace("412.5", "413.5"), encoding="utf-8")
    monkeypatch.undo()
    monkeypatch.setenv("RESULTSQA_CARDS", str(card))
    assert main(["ingest", "--quiet", *_args(settings)]) == 0  # a changed source: read and rebuilt
    assert "dataset added compile-times" in capsys.readouterr().out
