"""`resultsqa eval`.

Only the standard library at top level: `assistant/cli.py` imports this module to build
`--help`, and the runner pulls in pandas, chromadb and friends only when it actually runs.

`--backend baseline` runs the same questions through LlamaIndex's PandasQueryEngine in its
own virtualenv (see eval/baseline.py) instead of the product; everything after the answer
(scoring, answers file, report) is the same code path.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

_GOLD = Path(__file__).resolve().parent / "questions" / "mlperf.jsonl"


def configure_eval(p: argparse.ArgumentParser) -> None:
    p.add_argument("--questions", default=str(_GOLD), help="Question file (JSONL, see docs/eval.md); default: the gold set.")
    p.add_argument("--out", default=None,
                   help="Answers file (JSONL; also the resume cache). Default: data/eval/answers-<backend>.jsonl.")
    p.add_argument("--report", default=None, metavar="DIR", help="Write report.md and report.html into DIR.")
    p.add_argument("--baseline", default=None, metavar="ANSWERS",
                   help="A baseline's answers file to show side by side in the report.")
    p.add_argument("--jobs", type=int, default=1, help="Questions answered in parallel (threads).")
    p.add_argument("--fresh", action="store_true", help="Ignore answers already in --out and start over.")
    p.add_argument("--limit", type=int, default=None, help="Only the first N questions.")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="Only N questions spread evenly through the file (a quick run that covers every section).")
    p.add_argument("--min-accuracy", type=float, default=None, metavar="X",
                   help="Exit 1 when accuracy is below X (a fraction like 0.8, or a percentage like 80).")
    p.add_argument("--baseline-timeout", type=float, default=120.0,
                   help="--backend baseline: seconds allowed per question before the worker is killed.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")


def _threshold(value: float | None) -> float | None:
    if value is None:
        return None
    return value / 100.0 if value > 1 else value


def run_eval(args: argparse.Namespace, settings: Any) -> int:
    from eval.questions import QuestionFileError, load_questions, spread_sample
    from eval.report import summarize, summary_table, write_report
    from eval.runner import product_answer_fn, read_answers, run

    try:
        questions = load_questions(args.questions)
    except QuestionFileError as exc:
        print(f"resultsqa eval: {exc}", file=sys.stderr)
        return 2
    if args.sample:
        questions = spread_sample(questions, args.sample)
    backend = settings.backend
    out = Path(args.out or Path(settings.store).parent / "eval" / f"answers-{backend}.jsonl")
    server = None
    if backend == "baseline":
        from eval.baseline import BaselineError, BaselineWorker, baseline_answer_fn, start_model_server

        try:
            server = start_model_server(settings.model)
            worker = BaselineWorker(server.base_url, model_name=server.model)
            answer_fn = baseline_answer_fn(worker, timeout_s=args.baseline_timeout)
        except BaselineError as exc:
            if server is not None:
                server.stop()
            print(f"resultsqa eval: {exc}", file=sys.stderr)
            return 2
    else:
        answer_fn = product_answer_fn(settings, backend=backend, model=settings.model)
    try:
        records = run(questions, answer_fn, out, jobs=max(1, args.jobs), fresh=args.fresh, limit=args.limit,
                      progress=not args.quiet)
    finally:
        if server is not None:
            worker.stop()
            server.stop()
    summary = summarize(records)
    print(summary_table(summary, label=backend))
    print(f"answers: {out}")
    if args.report:
        baseline = read_answers(args.baseline) if args.baseline else None
        shown, title = records, f"resultsqa eval ({backend})"
        if baseline is not None:  # side by side only on the questions both runs answered
            common = {r["id"] for r in records} & {r["id"] for r in baseline}
            shown = [r for r in records if r["id"] in common]
            baseline = [r for r in baseline if r["id"] in common]
            title += f" vs baseline (questions answered by both: {len(common)})"
        for path in write_report(shown, args.report, baseline=baseline, title=title):
            print(f"report: {path}")
    threshold = _threshold(args.min_accuracy)
    if threshold is not None and summary["accuracy"] < threshold:
        print(f"resultsqa eval: accuracy {summary['accuracy']:.3f} is below --min-accuracy {threshold:.3f}",
              file=sys.stderr)
        return 1
    return 0
