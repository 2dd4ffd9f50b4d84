"""Answer one question with LlamaIndex's PandasQueryEngine — runs ONLY inside .venv-baseline.

This is the comparison point for the eval, not product code: PandasQueryEngine asks the
model for pandas code and executes it, which is exactly what resultsqa refuses to do. It
therefore lives in its own virtualenv (it pins pandas<3), runs in a subprocess that
eval/baseline.py kills after a timeout, and imports nothing from this project.

Protocol: after `{"ready": true}`, one JSON request per stdin line ({"question": str,
"history": [str]}) and one JSON line back in the `Answer` shape (question, answer, status,
backend, model, latency_ms, llm_calls, prompt_tokens, completion_tokens, notes).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
import types
from pathlib import Path


def _import_pandas_engine():
    """Import PandasQueryEngine without the package __init__, which drags in polars and
    llama-index-finetuning (sentence-transformers, torch) that the pandas engine never uses."""
    spec = importlib.util.find_spec("llama_index")
    roots = list(spec.submodule_search_locations or [])
    for root in roots:
        pkg_dir = Path(root) / "experimental"
        if pkg_dir.is_dir():
            stub = types.ModuleType("llama_index.experimental")
            stub.__path__ = [str(pkg_dir)]
            sys.modules.setdefault("llama_index.experimental", stub)
            qe = types.ModuleType("llama_index.experimental.query_engine")
            qe.__path__ = [str(pkg_dir / "query_engine")]
            sys.modules.setdefault("llama_index.experimental.query_engine", qe)
            break
    from llama_index.experimental.query_engine.pandas.pandas_query_engine import PandasQueryEngine

    return PandasQueryEngine


def _answer(engine, counter, request: dict, model_name: str) -> dict:
    question = request["question"]
    history = request.get("history") or []
    query = question
    if history:
        query = "Earlier questions in this conversation: " + " | ".join(history) + "\nQuestion: " + question
    counter.reset_counts()
    started = time.perf_counter()
    notes: list[str] = []
    try:
        response = engine.query(query)
        text, status = str(response), "answered"
        code = (response.metadata or {}).get("pandas_instruction_str")
        if code:
            notes.append("pandas: " + str(code)[:500])
    except Exception as exc:  # the model's code failing is a result to record, not a crash
        text, status = f"{type(exc).__name__}: {exc}", "error"
    return {
        "question": question, "answer": text, "status": status, "backend": "baseline",
        "model": model_name, "latency_ms": round((time.perf_counter() - started) * 1000, 2),
        "llm_calls": len(counter.llm_token_counts), "prompt_tokens": counter.prompt_llm_token_count,
        "completion_tokens": counter.completion_llm_token_count, "notes": notes,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model-name", default="local")
    parser.add_argument("--context-window", type=int, default=4096)
    parser.add_argument("--max-tokens", type=int, default=160)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import pandas as pd
    from llama_index.core.callbacks import CallbackManager, TokenCountingHandler
    from llama_index.llms.openai_like import OpenAILike

    # Show the model every column (pandas would otherwise print `...` for 33 columns), with
    # values cut at 25 characters so five rows fit the small model's context.
    pd.set_option("display.max_columns", None)
    pd.set_option("display.width", 100000)
    pd.set_option("display.max_colwidth", 25)
    counter = TokenCountingHandler()
    llm = OpenAILike(model=args.model_name, api_base=args.base_url, api_key="not-needed", is_chat_model=True,
                     context_window=args.context_window, max_tokens=args.max_tokens, timeout=600,
                     callback_manager=CallbackManager([counter]))
    df = pd.read_csv(args.csv, low_memory=False)
    # synthesize_response=False is the engine's default: the answer is the pandas output itself. It
    # also keeps the long shared prompt prefix (instructions + df.head) in llama.cpp's cache.
    engine = _import_pandas_engine()(df=df, llm=llm, synthesize_response=False, verbose=False,
                                     callback_manager=CallbackManager([counter]))
    print(json.dumps({"ready": True}), flush=True)
    # One JSON request per stdin line, one JSON answer per stdout line: the parent keeps this
    # process (and its 40 s of imports on a busy machine) alive across questions.
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_answer(engine, counter, json.loads(line), args.model_name)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
