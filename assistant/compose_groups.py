"""Answers from the best row per group (per round, benchmark and scenario): the overview of a
chip, submitter or round, one attribute of a named system, and a system's rounds.

Kept apart from `assistant.compose` because these answers summarise many rows of different
benchmarks and units: nothing here ranks or charts across units, each figure is stated with
its own benchmark, scenario and unit and cites its own row.
"""

from __future__ import annotations

from typing import Any

from assistant import semantics, templates
from assistant.answer import Answer, Value
from assistant.compose import NO_CHIP, _answer, _fmt, _query, _round_key, _who, compact_rows, row_citations
from assistant.parsed import Parsed

FEW_SHOWN_WHOLE = 4  # an overview of at most this many results lists each of them
MAX_IN_TEXT = 8


def _say(lang: str, key: str, **values: Any) -> str:
    return templates.text(lang, "answer", key, **values)


def _preferred(rows: list[dict[str, Any]], parsed: Parsed) -> list[dict[str, Any]]:
    """One row per benchmark: its most usual scenario (the first in the table card's [order])."""
    rank = {s: i for i, s in enumerate(parsed.order.get("scenario", ()))}
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        bench = str(row.get("benchmark"))
        cur = best.get(bench)
        if cur is None or rank.get(str(row.get("scenario")), 99) < rank.get(str(cur.get("scenario")), 99):
            best[bench] = row
    return list(best.values())


def _entity_label(parsed: Parsed) -> str:
    # the data's own name when the mention stands for one value ("nvidia's" -> NVIDIA), else as typed
    named = [m.values[0] if len(m.values) == 1 else m.text for m in parsed.entities
             if m.column not in ("round", "scenario", "division", "availability", "system_type")]
    return ", ".join(dict.fromkeys(named)) or ""


def _subject(row: dict[str, Any]) -> str:
    """"llama2-70b-99 Offline": the benchmark and, in a table that has them, the scenario."""
    return " ".join(str(row[k]) for k in ("benchmark", "scenario") if row.get(k))


def _item(row: dict[str, Any], lang: str, parsed: Parsed, *, who: bool = True) -> str:
    value = _fmt(row.get("value", row.get("result")), row.get("value_unit") or row.get("units"), lang=lang,
                 parsed=parsed)
    lat = (" (lower is better)" if lang != "sv" else " (lägre är bättre)") if semantics.is_latency(row.get("units")) \
        else ""
    by = f" ({_who(row, lang)})" if who else ""
    status = row.get("availability")
    flag = f", {status}" if status and status != "available" else ""  # preview / rdi are said
    return f"{_subject(row)} {value}{lat}{by}{flag} [{row.get('result_id')}]"


def _latest(rows: list[dict[str, Any]]) -> str:
    return max((str(r.get("round")) for r in rows), key=_round_key)


def compose_groups(question: str, result: Any, parsed: Parsed) -> Answer:
    rows = compact_rows(result.rows, limit=len(result.rows))
    if not rows and parsed.intent == "attribute" and parsed.field:  # none of its rows has the field
        return _not_stated(question, result, parsed, ", ".join(result.spec.filters.round or []), [])
    if not rows:
        from assistant.compose import _no_rows

        return _no_rows(question, result, parsed)
    if parsed.intent == "attribute":
        return _attribute(question, result, parsed, rows)
    if parsed.intent == "appearances":
        return _appearances(question, result, parsed, rows)
    return _overview(question, result, parsed, rows)


def _shown_round(rows: list[dict[str, Any]], parsed: Parsed) -> tuple[str, str]:
    """The round an overview shows, and the later round it passes over. "how fast is the H200?" is
    answered from the latest round with results on sale: a later round that holds only preview or
    rdi results for it (one research system) is named, not shown. A round or an availability the
    question names is kept."""
    rnd = _latest(rows)
    if parsed.explicit.get("round") or parsed.explicit.get("availability"):
        return rnd, ""
    on_sale = [r for r in rows if r.get("availability") == "available"]
    return (rnd, "") if not on_sale or _latest(on_sale) == rnd else (_latest(on_sale), rnd)


def _overview(question: str, result: Any, parsed: Parsed, rows: list[dict[str, Any]]) -> Answer:
    lang = parsed.language
    rnd, later = _shown_round(rows, parsed)
    in_round = [r for r in rows if str(r.get("round")) == rnd]
    # a handful of results is shown whole (every scenario); more, one per benchmark; a benchmark the
    # question named, each of its scenarios ("how did the gb300 do on llama 405b")
    named = bool(result.spec.filters.benchmark)
    shown = in_round if len(in_round) <= FEW_SHOWN_WHOLE or named else _preferred(in_round, parsed)
    entity = _entity_label(parsed) or ("Alla inskickare" if lang == "sv" else "All submitters")
    items = "; ".join(_item(r, lang, parsed) for r in shown[:MAX_IN_TEXT])
    more = _say(lang, "overview_more", n=len(in_round) - min(len(shown), MAX_IN_TEXT)) \
        if len(in_round) > min(len(shown), MAX_IN_TEXT) else ""
    latest = _say(lang, "overview_latest") if not parsed.explicit.get("round") and _entity_label(parsed) else ""
    if later:
        kinds = sorted({str(r.get("availability")) for r in rows if str(r.get("round")) == later})
        latest = _say(lang, "overview_latest_available", later=later, kinds="/".join(kinds))
    key = "overview_scenarios" if named else "overview_all" if shown is in_round else "overview"
    text = _say(lang, key, entity=entity, round=rnd, latest=latest, items=items) + more
    if not _entity_label(parsed) and parsed.reading is not None and parsed.reading.has("cue", "won"):
        # "who won 6.0 overall": there is no such winner to name, only each benchmark's best
        text = _say(lang, "overview_no_winner") + " " + text
    one_round = len(result.spec.filters.round or []) == 1 or all(str(r.get("round")) == rnd for r in rows)
    if one_round and result.by_division and parsed.intent == "overview":  # the rows the overview stands for
        text += _say(lang, "overview_count", n=semantics.format_number(sum(result.by_division.values()), lang=lang),
                     split=", ".join(f"{semantics.format_number(n, lang=lang)} {d}" for d, n in sorted(
                         result.by_division.items(), key=lambda kv: (-kv[1], kv[0])) if d))
    values = [Value(value=float(r.get("value", r.get("result"))), unit=r.get("value_unit") or r.get("units"),
                    label=f"{_subject(r)} ({rnd})", result_ids=[str(r.get("result_id"))])
              for r in shown[:MAX_IN_TEXT]]
    units = {r.get("value_unit") or r.get("units") for r in shown}
    chart = None
    if len(shown) > 1 and len(units) == 1:  # one unit: the bars are comparable
        chart = {"type": "bar", "x": [_subject(r) for r in shown],
                 "y": [float(r.get("value", r.get("result"))) for r in shown], "unit": units.pop(),
                 "lower_is_better": False, "derived": bool(result.derived), "title": f"{entity} {rnd}"}
    answer = _answer(question, text, values=values, rows=in_round, citations=row_citations(shown[:MAX_IN_TEXT]),
                     chart=chart, query=_query(result))
    answer.notes.append("each figure is the best for its own benchmark and scenario; results of different "
                        "benchmarks are not comparable" if lang != "sv" else
                        "varje siffra är bäst inom sitt eget benchmark och scenario; resultat från olika "
                        "benchmarks är inte jämförbara")
    if shown and _entity_label(parsed):
        top = shown[0]
        answer.suggestions = [
            templates.suggestion(lang, "best_of_entity", entity=entity, subject=_subject(top), round=rnd),
            templates.suggestion(lang, "count_of_entity", entity=entity, round=rnd),
            templates.suggestion(lang, "rounds_of_entity", entity=entity)]
    return answer


def _field_value(row: dict[str, Any], field: str, lang: str = "en") -> str:
    value = row.get(field)
    if field == "power_result":
        return _fmt(value, row.get("power_units"), lang=lang) if value is not None else ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return semantics.format_number(value, lang=lang)
    return "" if value is None else str(value)


def _not_stated(question: str, result: Any, parsed: Parsed, rnd: str, rows: list[dict[str, Any]]) -> Answer:
    lang = parsed.language
    text = _say(lang, "not_stated", who=_entity_label(parsed), field=templates.text(lang, "field", parsed.field
                                                                                    or "availability"),
                where=_say(lang, "not_stated_where", round=rnd) if rnd else "")
    return _answer(question, text, status="no_data", rows=rows[:5], citations=row_citations(rows[:5]),
                   query=_query(result))


_CHIP_FIELDS = ("accelerator", "accelerator_family")


def _first_host(rows: list[dict[str, Any]]) -> str:
    """The host processor the rows name first, or ""."""
    return next((str(r["host_processor"]) for r in rows if r.get("host_processor")), "")


def _attribute(question: str, result: Any, parsed: Parsed, rows: list[dict[str, Any]]) -> Answer:
    lang = parsed.language
    field = parsed.field or "availability"
    rnd = _latest(rows)
    in_round = [r for r in rows if str(r.get("round")) == rnd and _field_value(r, field, lang)]
    if not in_round:
        return _not_stated(question, result, parsed, rnd, rows)
    per_result = field in ("power_result", "accuracy")  # differs per benchmark, not per system
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in in_round:
        key = (str(r.get("submitter")), str(r.get("system_name"))) if not per_result else \
            (str(r.get("benchmark")), str(r.get("scenario")))
        groups.setdefault(key, []).append(r)
    label = templates.text(lang, "field", field)
    parts: list[str] = []
    for key, members in list(groups.items())[:MAX_IN_TEXT]:
        vals = list(dict.fromkeys(_field_value(m, field, lang) for m in members))
        if field in _CHIP_FIELDS and set(vals) <= {"", *NO_CHIP} and _first_host(members):
            # "what hardware did he run on": a CPU-only system's hardware is its host processor
            vals = [_say(lang, "cpu_only", host=_first_host(members))]
        ids = ", ".join(list(dict.fromkeys(str(m.get("result_id")) for m in members))[:3])
        first = members[0]
        who = f"{key[0]}, \"{key[1]}\"" if not per_result else \
            f"{first.get('submitter')}, \"{first.get('system_name')}\", {key[0]} {key[1]}"
        if field == "availability" and len(vals) == 1 and vals[0] in ("available", "preview", "rdi"):
            parts.append(_say(lang, f"available_{'yes' if vals[0] == 'available' else vals[0]}", who=who, round=rnd)
                         + f" [{ids}]")
        else:
            parts.append(_say(lang, "attribute", who=who, round=rnd, field=label, value=" / ".join(vals)) + f" [{ids}]")
    text = "; ".join(parts) + "."
    if len(groups) > MAX_IN_TEXT:
        text += _say(lang, "overview_more", n=len(groups) - MAX_IN_TEXT)
    values = []
    for r in in_round[:MAX_IN_TEXT]:
        v = r.get(field)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            values.append(Value(value=float(v), unit=r.get("power_units") if field == "power_result" else None,
                                label=f"{label}: {r.get('system_name')} {_subject(r)}",
                                result_ids=[str(r.get("result_id"))]))
    return _answer(question, text, values=values, rows=in_round, citations=row_citations(in_round[:20]),
                   query=_query(result))


def _appearances(question: str, result: Any, parsed: Parsed, rows: list[dict[str, Any]]) -> Answer:
    lang = parsed.language
    rounds = sorted({str(r.get("round")) for r in rows}, key=_round_key)
    per_round = []
    for rnd in rounds:
        shown = _preferred([r for r in rows if str(r.get("round")) == rnd], parsed)
        per_round.append(f"{rnd} — " + ", ".join(_item(r, lang, parsed, who=False) for r in shown[:4])
                         + (f" (+{len(shown) - 4})" if len(shown) > 4 else ""))
    entity = _entity_label(parsed)
    text = _say(lang, "appearances", entity=entity, count=len(rounds), rounds=", ".join(rounds),
                items="; ".join(per_round))
    values = [Value(value=float(r.get("value", r.get("result"))), unit=r.get("value_unit") or r.get("units"),
                    label=f"{_subject(r)} ({r.get('round')})",
                    result_ids=[str(r.get("result_id"))]) for r in rows[:20]]
    return _answer(question, text, values=values, rows=rows, citations=row_citations(rows[:20]), query=_query(result))
