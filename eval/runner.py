"""Run a question set through an answer function and write one scored JSON line per question.

The answers file is the cache: a re-run skips every id already in it (unless `fresh`), so a
long run against a slow local model survives an interrupt and picks up where it stopped.
Lines are appended and flushed as each answer arrives, from whichever worker thread got it.
Scoring is done here, in one place, whatever produced the answer (product or baseline).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable

from eval.questions import Question
from eval.score import score_question

AnswerFn = Callable[[Question], dict[str, Any]]


def read_answers(path: str | Path) -> list[dict[str, Any]]:
    """The records of an answers file; a torn last line (interrupted write) is ignored."""
    path = Path(path)
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "id" in record:
            records.append(record)
    return records


def product_answer_fn(settings: Any, backend: str | None = None, model: str | None = None) -> AnswerFn:
    """Answers from `assistant.service.ask`, the same call the UI and API make."""
    from assistant.service import ask

    def answer(question: Question) -> dict[str, Any]:
        return ask(question.question, history=list(question.history), settings=settings,
                   backend=backend, model=model).to_json()

    return answer


def make_record(question: Question, answer: dict[str, Any]) -> dict[str, Any]:
    """The answer JSON plus what eval adds: id, score, and the question's facets for the report."""
    record = dict(answer)
    record["id"] = question.id
    record.setdefault("question", question.question)
    record["history"] = list(question.history)
    record["score"] = score_question(question, answer)
    record["eval"] = {"kind": question.expected.kind, "needs": question.needs, "lang": question.lang,
                      "tags": list(question.tags)}
    if question.gold_doc and question.needs != "guide":  # a guide question is answered from our guide
        record["eval"]["gold_doc"] = question.gold_doc
        record["eval"]["retrieved_gold"] = retrieved_gold(answer, question.gold_doc, RECALL_K)
    return record


RECALL_K = 5


def retrieved_gold(answer: dict[str, Any], gold_doc: str, k: int = RECALL_K) -> bool:
    """Whether one of the answer's first k distinct retrieved documents is the gold document
    (passage ids are `doc:<file>:<chunk>`). A gold document may be named as check_gold names it,
    relative to the commentary folder ("official/v6.0_….pdf"): its file name is what a passage carries."""
    gold_doc = gold_doc.rsplit("/", 1)[-1]
    docs: list[str] = []
    for passage in answer.get("passages") or []:
        parts = str(passage.get("id", "")).split(":")
        doc = parts[1] if len(parts) >= 3 else str(passage.get("source", ""))
        if doc not in docs:
            docs.append(doc)
    return gold_doc in docs[:k]


def _safe_answer(fn: AnswerFn, question: Question) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        answer = fn(question)
    except Exception as exc:  # one broken answer must not end a 150-question run
        answer = {"question": question.question, "answer": f"{type(exc).__name__}: {exc}", "status": "error"}
    answer.setdefault("latency_ms", round((time.perf_counter() - started) * 1000, 2))
    return answer


def run(
    questions: list[Question],
    answer_fn: AnswerFn,
    out: str | Path,
    *,
    jobs: int = 1,
    fresh: bool = False,
    limit: int | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Answer every question not yet in `out`; return the records of this question set (old and new)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fresh and out.exists():
        out.unlink()
    selected = questions[:limit] if limit else list(questions)
    wanted = {q.id for q in selected}
    done = {r["id"]: r for r in read_answers(out) if r["id"] in wanted}
    todo = [q for q in selected if q.id not in done]

    lock = threading.Lock()
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="eval", unit="q")
    with out.open("a", encoding="utf-8") as fh:
        def finish(question: Question, answer: dict[str, Any]) -> None:
            record = make_record(question, answer)
            with lock:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                fh.flush()
                done[question.id] = record
                if bar is not None:
                    bar.update(1)

        if jobs <= 1:
            for question in todo:
                finish(question, _safe_answer(answer_fn, question))
        else:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(_safe_answer, answer_fn, q): q for q in todo}
                for future in as_completed(futures):
                    finish(futures[future], future.result())
    if bar is not None:
        bar.close()
    return [done[q.id] for q in selected if q.id in done]
