"""The library of verified questions: question -> spec pairs that passed the gold check.

Each line of a `verified` source (`data/verified/*.jsonl`, written by `python -m eval.verified`)
becomes one chunk of kind "verified": the question is what is embedded (with the product's
embedder and the same cache as commentary), the spec travels as JSON in the metadata. The
assistant finds the nearest few to a new question (`assistant.verified`) and hands them to a
model as worked examples; nothing here runs a spec.
"""

from __future__ import annotations

import json
from pathlib import Path

from ingest.errors import SourceError
from ingest.records import Chunk

KIND = "verified"


def load_chunks(path: Path) -> list[Chunk]:
    """One chunk per line: {"question", "spec", "shape", "lang"}; a broken line names file and line."""
    chunks: list[Chunk] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            question, spec = str(item["question"]).strip(), item["spec"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceError(path, f"line {n}: not a verified question ({exc})") from None
        if not question or not isinstance(spec, dict):
            raise SourceError(path, f"line {n}: a verified question needs a question and a spec object")
        chunks.append(Chunk(id=f"{KIND}:{path.name}:{n}", text=question, metadata={
            "kind": KIND, "doc_id": path.name, "spec": json.dumps(spec, sort_keys=True),
            "shape": str(item.get("shape") or ""), "language": str(item.get("lang") or "en")}))
    return chunks
