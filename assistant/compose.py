"""From a `QueryResult` (or retrieved passages) to the `Answer` a person reads.

Shared by the offline answerer and the agent so both state numbers the same way: exactly as
published (via `assistant.semantics`), with who, round, division, availability, scenario and
the node/accelerator counts, derived figures labelled, latency marked lower-is-better, and
every number tied to the rows (result id + public URL) it came from. Commentary answers are
extractive: sentences quoted from the passages with their sources; passage text is data and
is never followed as an instruction.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from assistant import glossary, lexicon, readout, semantics, templates
from assistant.notes import Note, localize
from assistant.answer import Answer, Citation, Passage, Value
from assistant.parsed import Parsed
from assistant.shapes.words import noun_after, read_at, two_asks, unread_named
from ingest.normalize import NO_ACCELERATOR

# The chip family and chip model a CPU-only system's rows carry: no accelerator.
NO_CHIP = ("none", NO_ACCELERATOR)

ROW_FIELDS = ["result_id", "result_url", "round", "division", "availability", "system_type", "submitter",
              "system_name", "platform", "number_of_nodes", "total_accelerators", "accelerator",
              "accelerator_vendor", "accelerator_family", "benchmark", "scenario", "result", "units", "value", "value_unit",
              "host_processor", "framework", "precision", "accuracy", "power_result", "power_units",
              "accelerators_per_node"]
MAX_CITED_ROWS = 50
DERIVED_LABEL = "derived, not an official MLPerf metric"


def _clean(v: Any) -> Any:
    """JSON-safe scalar: numpy scalars become plain Python, NA/NaN become None."""
    if v is None or type(v).__name__ in {"NAType", "NaTType"} or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "item"):
        try:
            return v.item()
        except (ValueError, AttributeError):
            pass
    return v


def compact_rows(df: Any, limit: int = MAX_CITED_ROWS) -> list[dict[str, Any]]:
    """The rows an answer used, as small dicts (with result_id and result_url) for tables and JSON.

    Built column by column with `tolist()`: `DataFrame.to_dict("records")` on Arrow-backed
    string columns costs tens of milliseconds, more than the whole rest of an answer.
    """
    if df is None or len(df) == 0:
        return []
    head = df.head(limit)
    cols = [c for c in ROW_FIELDS + ["side"] if c in head.columns]
    columns = [[_clean(v) for v in head[c].tolist()] for c in cols]
    out = []
    for values in zip(*columns):
        row = dict(zip(cols, values))
        if row.get("value") == row.get("result") and row.get("value_unit") == row.get("units"):
            row.pop("value", None)
            row.pop("value_unit", None)
        out.append(row)
    return out


def row_citations(rows: list[dict[str, Any]]) -> list[Citation]:
    cites: list[Citation] = []
    seen: set[tuple[str, str | None]] = set()
    for r in rows:
        rid, url = r.get("result_id"), r.get("result_url")
        if not rid or (rid, url) in seen:
            continue
        seen.add((rid, url))
        title = " — ".join(str(x) for x in (r.get("submitter"), r.get("system_name"),
                                              " ".join(str(y) for y in (r.get("benchmark"), r.get("scenario"),
                                                                        r.get("round")) if y)) if x)
        cites.append(Citation(kind="row", id=str(rid), url=url, title=title))
    return cites


def doc_citations(passages: list[Passage]) -> list[Citation]:
    """One citation per document (several chunks of one digest are one source to a reader)."""
    cites: list[Citation] = []
    seen: set[tuple[str | None, str]] = set()
    for p in passages:
        key = (p.url, p.title or p.source)
        if key in seen:
            continue
        seen.add(key)
        cites.append(Citation(kind="doc", id=p.id, url=p.url, title=p.title or p.source))
    return cites


def _fmt(value: Any, unit: str | None, derived: bool = False, lang: str = "en", parsed: Parsed | None = None) -> str:
    """A value as an answer shows it: as stored, or to the card's places for its unit (`Parsed.decimals`)."""
    places = parsed.decimals.get(unit) if parsed is not None and unit and not derived else None
    return semantics.format_value(value, unit, exact=not derived, lang=lang, places=places)


def _who(row: dict[str, Any], lang: str) -> str:
    """`CoreWeave, "CoreWeave GB300 NVL72 (...)" (18 nodes, 72× GB300)`."""
    nodes, accs = row.get("number_of_nodes"), row.get("total_accelerators")
    chip = row.get("accelerator_family") or row.get("accelerator") or "accelerators"
    counts = []
    if nodes is not None:
        n = int(nodes)
        counts.append(f"{n} {'nod' if lang == 'sv' else 'node'}{'er' if lang == 'sv' and n != 1 else ''}"
                      f"{'s' if lang != 'sv' and n != 1 else ''}")
    if accs is not None and chip not in NO_CHIP:
        counts.append(f"{int(accs)}× {chip}")
    elif chip in NO_CHIP:
        counts.append("CPU only" if lang != "sv" else "endast CPU")
    return f"{row.get('submitter')}, \"{row.get('system_name')}\"" + (f" ({', '.join(counts)})" if counts else "")


def _context(row: dict[str, Any], lang: str, parsed: Parsed | None = None) -> str:
    """`llama2-70b-99.9 Offline, v6.1, closed division, available`; a benchmark with a display name
    in its card is shown with it (`Llama 2 70B LoRA (llama2_70b_lora)`)."""
    div = row.get("division")
    div_text = (f"{div}-divisionen" if lang == "sv" else f"{div} division") if div else ""
    bench = row.get("benchmark")
    shown = (parsed.display_values.get("benchmark", {}).get(str(bench)) if parsed is not None else None)
    bench = f"{shown} ({bench})" if shown and bench else bench
    parts = [" ".join(str(x) for x in (bench, row.get("scenario")) if x), row.get("round"),
             div_text, row.get("availability")]
    return ", ".join(str(p) for p in parts if p)


def _value_of(row: dict[str, Any], result: Any) -> tuple[float, str | None]:
    value = row.get("value", row.get("result"))
    unit = row.get("value_unit") or result.unit or row.get("units")
    return float(value), unit


def _derived_suffix(result: Any, row: dict[str, Any], lang: str, parsed: Parsed | None = None) -> str:
    if not result.derived:
        return ""
    if result.spec.metric == "result_per_accelerator" and row.get("total_accelerators"):
        base = _fmt(row.get("result"), row.get("units"), lang=lang, parsed=parsed)
        return (f" ({DERIVED_LABEL}: {base} ÷ {int(row['total_accelerators'])} accelerators)" if lang != "sv" else
                f" (härlett, inte ett officiellt MLPerf-mått: {base} ÷ {int(row['total_accelerators'])} acceleratorer)")
    return f" ({DERIVED_LABEL})" if lang != "sv" else " (härlett, inte ett officiellt MLPerf-mått)"


def _latency_suffix(result: Any, lang: str) -> str:
    if result.lower_is_better and result.spec.metric == "result":
        return " (lower is better)" if lang != "sv" else " (lägre är bättre)"
    return ""


def _lang(parsed: Parsed | None) -> str:
    """The answer's language: the question's, or English when there is no reading (an agent's spec)."""
    return parsed.language if parsed is not None else "en"


def _answer(question: str, text: str, *, status: str = "answered", **kw: Any) -> Answer:
    return Answer(question=question, answer=text, status=status, backend="offline", **kw)


def _query(result: Any) -> dict[str, Any]:
    q = result.spec.model_dump(mode="json", exclude_none=True)
    q["pandas"] = result.pandas
    return q


def _left_out(filters: Any) -> list[tuple[str, str]]:
    """What a spec's exclusion leaves out: (column, its values joined) per column."""
    if filters.exclude is None:
        return []
    return [(k, ", ".join(map(str, v))) for k, v in filters.exclude.model_dump(exclude_none=True).items() if v]


def _no_rows(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    text = ("Inga resultat matchar frågan i datan" if lang == "sv" else "No results in the data match this question")
    filters = {k: v for k, v in result.spec.filters.model_dump(exclude_none=True).items() if v and k != "exclude"}
    said = [f"{k} = {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in filters.items()] + \
        [f"{k} ≠ {v}" for k, v in _left_out(result.spec.filters)]
    if said:
        text += " (" + "; ".join(said) + ")"
    return _answer(question, text + ".", status="no_data", query=_query(result), notes=list(result.notes))


# --- the composer --------------------------------------------------------------------------

def compose(question: str, result: Any, parsed: Parsed | None = None) -> Answer:
    """A short cited answer for a `QueryResult` of any op."""
    op = result.spec.op
    if op == "rows" and result.spec.group_by and parsed is not None:
        from assistant.compose_groups import compose_groups

        answer = compose_groups(question, result, parsed)
    elif op == "aggregate" and parsed is not None and parsed.intent == "count_rank":
        answer = _compose_count_rank(question, result, parsed)
    elif op == "aggregate":
        answer = _compose_aggregate(question, result, parsed)
    elif op == "difference":
        answer = _compose_difference(question, result, parsed)
    elif op == "compare":
        answer = _compose_compare(question, result, parsed)
    elif op == "trend":
        answer = _compose_trend(question, result, parsed)
    else:
        answer = _compose_rows(question, result, parsed)
    result_notes = list(result.notes)
    if op == "difference" or (op == "aggregate" and result.spec.aggregate in ("count", "nunique")):
        # Comparison caveats (mixed scenarios, node counts) say nothing about a count.
        caveats = set(semantics.describe_caveats(result.rows))
        result_notes = [n for n in result_notes if n not in caveats]
    notes = (list(parsed.notes) if parsed is not None else []) + result_notes + _rounded(result, parsed)
    answer.notes = list(dict.fromkeys(answer.notes + notes))
    if parsed is not None and parsed.checked and op == "rows" and answer.status == "answered" and not result.rows.empty:
        answer.answer += _checked_verdict(result.rows.iloc[0], parsed)
    answer.notes = localize(answer.notes, _lang(parsed))
    if answer.query is None:
        answer.query = _query(result)
    if parsed is not None:
        answer.query["parsed"] = parsed.state()
        answer.reading = readout.line(parsed, result.spec)
        answer.suggestions = answer.suggestions or list(parsed.suggestions)
    return answer


def _rounded(result: Any, parsed: Parsed | None) -> list[str]:
    """Say so when the answer shows a unit to the card's places: the exact value is in the cited row."""
    shows_values = result.spec.op in ("rows", "compare", "trend") and result.spec.metric == "result"
    if parsed is None or not parsed.decimals or not shows_values or result.rows.empty or "units" not in result.rows:
        return []
    shown = set(result.rows["units"].dropna().astype(str))
    return [Note("rounded", unit=unit, places=places) for unit, places in parsed.decimals.items() if unit in shown]


def _compose_count_rank(question: str, result: Any, parsed: Parsed | None) -> Answer:
    """"Which submitter had the most results?": the top group and its count, then the next ones."""
    from assistant import templates

    lang = parsed.language
    groups = result.groups
    if groups is None or len(groups) == 0:
        return _no_rows(question, result, parsed)
    spec = result.spec
    key = (spec.group_by or ["submitter"])[0]
    records = [(str(k), int(v)) for k, v in zip(groups[key].tolist(), groups["value"].tolist())]
    scope = _scope_text(spec.filters, lang)
    where = (f" i {scope}" if lang == "sv" else f" in {scope}") if scope else ""
    n = records[0][1]
    tied = [k for k, v in records if v == n]
    fewest = spec.order in ("asc", "worst")
    what = _count_noun(spec, lang)  # "results", or "distinct systems" for "the most different systems"
    if len(tied) > 1:
        text = templates.text(lang, "answer", "count_rank_fewest_tied" if fewest else "count_rank_tied",
                              top=" / ".join(tied), where=where, n=n, what=what)
    else:
        text = templates.text(lang, "answer", "count_rank_fewest" if fewest else "count_rank", top=tied[0],
                              where=where, n=n, what=what)
    rest = [f"{k} {v}" for k, v in records[len(tied):len(tied) + 5]]
    if rest:
        text += templates.text(lang, "answer", "count_rank_next", items="; ".join(rest))
    rows = compact_rows(result.rows)
    top_rows = [r for r in rows if str(r.get(key)) in tied] or rows
    values = [Value(value=float(v), unit=None, label=k) for k, v in records]
    chart = {"type": "bar", "x": [k for k, _ in records], "y": [float(v) for _, v in records],
             "unit": "results" if lang != "sv" else "resultat", "lower_is_better": False}
    return _answer(question, text, values=values, rows=rows, citations=row_citations(top_rows[:20]), chart=chart,
                   query=_query(result))


_CHECKED_WORDS = {"submitter": ("submitter", "inskickare"), "accelerator_vendor": ("accelerator vendor", "chiptillverkare"),
                  "accelerator_family": ("accelerator family", "acceleratorfamilj"), "accelerator": ("accelerator", "accelerator"),
                  "system_name": ("system", "system"), "platform": ("platform", "plattform")}


def _checked_verdict(top: Any, parsed: Parsed) -> str:
    """"Is it true that Crusoe's MI355X system had the highest ...?": the ranking ran over everyone,
    and this sentence says, computed here, whether its top row has what the question named."""
    sv = parsed.language == "sv"
    said, wrong = [], []
    for col, values in parsed.checked.items():
        actual = str(top.get(col))
        word = _CHECKED_WORDS.get(col, (col, col))[1 if sv else 0]
        said.append(f"{word} {actual}")
        if actual not in values:
            wrong.append(f"{word} {actual}" + (f" (inte {' / '.join(values)})" if sv else f" (not {' / '.join(values)})"))
    if sv:
        return (f" Det stämmer: toppresultatet har {', '.join(said)}." if not wrong else
                f" Det stämmer inte: toppresultatet har {', '.join(wrong)}.")
    return (f" That checks out: the top result has {', '.join(said)}." if not wrong else
            f" That does not check out: the top result has {', '.join(wrong)}.")


def _compose_rows(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    if result.empty:
        return _no_rows(question, result, parsed)
    rows = compact_rows(result.rows)
    intent = parsed.intent if parsed is not None else "best"
    top = rows[0]
    value, unit = _value_of(top, result)
    derived = bool(result.derived)
    metric_word = {"en": "per-accelerator result", "sv": "resultatet per accelerator"}[lang] \
        if result.spec.metric == "result_per_accelerator" else {"en": "result", "sv": "resultatet"}[lang]
    if result.spec.metric == "result" and lang == "en" and parsed is not None:
        metric_word = parsed.display.get("result", metric_word)  # the card's name: "time to train"
    ctx = _context(top, lang, parsed)
    lat = _latency_suffix(result, lang)
    figure = _fmt(value, unit, derived, lang, parsed)
    if intent == "lookup":
        lead = (f"{_who(top, lang)}: {figure}{lat} on {ctx}" if lang != "sv" else
                f"{_who(top, lang)}: {figure}{lat} på {ctx}")
    elif result.spec.metric in semantics.SIZE_METRICS:
        # A system's size is not a result: say which systems, with counts, in the round's context.
        largest = result.spec.order not in ("worst", "asc")
        div = top.get("division")
        ctx = ", ".join(str(p) for p in (top.get("round"), div and (f"{div}-divisionen" if lang == "sv" else
                                                                    f"{div} division"), top.get("availability")) if p)
        by = semantics.SIZE_METRICS[result.spec.metric]  # "accelerators" / "nodes"
        by_sv = {"accelerators": "acceleratorer", "nodes": "noder"}[by]
        # Systems of the same size share the first place: name them all.
        tied = "; ".join(_who(r, lang) for r in rows[1:] if _value_of(r, result)[0] == value)
        who = _who(top, lang) + (f"; {tied}" if tied else "")
        lead = (f"The {'largest' if largest else 'smallest'} system by {by} ({ctx}) has "
                f"{semantics.format_number(value, lang=lang)} {by}: {who}" if lang != "sv" else
                f"Det {'största' if largest else 'minsta'} systemet räknat i {by_sv} ({ctx}) har "
                f"{semantics.format_number(value, lang=lang)} {by_sv}: {who}")
    elif result.spec.metric == "power":
        # Power is lower-is-better, so "the most power drawn" is the worst row: say which it is.
        most = result.spec.order in ("worst", "desc")
        lead = (f"The {'highest' if most else 'lowest'} power draw ({ctx}) is {figure}, "
                f"by {_who(top, lang)}" if lang != "sv" else
                f"{'Högsta' if most else 'Lägsta'} effektuttaget ({ctx}) är {figure}, "
                f"av {_who(top, lang)}")
    elif intent == "worst" or (intent == "top" and result.spec.order == "worst"):
        lead = (f"The lowest-ranked {metric_word} ({ctx}) is {figure}{lat}, by {_who(top, lang)}"
                if lang != "sv" else
                f"Det sämsta {metric_word} ({ctx}) är {figure}{lat}, av {_who(top, lang)}")
    else:
        lead = (f"The best {metric_word} ({ctx}) is {figure}{lat}, by {_who(top, lang)}"
                if lang != "sv" else
                f"Det bästa {metric_word} ({ctx}) är {figure}{lat}, av {_who(top, lang)}")
    text = lead + _derived_suffix(result, top, lang, parsed) + f" [{top.get('result_id')}]."
    shown = rows if intent in {"top", "lookup"} else rows[:1]
    if len(shown) > 1:
        divisions = len({r.get("division") for r in shown}) > 1  # closed and open: say which each is
        rest = "; ".join(f"{i + 2}. {_fmt(*_value_of(r, result), derived, lang, parsed)} — {_who(r, lang)}"
                         + (f", {r.get('benchmark')} {r.get('scenario')}" if intent == "lookup" else "")
                         + (f", {r.get('division')}" if divisions else "")
                         + f" [{r.get('result_id')}]" for i, r in enumerate(shown[1:]))
        text += (" Next: " if lang != "sv" else " Därefter: ") + rest + "."
    if parsed is not None and parsed.margin and len(shown) > 1:
        text += _lead(result, shown[0], shown[1], lang)
    values = [Value(value=_fmt_float(_value_of(r, result)[0]), unit=_value_of(r, result)[1],
                    label=f"{r.get('submitter')} {r.get('system_name')} ({r.get('benchmark')} {r.get('scenario')}, "
                          f"{r.get('round')})", result_ids=[str(r.get("result_id"))], derived=derived)
              for r in shown]
    chart = None
    if len(rows) > 1:
        chart = {"type": "bar", "x": [_label(r) for r in rows], "y": [_value_of(r, result)[0] for r in rows],
                 "unit": unit, "lower_is_better": bool(result.lower_is_better), "derived": derived,
                 "title": ctx}
    notes = [semantics.DERIVED_NOTE] if result.spec.metric == "result_per_accelerator" else []
    return _answer(question, text, values=values, rows=rows, citations=row_citations(rows), chart=chart,
                   query=_query(result), notes=notes)


def _lead(result: Any, first: dict[str, Any], second: dict[str, Any], lang: str) -> str:
    """The first row's lead over the second, in their own unit (a derived figure, labelled so)."""
    (a, unit), (b, other) = _value_of(first, result), _value_of(second, result)
    if unit != other or not b:
        return ""
    gap = abs(a - b)
    return templates.text(lang, "answer", "lead", gap=semantics.format_value(gap, unit, exact=False, lang=lang),
                          pct=semantics.format_number(100 * gap / abs(b), exact=False, lang=lang))


def _fmt_float(v: float) -> float:
    return float(v)


def _label(row: dict[str, Any]) -> str:
    name = str(row.get("system_name") or row.get("platform") or "")
    if len(name) > 40:
        name = name[:38] + "…"
    return f"{row.get('submitter')}: {name}"


FEW = 5  # a distinct count this small names its values


def _few_names(spec: Any, result: Any) -> list[str]:
    """The distinct values a small nunique count counted (all of them, or none when there are more)."""
    if spec.aggregate != "nunique" or not spec.column or result.rows is None or spec.column not in result.rows:
        return []
    names = sorted({str(v) for v in result.rows[spec.column].dropna().tolist()})
    return names if 0 < len(names) <= FEW and len(names) == int(result.value or 0) else []


def _compose_aggregate(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    spec = result.spec
    rows = compact_rows(result.rows)
    scope = _scope_text(spec.filters, lang)
    what = _count_noun(spec, lang)
    cited_note = []
    matched = result.matched if result.matched is not None else len(result.rows)
    if matched > len(rows):
        cited_note = [f"{matched:,} rows matched; the first {len(rows)} are listed and cited"
                      if lang != "sv" else f"{matched:,} rader matchade; de första {len(rows)} visas och citeras"]
    if result.groups is None:
        if result.value is None:
            return _no_rows(question, result, parsed)
        value = float(result.value)
        where = f" in {scope}" if scope and lang != "sv" else (f" i {scope}" if scope else "")
        split = ", ".join(f"{semantics.format_number(n, lang=lang)} {d}" for d, n in
                          sorted(result.by_division.items(), key=lambda kv: (-kv[1], kv[0])))
        split = f": {split}" if split else ""
        text = (f"There are {semantics.format_number(value, lang=lang)} {what}{where}{split}." if lang != "sv" else
                f"Det finns {semantics.format_number(value, lang=lang)} {what}{where}{split}.")
        named = _few_names(spec, result)
        if named:  # "how many systems with more than 100 accelerators": a few are worth naming
            text = text[:-1] + ": " + ", ".join(named) + "."
        if value == 0:
            return _answer(question, text, status="no_data", query=_query(result))
        values = [Value(value=value, unit=None, label=f"{what}{where}",
                        result_ids=[r["result_id"] for r in rows])]
        return _answer(question, text, values=values, rows=rows, citations=row_citations(rows),
                       query=_query(result), notes=cited_note)
    groups = result.groups
    if groups is None or len(groups) == 0:
        return _no_rows(question, result, parsed)
    keys = [c for c in (spec.group_by or []) if c in groups.columns]
    records = [dict(zip(groups.columns, (_clean(v) for v in values))) for values in groups.itertuples(index=False)]
    if keys == ["round"] and spec.aggregate in ("count", "nunique"):
        # Per round, in round order.
        order = {r: i for i, r in enumerate(sorted({str(x["round"]) for x in records}, key=_round_key))}
        records.sort(key=lambda x: order[str(x["round"])])
    label_of = (lambda rec: " / ".join(str(rec[k]) for k in keys))
    counted = parsed is not None and parsed.intent == "count"  # "how many each": counts, not a list of names
    if spec.group_by and spec.aggregate == "count" and spec.column is None and keys != ["round"] and not counted:
        # A list question: "which benchmarks are in v6.1" -> the names, with their row counts.
        names = sorted(label_of(r) for r in records)
        if keys[-1] in ("accelerator_family", "accelerator_vendor", "accelerator"):
            names = [("none (CPU only)" if lang != "sv" else "none (endast CPU)") if n in NO_CHIP else n
                     for n in names]
        where = f" in {scope}" if scope else ""
        noun = _plural(keys[-1], lang, len(names))
        text = (f"{len(names)} {noun}{where}: " if lang != "sv" else
                f"{len(names)} {noun}{' i ' + scope if scope else ''}: ") + ", ".join(names) + "."
    else:
        parts = [f"{label_of(r)}: {semantics.format_number(r['value'], lang=lang)}" for r in records]
        capped = any(n.startswith("showing ") for n in result.notes)  # some groups left out: no total
        if spec.aggregate == "count" and len(records) > 1 and not capped:
            # rows are counted once each, so the groups add up to the total ("over all four rounds")
            total = semantics.format_number(sum(float(r["value"]) for r in records), lang=lang)
            parts.append(f"totalt {total}" if lang == "sv" else f"{total} in all")
        where = f" ({scope})" if scope else ""
        # "in how many rounds did Cisco submit?": the number of groups is an answer too
        across = (f", {len(records)} {_plural(keys[0], lang)}" if len(keys) == 1 and len(records) > 1 and not capped
                  else "")
        text = f"{what.capitalize()} per {', '.join(keys)}{where}{across}: " + "; ".join(parts) + "."
    values = [Value(value=float(r["value"]), unit=None, label=label_of(r)) for r in records]
    chart = {"type": "bar", "x": [label_of(r) for r in records], "y": [float(r["value"]) for r in records],
             "unit": what, "lower_is_better": False}
    return _answer(question, text, values=values, rows=rows, citations=row_citations(rows), chart=chart,
                   query=_query(result), notes=cited_note)


def _scope_text(filters: Any, lang: str) -> str:
    """`v6.1 (submitter NVIDIA)` — the filters a count ran under, in words."""
    data = {k: v for k, v in filters.model_dump(exclude_none=True).items() if isinstance(v, list) and v}
    rounds = ", ".join(data.pop("round", []))
    rest = "; ".join([f"{k.replace('_', ' ')} {', '.join(map(str, v))}" for k, v in data.items()]
                     + [f"{k.replace('_', ' ')} ≠ {v}" for k, v in _left_out(filters)])
    if rounds and rest:
        return f"{rounds} ({rest})"
    return rounds or rest


def _round_key(label: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", label))


_NOUNS = {
    "submitter": ("distinct submitters", "olika inskickare"),
    "benchmark": ("distinct benchmarks", "olika benchmark"),
    "platform": ("distinct systems", "olika system"),
    "system_name": ("distinct systems", "olika system"),
    "accelerator_family": ("distinct accelerator types", "olika acceleratortyper"),
    "accelerator_vendor": ("distinct chip vendors", "olika chiptillverkare"),
    "scenario": ("distinct scenarios", "olika scenarier"),
    "round": ("distinct rounds", "olika rundor"),
}
_PLURALS = {"benchmark": ("benchmarks", "benchmark"), "submitter": ("submitters", "inskickare"),
            "platform": ("systems", "system"), "system_name": ("systems", "system"), "accelerator_family": ("accelerator types", "acceleratortyper"),
            "accelerator_vendor": ("chip vendors", "chiptillverkare"), "scenario": ("scenarios", "scenarier"),
            "round": ("rounds", "rundor")}


_SINGULARS = {"benchmark": ("benchmark", "benchmark"), "submitter": ("submitter", "inskickare"),
              "platform": ("system", "system"), "system_name": ("system", "system"),
              "accelerator_family": ("accelerator type", "acceleratortyp"),
              "accelerator_vendor": ("chip vendor", "chiptillverkare"), "scenario": ("scenario", "scenario"),
              "round": ("round", "runda")}


def _plural(col: str, lang: str, count: int = 2) -> str:
    """The column's noun for `count` things ("1 benchmark", "3 benchmarks")."""
    en, sv = (_SINGULARS if count == 1 else _PLURALS).get(col, (col if count == 1 else col + "s", col))
    return sv if lang == "sv" else en


def _count_noun(spec: Any, lang: str) -> str:
    if spec.aggregate == "nunique" and spec.column:
        en, sv = _NOUNS.get(spec.column, (f"distinct {spec.column} values", f"olika {spec.column}"))
        return sv if lang == "sv" else en
    if spec.aggregate == "count":
        return "resultat" if lang == "sv" else "results"
    return f"{spec.aggregate} of {spec.metric}"


def _compose_difference(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    spec = result.spec
    first = ", ".join(spec.filters.round or [])
    second = ", ".join((spec.other.round if spec.other else None) or [])
    rows = compact_rows(result.rows)
    gone = (parsed.explicit if parsed is not None else {}).get("_before") == (spec.filters.round or [None])
    items = [_with_common_name(i) if spec.column == "accelerator_family" else i for i in result.items]
    if not items:
        text = (f"No {spec.column} appears in {first} that is absent from {second}." if lang != "sv" else
                f"Inget {spec.column} finns i {first} som saknas i {second}.")
        return _answer(question, text, query=_query(result))
    if gone:
        text = (f"In {first} but no longer in {second} ({len(items)}): " if lang != "sv" else
                f"Fanns i {first} men inte längre i {second} ({len(items)}): ") + ", ".join(items) + "."
    else:
        text = (f"New in {first} (not in {second}), {len(items)} {_plural(spec.column, lang, len(items))}: "
                if lang != "sv" else
                f"Nya i {first} (fanns inte i {second}), {len(items)} {_plural(spec.column, lang, len(items))}: ") \
            + ", ".join(items) + "."
    values = [Value(value=float(len(items)), unit=None, label=f"{spec.column} in {first} not in {second}",
                    result_ids=[r["result_id"] for r in rows])]
    return _answer(question, text, values=values, rows=rows, citations=row_citations(rows), query=_query(result))


def _with_common_name(family: str) -> str:
    """"VR200 (Vera Rubin)": the name people use beside the short chip name."""
    from ingest.normalize import common_names

    name = next((n for n in common_names(family) if n.lower() not in family.lower()), None)
    return f"{family} ({name})" if name else family


def _short(values: list[Any]) -> str:
    """A side's values, shortened when a partial name matched many ("XE9680" -> 14 systems)."""
    return ", ".join(map(str, values[:2])) + (f" (+{len(values) - 2})" if len(values) > 2 else "")


def _compose_compare(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    spec = result.spec
    side_col = parsed.side_column if parsed is not None else None
    parts, values, labels, ys, all_rows = [], [], [], [], []
    for i, side in enumerate(result.sides):
        side_filter = (spec.sides or [])[i].model_dump(exclude_none=True) if spec.sides else {}
        name = " / ".join(_short(v) for v in side_filter.values() if isinstance(v, list)) or f"side {i + 1}"
        if side.empty:
            parts.append(f"{name}: no matching result" if lang != "sv" else f"{name}: inget matchande resultat")
            continue
        row = compact_rows(side.rows, 1)[0]
        row["side"] = i + 1
        all_rows.append(row)
        value, unit = _value_of(row, side)
        figure = _fmt(value, unit, side.derived, lang, parsed)
        parts.append(f"{name}: {figure} by {_who(row, lang)}, {_context(row, lang)} [{row.get('result_id')}]"
                     if lang != "sv" else
                     f"{name}: {figure} av {_who(row, lang)}, {_context(row, lang)} [{row.get('result_id')}]")
        values.append(Value(value=float(value), unit=unit, label=name, result_ids=[str(row.get("result_id"))],
                            derived=bool(side.derived)))
        labels.append(name)
        ys.append(float(value))
    if not values:
        return _no_rows(question, result, parsed)
    head = ("Best result per side" if lang != "sv" else "Bästa resultat per sida")
    text = f"{head}{_latency_suffix(result, lang)}: " + "; ".join(parts) + "."
    divisions = list(dict.fromkeys(str(r.get("division")) for r in all_rows if r.get("division")))
    sizes = list(dict.fromkeys(int(r["total_accelerators"]) for r in all_rows if r.get("total_accelerators")))
    if len(divisions) >= 2:  # open and closed: never ranked against each other
        text += templates.text(lang, "answer", "compare_divisions", divisions=", ".join(divisions))
    elif len(values) >= 2:
        ranked = sorted(values, key=lambda v: v.value, reverse=not result.lower_is_better)
        ahead, behind = ranked[0], ranked[1]
        factor = ""
        if ahead.unit == behind.unit and ahead.value and behind.value:  # how far ahead, derived from the two
            ratio = max(ahead.value, behind.value) / min(ahead.value, behind.value)
            factor = semantics.localise(f"{ratio:.2f}", lang)
            factor = f" (×{factor}; derived)" if lang != "sv" else f" (×{factor}; härlett)"
        text += (f" {ahead.label} is ahead{factor}." if lang != "sv" else f" {ahead.label} ligger före{factor}.")
        if len(sizes) >= 2 and not result.derived:
            text += templates.text(lang, "answer", "compare_sizes", sizes=" vs ".join(map(str, sizes))
                                   if lang != "sv" else " mot ".join(map(str, sizes)))
    if result.derived:
        text += f" ({DERIVED_LABEL})" if lang != "sv" else " (härlett, inte ett officiellt MLPerf-mått)"
    chart = {"type": "grouped_bar", "x": labels, "y": ys, "series": [side_col or "side"],
             "unit": result.unit, "lower_is_better": bool(result.lower_is_better), "derived": bool(result.derived)}
    return _answer(question, text, values=values, rows=all_rows, citations=row_citations(all_rows), chart=chart,
                   query=_query(result))


def _compose_trend(question: str, result: Any, parsed: Parsed | None) -> Answer:
    lang = _lang(parsed)
    if result.empty or not result.by_round:
        return _no_rows(question, result, parsed)
    rows = compact_rows(result.rows)
    unit = result.unit
    derived = bool(result.derived)
    first = rows[0]
    subject = " ".join(str(x) for x in (first.get("benchmark"), first.get("scenario")) if x)
    parts = [f"{r['round']}: {_fmt(r.get('value', r.get('result')), unit, derived, lang, parsed)} ({_who(r, lang)}, "
             f"{r.get('division')}, {r.get('availability')}) [{r['result_id']}]" for r in rows]
    text = (f"Best {subject} result per round{_latency_suffix(result, lang)}: " if lang != "sv" else
            f"Bästa {subject}-resultat per runda{_latency_suffix(result, lang)}: ") + "; ".join(parts) + "."
    values = [Value(value=float(r.get("value", r.get("result"))), unit=unit, label=str(r["round"]),
                    result_ids=[str(r["result_id"])], derived=derived) for r in rows]
    notes: list[str] = []
    if len(values) >= 2 and values[0].value:
        change = (values[-1].value - values[0].value) / values[0].value * 100
        factor = values[-1].value / values[0].value
        pct, times = semantics.localise(f"{change:+.1f}", lang), semantics.localise(f"{factor:.2f}", lang)
        text += (f" Change {values[0].label}→{values[-1].label}: {pct}% (×{times}; derived)."
                 if lang != "sv" else
                 f" Förändring {values[0].label}→{values[-1].label}: {pct} % (×{times}; härlett).")
        notes.append(Note("change_derived"))
    if len(rows) == 1:
        text += (" Only one round has a matching result." if lang != "sv" else
                 " Bara en runda har ett matchande resultat.")
    chart = {"type": "line", "x": [v.label for v in values], "y": [v.value for v in values], "unit": unit,
             "lower_is_better": bool(result.lower_is_better), "derived": derived, "title": subject}
    return _answer(question, text, values=values, rows=rows, citations=row_citations(rows), chart=chart,
                   query=_query(result), notes=notes)


# --- commentary -----------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])(?<![A-Z][a-z]\.[A-Z]\.)(?<![A-Z]\.[A-Z]\.)\s+|\n+")  # not after "Ph.D.", "U.S."
_WORD = re.compile(r"[0-9a-zåäöéü]+", re.I)
_STOPWORDS = set("the a an of in on for and or to is are was were what why how did does do which who with by "
                 "about that this it its from at as be has have had vad varför hur och i på för att det den som "
                 "är var med om av till".split())


def _keywords(text: str) -> set[str]:
    """A text's words, an abbreviation as one word without its dots ("Ph.D." is "phd")."""
    text = lexicon.undotted(text)
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOPWORDS and len(w) > 1}


# British "-ise" spellings, written as American ones ("optimisation", "organised", "recognising").
_BRITISH = re.compile(r"is(ations?|e|ed|es|ing|ers?)$")
BRITISH_MIN = 7  # shorter words keep their "-ise" ("rise", "noise", "raise")


# The nouns and forms of an "-ize" verb ("optimizer", "optimization", "optimized"), cut to its root.
_IZE = re.compile(r"(?<=...)iz(?:ations?|ers?|es|ed|ing|e)$")


def word_form(word: str) -> str:
    """The one form a word is matched in: American spelling, so "optimisation" in a question finds
    "optimization", and an "-ize" verb's forms at their root, so "optimizer tool" finds "we automate
    optimization"."""
    word = _BRITISH.sub(r"iz\1", word) if len(word) >= BRITISH_MIN else word
    return _IZE.sub("iz", word)


def stem(word: str) -> str:
    """A crude stem, enough to match "parameters" with "parameter", "published" with "publish", and
    the forms `word_form` makes one ("optimisation", "optimizer")."""
    word = word_form(word)
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[:-len(suffix)]
    return word


# A question word this long that starts a sentence's word is that word cut short ("configs" for
# "configurations", "perf" is too short to tell from "perfect").
CLIPPED_MIN = 5


def _clips(key: str, word: str) -> bool:
    """Whether a question word is a text's longer word cut short ("config" of "configuration")."""
    return len(key) >= CLIPPED_MIN and word.startswith(key)


def _shared(words: set[str], wanted: set[str] | frozenset[str]) -> set[str]:
    """The wanted words a text has, whole or in full where the question clipped them ("configs"
    asks for "14 configurations")."""
    return (words & wanted) | {k for k in wanted - words if any(_clips(k, w) for w in words)}


# "what nickname did they mention": the noun after the question word is what is asked.
ASKED_NOUN_WEIGHT = 3.0
ASKED_COMPOUND = 2  # words of the asked noun: "rocm version", "optimizer tool"


def asked_nouns(parsed: Parsed | None) -> set[str]:
    """The words right after a question word ("what nickname", "vilken modell"), long enough to
    tell from a word cut short."""
    r = parsed.reading if parsed is not None else None
    if r is None:
        return set()
    out = set()
    for t in r.tagged("cue", "wh_word"):
        # the noun and the words of its compound that nothing reads ("which rocm version did",
        # "whats the name of the optimisation tool")
        start = noun_after(r, t.last) if t.last < len(r.tokens) else t.last
        if not any(t.last <= n.first < start for n in r.tagged("cue", "name_of")):
            start = t.last  # "what a benchmark really is": its own words decide, as before
        for i in range(start, min(start + ASKED_COMPOUND, len(r.tokens))):
            if i > start and read_at(r, i):
                break
            if len(r.tokens[i].text) >= CLIPPED_MIN:
                out.add(r.tokens[i].text)
    named = unread_named(r)
    if named is not None:  # "what's the tool called": the noun whose name is asked, however short
        out.add(named)
    for t in r.tagged("cue", "source_weak"):
        # "the article mentions a nickname people use, what is it?": the thing a source is said to
        # name, with "a", is what "it" asks for
        i = noun_after(r, t.last) if t.last < len(r.tokens) else t.last
        if i > t.last and i < len(r.tokens) and not read_at(r, i) and len(r.tokens[i].text) >= CLIPPED_MIN:
            out.add(r.tokens[i].text)
    return out


# A sentence that gives something its name: an abbreviation and what it stands for ("ANNA
# (Automated Neural Networks Accelerator)", "Tensor Parallelism (TP)"), or "called …"/"named …".
NAMING = re.compile(r"\b[A-Z][A-Za-z0-9-]+ \((?:[A-Z][a-z]+ ){1,5}[A-Z][a-z]+\)|"
                    r"\b(?:[A-Z][a-z]+ ){1,5}[A-Z][a-z]+ \([A-Z]{2,6}\)|"
                    r"\b(?:called|named|dubbed|known as|kallad|kallas|som heter) [\"“']?[A-Z]")
# How many sentences after the best one a name may be given ("We build tools … To make this
# practical, we developed ANNA (…)").
NAME_WINDOW = 4


def best_sentences(question: str, text: str, n: int = 2,
                   asked: set[str] | frozenset[str] = frozenset(), language: str = "",
                   name_asked: bool = False) -> list[str]:
    """The passage sentences that best share the question's words (ties: earlier first).

    Words are weighted by how rare they are among the passage's sentences (inverse sentence
    frequency): a word most sentences share (the document's topic, "MLPerf") says little about
    which sentence answers; a word few share ("head") says more."""
    keys = _keywords(question)
    # the glossary's words for the question's ("laptop": "macbook"), in the question's language
    keys |= {e for k in keys for e in glossary.english(k, language)} if language else set()
    # `asked` (asked_nouns: "what nickname did they mention") counts more, and also in the longer
    # words it begins ("nicknamed")
    asked = {word_form(w) for w in set(asked) & keys}
    keys = {word_form(w) for w in keys}
    # Retrieved chunks overlap, so one sentence can come twice: quote it once.
    sentences = list(dict.fromkeys(s.strip(" -*•#\t") for s in _SENTENCE.split(text) if len(s.strip()) > 20))
    words = [(ws := {word_form(w) for w in _keywords(s)}) | _shared(ws, asked) for s in sentences]
    df = Counter(w for ws in words for w in ws & keys)
    weight = {w: math.log(1 + len(sentences) / df[w]) * (ASKED_NOUN_WEIGHT if w in asked else 1.0) for w in df}
    scored = [(math.fsum(weight[w] for w in keys & ws), -i, s) for i, (ws, s) in enumerate(zip(words, sentences))]
    top = sorted(scored, reverse=True)[:n]
    if name_asked:
        # "whats the name of the tool they used": the sentence naming it, at or shortly after the
        # best one about the tool, though it need not say "tool" again
        roots = {stem(w) for w in asked}  # the sentences about the noun asked ("tool": "we build tools")
        about = [t for t in scored if roots & {stem(w) for w in words[-t[1]]}]
        naming = next(((0.0, -i, sentences[i]) for _, first, _ in sorted(about, reverse=True)
                       for i in range(-first, min(-first + 1 + NAME_WINDOW, len(sentences)))
                       if NAMING.search(sentences[i])), None)
        top = top[:n - 1] + [naming] if naming and naming[2] not in {s for _, _, s in top} else top
    return [s for _, _, s in sorted(top, key=lambda t: -t[1])]


def _name_asked(parsed: Parsed | None) -> bool:
    """Whether the question asks what something is called ("whats the name of", sv "namnet på")."""
    r = parsed.reading if parsed is not None else None
    return r is not None and r.has("cue", "name_of", "called")


def compose_commentary(question: str, passages: list[Passage], parsed: Parsed | None = None) -> Answer:
    """An extractive answer: what the best passages say, each quoted with its source."""
    lang = _lang(parsed)
    if not passages:
        text = ("Jag hittade ingen kommentar i de inlästa dokumenten som svarar på det." if lang == "sv" else
                "I found no commentary in the ingested documents that answers this.")
        return _answer(question, text, status="no_data")
    quotes = []
    by_doc: dict[str, list[Passage]] = {}
    for p in passages:  # documents in retrieval order, each with all of its retrieved chunks
        by_doc.setdefault(p.url or p.title or p.source or p.id, []).append(p)
    # "which benchmark did they submit to, and what framework ran their submissions?": a sentence for
    # each ask, so the second is not crowded out by two sentences on the first
    asks = two_asks(parsed.reading) if parsed is not None else None
    nouns, name_asked = asked_nouns(parsed), _name_asked(parsed)  # the question's, the same for every document
    for chunks in list(by_doc.values())[:3]:
        p = chunks[0]
        text = "\n".join(c.text for c in chunks)
        sents = best_sentences(question, text, 2, nouns, lang, name_asked=name_asked)
        if asks and p.doc_kind != "guide":  # (a guide entry is one definition, asked as a whole)
            # (a name asked keeps its naming sentence: "… whats their tool called" is "ANNA (…)")
            each = [s for ask in asks for s in best_sentences(ask, text, 1, nouns, lang, name_asked=name_asked)]
            sents = sorted(list(dict.fromkeys(each + sents))[:2], key=text.find)  # in the passage's order
        if not sents:
            continue
        src = p.title or p.source or p.id
        when = f", {p.published}" if p.published and p.published != "unknown" else ""
        quotes.append(f"{src}{when}: “{' '.join(sents)}”")
    lead = ("Vad källorna säger (citat, inte verifierade siffror): " if lang == "sv" else
            "What the sources say (quoted, not verified figures): ")
    text = lead + " — ".join(quotes)
    notes = ["commentary is quoted from the documents; figures in it are the authors' claims, check them "
             "against the results table" if lang != "sv" else
             "kommentarerna citeras ur dokumenten; siffror i dem är författarnas påståenden"]
    return _answer(question, text, passages=list(passages), citations=doc_citations(list(passages)), notes=notes)


def field_answer(question: str, field: str, rows: list[dict[str, Any]], lang: str = "en",
                 previous_query: dict[str, Any] | None = None) -> Answer:
    """Answer "how many nodes did it have?" from the rows of the previous answer (no new query)."""
    if not rows:
        text = ("Det finns inget tidigare svar att hänvisa till." if lang == "sv" else
                "There is no earlier answer to refer to; please ask the full question.")
        return _answer(question, text, status="no_data")
    systems = {(r.get("submitter"), r.get("system_name")): r for r in rows if r.get(field) is not None}
    if len(systems) > 1 and (previous_query or {}).get("op") == "aggregate":
        return _field_of_many(question, field, list(systems.values()), lang, previous_query)
    row = rows[0]
    value = row.get(field)
    if value is None:
        text = (f"Fältet {field} finns inte bland raderna i förra svaret." if lang == "sv" else
                f"The previous answer's rows do not include {field}; please ask the full question.")
        return _answer(question, text, status="no_data", rows=rows[:1], citations=row_citations(rows[:1]))
    shown = semantics.format_number(value, lang=lang) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else str(value)
    name = {"number_of_nodes": ("nodes", "noder"), "total_accelerators": ("accelerators in total",
                                                                           "acceleratorer totalt")}.get(field)
    label = (name[1] if lang == "sv" else name[0]) if name else field.replace("_", " ")
    text = (f"{row.get('submitter')}, \"{row.get('system_name')}\" ({row.get('round')}): {shown} {label}"
            f" [{row.get('result_id')}]." if name else
            f"{row.get('submitter')}, \"{row.get('system_name')}\" ({row.get('round')}): {label} = {shown}"
            f" [{row.get('result_id')}].")
    values = []
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(float(value)):
        values = [Value(value=float(value), unit=None, label=label, result_ids=[str(row.get("result_id"))])]
    return _answer(question, text, values=values, rows=rows[:1], citations=row_citations(rows[:1]),
                   query=previous_query)


def _field_of_many(question: str, field: str, rows: list[dict[str, Any]], lang: str,
                   previous_query: dict[str, Any] | None) -> Answer:
    """"Were they all available?" after a list of systems: the field of every system listed."""
    from assistant import templates

    label = templates.text(lang, "field", field) if field in templates.load(lang).get("field", {}) else field

    def shown(v: Any) -> str:
        return semantics.format_number(v, lang=lang) if isinstance(v, (int, float)) and not isinstance(v, bool) \
            else str(v)

    distinct = list(dict.fromkeys(shown(r.get(field)) for r in rows))
    ids = ", ".join(str(r.get("result_id")) for r in rows[:MAX_CITED_ROWS])
    if len(distinct) == 1:
        text = (f"Alla {len(rows)} system: {label} {distinct[0]} [{ids}]." if lang == "sv" else
                f"All {len(rows)} systems: {label} {distinct[0]} [{ids}].")
    else:
        text = "; ".join(f"{r.get('submitter')}, \"{r.get('system_name')}\": {label} {shown(r.get(field))} "
                         f"[{r.get('result_id')}]" for r in rows[:MAX_CITED_ROWS]) + "."
    return _answer(question, text, rows=rows, citations=row_citations(rows), query=previous_query)
