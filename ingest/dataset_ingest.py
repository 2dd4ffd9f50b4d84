"""`resultsqa ingest --card PATH`: dataset card tables into the store, nothing re-embedded.

A store generation is never changed once published (readers and the API's answer cache take a
generation name to mean fixed contents), so a card ingest derives a new generation from the
current one: its results table, its chunks and vectors copied into the new generation's own
collection, its manifest with the `datasets` list updated, plus `tables/<id>.parquet` and a
copy of the card (`tables/<id>.toml`). It is published with the same atomic swap as a full
ingest (ingest/store.py). Every card is read and checked before anything is written, and any
failure removes the new generation, so a bad card leaves the store exactly as it was.

The manifest keeps the default ingest's part unchanged (its fingerprint too), so a plain
`resultsqa ingest` stays "unchanged"; when it does rebuild, `carry_forward` copies the card
tables into the new generation. docs/datasets.md ("In the store") describes it for users.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ingest import store as store_mod
from ingest.dataset_card import (DESCRIBE_READER, READERS, CardError, DatasetCard, ReadSource, _locate, card_error,
                                 load_card, measure_column, read_card_table)
from ingest.errors import SourceError


def _code_hash() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in ("dataset_card.py", "tables.py", "normalize.py"):  # what a card's table depends on
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()


def _fingerprint(card_sha256: str, source_sha256s: list[str]) -> str:
    """What a card's table depends on: the card, its sources' contents and the code that reads them."""
    return hashlib.sha256(json.dumps([card_sha256, source_sha256s, _code_hash()]).encode()).hexdigest()


def manifest_entry(card: DatasetCard, table, reads: list[ReadSource]) -> dict[str, Any]:
    """What the store's manifest says about one ingested card (the `datasets` list)."""
    sources = [{"path": r.shown, "root": r.source.root if r.source.path else "url", "reader": r.source.reader,
                "sha256": r.sha256, "size": r.size} for r in reads]
    fingerprint = _fingerprint(card.sha256, [s["sha256"] for s in sources])
    rounds = table.groupby("round_order")["round"].first()
    counts = table["round"].value_counts()
    measure = {"column": measure_column(card, table)} | card.measure.describe()
    return {
        "id": card.id,
        "title": card.title,
        "card": f"{store_mod.TABLES_DIR}/{card.id}.toml",
        "card_file": str(card.path),
        "card_sha256": card.sha256,
        "table": store_mod.TABLE if card.describes_default_table else f"{store_mod.TABLES_DIR}/{card.id}.parquet",
        "sources": sources,
        "rows": len(table),
        "rows_per_round": {str(r): int(counts[r]) for r in rounds.tolist()},
        "columns": list(table.columns),
        "measure": measure,
        "secondary": {k: {"column": k} | s.describe() for k, s in card.secondary.items()},
        "defaults": dict(card.defaults),
        "fingerprint": fingerprint,
        "ingested": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def _copy_index(current: Path, manifest: dict[str, Any], gen: Path, new_manifest: dict[str, Any],
                chroma_url: str | None) -> int:
    """The current generation's chunks and vectors into `gen`'s own collection (nothing re-embedded),
    then `new_manifest`, which marks `gen` complete. Returns how many vectors were copied."""
    from ingest.records import Chunk

    old = store_mod.chroma_client(current, chroma_url).get_collection(manifest["chroma"]["collection"],
                                                                      embedding_function=None)
    chunks, vectors = [], []
    total, step = old.count(), 1000
    for offset in range(0, total, step):
        got = old.get(include=["documents", "metadatas", "embeddings"], limit=step, offset=offset)
        chunks += [Chunk(i, d, m or {}) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]
        vectors += [[float(x) for x in v] for v in got["embeddings"]]
    store_mod.write_index(gen, chunks, vectors, new_manifest, chroma_url)
    return len(chunks)


def carry_forward(current: Path | None, gen: Path) -> list[dict[str, Any]]:
    """Copy the dataset tables of `current` into the generation being built; their manifest entries.

    A full ingest rebuilds from the sources file, which knows nothing of `--card` tables;
    without this they would vanish at the next rebuild. No datasets: nothing written at all.
    """
    if current is None:
        return []
    entries = store_mod.read_manifest(current).get("datasets") or []
    _copy_tables(current, gen, entries)
    return [dict(e) for e in entries]


def _copy_tables(current: Path, gen: Path, entries: list[dict[str, Any]]) -> None:
    """The table and card files of `entries` from the current generation into `gen`."""
    for entry in entries:
        for rel in (entry["table"], entry["card"]):
            (gen / rel).parent.mkdir(exist_ok=True)
            shutil.copy2(current / rel, gen / rel)


@dataclass
class CardReport:
    """What `ingest --card` / `--drop-card` did."""

    status: str  # "built" | "unchanged" | "dry-run" | "dropped"
    store: str
    generation: str | None
    datasets: list[dict[str, Any]] = field(default_factory=list)  # the entries added (or checked, for dry-run)
    dropped: list[str] = field(default_factory=list)
    vectors_copied: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def ingest_cards(settings, cards: list[str | Path], drop: list[str] = (), mirror: str | None = None,
                 progress: bool = True, fresh: bool = False, dry_run: bool = False) -> CardReport:
    """Add (or replace) the tables of `cards` and remove the datasets `drop` in a new store generation.

    Every card is read and checked first; nothing is written unless all are good. Raises
    CardError (one line) for a bad card, StoreMissing when there is no generation to add to.
    """
    from ingest.settings import setup_offline_env

    setup_offline_env()
    started = time.perf_counter()
    root = store_mod.store_root(settings)
    built: list[tuple[DatasetCard, Any, dict[str, Any]]] = []
    seen: dict[str, Path] = {}
    for path in cards:
        card = load_card(path)
        if card.id in seen:
            raise card_error(card.path, f"id {card.id!r} is also the id of {seen[card.id]}")
        seen[card.id] = card.path
        if card.describes_default_table and not dry_run:
            raise card_error(card.path, f"{card.sources[0].field}.reader: a {DESCRIBE_READER!r} card describes "
                                        f"the table the default `resultsqa ingest` builds ({store_mod.TABLE}); "
                                        f"--card reads {' or '.join(READERS)} (check this card with --dry-run)")
        table, reads = read_card_table(card, settings, mirror, progress)
        built.append((card, table, manifest_entry(card, table, reads)))
    report = CardReport(status="dry-run", store=str(root), generation=None)
    if dry_run:
        current = store_mod.current_generation(root)
        report.generation = current.name if current else None
        report.datasets = [entry for _, _, entry in built]
        report.seconds = time.perf_counter() - started
        return report
    with store_mod.ingest_lock(root):
        current = store_mod.current_generation(root)
        if current is None:
            raise store_mod.StoreMissing(root)
        manifest = store_mod.read_manifest(current)
        before = {e["id"]: e for e in manifest.get("datasets") or []}
        unknown = [d for d in drop if d not in before]
        if unknown:
            raise CardError("--drop-card", f"no dataset {unknown[0]!r} in the store; datasets are "
                                           f"{', '.join(before) or 'none'}")
        same = all(before.get(c.id, {}).get("fingerprint") == e["fingerprint"] for c, _, e in built)
        if same and not drop and not fresh:
            report.status, report.generation = "unchanged", current.name
            report.datasets = [before[c.id] for c, _, _ in built]
            report.seconds = time.perf_counter() - started
            return report
        added = {c.id for c, _, _ in built}
        entries = [e for e in before.values() if e["id"] not in added and e["id"] not in drop]
        entries = sorted(entries + [e for _, _, e in built], key=lambda e: e["id"])
        mode = manifest.get("chroma", {})
        chroma_url = (settings.chroma_url or mode.get("url")) if mode.get("mode") == "server" else None
        name = hashlib.sha256(json.dumps([manifest.get("fingerprint"), [e["fingerprint"] for e in entries]])
                              .encode()).hexdigest()
        gen = store_mod.new_generation(root, name)
        try:
            shutil.copy2(current / store_mod.TABLE, gen / store_mod.TABLE)
            if (current / store_mod.CARDS).is_file():
                shutil.copy2(current / store_mod.CARDS, gen / store_mod.CARDS)
            _copy_tables(current, gen, [e for e in entries if e["id"] not in added])
            for card, table, entry in built:
                (gen / store_mod.TABLES_DIR).mkdir(exist_ok=True)
                table.to_parquet(gen / entry["table"], index=False)
                (gen / entry["card"]).write_text(card.text, encoding="utf-8")  # the card as read and checked
            new_manifest = {k: v for k, v in manifest.items() if k not in ("generation", "chroma", "datasets")}
            if entries:
                new_manifest["datasets"] = entries
            copied = _copy_index(current, manifest, gen, new_manifest, chroma_url)
            store_mod.publish(root, gen)
        except BaseException:
            store_mod.discard(gen, chroma_url)
            raise
        store_mod.prune(root)
    report.status = "dropped" if drop and not built else "built"
    report.generation = gen.name
    report.datasets = [e for _, _, e in built]
    report.dropped = list(drop)
    report.vectors_copied = copied
    report.seconds = time.perf_counter() - started
    return report


def check_default_table(settings, table) -> str | None:
    """Check the table the default ingest built against its card (the default card whose reader
    is "sources"), before anything is written: a card that names a missing column, a measure that
    is not numeric or a direction the rows contradict stops the ingest with one line naming the
    card field (`--dry-run` also checks the values the card names). Returns the card's id, or None
    when no default card describes the table."""
    from ingest.dataset_card import check_columns, check_measure

    for path in default_cards(settings):
        card = load_card(path)
        if card.describes_default_table:
            check_columns(card, list(table.columns), store_mod.TABLE)
            check_measure(card, table, store_mod.TABLE)
            return card.id
    return None


def datasets(manifest: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The ingested dataset cards of a manifest, shortest useful form (for `resultsqa status`)."""
    out = []
    for e in (manifest or {}).get("datasets") or []:
        m = e.get("measure", {})
        out.append({"id": e["id"], "title": e.get("title"), "rows": e.get("rows", 0),
                    "rounds": list(e.get("rows_per_round", {})), "measure": m.get("name"),
                    "unit": m.get("unit") or m.get("unit_column"), "direction": m.get("direction"),
                    "table": e.get("table"), "ingested": e.get("ingested")})
    return out


def default_cards(settings) -> list[Path]:
    """The cards of setting `cards` (comma-separated paths, relative to the project)."""
    from ingest.settings import PROJECT_ROOT

    out = []
    for text in str(settings.get("cards") or "").split(","):
        if text.strip():
            path = Path(text.strip())
            out.append(path if path.is_absolute() else PROJECT_ROOT / path)
    return out


def _unchanged_default_cards(settings) -> CardReport | None:
    """The report of a default-card ingest with nothing to do, found from hashes alone, or None.

    Reading a card's table (pandas, ~1 s for Training) only to learn that its fingerprint
    (card, source hashes, code) matches the current generation's would make every warm
    `resultsqa ingest` pay for it; the fingerprint needs no table.
    """
    started = time.perf_counter()
    root = store_mod.store_root(settings)
    current = store_mod.current_generation(root)
    paths = default_cards(settings)
    if current is None or not paths:
        return None
    before = {e["id"]: e for e in store_mod.read_manifest(current).get("datasets") or []}
    entries = []
    try:
        for path in paths:
            card = load_card(path)
            if card.describes_default_table:
                continue  # the default ingest read it (`check_default_table`)
            if card.id not in before:
                return None
            digests = [_locate(card, src, settings, None, False).sha256 for src in card.sources]
            if before[card.id].get("fingerprint") != _fingerprint(card.sha256, digests):
                return None
            entries.append(before[card.id])
    except (CardError, SourceError, OSError, ValueError):
        return None  # the full path below reports it
    return CardReport(status="unchanged", store=str(root), generation=current.name, datasets=entries,
                      seconds=time.perf_counter() - started)


def ingest_default_cards(settings, progress: bool = False) -> tuple[CardReport | None, list[str]]:
    """Add the tables of the default cards after a default ingest: MLPerf Training sits beside
    Inference with no extra command. A card whose files are missing from the mirror is skipped
    (the warnings say which), so the default data alone still ingests. Unchanged tables are not
    rebuilt. Returns the report (None when no card applied) and the warnings."""
    from ingest.errors import SourceError

    unchanged = _unchanged_default_cards(settings)
    if unchanged is not None:
        return unchanged, []
    usable, warnings = [], []
    for path in default_cards(settings):
        try:  # its files are there and pass their pins: ingest_cards reads them once, after
            card = load_card(path)
            if card.describes_default_table:
                continue  # the default ingest read it (`check_default_table`)
            for src in card.sources:
                _locate(card, src, settings, None, False)
        except (SourceError, OSError, ValueError) as exc:
            warnings.append(f"dataset card {path.name} skipped: {str(exc).splitlines()[0]}")
            continue
        usable.append(path)
    if not usable:
        return None, warnings
    return ingest_cards(settings, usable, progress=progress), warnings
