"""Each normalisation rule on the messy values seen in the published files (written out by hand)."""

from __future__ import annotations

import pytest

from ingest import normalize as n


@pytest.mark.parametrize("raw, want", [
    ("offline", "Offline"), ("singlestream", "SingleStream"), ("multistream", "MultiStream"),
    ("server", "Server"), ("interactive", "Interactive"), ("Offline", "Offline"),
    ("MultiStream", "MultiStream"), ("Single_Stream", "SingleStream"), ("Burst", "Burst"),
])
def test_scenario(raw, want):
    assert n.scenario(raw) == want


@pytest.mark.parametrize("raw, want", [
    ("AMD Instinct MI355X 288GB HBM3e (x87)", "AMD Instinct MI355X 288GB HBM3e"),
    ("AMD Instinct MI355X 288GB HBM3e (Power Cap 1000 W)", "AMD Instinct MI355X 288GB HBM3e"),
    ("AMD Instinct MI355X 288GB HBM3E", "AMD Instinct MI355X 288GB HBM3e"),
    ("AMD Instinct MI300X 192GB HBM3 (x2x8) and AMD Instinct MI355X 288GB HBM3e (x2x8)",
     "AMD Instinct MI300X 192GB HBM3 and AMD Instinct MI355X 288GB HBM3e"),
    ("Nvidia B300-SXM-270GB", "NVIDIA B300-SXM-270GB"),
    ("NVIDIA H100-SXM-80GB", "NVIDIA H100-SXM-80GB"),
    ("", "N/A"), ("N/A", "N/A"), ("  ", "N/A"),
])
def test_accelerator_decorations(raw, want):
    assert n.accelerator(raw) == want


@pytest.mark.parametrize("raw, vendor, family", [
    ("NVIDIA GB300", "NVIDIA", "GB300"),
    ("NVIDIA B300-SXM-270GB", "NVIDIA", "B300"),
    ("NVIDIA GB200", "NVIDIA", "GB200"),
    ("NVIDIA B200-SXM-180GB", "NVIDIA", "B200"),
    ("NVIDIA GH200 Grace Hopper Superchip 144GB", "NVIDIA", "GH200"),
    ("Virtualized NVIDIA H200-SXM-141GB", "NVIDIA", "H200"),
    ("NVIDIA H100-PCIe-80GB", "NVIDIA", "H100"),
    ("NVIDIA L40S", "NVIDIA", "L40S"),
    ("NVIDIA L4-PCIe-24GB", "NVIDIA", "L4"),
    ("NVIDIA Vera Rubin", "NVIDIA", "VR200"),
    ("NVIDIA VR200", "NVIDIA", "VR200"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA", "RTX PRO 6000"),
    ("NVIDIA RTX-2000E-Ada-16GB", "NVIDIA", "RTX 2000E Ada"),
    ("NVIDIA GeForce RTX 4090", "NVIDIA", "RTX 4090"),
    ("Tesla T4", "NVIDIA", "T4"),
    ("NVIDIA Jetson AGX Orin 64G", "NVIDIA", "Jetson AGX Orin"),
    ("AMD Instinct MI355X 288GB HBM3e (x87)", "AMD", "MI355X"),
    ("AMD MI300X-NPS1-SPX-192GB-750W", "AMD", "MI300X"),
    ("AMD Instinct MI325X 256GB HBM3e", "AMD", "MI325X"),
    ("AMD Instinct MI350X 288GB HBM3e", "AMD", "MI350X"),
    ("AMD Radeon 8060S Graphics", "AMD", "Radeon 8060S"),
    ("Intel(R) Arc(TM) Pro B70", "Intel", "Arc Pro B70"),
    ("Intel(R) Arc Pro(R) B70", "Intel", "Arc Pro B70"),
    ("[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo", "Intel", "Arc Pro B60"),
    ("Intel Gaudi 3", "Intel", "Gaudi 3"),
    ("TPU v6", "Google", "TPU v6"),
    ("TPU v5e", "Google", "TPU v5e"),
    ("UntetherAI speedAI240 Slim", "UntetherAI", "speedAI240"),
    ("Qualcomm Cloud AI 100", "Qualcomm", "Cloud AI 100"),
    ("N/A", "none", "none"),
    ("", "none", "none"),
    ("Acme Widget 9", "other", "Acme Widget 9"),
])
def test_vendor_and_family(raw, vendor, family):
    assert n.accelerator_vendor(raw) == vendor
    assert n.accelerator_family(raw) == family


def test_heterogeneous_systems_name_every_chip_in_one_order():
    mixed = "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e"
    assert n.accelerator_vendor(mixed) == "AMD+NVIDIA"
    assert n.accelerator_family(mixed) == "H200+MI350X"
    a = "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)"
    b = "AMD Instinct MI325X 256GB HBM3E (x16), AMD Instinct MI300X 192GB HBM3 (x8)"
    assert n.accelerator_family(a) == n.accelerator_family(b) == "MI300X+MI325X"
    assert n.accelerator_vendor(a) == "AMD"
    three = ("AMD Instinct MI300X 192GB HBM3 (x8) and AMD Instinct MI325X 256GB HBM3e (x8) "
             "and AMD Instinct MI355X 288GB HBM3e (x8)")
    assert n.accelerator_family(three) == "MI300X+MI325X+MI355X"
    assert "Instinct" in n.common_names("MI300X+MI355X")


@pytest.mark.parametrize("raw, want", [
    ("64", 64), (64, 64), (32.0, 32), ("32.0", 32), ("", None), (None, None),
    ("64 cores per socket, 128 total cores, 256 threads", 64),
    ("64(AMD EPYC 9534) and 96(AMD EPYC 9655)", None),
    ("lots", None), (12.5, None),
])
def test_core_count(raw, want):
    assert n.core_count(raw) == want


@pytest.mark.parametrize("mlperf_model, model_used, want", [
    ("llama3.1-8b", "llama3_1-8b", "llama3.1-8b"),
    ("llama3_1-8b", "llama3_1-8b", "llama3.1-8b"),
    ("VLM", "qwen3-vl-235b-a22b", "qwen3-vl-235b-a22b"),
    ("text_to_video", "wan-2.2-t2v-a14b", "wan-2.2-t2v-a14b"),
    ("agentic edge", "qwen3.6-27b", "qwen3.6-27b"),
    ("end to end question-answering", "e2e-rag-qna", "e2e-rag-qna"),
    ("resnet", "resnet50", "resnet"),
    ("llama2-70b-99.9", "llama2-70b-99.9", "llama2-70b-99.9"),
    ("stable-diffusion-xl", "stable-diffusion-xl", "stable-diffusion-xl"),
])
def test_benchmark_key(mlperf_model, model_used, want):
    assert n.benchmark_key(mlperf_model, model_used) == want


@pytest.mark.parametrize("units, want", [
    ("Latency (ms)", True), ("Latency (s)", True), ("Latency (us)", True), ("millijoules", True),
    ("Tokens/s", False), ("Samples/s", False), ("Queries/s", False), ("Tasks/s", False), ("Watts", False),
])
def test_lower_is_better(units, want):
    assert n.lower_is_better(units) is want


def test_rounds_paths_and_urls():
    assert n.round_label("6.1") == n.round_label("v6.1") == "v6.1"
    assert n.round_order("v4.1") == 401 and n.round_order("v10.0") > n.round_order("v9.1")
    with pytest.raises(ValueError):
        n.round_label("six")
    assert n.result_path("./closed/AMD/results/x") == "closed/AMD/results/x"
    assert n.result_path("closed/AMD/results/x") == "closed/AMD/results/x"
    assert n.result_url("v6.1", "open/Orrick Industries LLC/results/b200_6x") == (
        "https://github.com/mlcommons/inference_results_v6.1/tree/main/open/Orrick%20Industries%20LLC/results/b200_6x")


@pytest.mark.parametrize("raw, want", [
    (True, True), (False, False), ("True", True), ("False", False), ("1", True), ("0", False),
    (0, False), ("", None), (None, None),
])
def test_parse_bool(raw, want):
    assert n.parse_bool(raw) is want


def test_parse_bool_rejects_garbage():
    with pytest.raises(ValueError):
        n.parse_bool("maybe")


def test_every_accelerator_in_the_data_gets_a_known_vendor(results_table):
    """Data-driven guard: a new chip in a new round must extend the tables, not land in `other`."""
    named = results_table[results_table["accelerator"] != "N/A"]
    assert not (named["accelerator_vendor"].str.contains("other")).any(), \
        named.loc[named["accelerator_vendor"].str.contains("other"), "accelerator"].unique()
    # the family is a short name, never the full decorated model
    assert (named["accelerator_family"].str.len() < 25).all()
    cpu_only = results_table[results_table["accelerator"] == "N/A"]
    assert set(cpu_only["accelerator_vendor"]) == {"none"}
    assert set(cpu_only["total_accelerators"].dropna()) <= {0}
