"""`resultsqa bench` subcommand (heavy imports stay inside run_bench so --help is fast)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def configure_bench(p: argparse.ArgumentParser) -> None:
    from eval.bench import SECTIONS  # standard library only at import: --help stays fast

    p.add_argument("--out", type=Path, help="Write the figures as JSON here.")
    p.add_argument("--markdown-out", type=Path, help="Write the Markdown table here too.")
    p.add_argument("--sections", help="Comma-separated subset of: " + ",".join(SECTIONS) + ".")
    p.add_argument("--questions", type=Path, help="Question set (default eval/questions/mlperf.jsonl).")
    p.add_argument("--agent-questions", type=int, default=5, help="Questions for the agent and baseline sections.")
    p.add_argument("--api-seconds", type=float, default=10.0, help="Seconds of load per client level (api: 1, 10, 50; api_chroma: 50).")
    p.add_argument("--check", action="store_true", help="Compare against eval/budgets.toml; exit 1 if over.")


def run_bench(args: argparse.Namespace, settings) -> int:
    from eval import bench

    sections = [s.strip() for s in args.sections.split(",")] if args.sections else None
    unknown = [s for s in sections or [] if s not in bench.SECTIONS]
    if unknown:
        print(f"resultsqa bench: unknown section(s) {unknown}; choose from {bench.SECTIONS}", file=sys.stderr)
        return 2
    results = bench.run_bench(settings, sections=sections, questions_path=args.questions,
                              agent_questions=args.agent_questions, api_seconds=args.api_seconds,
                              model=settings.model, progress=lambda m: print(m, file=sys.stderr, flush=True))
    table = bench.markdown(results)
    print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
    if args.markdown_out:
        args.markdown_out.parent.mkdir(parents=True, exist_ok=True)
        args.markdown_out.write_text(table)
    if args.check:
        over = bench.check_budgets(results)
        for line in over:
            print(f"OVER BUDGET: {line}")
        if over:
            return 1
        print("All measured figures are within budget.")
    return 0
