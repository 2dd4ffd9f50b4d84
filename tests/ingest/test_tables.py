"""read_table: each input format from tiny inline fixtures, every bad-input case, and the full
raw files cross-checked against the tidy CSVs (produced by a different program)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from ingest.normalize import unify_submitters
from ingest.errors import SourceError
from ingest.schema import COLUMNS, COLUMN_NAMES
from ingest.tables import DEFAULT_MAX_BYTES, read_table
from tests.conftest import SHARED_DATA

TIDY_ALL = SHARED_DATA / "mlperf" / "mlperf_inference_all_rounds_results.csv"

# --- inline fixtures ------------------------------------------------------------------

V51_RECORDS = [
    {"ID": "5.1-0001", "Submitter": "AMD", "Availability": "available", "Category": "closed",
     "Suite": "datacenter", "System": "Supermicro AS-8125GS-TNMR2", "Platform": "8xMI300X_2xEPYC_9575F",
     "UsedModel": "llama2-70b-99", "Model": "llama2-70b-99", "Scenario": "Offline",
     "Accuracy": "ROUGE1: 44.4", "Nodes": 2, "Processor": "AMD EPYC 9575F", "host_processors_per_node": 2,
     "host_processor_core_count": "64 cores per socket, 128 total cores, 256 threads",
     "Accelerator": "AMD Instinct MI300X 192GB HBM3", "a#": 8,
     "Location": "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline", "Software": "vLLM",
     "version": "v5.1", "has_power": True, "weight_data_types": "fp8",
     "Performance_Result": 8840.42, "Performance_Units": "Tokens/s",
     "Power_Result": 10400.5, "Power_Units": "Watts"},
    {"ID": "5.1-0002", "Submitter": "Intel", "Availability": "preview", "Category": "open",
     "Suite": "edge", "System": "GATE Overflow Intel SPR i9", "Platform": "spr i9",
     "UsedModel": "mobilenet", "Model": "resnet", "Scenario": "SingleStream",
     "Accuracy": "acc: 70", "Nodes": 1, "Processor": "Intel i9", "host_processors_per_node": 1,
     "host_processor_core_count": 24.0, "Accelerator": "", "a#": "",
     "Location": "open/Intel/results/spr i9/mobilenet/SingleStream", "Software": "onnx",
     "version": "v5.1", "has_power": False, "weight_data_types": "int8",
     "Performance_Result": 0.41, "Performance_Units": "Latency (ms)"},
]

V60_RECORD = dict(V51_RECORDS[0], **{
    "ID": "6.0-0007", "version": "v6.0", "Nodes": 11, "a#": "", "Total Accelerators": 87,
    "Accelerator": "AMD Instinct MI355X 288GB HBM3e (x87)", "has_power": False,
    "Location": "./closed/AMD/results/87xMI355X/llama2-70b-99/Offline/performance/run_1"})
del V60_RECORD["Power_Result"], V60_RECORD["Power_Units"]

CHECKER_HEADER = ("Organization,Availability,Division,SystemType,SystemName,Platform,Model,MlperfModel,Scenario,"
                  "Result,Accuracy,number_of_nodes,host_processor_model_name,host_processors_per_node,"
                  "host_processor_core_count,accelerator_model_name,accelerators_per_node,total_accelerators,"
                  "Location,framework,operating_system,notes,compliance,errors,version,inferred,has_power,Units,"
                  "weight_data_types,design_power_watts,PrivateID")
CHECKER_ROWS = [
    "Naeem Khoshnevis,rdi,closed,datacenter,H200 box,H200,llama3_1-8b,llama3.1-8b,Offline,121818.0,acc,1,"
    "Xeon,2,32,NVIDIA H200-SXM-141GB,1,1,./closed/Naeem Khoshnevis/results/H200/llama3_1-8b/Offline/performance/run_1,"
    "vLLM,,,,,v6.1,0,False,Tokens/s,fp8,,",
    "NVIDIA,preview,closed,datacenter,Vera Rubin NVL72,VR_NVL72,qwen3-vl-235b-a22b,VLM,Server,5.5,acc,18,"
    "Grace,2,72,NVIDIA Vera Rubin,4,72,./closed/NVIDIA/results/VR_NVL72/qwen3-vl-235b-a22b/Server/performance/run_1,"
    "TRT,,,,,v6.1,0,False,Queries/s,\"fp4,fp8\",,",
    "Dell,available,closed,edge,Edge box,edge1,whisper,whisper,offline,12.5,acc,1,"
    "Xeon,1,16,N/A,0,0,,onnx,,,,,v6.1,1,False,Samples/s,fp16,,",
]


def write_json(tmp_path: Path, records, name: str = "summary_results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def write_checker(tmp_path: Path, rows=CHECKER_ROWS, name: str = "summary.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([CHECKER_HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def assert_schema(df: pd.DataFrame) -> None:
    assert list(df.columns) == COLUMN_NAMES
    for column in COLUMNS:
        assert str(df[column.name].dtype) == str(pd.Series([], dtype=column.dtype).dtype), column.name


# --- formats --------------------------------------------------------------------------


def test_summary_results_json_v51_maps_fields_and_computes_total(tmp_path):
    df = read_table(write_json(tmp_path, V51_RECORDS))
    assert_schema(df)
    first, second = df.iloc[0], df.iloc[1]
    assert first["round"] == "v5.1" and first["round_order"] == 501
    assert first["result_id"] == "5.1-0001" and first["division"] == "closed"
    assert first["number_of_nodes"] == 2 and first["accelerators_per_node"] == 8
    assert first["total_accelerators"] == 16  # 2 nodes x 8, v5.1 publishes no total
    assert first["host_processor_core_count"] == 64
    assert first["host_processor_core_count_raw"] == "64 cores per socket, 128 total cores, 256 threads"
    assert first["accelerator_family"] == "MI300X" and first["accelerator_vendor"] == "AMD"
    assert first["result"] == 8840.42 and first["units"] == "Tokens/s" and not first["lower_is_better"]
    assert first["power_result"] == 10400.5 and first["power_units"] == "Watts" and first["has_power"]
    assert first["precision"] == "fp8" and first["framework"] == "vLLM"
    assert first["result_url"] == ("https://github.com/mlcommons/inference_results_v5.1/tree/main/"
                                   "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline")
    # CPU-only open-division row: blank accelerator, no total, no power, latency
    assert second["accelerator"] == "N/A" and pd.isna(second["accelerator_raw"])
    assert second["accelerator_vendor"] == "none"
    assert pd.isna(second["accelerators_per_node"]) and pd.isna(second["total_accelerators"])
    assert second["host_processor_core_count"] == 24 and second["host_processor_core_count_raw"] == "24"
    assert pd.isna(second["power_result"]) and pd.isna(second["power_units"]) and not second["has_power"]
    assert second["lower_is_better"] and second["benchmark"] == "resnet" and second["model_used"] == "mobilenet"
    assert second["result_url"].endswith("/open/Intel/results/spr%20i9/mobilenet/SingleStream")
    assert second["availability"] == "preview"


def test_summary_results_json_v60_copies_total_and_strips_decoration(tmp_path):
    df = read_table(write_json(tmp_path, [V60_RECORD]))
    row = df.iloc[0]
    assert row["total_accelerators"] == 87 and pd.isna(row["accelerators_per_node"])
    assert row["accelerator"] == "AMD Instinct MI355X 288GB HBM3e"
    assert row["accelerator_raw"] == "AMD Instinct MI355X 288GB HBM3e (x87)"
    assert row["accelerator_family"] == "MI355X"
    assert row["result_path"] == "closed/AMD/results/87xMI355X/llama2-70b-99/Offline/performance/run_1"
    assert pd.isna(row["power_result"])


def test_checker_csv_rows_ids_benchmarks_and_scenarios(tmp_path):
    df = read_table(write_checker(tmp_path))
    assert_schema(df)
    assert df["result_id"].tolist() == ["v6.1-csvrow-0001", "v6.1-csvrow-0002", "v6.1-csvrow-0003"]
    assert df["benchmark"].tolist() == ["llama3.1-8b", "qwen3-vl-235b-a22b", "whisper"]
    assert df["benchmark_raw"].tolist() == ["llama3.1-8b", "VLM", "whisper"]
    assert df["model_used"].tolist() == ["llama3_1-8b", "qwen3-vl-235b-a22b", "whisper"]
    assert df["scenario"].tolist() == ["Offline", "Server", "Offline"]
    assert df["scenario_raw"].tolist() == ["Offline", "Server", "offline"]
    assert df["result"].tolist() == [121818.0, 5.5, 12.5]
    assert df["total_accelerators"].tolist() == [1, 72, 0]
    assert df["accelerator_family"].tolist() == ["H200", "VR200", "none"]
    assert df["precision"].tolist()[1] == "fp4,fp8"
    assert df["has_power"].tolist() == [False, False, False]
    assert df["result_url"][0] == ("https://github.com/mlcommons/inference_results_v6.1/tree/main/closed/"
                                   "Naeem%20Khoshnevis/results/H200/llama3_1-8b/Offline/performance/run_1")
    # empty Location: rebuilt the way the checker lays out result folders
    assert df["result_path"][2] == "closed/Dell/results/edge1/whisper/offline/performance/run_1"


def test_checker_records_as_json_are_read_like_the_csv(tmp_path):
    csv_df = read_table(write_checker(tmp_path))
    records = pd.read_csv(write_checker(tmp_path), dtype=str, keep_default_na=False).to_dict("records")
    json_df = read_table(write_json(tmp_path, records, "summary.json"))
    pd.testing.assert_frame_equal(csv_df.drop(columns="source_file"), json_df.drop(columns="source_file"))


def test_tidy_csv_and_parquet_give_the_same_table(tmp_path):
    tidy = pd.read_csv(TIDY_ALL, dtype=str, keep_default_na=False)
    sample = pd.concat([tidy.head(40), tidy.tail(40)])
    csv_path = tmp_path / "tidy.csv"
    sample.to_csv(csv_path, index=False)
    parquet_path = tmp_path / "tidy.parquet"
    typed = pd.read_csv(csv_path)  # parquet with real numeric/bool dtypes, as another program would write
    typed.to_parquet(parquet_path)
    from_csv = read_table(csv_path)
    from_parquet = read_table(parquet_path)
    assert_schema(from_parquet)
    pd.testing.assert_frame_equal(from_csv.drop(columns="source_file"), from_parquet.drop(columns="source_file"))
    assert from_csv["result_id"].tolist() == sample["result_id"].tolist()


def test_normalised_table_reads_back_unchanged(tmp_path):
    df = read_table(write_checker(tmp_path))
    path = tmp_path / "results.parquet"
    df.to_parquet(path)
    pd.testing.assert_frame_equal(read_table(path), df)


# --- bad input: always one SourceError naming the file ---------------------------------


def _bad(path: Path, *fragments: str, **kwargs) -> SourceError:
    with pytest.raises(SourceError) as info:
        read_table(path, **kwargs)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return info.value


def test_malformed_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"ID": "5.1-0001",', encoding="utf-8")
    _bad(path, "malformed JSON")


def test_json_that_is_not_a_list_of_records(tmp_path):
    _bad(write_json(tmp_path, {"ID": "x"}, "obj.json"), "expected a list")
    _bad(write_json(tmp_path, [1, 2], "nums.json"), "record 1")
    _bad(write_json(tmp_path, [], "empty_list.json"), "no result records")


def test_missing_required_columns_are_named(tmp_path):
    records = [{k: v for k, v in V51_RECORDS[0].items() if k not in {"Scenario", "Location"}}]
    _bad(write_json(tmp_path, records), "summary_results.json", "Scenario", "Location")
    header = CHECKER_HEADER.replace(",Units,", ",")
    rows = [r.replace(",Tokens/s,", ",").replace(",Queries/s,", ",").replace(",Samples/s,", ",") for r in CHECKER_ROWS]
    path = tmp_path / "summary.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    _bad(path, "checker summary.csv", "Units")


def test_unknown_format(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    _bad(path, "unknown format")


def test_empty_and_blank_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    _bad(empty, "empty file")
    blank = tmp_path / "blank.json"
    blank.write_text("\n  \n", encoding="utf-8")
    _bad(blank, "empty file")
    header_only = tmp_path / "header.csv"
    header_only.write_text(CHECKER_HEADER + "\n", encoding="utf-8")
    _bad(header_only, "no data rows")


def test_non_utf8_and_binary(tmp_path):
    latin = tmp_path / "latin1.csv"
    latin.write_bytes((CHECKER_HEADER + "\n" + CHECKER_ROWS[0].replace("Naeem", "Na\u00efem") + "\n").encode("latin-1"))
    _bad(latin, "not UTF-8")
    binary = tmp_path / "blob.json"
    binary.write_bytes(os.urandom(64) + b"\x00\x00")
    _bad(binary, "binary")


def test_broken_parquet(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"garbage" * 10)
    _bad(path, "Parquet")


def test_file_over_size_limit(tmp_path):
    path = write_checker(tmp_path)
    _bad(path, "limit", max_bytes=100)
    big = tmp_path / "huge.json"
    with big.open("wb") as fh:  # sparse 200 MB file: refused before anything is read
        fh.truncate(200 * 1024 * 1024)
    assert DEFAULT_MAX_BYTES < 200 * 1024 * 1024
    _bad(big, "200.0 MB", "max_source_mb")


def test_malformed_csv_rows(tmp_path):
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0] + ",extra"], "long.csv"), "line 2", "fields")
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0].rsplit(",", 3)[0]], "short.csv"), "line 2", "fields")
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0], 'x,"unterminated'], "quote.csv"), "malformed CSV")


def test_bad_values_name_row_and_column(tmp_path):
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0].replace("121818.0", "fast")], "num.csv"), "row 1", "Result")
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0].replace(",1,1,./", ",1,1.5,./")], "int.csv"),
         "total_accelerators")
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0].replace(",v6.1,", ",six,")], "round.csv"), "version")
    _bad(write_checker(tmp_path, [CHECKER_ROWS[0].replace(",False,", ",maybe,")], "bool.csv"), "has_power")


def test_missing_file(tmp_path):
    _bad(tmp_path / "nope.json", "no such file")


# --- the full data ----------------------------------------------------------------------


def test_row_counts_per_round(results_table):
    assert len(results_table) == 3397
    assert results_table["round"].value_counts().to_dict() == {"v5.1": 1448, "v4.1": 937, "v6.0": 520, "v6.1": 492}
    assert_schema(results_table)
    assert results_table["result_url"].notna().all() and results_table["result"].notna().all()


CROSS_CHECK = ["round", "result_id", "division", "availability", "submitter_raw", "system_name", "platform",
               "number_of_nodes", "total_accelerators", "benchmark", "scenario_raw", "result", "units",
               "result_url"]


def test_submitter_spellings_are_unified_across_rounds_and_the_raw_kept(results_table):
    oracle = results_table[results_table["submitter"].str.casefold() == "oracle"]
    assert set(oracle["submitter"]) == {"Oracle"}
    assert set(oracle["submitter_raw"]) == {"Oracle", "ORACLE"}
    assert set(oracle.loc[oracle["submitter_raw"] == "ORACLE", "round"]) == {"v6.0"}


def test_every_row_agrees_with_the_tidy_csv(results_table):
    tidy = pd.read_csv(TIDY_ALL, dtype=str, keep_default_na=False)
    tidy = tidy.rename(columns={"scenario": "scenario_raw", "submitter": "submitter_raw"})
    # the tidy file orders rounds newest first; within a round both follow the source file's row order
    for round_ in ["v4.1", "v5.1", "v6.0", "v6.1"]:
        a = results_table[results_table["round"] == round_].reset_index(drop=True)
        b = tidy[tidy["round"] == round_].reset_index(drop=True)
        assert len(a) == len(b), round_
        for column in CROSS_CHECK:
            if column == "result":
                got, want = a[column].tolist(), [float(v) for v in b[column]]
            else:
                got = ["" if pd.isna(v) else str(v) for v in a[column]]
                want = b[column].tolist()
            diffs = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
            assert not diffs, (round_, column, diffs[:3])


def test_readme_facts_v61(results_table):
    v61 = results_table[results_table["round"] == "v6.1"]
    assert v61["submitter"].nunique() == 33
    assert (v61["availability"] == "preview").sum() == 8
    llama = v61[(v61["benchmark"] == "llama2-70b-99.9") & (v61["scenario"] == "Offline")]
    best = llama.loc[llama["result"].idxmax()]
    assert best["result"] == 1136100 and best["units"] == "Tokens/s"
    assert best["submitter"] == "CoreWeave" and best["result_id"] == "v6.1-csvrow-0104"
    assert best["number_of_nodes"] == 18 and best["total_accelerators"] == 72



def test_tidy_csv_of_all_rounds_reads_to_the_same_table_as_the_raw_files(results_table):
    """Two different source formats, written by different programs, must normalise identically."""
    tidy = unify_submitters(read_table(TIDY_ALL))
    tidy = pd.concat([tidy[tidy["round"] == r] for r in ["v4.1", "v5.1", "v6.0", "v6.1"]], ignore_index=True)
    pd.testing.assert_frame_equal(tidy.drop(columns="source_file"), results_table.drop(columns="source_file"))
