"""Entity cards: short texts about each system, accelerator family, benchmark, submitter and round.

Questions name things the way people say them ("Vera Rubin", "Blackwell Ultra", "the CoreWeave
rack"), while the table holds exact values (`VR200`, `GB300`, `CoreWeave GB300 NVL72 ...`).
A card puts both side by side in one short text, with the table value to filter on
(`metadata["column"]`, `metadata["value"]`). Ingest keeps the cards in the generation
(`cards.jsonl`) but does not embed them: no search reads card vectors today (the assistant's
catalog maps names to table values), and embedding them was a third of a cold ingest.

Cards describe; they never carry a result number: numbers come only from the table, with citations.
The counts they state (rows, systems, accelerators) are descriptive facts about the data.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from typing import Any

import pandas as pd

from ingest.normalize import NO_ACCELERATOR, common_names
from ingest.records import Chunk

LIST_LIMIT = 10  # values named per list; the rest are counted, to keep cards short for the embedder


def build_cards(df: pd.DataFrame) -> list[Chunk]:
    """All cards for a normalised results table, in a deterministic order with deterministic ids."""
    if df.empty:
        return []
    # plain dicts, not pandas: hundreds of tiny groups are far cheaper to summarise in Python
    records = df.astype(object).where(df.notna(), None).to_dict("records")
    order = {str(r["round"]): int(r["round_order"]) for r in records}
    cards: list[Chunk] = []
    cards += [_system_card(name, rows, order) for name, rows in _groups(records, "system_name")]
    cards += [_accelerator_card(family, rows, order) for family, rows in _groups(records, "accelerator_family")]
    cards += [_benchmark_card(key, rows, order) for key, rows in _groups(records, "benchmark")]
    cards += [_submitter_card(name, rows, order) for name, rows in _groups(records, "submitter")]
    by_round = dict(_groups(records, "round"))
    rounds = sorted(by_round, key=order.get)
    previous: list[str | None] = [None, *rounds[:-1]]  # the previous round *in this table*, named in the card
    for round_, before in zip(rounds, previous):
        cards.append(_round_card(round_, by_round[round_], None if before is None else by_round[before], before))
    return cards


# --- helpers --------------------------------------------------------------------------

Rows = list[dict[str, Any]]


def _groups(records: Rows, column: str) -> list[tuple[str, Rows]]:
    groups: dict[str, Rows] = defaultdict(list)
    for record in records:
        if record[column] is not None:
            groups[str(record[column])].append(record)
    return sorted(groups.items())


def _rounds(rows: Rows, order: dict[str, int]) -> list[str]:
    """Newest first: questions usually mean the latest round."""
    return sorted({str(r["round"]) for r in rows}, key=lambda r: -order.get(r, 0))


def _values(rows: Rows, column: str) -> list[str]:
    return sorted({str(r[column]) for r in rows if r[column] is not None and str(r[column]).strip()})


def _distinct(rows: Rows, column: str) -> int:
    return len(_values(rows, column))


def _by_count(rows: Rows, column: str) -> list[str]:
    """Most frequent first, ties alphabetical, so the first names listed are the representative ones."""
    counts = Counter(str(r[column]) for r in rows if r[column] is not None)
    return sorted(counts, key=lambda v: (-counts[v], v))


def _ints(rows: Rows, column: str) -> str:
    return ", ".join(str(v) for v in sorted({int(r[column]) for r in rows if r[column] is not None}))


def _listing(values: list[str], limit: int = LIST_LIMIT) -> str:
    if not values:
        return "none"
    if len(values) <= limit:
        return ", ".join(values)
    return f"{', '.join(values[:limit])} and {len(values) - limit} more"


def _card_id(card_type: str, value: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:40] or "x"
    digest = hashlib.sha1(f"{card_type}\0{value}".encode("utf-8")).hexdigest()[:10]
    return f"card-{card_type}-{slug}-{digest}"


def _chunk(card_type: str, column: str, value: str, rounds: list[str], lines: list[str]) -> Chunk:
    return Chunk(
        id=_card_id(card_type, value),
        text="\n".join(line for line in lines if line),
        metadata={"kind": "card", "card_type": card_type, "column": column, "value": value,
                  "rounds": ",".join(rounds), "title": f"{card_type}: {value}"},
    )


def _families(rows: Rows) -> list[str]:
    """Families, most results first; CPU-only systems read as such rather than as a chip named `none`."""
    return ["CPU only" if f == "none" else f for f in _by_count(rows, "accelerator_family")]


def _accelerator_phrase(rows: Rows) -> str:
    parts = []
    for family in _by_count(rows, "accelerator_family"):
        if family == "none":
            parts.append("no accelerator (CPU only)")
            continue
        vendors = _values([r for r in rows if r["accelerator_family"] == family], "accelerator_vendor")
        names = common_names(family)
        aka = f", also called {', '.join(names)}" if names else ""
        parts.append(f"{family} ({'/'.join(vendors)}{aka})")
    return "; ".join(parts)


# --- the five card types --------------------------------------------------------------


def _system_card(name: str, rows: Rows, order: dict[str, int]) -> Chunk:
    rounds = _rounds(rows, order)
    accelerators = [a for a in _by_count(rows, "accelerator") if a != NO_ACCELERATOR]
    lines = [
        f"System: {name}",
        f"Platform (system ID): {_listing(_values(rows, 'platform'), 5)}",
        f"Submitter: {_listing(_values(rows, 'submitter'), 5)}",
        f"Rounds: {', '.join(rounds)}",
        f"Accelerator: {_listing(accelerators, 3) if accelerators else 'none (CPU only)'}",
        f"Accelerator family: {_accelerator_phrase(rows)}",
        f"Nodes: {_ints(rows, 'number_of_nodes') or 'unknown'}; "
        f"total accelerators: {_ints(rows, 'total_accelerators') or 'unknown'}",
        f"Host processor: {_listing(_values(rows, 'host_processor'), 3)}",
        f"Division: {', '.join(_values(rows, 'division'))}; availability: {', '.join(_values(rows, 'availability'))}; "
        f"system type: {', '.join(_values(rows, 'system_type'))}",
        f"Benchmarks: {_listing(_values(rows, 'benchmark'))}",
    ]
    return _chunk("system", "system_name", name, rounds, lines)


def _accelerator_card(family: str, rows: Rows, order: dict[str, int]) -> Chunk:
    rounds = _rounds(rows, order)
    if family == "none":
        lines = [
            "Accelerator family: none (CPU-only systems, accelerator N/A)",
            f"Rounds: {', '.join(rounds)}",
            f"Host processors: {_listing(_by_count(rows, 'host_processor'), 8)}",
            f"Submitters: {_listing(_by_count(rows, 'submitter'))}",
            f"Benchmarks: {_listing(_values(rows, 'benchmark'))}",
        ]
        return _chunk("accelerator", "accelerator_family", family, rounds, lines)
    names = common_names(family)
    lines = [
        f"Accelerator family: {family}",
        f"Vendor: {', '.join(_values(rows, 'accelerator_vendor'))}"
        + (" (a mix of chips in one system)" if "+" in family else ""),
        f"Also called: {', '.join(names)}" if names else "",
        f"Published accelerator names: {_listing(_by_count(rows, 'accelerator'), 6)}",
        f"Rounds: {', '.join(rounds)}",
        f"Submitters: {_listing(_by_count(rows, 'submitter'))}",
        f"Systems: {_distinct(rows, 'system_name')}; results: {len(rows)}",
        f"Benchmarks: {_listing(_values(rows, 'benchmark'))}",
    ]
    return _chunk("accelerator", "accelerator_family", family, rounds, lines)


def _benchmark_card(key: str, rows: Rows, order: dict[str, int]) -> Chunk:
    rounds = _rounds(rows, order)
    labels = _values(rows, "benchmark_raw")
    models = [m for m in _by_count(rows, "model_used") if m != key]
    direction = {(r["scenario"], r["units"]): bool(r["lower_is_better"]) for r in rows}
    metrics = [f"{scenario}: {units} ({'lower' if lower else 'higher'} is better)"
               for (scenario, units), lower in sorted(direction.items(), key=lambda kv: tuple(map(str, kv[0])))]
    lines = [
        f"Benchmark: {key}",
        f"Official label: {', '.join(labels)}" if labels != [key] else "",
        f"Models or folder names used: {_listing(models, 6)}" if models else "",
        f"Rounds: {', '.join(rounds)}",
        f"Scenarios and units: {'; '.join(metrics)}",
        f"System types: {', '.join(_values(rows, 'system_type'))}; divisions: {', '.join(_values(rows, 'division'))}",
        f"Submitters: {_distinct(rows, 'submitter')}; results: {len(rows)}",
        f"Accelerator families: {_listing(_families(rows))}",
    ]
    return _chunk("benchmark", "benchmark", key, rounds, lines)


def _submitter_card(name: str, rows: Rows, order: dict[str, int]) -> Chunk:
    rounds = _rounds(rows, order)
    per_round = Counter(str(r["round"]) for r in rows)
    lines = [
        f"Submitter: {name} (the organisation that submitted; not necessarily the chip vendor)",
        f"Rounds: {', '.join(rounds)}",
        f"Results per round: {', '.join(f'{r}: {per_round[r]}' for r in rounds)}",
        f"Systems: {_listing(_by_count(rows, 'system_name'), 6)}",
        f"Accelerator families: {_accelerator_phrase(rows)}",
        f"Benchmarks: {_listing(_values(rows, 'benchmark'))}",
        f"Divisions: {', '.join(_values(rows, 'division'))}; availability: {', '.join(_values(rows, 'availability'))}",
    ]
    return _chunk("submitter", "submitter", name, rounds, lines)


def _round_card(round_: str, rows: Rows, previous: Rows | None, previous_round: str | None) -> Chunk:
    benchmarks = _values(rows, "benchmark")

    def counts(column: str) -> str:
        tally = Counter(str(r[column]) for r in rows if r[column] is not None)
        return ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))

    lines = [
        f"MLPerf Inference round {round_}",
        f"Results: {len(rows)}; submitters: {_distinct(rows, 'submitter')}; systems: {_distinct(rows, 'system_name')}",
        f"Divisions: {counts('division')}",
        f"Availability: {counts('availability')}",
        f"Benchmarks: {', '.join(benchmarks)}",
    ]
    if previous is not None:
        before = set(_values(previous, "benchmark"))
        new = sorted(set(benchmarks) - before)
        gone = sorted(before - set(benchmarks))
        lines.append(f"New since {previous_round}: {', '.join(new) or 'none'}; "
                     f"not run since {previous_round}: {', '.join(gone) or 'none'}")
    lines.append(f"Accelerator families: {_listing(_families(rows), 15)}")
    return _chunk("round", "round", round_, [round_], lines)
