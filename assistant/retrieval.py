"""Commentary retrieval: store hits -> `Passage`s with their sources.

Retrieved text is data, never instructions: it is copied into `Passage.text` untouched and
nothing here parses, follows or executes anything inside it.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from assistant.answer import Passage


_ROUND = re.compile(r"v?\d+\.\d+")
_UNKNOWN = {"", "unknown", "none", "null", "n/a"}


def _rounds(meta: dict[str, Any]) -> list[str]:
    """Rounds a chunk is about, whatever shape the metadata kept ("v6.0,v5.1", "['v6.1']", a list)."""
    raw = meta.get("rounds") or meta.get("round") or ""
    text = ",".join(map(str, raw)) if isinstance(raw, (list, tuple)) else str(raw)
    found = []
    for r in _ROUND.findall(text):
        r = r if r.startswith("v") else "v" + r
        if r not in found:
            found.append(r)
    return found


def _known(value: Any) -> str | None:
    """Front matter says `unknown` for missing urls and dates: never cite that as a link."""
    text = "" if value is None else str(value).strip()
    return None if text.casefold() in _UNKNOWN else text


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
        url=_known(meta.get("url")),
        source=str(meta.get("source") or meta.get("doc_id") or ""),
        published=_known(meta.get("published")),
        rounds=_rounds(meta),
        language=_known(meta.get("language")),
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
    found = filter_rounds((to_passage(h) for h in hits), rounds, k)
    if rounds and len(found) < k and len(hits) >= fetch:  # the round's passages rank lower: look deeper once
        hits = store.search(query, k * 25, where=where)
        found = filter_rounds((to_passage(h) for h in hits), rounds, k)
    return found
