"""One shape for commentary chunks, verified questions (both embedded) and entity cards (kept beside them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Chunk:
    """A piece of text with flat metadata (Chroma only stores str/int/float/bool values).

    metadata keys used by retrieval and citations: kind ("doc" | "card"), doc_id, title,
    source, url, published, rounds (comma-separated, e.g. "v6.0,v5.1"), language, page,
    chunk_index; cards add card_type and the table values they name (column, value).
    """

    id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
