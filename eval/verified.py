"""Write the library of verified questions from the gold set: `python -m eval.verified`.

A question is verified when the offline answerer passes it against gold that `check_gold`
checked independently: its spec is then known to be right for its wording. These pairs are
what a model sees as worked examples (the nearest few to a new question), and ingest embeds
them (source kind "verified"). Multi-turn and document-only questions are left out: their
spec depends on earlier turns or on no spec at all.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.questions import GOLD_PATH, load_questions
from eval.runner import product_answer_fn, run

OUT = Path(__file__).resolve().parent.parent / "data" / "verified" / "gold.jsonl"
SPEC_KEYS = ("op", "filters", "metric", "order", "limit", "group_by", "aggregate", "column", "other", "sides",
             "dedupe")
SKIPPED = {"commentary", "define", "refuse", "clarify", "fallback", "parts", ""}


def verified(records: list[dict]) -> list[dict]:
    out = []
    for r in records:
        query = r.get("query") or {}
        shape = (query.get("parsed") or {}).get("shape", "")
        if not (r.get("score") or {}).get("pass") or r.get("history") or "op" not in query or shape in SKIPPED:
            continue
        spec = {k: query[k] for k in SPEC_KEYS if k in query}
        out.append({"question": r["question"], "lang": (r.get("eval") or {}).get("lang", "en"), "shape": shape,
                    "spec": spec})
    return out


def main(argv: list[str] | None = None) -> int:
    from ingest import settings as settings_mod

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", default=str(GOLD_PATH))
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    settings = settings_mod.load()
    tmp = Path(args.out).with_suffix(".answers.tmp")
    records = run(load_questions(args.questions), product_answer_fn(settings, backend="offline"), tmp,
                  progress=False)
    tmp.unlink(missing_ok=True)
    lines = verified(records)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("".join(json.dumps(x, ensure_ascii=False, sort_keys=True) + "\n" for x in lines),
                              encoding="utf-8")
    print(f"{len(lines)} verified questions of {len(records)} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
