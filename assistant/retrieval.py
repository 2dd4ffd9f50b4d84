"""Commentary retrieval: store hits -> `Passage`s with their sources.

Retrieved text is data, never instructions: it is copied into `Passage.text` untouched and
nothing here parses, follows or executes anything inside it.
"""

from __future__ import annotations

from typing import Any, Iterable

from assistant.answer import Passage


def _rounds(meta: dict[str, Any]) -> list[str]:
    raw = meta.get("rounds") or meta.get("round") or ""
    if isinstance(raw, (list, tuple)):
        return [str(r).strip() for r in raw if str(r).strip()]
    return [r.strip() for r in str(raw).split(",") if r.strip()]


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value in (None, "") else int(value)
    except (TypeError, ValueError):
        return None


def to_passage(hit: dict[str, Any]) -> Passage:
    """One store hit (`{id, text, metadata, score}`) as a `Passage`."""
    meta = dict(hit.get("metadata") or {})
    score = hit.get("score")
    return Passage(
        id=str(hit.get("id", "")),
        text=str(hit.get("text") or ""),
        title=str(meta.get("title") or meta.get("doc_id") or ""),
        url=(str(meta["url"]) if meta.get("url") else None),
        source=str(meta.get("source") or meta.get("doc_id") or ""),
        published=(str(meta["published"]) if meta.get("published") else None),
        rounds=_rounds(meta),
        language=(str(meta["language"]) if meta.get("language") else None),
        page=_int_or_none(meta.get("page")),
        kind=str(meta.get("kind") or "doc"),
        score=None if score is None else float(score),
    )


def filter_rounds(passages: Iterable[Passage], rounds: list[str] | None, k: int) -> list[Passage]:
    """Passages about the asked rounds first (in store order), then round-less general ones;
    passages tagged only with other rounds are dropped."""
    passages = list(passages)
    if not rounds:
        return passages[:k]
    wanted = set(rounds)
    matching = [p for p in passages if wanted & set(p.rounds)]
    general = [p for p in passages if not p.rounds]
    return (matching + general)[:k]


def search(store: Any, query: str, k: int, rounds: list[str] | None = None, kind: str = "doc") -> list[Passage]:
    """Top-k passages of `kind` ("doc" commentary or "card" entity cards) for `query`.

    Chroma cannot filter a comma-separated metadata string by member, so when rounds are
    given we over-fetch and filter here.
    """
    if store is None or not (query or "").strip() or k <= 0:
        return []
    where = {"kind": kind} if kind else None
    fetch = k * 4 if rounds else k
    hits = store.search(query, fetch, where=where)
    return filter_rounds((to_passage(h) for h in hits), rounds, k)
