"""What the sidebar reports about the world outside the app: the store and a local Ollama server.

Both can be missing on a fresh machine, and the UI must then say what to do instead of
showing a traceback, so every function here returns a value describing the problem rather
than raising.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

NO_DATA = "No data indexed yet: run `resultsqa ingest` (or use the button below) to index the MLPerf results."


@dataclass
class StoreStatus:
    ok: bool
    message: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def rounds(self) -> list[str]:
        m = self.manifest
        rounds = m.get("rounds") or list((m.get("rows_per_round") or {}).keys())
        if isinstance(rounds, dict):
            rounds = list(rounds)
        return sorted(str(r) for r in rounds)

    @property
    def datasets(self) -> list[tuple[str, str]]:
        """(id, title) of every card table beside the default one, to pin a question to."""
        out = []
        for entry in self.manifest.get("datasets") or []:
            if isinstance(entry, dict) and entry.get("id") and entry.get("table") != "results.parquet":
                out.append((str(entry["id"]), str(entry.get("title") or entry["id"])))
        return out

    @property
    def rows(self) -> int | None:
        m = self.manifest
        for key in ("rows", "result_rows", "n_rows"):
            if isinstance(m.get(key), int):
                return m[key]
        per_round = m.get("rows_per_round")
        return sum(per_round.values()) if isinstance(per_round, dict) else None

    @property
    def documents(self) -> int | None:
        m = self.manifest
        for key in ("documents", "n_documents", "document_count"):
            value = m.get(key)
            if isinstance(value, int):
                return value
            if isinstance(value, list):
                return len(value)
        return None

    @property
    def chunks(self) -> int | None:
        m = self.manifest
        for key in ("chunks", "n_chunks", "chunk_count"):
            value = m.get(key)
            if isinstance(value, int):
                return value
            if isinstance(value, dict):
                return sum(v for v in value.values() if isinstance(v, int))
        return None

    @property
    def last_ingest(self) -> str | None:
        m = self.manifest
        for key in ("created", "created_at", "time", "finished", "finished_at", "ingested_at"):
            if m.get(key):
                return str(m[key])
        return None


def store_status(settings: Any) -> StoreStatus:
    """Open the store the settings point at; a missing or broken store becomes a friendly message."""
    try:
        from ingest.store import open_store
    except ImportError:
        return StoreStatus(False, NO_DATA)
    try:
        manifest = open_store(settings).manifest
    except Exception as exc:  # noqa: BLE001 - any failure to open is "nothing usable indexed"
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "no store" in detail.lower():
            return StoreStatus(False, f"{NO_DATA}\n\nStore folder: `{settings.store}`")
        return StoreStatus(False, f"{NO_DATA}\n\nStore folder `{settings.store}`: {detail}")
    if not manifest:
        return StoreStatus(False, NO_DATA)
    if hasattr(manifest, "model_dump"):
        manifest = manifest.model_dump()
    elif not isinstance(manifest, dict):
        manifest = dict(getattr(manifest, "__dict__", {}))
    return StoreStatus(True, "", manifest)


def ollama_models(host: str, timeout: float = 1.0) -> list[str] | None:
    """Model names served by Ollama at `host` (GET /api/tags), or None when it isn't reachable."""
    url = host.rstrip("/") + "/api/tags"
    if not url.startswith(("http://", "https://")):
        url = "http://" + url
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - user-chosen local URL
            payload = json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return sorted(m.get("name") or m.get("model") for m in payload.get("models", []) if m.get("name") or m.get("model"))
