"""A bounded load generator for the HTTP API: N concurrent clients for T seconds, then stop.

Why bounded and loopback-only: this is a measuring tool for our own server on our own
machine, not a stress tool to point at someone else's. It refuses non-loopback URLs, caps
clients, duration and total requests, and always stops by itself.

Each client is a closed loop (send, wait for the answer, optionally think, send again), so
with zero think time the latency includes queueing behind the other clients: on 2 cores,
p50 ≈ clients / throughput. Use `--think` to model people reading answers.

    python -m eval.load --url http://127.0.0.1:8765 --clients 50 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any, Sequence
from urllib.parse import urlparse

MAX_CLIENTS = 200
MAX_SECONDS = 600
MAX_REQUESTS = 200_000

def default_questions() -> list[str]:
    """The gold set's first-turn questions: the real mix of lookups, counts, comparisons,
    commentary (which embeds the question) and refusals, English and Swedish."""
    from eval.questions import GOLD_PATH, load_questions

    return [q.question for q in load_questions(GOLD_PATH) if not q.history]


def _is_loopback_url(url: str) -> bool:
    from ui.security import is_loopback

    host = urlparse(url).hostname or ""
    return is_loopback(host)


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of an already sorted list."""
    if not sorted_values:
        return None
    rank = max(1, min(len(sorted_values), int(-(-q * len(sorted_values) // 100))))
    return sorted_values[rank - 1]


async def _client(index: int, http: Any, url: str, questions: list[str], deadline: float, think_s: float,
                  headers: dict[str, str], out: dict[str, Any]) -> None:
    i = index
    while time.monotonic() < deadline and out["requests"] < MAX_REQUESTS:
        question = questions[i % len(questions)]
        i += 1
        started = time.perf_counter()
        try:
            async with http.post(url, json={"question": question}, headers=headers) as resp:
                body = await resp.read()
            elapsed = (time.perf_counter() - started) * 1000
            out["requests"] += 1
            if resp.status != 200:
                out["errors"] += 1
                out["error_kinds"][str(resp.status)] = out["error_kinds"].get(str(resp.status), 0) + 1
            else:
                out["latencies"].append(elapsed)
                if json.loads(body).get("status") == "error":
                    out["answer_errors"] += 1
        except Exception as exc:  # a refused or timed-out request is an error, not a crash
            out["requests"] += 1
            out["errors"] += 1
            kind = type(exc).__name__
            out["error_kinds"][kind] = out["error_kinds"].get(kind, 0) + 1
        if think_s:
            await asyncio.sleep(think_s)


async def _run(base: str, clients: int, seconds: float, questions: list[str], key: str | None,
               endpoint: str, think_s: float, timeout_s: float) -> dict[str, Any]:
    # aiohttp, not httpx: on the 2 cores that also run the server, httpx's per-request cost
    # (~4 ms of CPU) was a third of the machine at 200 requests/s; aiohttp's is a fraction.
    import aiohttp

    out: dict[str, Any] = {"requests": 0, "errors": 0, "answer_errors": 0, "error_kinds": {}, "latencies": []}
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    connector = aiohttp.TCPConnector(limit=clients, limit_per_host=clients)
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    url = base + "/" + endpoint.lstrip("/")  # a base with a path prefix keeps it
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        started = time.monotonic()
        deadline = started + seconds
        await asyncio.gather(*(_client(i, http, url, questions, deadline, think_s, headers, out)
                               for i in range(clients)))
        wall = time.monotonic() - started
    lat = sorted(out.pop("latencies"))
    return {
        "url": url, "clients": clients, "seconds": seconds, "think_s": think_s,
        "wall_s": round(wall, 2), "requests": out["requests"], "ok": len(lat),
        "requests_per_s": round(len(lat) / wall, 2) if wall else 0.0,
        "p50_ms": _round(percentile(lat, 50)), "p95_ms": _round(percentile(lat, 95)),
        "p99_ms": _round(percentile(lat, 99)), "max_ms": _round(lat[-1] if lat else None),
        "errors": out["errors"], "error_kinds": out["error_kinds"], "answer_errors": out["answer_errors"],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def run_load(base: str, *, clients: int = 10, seconds: float = 10.0, questions: Sequence[str] | None = None,
             key: str | None = None, endpoint: str = "/v1/ask", think_s: float = 0.0,
             timeout_s: float = 30.0) -> dict[str, Any]:
    """Run the load and return the figures (requests/s, p50/p95/p99 in ms, errors).

    `errors` counts non-200 responses and failed requests; `answer_errors` counts 200 answers
    whose status is "error" (e.g. no store), which are the answerer's business, not the server's.
    """
    if not _is_loopback_url(base):
        raise ValueError(f"load runs only against loopback addresses, not {base}")
    if not 1 <= clients <= MAX_CLIENTS:
        raise ValueError(f"clients must be 1..{MAX_CLIENTS}")
    if not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"seconds must be in (0, {MAX_SECONDS}]")
    questions = list(questions or default_questions())
    return asyncio.run(_run(base.rstrip("/"), clients, seconds, questions, key, endpoint, think_s, timeout_s))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.load", description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765", help="Base URL of the API (loopback only).")
    parser.add_argument("--clients", type=int, default=10, help=f"Concurrent clients (1..{MAX_CLIENTS}).")
    parser.add_argument("--seconds", type=float, default=10.0, help=f"Duration (≤ {MAX_SECONDS}).")
    parser.add_argument("--think", type=float, default=0.0, help="Seconds each client waits between requests.")
    parser.add_argument("--key", default=None, help="API key, if the server requires one.")
    parser.add_argument("--endpoint", default="/v1/ask", help="Endpoint to load (POST {question}).")
    parser.add_argument("--questions", default=None,
                        help="A JSONL file with a `question` field per line (default: the gold set's first-turn questions).")
    parser.add_argument("--timeout", type=float, default=30.0, help="Per-request timeout in seconds.")
    args = parser.parse_args(argv)
    questions = None
    if args.questions:
        with open(args.questions, encoding="utf-8") as fh:
            questions = [json.loads(line)["question"] for line in fh if line.strip()]
    try:
        figures = run_load(args.url, clients=args.clients, seconds=args.seconds, questions=questions, key=args.key,
                           endpoint=args.endpoint, think_s=args.think, timeout_s=args.timeout)
    except ValueError as exc:
        print(f"load: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(figures, indent=2))
    return 0 if figures["errors"] == 0 else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
