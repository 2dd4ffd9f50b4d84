"""`resultsqa ask` and `resultsqa chat`: the assistant in a terminal.

Both go through `assistant.service.ask`, the same path the UI and the API use, so what the
terminal prints is what every other client gets. Only the standard library is imported at
module level: the dispatcher imports this module just to build `--help`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

ROW_COLUMNS = [("result_id", 18), ("submitter", 16), ("system_name", 40), ("benchmark", 16), ("scenario", 12),
               ("value", 22)]


def configure_ask(p: argparse.ArgumentParser) -> None:
    from assistant.prompts import help_question

    p.add_argument("question", nargs="+", help=f"The question, e.g. \"{help_question()}\"")
    p.add_argument("--json", action="store_true", help="Print exactly one JSON object (the Answer).")
    p.add_argument("--history", metavar="FILE",
                   help="JSON list of earlier user questions in this conversation (for follow-ups).")
    p.add_argument("--scope", action="append", default=[], metavar="COLUMN=VALUE",
                   help="Scope filter like round=v6.1 (repeatable), as the UI sidebar sets it.")


def configure_chat(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="Print each answer as one JSON line.")
    p.add_argument("--scope", action="append", default=[], metavar="COLUMN=VALUE",
                   help="Scope filter like round=v6.1 (repeatable).")


def _scope(pairs: list[str]) -> dict[str, list[str]] | None:
    scope: dict[str, list[str]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"--scope expects COLUMN=VALUE, got {pair!r}")
        scope.setdefault(key.strip(), []).extend(v.strip() for v in value.split(",") if v.strip())
    return scope or None


def _history(path: str | None) -> list[str]:
    if not path:
        return []
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of earlier questions")
    out = []
    for item in data:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("question") or item.get("content"), str):
            if item.get("role", "user") == "user":
                out.append(item.get("question") or item.get("content"))
        else:
            raise ValueError(f"{path}: each item must be a question string or {{\"question\": ...}}")
    return out


def _cell(row: dict[str, Any], key: str) -> str:
    if key == "value":
        from assistant.semantics import format_value

        if row.get("value") is not None:
            return format_value(row["value"], row.get("value_unit"), exact=False)
        return format_value(row.get("result"), row.get("units"))
    value = row.get(key)
    return "" if value is None else str(value)


def render_text(answer: Any) -> str:
    """The answer for people: sentence, rows with links, sources, notes and the query."""
    out = [answer.answer]
    if answer.rows:
        out.append("")
        out.append("Rows used:")
        header = "  ".join(name.ljust(width) for name, width in ROW_COLUMNS)
        out.append("  " + header)
        for row in answer.rows[:15]:
            cells = []
            for name, width in ROW_COLUMNS:
                text = _cell(row, name)
                cells.append((text[: width - 1] + "…" if len(text) > width else text).ljust(width))
            out.append("  " + "  ".join(cells).rstrip())
            if row.get("result_url"):
                out.append("    " + str(row["result_url"]))
        if len(answer.rows) > 15:
            out.append(f"  … {len(answer.rows) - 15} more rows (see --json)")
    docs = [c for c in answer.citations if c.kind == "doc"]
    if docs:
        out.append("")
        out.append("Sources:")
        for c in docs:
            out.append(f"  - {c.title or c.id}" + (f" <{c.url}>" if c.url else ""))
    if answer.notes:
        out.append("")
        out.append("Notes:")
        out.extend(f"  - {n}" for n in answer.notes)
    if answer.query and answer.query.get("pandas"):
        out.append("")
        out.append("Query:")
        spec = {k: v for k, v in answer.query.items() if k not in {"pandas", "parsed"}}
        out.append("  " + json.dumps(spec, ensure_ascii=False))
        out.extend("  " + line for line in str(answer.query["pandas"]).splitlines())
    out.append("")
    out.append(f"[{answer.status} · backend {answer.backend}" + (f" · model {answer.model}" if answer.model else "")
               + f" · {answer.latency_ms:.0f} ms]")
    return "\n".join(out)


def _exit_code(answer: Any) -> int:
    return 1 if answer.status == "error" else 0


def run_ask(args: argparse.Namespace, settings: Any) -> int:
    from assistant.service import ask

    try:
        history = _history(args.history)
        scope = _scope(args.scope)
    except (OSError, ValueError) as exc:
        print(f"resultsqa ask: {exc}", file=sys.stderr)
        return 1
    question = " ".join(args.question)
    answer = ask(question, history=history, settings=settings, scope=scope)
    if args.json:
        print(json.dumps(answer.to_json(), ensure_ascii=False))
    else:
        print(render_text(answer))
    return _exit_code(answer)


def run_chat(args: argparse.Namespace, settings: Any) -> int:
    from assistant.conversation import Conversation
    from assistant.service import ask

    try:
        scope = _scope(args.scope)
    except ValueError as exc:
        print(f"resultsqa chat: {exc}", file=sys.stderr)
        return 1
    conversation = Conversation(history_tokens=int(settings.history_tokens))
    interactive = sys.stdin.isatty()
    if interactive:
        print("resultsqa chat — ask about MLPerf Inference results; follow-ups work. Type exit to quit.")
    while True:
        if interactive:
            print("> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            break
        question = line.strip()
        if not question:
            continue
        if question.lower() in {"exit", "quit", ":q", "avsluta"}:
            break
        answer = ask(question, conversation=conversation, settings=settings, scope=scope)
        if args.json:
            print(json.dumps(answer.to_json(), ensure_ascii=False), flush=True)
        else:
            print(render_text(answer) + "\n", flush=True)
    return 0
