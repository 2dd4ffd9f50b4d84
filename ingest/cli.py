"""`resultsqa ingest` and `resultsqa status`.

Standard library only at top level (the dispatcher imports this module to build `--help`).
A bad source ends the command with one line naming the file and the problem and exit code 1;
the previous store stays current (see ingest.pipeline).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EXIT_BAD_INPUT = 1
EXIT_NO_STORE = 3


def configure_ingest(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", metavar="PATH_OR_URL", default=None,
                   help="Mirror root to read the sources from (overrides the `data` setting / RESULTSQA_DATA).")
    p.add_argument("--fresh", action="store_true", help="Rebuild even if no source changed.")
    p.add_argument("--dry-run", action="store_true",
                   help="Fetch and hash the sources, say what changed, write nothing.")
    p.add_argument("--json", action="store_true", help="Print the ingest report as JSON.")
    p.add_argument("--quiet", action="store_true", help="No progress bars.")
    p.add_argument("--card", metavar="PATH", action="append", default=[],
                   help="Read a results table (CSV or Parquet) through this dataset card and add it to the "
                        "current store generation, nothing re-embedded (repeatable; see docs/datasets.md). "
                        "With --dry-run: only check the card against its data.")
    p.add_argument("--drop-card", metavar="ID", action="append", default=[],
                   help="Remove the table of this dataset card from the store (repeatable).")


def _summary(report) -> str:
    lines = []
    if report.status == "unchanged":
        lines.append(f"unchanged: no source changed since generation {report.generation} (nothing rebuilt)")
    elif report.status == "dry-run":
        what = f"{len(report.changed)} changed/new, {len(report.removed)} removed" \
            if report.generation else "no store yet"
        lines.append(f"dry run: a rebuild is needed ({what}); nothing written")
        lines.extend(f"  changed  {rel}" for rel in report.changed)
        lines.extend(f"  removed  {rel}" for rel in report.removed)
    else:
        lines.append(f"built generation {report.generation} "
                     f"({len(report.changed)} source file(s) new or changed, {len(report.removed)} removed)")
    if report.rows_per_round:
        per_round = ", ".join(f"{r}: {n:,}" for r, n in report.rows_per_round.items())
        lines.append(f"rows       {report.rows:,} ({per_round})")
    lines.append(f"documents  {report.documents} ({report.chunks} chunks); cards {report.cards}")
    if report.status == "built":
        lines.append(f"embedded   {report.embedded_new} new, {report.embedded_cached} from cache, "
                     f"{report.translated} translations sharing their original's ({report.embedder})")
    lines.append(f"store      {report.store} ({report.mode}); sources from {report.source_root}")
    lines.append(f"time       {report.seconds:.2f} s")
    return "\n".join(lines)


def _card_summary(report) -> str:
    lines = []
    names = ", ".join(e["id"] for e in report.datasets)
    if report.status == "unchanged":
        lines.append(f"unchanged: dataset {names} already in generation {report.generation} (nothing rebuilt)")
    elif report.status == "dry-run":
        lines.append(f"dry run: dataset card {names} checked against its data; nothing written")
    else:
        what = [f"added {names}"] if names else []
        what += [f"removed {', '.join(report.dropped)}"] if report.dropped else []
        lines.append(f"built generation {report.generation}: dataset {'; '.join(what)}")
    for e in report.datasets:
        m = e["measure"]
        per_round = ", ".join(f"{r}: {n:,}" for r, n in e.get("rows_per_round", {}).items())
        unit = m.get("unit") or f"the unit of column {m.get('unit_column')}"
        lines.append(f"dataset    {e['id']}: {e['rows']:,} rows" + (f" ({per_round})" if per_round else "")
                     + f", {len(e['columns'])} columns in {e['table']}")
        lower = f" (lower for {', '.join(m['lower_units'])})" if m.get("lower_units") else ""
        lines.append(f"measure    {m['name']} ({m['source_column']}) in {unit}, {m['direction']} is better{lower}")
    if report.status in ("built", "dropped"):
        lines.append(f"vectors    {report.vectors_copied} copied from the previous generation, none embedded")
    lines.append(f"store      {report.store}")
    lines.append(f"time       {report.seconds:.2f} s")
    return "\n".join(lines)


def _run_cards(args: argparse.Namespace, settings) -> int:
    from ingest.dataset_ingest import ingest_cards
    from ingest.errors import SourceError
    from ingest.store import StoreMissing

    try:
        report = ingest_cards(settings, args.card, drop=args.drop_card, mirror=args.source,
                              progress=not args.quiet and sys.stderr.isatty(), fresh=args.fresh,
                              dry_run=args.dry_run)
    except StoreMissing as exc:
        print(f"resultsqa ingest: {exc} (a dataset card adds its table to the current generation)", file=sys.stderr)
        return EXIT_NO_STORE
    except SourceError as exc:
        print(f"resultsqa ingest: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, ValueError) as exc:
        print(f"resultsqa ingest: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(report.to_dict(), indent=2) if args.json else _card_summary(report))
    return 0


def run_ingest(args: argparse.Namespace, settings) -> int:
    from ingest.errors import SourceError
    from ingest.pipeline import run_ingest as ingest

    if args.card or args.drop_card:
        return _run_cards(args, settings)
    try:
        report = ingest(settings, source=args.source, progress=not args.quiet and sys.stderr.isatty(),
                        fresh=args.fresh, dry_run=args.dry_run)
    except SourceError as exc:
        print(f"resultsqa ingest: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, ValueError) as exc:  # e.g. unreachable Chroma server, unwritable store folder
        print(f"resultsqa ingest: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.dry_run:
        print(json.dumps(report.to_dict(), indent=2) if args.json else _summary(report))
        return 0
    cards, warnings = _default_cards(args, settings)
    for warning in warnings:
        print(f"resultsqa ingest: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(report.to_dict() | {"datasets": cards.to_dict() if cards else None}, indent=2))
    else:
        print(_summary(report) + ("\n" + _card_summary(cards) if cards else ""))
    return 0


def _default_cards(args: argparse.Namespace, settings):
    """The default cards' tables (setting `cards`) after the default data; never fails the ingest."""
    from ingest.dataset_ingest import ingest_default_cards
    from ingest.errors import SourceError

    try:
        return ingest_default_cards(settings, progress=not args.quiet and sys.stderr.isatty())
    except (SourceError, OSError, ValueError) as exc:
        return None, [f"dataset cards not added: {str(exc).splitlines()[0]}"]


def configure_status(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="Print the status as JSON.")


def status(settings) -> dict[str, Any] | None:
    """What is indexed, from the current manifest (no pandas or chromadb needed)."""
    from ingest.dataset_ingest import datasets
    from ingest.store import current_generation, read_manifest, store_root

    root = store_root(settings)
    gen = current_generation(root)
    if gen is None:
        return None
    manifest = read_manifest(gen)
    chroma = manifest.get("chroma", {})
    return {
        "store": str(root),
        "generation": gen.name,
        "mode": chroma.get("mode", "embedded"),
        "chroma_url": chroma.get("url"),
        "collection": chroma.get("collection"),
        "rounds": list(manifest.get("rows_per_round", {})),
        "rows": manifest.get("rows", 0),
        "rows_per_round": manifest.get("rows_per_round", {}),
        "documents": manifest.get("documents", 0),
        "chunks": manifest.get("chunks", 0),
        "cards": manifest.get("cards", 0),
        "embedder": manifest.get("embedder"),
        "last_ingest": manifest.get("created"),
        "source_root": manifest.get("source_root"),
        "datasets": datasets(manifest),
    }


def run_status(args: argparse.Namespace, settings) -> int:
    info = status(settings)
    if info is None:
        from ingest.store import store_root

        message = f"no store at {store_root(settings)}: run `resultsqa ingest` first"
        print(json.dumps({"error": message}) if args.json else f"resultsqa status: {message}",
              file=sys.stdout if args.json else sys.stderr)
        return EXIT_NO_STORE
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    per_round = ", ".join(f"{r}: {n:,}" for r, n in info["rows_per_round"].items())
    where = info["chroma_url"] if info["mode"] == "server" else info["store"]
    print(f"rounds       {', '.join(info['rounds'])}\n"
          f"rows         {info['rows']:,} ({per_round})\n"
          f"documents    {info['documents']} ({info['chunks']} chunks); cards {info['cards']}\n"
          f"embedder     {info['embedder']}\n"
          f"store        {where} ({info['mode']}, generation {info['generation']})\n"
          f"last ingest  {info['last_ingest']} from {info['source_root']}")
    for d in info["datasets"]:
        print(f"dataset      {d['id']}: {d['rows']:,} rows ({', '.join(d['rounds'])}); {d['measure']} in {d['unit']}, "
              f"{d['direction']} is better; {d['table']}, ingested {d['ingested']}")
    return 0
