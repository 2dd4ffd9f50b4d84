"""`resultsqa bench`: speed, memory and token cost on this machine, against the budgets.

Why a benchmark and not timed tests: absolute times swing with the machine and its load,
so tests assert behaviour and this command measures. Where a comparison matters (our agent
vs the PandasQueryEngine baseline) it reports ratios, which hold on a noisy machine.

Each section runs on its own and reports `skipped: <why>` instead of failing the run when
what it measures is not available (no model file, no baseline environment).
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = Path(__file__).resolve().parent / "budgets.toml"
DEFAULT_MODEL = ROOT / "data" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
SECTIONS = ["machine", "ingest", "offline", "cold_start", "agent", "baseline", "api", "api_chroma"]


# --- small measuring helpers -----------------------------------------------------------

def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile of unsorted values; None for none (a skipped figure is not a zero)."""
    from eval.load import percentile as sorted_percentile

    found = sorted_percentile(sorted(values), pct)
    return None if found is None else round(found, 2)


def run_measured(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 900) -> dict[str, Any]:
    """Run a command; return wall time and the peak RSS of it and its children.

    RSS is sampled every 20 ms with psutil (VmHWM dies with the process, and wait4's
    ru_maxrss counts the forked copy of this, possibly large, parent before exec).
    """
    import psutil

    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak = 0
    watched = psutil.Process(proc.pid)
    out, err = b"", b""
    while True:
        try:
            rss = watched.memory_info().rss + sum(c.memory_info().rss for c in watched.children(recursive=True))
            peak = max(peak, rss)
        except psutil.Error:
            pass
        try:
            out, err = proc.communicate(timeout=0.02)
            break
        except subprocess.TimeoutExpired:
            if time.perf_counter() - started > timeout:
                proc.kill()
                raise TimeoutError(f"{cmd[:3]} ran over {timeout} s") from None
    wall = time.perf_counter() - started
    return {"wall_s": round(wall, 3), "peak_rss_mb": round(peak / 2**20, 1), "exit": proc.returncode,
            "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace")}


def resultsqa_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("resultsqa")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "assistant.cli"]


# --- sections ----------------------------------------------------------------------------

def bench_machine(ctx: dict[str, Any]) -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import psutil

    return {"cores": os.cpu_count(), "cpu": cpu, "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(), "platform": platform.platform()}


def bench_ingest(ctx: dict[str, Any]) -> dict[str, Any]:
    """Cold (empty store) then warm (nothing changed) ingest of the default data, as processes."""
    tmp = Path(tempfile.mkdtemp(prefix="resultsqa-bench-"))
    ctx["tmp_dirs"].append(tmp)
    store = tmp / "store"
    cmd = resultsqa_cmd() + ["ingest", "--store", str(store), "--cache", str(tmp / "cache"),
                             "--data", ctx["settings"].data]
    cold = run_measured(cmd)
    if cold["exit"] != 0:
        raise RuntimeError(f"ingest failed: {cold['stderr'].strip().splitlines()[-1:]}")
    warm = run_measured(cmd)
    ctx["bench_store"] = store
    from ingest.store import open_store
    from ingest import settings as settings_mod

    manifest = open_store(settings_mod.load(store=str(store))).manifest
    rows = int(manifest.get("rows", 0) or sum((manifest.get("rows_per_round") or {}).values()))
    chunks = int(manifest.get("chunks", 0)) + int(manifest.get("verified", 0))  # what was embedded
    return {"cold_s": cold["wall_s"], "warm_s": warm["wall_s"], "rows": rows, "chunks": chunks,
            "cards": int(manifest.get("cards", 0)),
            "rows_per_s": round(rows / cold["wall_s"], 1), "chunks_per_s": round(chunks / cold["wall_s"], 1),
            "peak_rss_mb": cold["peak_rss_mb"]}


def _store_settings(ctx: dict[str, Any]):
    from ingest import settings as settings_mod

    store = ctx.get("bench_store") or ctx["settings"].store
    return settings_mod.load(store=str(store), data=ctx["settings"].data)


def _answer_all(questions: list[Any], answer_fn: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """Answer each question with eval's answer function; wall time per answer in `wall_ms`."""
    out = []
    for q in questions:
        started = time.perf_counter()
        data = answer_fn(q)
        data["wall_ms"] = (time.perf_counter() - started) * 1000
        out.append(data)
    return out


def _ask_all(questions: list[Any], settings: Any, backend: str, model: str | None) -> list[dict[str, Any]]:
    from eval.runner import product_answer_fn

    return _answer_all(questions, product_answer_fn(settings, backend=backend, model=model))


def _accuracy(questions: list[Any], answers: list[dict[str, Any]]) -> float | None:
    from eval.score import score_question

    passed = [score_question(q, a)["pass"] for q, a in zip(questions, answers)]
    return round(sum(passed) / len(passed), 4) if passed else None


def bench_offline(ctx: dict[str, Any]) -> dict[str, Any]:
    """Warm in-process latency of the offline answerer over the whole question set."""
    settings = _store_settings(ctx)
    questions = ctx["questions"]
    _ask_all(questions[:3], settings, "offline", None)  # warm up: engine, catalog, embedder
    answers = _ask_all(questions, settings, "offline", None)
    lat = [a["wall_ms"] for a in answers]
    return {"questions": len(lat), "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95),
            "p99_ms": percentile(lat, 99), "max_ms": round(max(lat), 2),
            "accuracy": _accuracy(questions, answers)}


def bench_cold_start(ctx: dict[str, Any]) -> dict[str, Any]:
    """`resultsqa ask` as a fresh process: what a CLI user waits for."""
    store = ctx.get("bench_store") or ctx["settings"].store
    cmd = resultsqa_cmd() + ["ask", "--json", "--store", str(store),
                             "Which system had the best Llama 2 70B Offline result in v6.1?"]
    runs = [run_measured(cmd, timeout=120) for _ in range(3)]
    if any(r["exit"] != 0 for r in runs):
        raise RuntimeError(f"ask failed: {runs[0]['stderr'][-300:]}")
    return {"ask_s": round(statistics.median(r["wall_s"] for r in runs), 3),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}


def _model_path(ctx: dict[str, Any]) -> Path:
    path = Path(ctx.get("model") or DEFAULT_MODEL)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path} (run `make model`)")
    return path


def bench_agent(ctx: dict[str, Any]) -> dict[str, Any]:
    """The agent with the tiny local model: calls, tokens and latency per question."""
    model = _model_path(ctx)
    questions = ctx["questions"][: ctx["agent_questions"]]
    settings = _store_settings(ctx)
    answers = _ask_all(questions, settings, "llamacpp", str(model))
    ctx["agent_answers"] = answers
    lat = [a["wall_ms"] for a in answers]
    prompt = [a.get("prompt_tokens", 0) for a in answers]
    return {"questions": len(answers), "model": model.name,
            "llm_calls_mean": round(statistics.mean(a.get("llm_calls", 0) for a in answers), 2),
            "llm_calls_max": max(a.get("llm_calls", 0) for a in answers),
            "prompt_tokens_mean": round(statistics.mean(prompt), 1), "prompt_tokens_p95": percentile(prompt, 95),
            "completion_tokens_mean": round(statistics.mean(a.get("completion_tokens", 0) for a in answers), 1),
            "fallbacks": sum(1 for a in answers if a.get("backend") == "offline"),
            "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95),
            "accuracy": _accuracy(questions, answers)}


def bench_baseline(ctx: dict[str, Any]) -> dict[str, Any]:
    """LlamaIndex's PandasQueryEngine with the same model and questions, as ratios against ours."""
    from eval.baseline import BaselineWorker, baseline_answer_fn, start_model_server

    model = _model_path(ctx)
    questions = ctx["questions"][: ctx["agent_questions"]]
    server = start_model_server(str(model))
    worker = None
    try:
        worker = BaselineWorker(server.base_url, model_name=server.model)
        answers = _answer_all(questions, baseline_answer_fn(worker, timeout_s=120))
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
    lat = [a["wall_ms"] for a in answers]
    prompt = [a.get("prompt_tokens", 0) for a in answers]
    result = {"questions": len(answers), "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95),
              "prompt_tokens_mean": round(statistics.mean(prompt), 1) if prompt else None,
              "errors": sum(1 for a in answers if a.get("status") == "error"),
              "accuracy": _accuracy(questions, answers)}
    ours = ctx["results"].get("agent") or {}
    if ours.get("p50_ms") and result["p50_ms"]:
        result["ratio_latency_p50_ours_over_baseline"] = round(ours["p50_ms"] / result["p50_ms"], 2)
    if ours.get("prompt_tokens_mean") and result["prompt_tokens_mean"]:
        result["ratio_prompt_tokens_ours_over_baseline"] = round(
            ours["prompt_tokens_mean"] / result["prompt_tokens_mean"], 2)
    if ours.get("accuracy") is not None and result["accuracy"] is not None:
        result["accuracy_ours_minus_baseline"] = round(ours["accuracy"] - result["accuracy"], 4)
    return result


def _load_questions(ctx: dict[str, Any]) -> list[str]:
    """Every first-turn question of the set (as `eval.load.default_questions`), in file order;
    each load client starts at a different question and cycles through them."""
    return [q.question for q in ctx["questions"] if not q.history]


def _serve_and_load(ctx: dict[str, Any], store: Path, extra: list[str], levels: tuple[int, ...]) -> dict[str, Any]:
    """Start `resultsqa serve` (offline, answer cache off, one worker per core), load it at each
    client count for `api_seconds`, and report the figures plus the server's RSS."""
    import psutil

    from eval import procs
    from eval.load import run_load

    workers = max(1, min(4, os.cpu_count() or 1))  # one per core, as deployed
    port = procs.free_port()
    cmd = resultsqa_cmd() + ["serve", "--host", "127.0.0.1", "--port", str(port), "--store", str(store),
                             "--backend", "offline", "--rate-limit-per-min", "1000000", "--answer-cache", "0",
                             "--workers", str(workers), *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        if not procs.wait_for_http(proc, base + "/readyz", 60):
            died = proc.poll() is not None and proc.stderr
            raise RuntimeError("serve did not become ready: " + (proc.stderr.read().decode()[-300:] if died else "timeout"))
        questions = _load_questions(ctx)
        result: dict[str, Any] = {"workers": workers, "questions": len(questions)}
        for clients in levels:
            figures = run_load(base, clients=clients, seconds=ctx["api_seconds"], questions=questions)
            result[f"c{clients}"] = {k: figures[k] for k in ("requests_per_s", "p50_ms", "p95_ms", "p99_ms", "errors")
                                     if k in figures}
        rss = psutil.Process(proc.pid).memory_info().rss
        for child in psutil.Process(proc.pid).children(recursive=True):
            rss += child.memory_info().rss
        result["rss_mb"] = round(rss / 2**20, 1)
        return result
    finally:
        procs.stop(proc)


def bench_api(ctx: dict[str, Any]) -> dict[str, Any]:
    """API throughput with the offline backend on loopback at 1, 10 and 50 clients, and its RSS.

    The answer cache is off so the figures measure the answerer, not cache hits on questions
    the load repeats.
    """
    store = ctx.get("bench_store") or ctx["settings"].store
    return _serve_and_load(ctx, Path(store), [], (1, 10, 50))


def bench_api_chroma(ctx: dict[str, Any]) -> dict[str, Any]:
    """The deployment for several workers: one index in a real `chroma run` server, 50 clients.

    The index is built into the server by a normal ingest that shares the embedding cache of
    the store it starts from, so only the upload to the server is timed, not the embedding.
    """
    from eval import procs

    settings = ctx["settings"]
    source = Path(ctx.get("bench_store") or settings.store)
    work = Path(settings.work_cache).expanduser() if not ctx.get("bench_store") and settings.get("work_cache") \
        else source
    tmp = Path(tempfile.mkdtemp(prefix="resultsqa-bench-chroma-"))
    ctx["tmp_dirs"].append(tmp)
    store = tmp / "store"
    server, url = procs.start_chroma(tmp / "chroma")
    try:
        cmd = resultsqa_cmd() + ["ingest", "--store", str(store), "--cache", str(tmp / "cache"), "--work-cache",
                                 str(work), "--data", settings.data, "--chroma-url", url]
        built = run_measured(cmd)
        if built["exit"] != 0:
            raise RuntimeError(f"ingest into the chroma server failed: {built['stderr'].strip().splitlines()[-1:]}")
        result = {"ingest_s": built["wall_s"]}
        result.update(_serve_and_load(ctx, store, ["--chroma-url", url], (50,)))
        return result
    finally:
        procs.stop(server)


RUNNERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "machine": bench_machine, "ingest": bench_ingest, "offline": bench_offline, "cold_start": bench_cold_start,
    "agent": bench_agent, "baseline": bench_baseline, "api": bench_api, "api_chroma": bench_api_chroma,
}


# --- budgets and output ------------------------------------------------------------------

def flatten(results: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in results.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def check_budgets(results: dict[str, Any], budgets_path: Path = BUDGETS) -> list[str]:
    """Lines naming each figure over its budget; figures that were not measured are not failures."""
    budgets = tomllib.loads(budgets_path.read_text())["budgets"]
    flat = flatten(results)
    over = []
    for key, bound in budgets.items():
        figure_key = key[:-4] if key.endswith("_min") else key
        value = flat.get(figure_key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if key.endswith("_min") and value < bound:
            over.append(f"{figure_key} = {value} is below the budget {bound}")
        elif not key.endswith("_min") and value > bound:
            over.append(f"{figure_key} = {value} is over the budget {bound}")
    return over


def markdown(results: dict[str, Any]) -> str:
    lines = ["| figure | value |", "|---|---|"]
    for key, value in flatten(results).items():
        lines.append(f"| {key} | {value} |")
    return "\n".join(lines) + "\n"


def run_bench(settings: Any, *, sections: list[str] | None = None, questions_path: Path | None = None,
              agent_questions: int = 5, api_seconds: float = 10.0, model: str | None = None,
              progress: Callable[[str], None] = lambda msg: None) -> dict[str, Any]:
    from eval.questions import GOLD_PATH, load_questions

    ctx: dict[str, Any] = {"settings": settings, "questions": load_questions(questions_path or GOLD_PATH),
                           "agent_questions": agent_questions, "api_seconds": api_seconds, "model": model,
                           "results": {}, "tmp_dirs": []}
    try:
        for name in sections or SECTIONS:
            progress(f"bench: {name} …")
            started = time.perf_counter()
            try:
                ctx["results"][name] = RUNNERS[name](ctx)
            except Exception as exc:  # a section that cannot run is reported, the others still run
                ctx["results"][name] = {"skipped": f"{type(exc).__name__}: {exc}"[:300]}
            progress(f"bench: {name} done in {time.perf_counter() - started:.1f} s")
    finally:
        for tmp in ctx["tmp_dirs"]:
            shutil.rmtree(tmp, ignore_errors=True)
    return ctx["results"]
