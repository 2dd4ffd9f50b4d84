"""The nearest verified questions to a new one: worked examples for a model's routing turn.

Verified questions (`data/verified/*.jsonl`, indexed by ingest as kind "verified") are questions
whose spec passed the independent gold check. The nearest few, by the product's embedder, show a
model how questions like this one are read (peers: Cortex Analyst's verified queries, DAIL-SQL's
example selection). A spec read back here is validated by pydantic; a broken one is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from assistant.spec import QuerySpec
from ingest.verified import KIND

if TYPE_CHECKING:
    from ingest.store import Store

MIN_SCORE = 0.80  # cosine similarity below which an example is more likely to mislead than to help


@dataclass(frozen=True)
class Verified:
    question: str
    spec: QuerySpec
    shape: str
    score: float


def nearest(store: "Store | None", question: str, k: int = 2, min_score: float = MIN_SCORE) -> list[Verified]:
    """Up to k verified questions nearest `question` (never the question itself), best first."""
    if store is None or not question.strip():  # the store is optional (a bare table in tests)
        return []
    try:
        hits = store.search(question, k + 1, where={"kind": KIND})
    except Exception:  # no verified collection in an older store, or the store is down: no examples
        return []
    out: list[Verified] = []
    for hit in hits:
        meta = hit.get("metadata") or {}
        text, score = str(hit.get("text") or ""), float(hit.get("score") or 0.0)
        if score < min_score or text.strip().lower() == question.strip().lower():
            continue
        try:
            spec = QuerySpec.model_validate_json(str(meta.get("spec") or "{}"))
        except ValidationError:
            continue
        out.append(Verified(text, spec, str(meta.get("shape") or ""), score))
    return out[:k]
