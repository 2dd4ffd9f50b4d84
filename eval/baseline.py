"""The side-by-side baseline: LlamaIndex's PandasQueryEngine with the same small local model.

It executes model-written code and needs pandas<3, so it never runs in the product's
environment: questions go to one long-lived eval/baseline_worker.py in `.venv-baseline` (made
by `make baseline`), which is killed and restarted when a question exceeds its timeout. The
worker reaches the model through `llama_cpp.server` on loopback serving the same GGUF file the
product's `llamacpp` backend loads, so the comparison is model-for-model.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from eval import procs

PROJECT = Path(__file__).resolve().parent.parent
BASELINE_PYTHON = PROJECT / ".venv-baseline" / "bin" / "python"
WORKER = Path(__file__).resolve().parent / "baseline_worker.py"
DEFAULT_MODEL = PROJECT / "data" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
DEFAULT_CSV = PROJECT.parent / "shared" / "data" / "mlperf" / "mlperf_inference_all_rounds_results.csv"


class BaselineError(RuntimeError):
    """The baseline cannot run; the message says what to install or fix."""


@dataclass
class ModelServer:
    base_url: str
    process: subprocess.Popen = field(repr=False)
    model: str = ""

    def stop(self) -> None:
        procs.stop(self.process)


def start_model_server(model: str | None = None, *, n_ctx: int = 4096, n_threads: int = 1,
                       wait_s: float = 120.0) -> ModelServer:
    """Start `llama_cpp.server` on loopback with the GGUF model and wait until it answers.

    One generation thread by default: on a shared 2-core machine two spinning llama.cpp
    threads fell to 0.17 tokens/s (measured), far below what one thread gets.
    """
    path = Path(model) if model else DEFAULT_MODEL
    if not path.is_file():
        raise BaselineError(f"model file not found: {path} (run `make model`)")
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise BaselineError("llama-cpp-python is not installed in this environment (see the Makefile)") from None
    port = procs.free_port()
    log = open(PROJECT / "data" / "eval-llama-server.log", "ab") if (PROJECT / "data").is_dir() else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host", "127.0.0.1", "--port", str(port),
         "--n_threads", str(n_threads), "--n_threads_batch", "2", "--n_ctx", str(n_ctx), "--model_alias", path.stem],
        stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    if procs.wait_for_http(process, base_url + "/models", wait_s):
        return ModelServer(base_url, process, path.stem)
    if process.poll() is not None:
        raise BaselineError(f"llama_cpp.server exited with code {process.returncode}")
    procs.stop(process)
    raise BaselineError(f"llama_cpp.server did not answer within {wait_s:.0f} s")


class BaselineWorker:
    """One long-lived eval/baseline_worker.py in .venv-baseline; killed and restarted on a timeout.

    Importing llama-index there costs tens of seconds on a busy machine, so the worker answers
    question after question over stdin/stdout instead of being started per question.
    """

    def __init__(self, base_url: str, *, csv_path: str | Path = DEFAULT_CSV, python: str | Path = BASELINE_PYTHON,
                 model_name: str = "local", start_timeout_s: float = 600.0):
        if not Path(python).exists():
            raise BaselineError(f"{python} not found: run `make baseline` first")
        self.cmd = [str(python), str(WORKER), "--csv", str(csv_path), "--base-url", base_url,
                    "--model-name", model_name]
        self.start_timeout_s = start_timeout_s
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def _readline(self, timeout_s: float) -> str | None:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], max(0.0, timeout_s))
        return self.process.stdout.readline() if ready else None

    def _start(self) -> None:
        self.process = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            line = self._readline(deadline - time.monotonic())
            if not line:
                break
            if line.startswith("{") and json.loads(line).get("ready"):
                return
        self.stop()
        raise BaselineError("the baseline worker did not start (see `make baseline`)")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def ask(self, question: str, history: list[str], timeout_s: float) -> dict[str, Any]:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self._start()
            assert self.process is not None and self.process.stdin is not None
            self.process.stdin.write(json.dumps({"question": question, "history": history}) + "\n")
            self.process.stdin.flush()
            started = time.perf_counter()
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                line = self._readline(deadline - time.monotonic())
                if line is None:
                    break
                if not line:  # worker died
                    self.stop()
                    return {"question": question, "answer": "(baseline worker exited)", "status": "error",
                            "backend": "baseline", "latency_ms": round((time.perf_counter() - started) * 1000, 2)}
                if line.startswith("{"):
                    return json.loads(line)
            self.stop()  # the next question gets a fresh worker
            return {"question": question, "answer": f"(baseline timed out after {timeout_s:.0f} s)",
                    "status": "error", "backend": "baseline", "latency_ms": round(timeout_s * 1000, 2)}


def baseline_answer_fn(worker: BaselineWorker, *, timeout_s: float = 120.0) -> Callable[[Any], dict]:
    """An answer function for eval.runner that asks the baseline worker."""

    def answer(question: Any) -> dict[str, Any]:
        return worker.ask(question.question, list(question.history), timeout_s)

    return answer
