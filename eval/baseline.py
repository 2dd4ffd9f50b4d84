"""The side-by-side baseline: LlamaIndex's PandasQueryEngine with the same small local model.

It executes model-written code and needs pandas<3, so it never runs in the product's
environment: each question goes to eval/baseline_worker.py in `.venv-baseline` (made by
`make baseline`) as a subprocess with a timeout. Both the worker and, when the product runs
the `llamacpp` backend, the agent talk to the same kind of server: `llama_cpp.server` on
loopback serving the GGUF model, so the comparison is model-for-model.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

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
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_model_server(model: str | None = None, *, n_ctx: int = 4096, wait_s: float = 120.0) -> ModelServer:
    """Start `llama_cpp.server` on loopback with the GGUF model and wait until it answers."""
    path = Path(model) if model else DEFAULT_MODEL
    if not path.is_file():
        raise BaselineError(f"model file not found: {path} (run `make model`)")
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise BaselineError("llama-cpp-python is not installed in this environment (see the Makefile)") from None
    port = _free_port()
    log = open(PROJECT / "data" / "eval-llama-server.log", "ab") if (PROJECT / "data").is_dir() else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host", "127.0.0.1", "--port", str(port),
         "--n_threads", "2", "--n_ctx", str(n_ctx), "--model_alias", path.stem],
        stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BaselineError(f"llama_cpp.server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2):
                return ModelServer(base_url, process, path.stem)
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise BaselineError(f"llama_cpp.server did not answer within {wait_s:.0f} s")


def baseline_answer_fn(base_url: str, *, timeout_s: float = 120.0, csv_path: str | Path = DEFAULT_CSV,
                       python: str | Path = BASELINE_PYTHON, model_name: str = "local") -> Callable[[Any], dict]:
    """An answer function for eval.runner that asks the worker in the baseline venv."""
    if not Path(python).exists():
        raise BaselineError(f"{python} not found: run `make baseline` first")

    def answer(question: Any) -> dict[str, Any]:
        request = json.dumps({"question": question.question, "history": list(question.history)})
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [str(python), str(WORKER), "--csv", str(csv_path), "--base-url", base_url, "--model-name", model_name],
                input=request, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return {"question": question.question, "answer": f"(baseline timed out after {timeout_s:.0f} s)",
                    "status": "error", "backend": "baseline", "latency_ms": round(timeout_s * 1000, 2)}
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            return {"question": question.question, "answer": f"(baseline worker failed: {tail[0][:300]})",
                    "status": "error", "backend": "baseline",
                    "latency_ms": round((time.perf_counter() - started) * 1000, 2)}
        return json.loads(lines[-1])

    return answer
