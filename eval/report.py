"""Summaries and the report of an eval run: a terminal table, Markdown, and one HTML page.

The HTML is self-contained (inline CSS and SVG, no scripts, no CDN) so it can be mailed or
attached to an issue and still render. With a baseline answers file the same tables and
charts get a second column, computed by the same functions from the same record shape.
"""

from __future__ import annotations

import html
import statistics
from pathlib import Path
from typing import Any

FACETS = ("kind", "needs", "lang", "tag")


def _facet_values(record: dict[str, Any], facet: str) -> list[str]:
    meta = record.get("eval") or {}
    if facet == "tag":
        return list(meta.get("tags") or []) or ["(none)"]
    return [str(meta.get(facet) or "?")]


def _passed(record: dict[str, Any]) -> bool:
    return bool((record.get("score") or {}).get("pass"))


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0, "max": 0.0}
    ordered = sorted(values)
    return {"n": len(ordered), "mean": statistics.fmean(ordered), "p50": statistics.median(ordered),
            "p90": ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))], "max": ordered[-1]}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy overall and per facet, plus latency and token distributions."""
    total = len(records)
    passed = sum(_passed(r) for r in records)
    facets: dict[str, dict[str, list[int]]] = {f: {} for f in FACETS}
    for record in records:
        for facet in FACETS:
            for value in _facet_values(record, facet):
                cell = facets[facet].setdefault(value, [0, 0])
                cell[0] += 1
                cell[1] += int(_passed(record))
    latencies = [float(r.get("latency_ms") or 0.0) for r in records]
    tokens = [float((r.get("prompt_tokens") or 0) + (r.get("completion_tokens") or 0)) for r in records]
    statuses: dict[str, int] = {}
    for record in records:
        statuses[record.get("status", "?")] = statuses.get(record.get("status", "?"), 0) + 1
    readings = _readings(records)
    judged = [r for r in records if "retrieved_gold" in (r.get("eval") or {})]
    recall = {"n": len(judged), "hits": sum(bool(r["eval"]["retrieved_gold"]) for r in judged)}
    recall["recall_at_5"] = recall["hits"] / recall["n"] if recall["n"] else None
    return {
        "retrieval": recall, "readings": readings,
        "total": total, "passed": passed, "accuracy": passed / total if total else 0.0,
        "facets": {f: {k: {"n": v[0], "passed": v[1], "accuracy": v[1] / v[0]} for k, v in sorted(cells.items())}
                   for f, cells in facets.items()},
        "latency_ms": _stats(latencies), "tokens": _stats(tokens), "latencies": latencies, "token_counts": tokens,
        "llm_calls": sum(int(r.get("llm_calls") or 0) for r in records), "statuses": statuses,
    }


def _readings(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Which reading each model answer rests on ("Reading used: the model's …" in its notes), and how
    many of each passed: the model must add understanding, so its readings are counted apart."""
    from assistant.agent import READING_NOTE

    cells: dict[str, dict[str, int]] = {}
    for record in records:
        used = next((m.group(1) for note in record.get("notes") or [] if (m := READING_NOTE.match(str(note)))),
                    None)
        if used:
            cell = cells.setdefault(used, {"n": 0, "passed": 0})
            cell["n"] += 1
            cell["passed"] += int(_passed(record))
    return cells


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summary_table(summary: dict[str, Any], label: str = "") -> str:
    """A plain-text table for the terminal."""
    lines = [f"{label + ': ' if label else ''}{summary['passed']}/{summary['total']} passed "
             f"({_pct(summary['accuracy'])}); latency p50 {summary['latency_ms']['p50']:.0f} ms, "
             f"p90 {summary['latency_ms']['p90']:.0f} ms; tokens mean {summary['tokens']['mean']:.0f}"]
    recall = summary.get("retrieval") or {}
    if recall.get("n"):
        lines.append(f"  retrieval recall@5 of the gold document: {recall['hits']}/{recall['n']} "
                     f"({_pct(recall['recall_at_5'])})")
    if summary.get("readings"):
        lines.append("  reading used: " + ", ".join(f"{who}'s {c['n']} ({c['passed']} passed)"
                                                    for who, c in sorted(summary["readings"].items())))
    for facet in ("kind", "needs", "lang"):
        lines.append(f"  by {facet}:")
        for key, cell in summary["facets"][facet].items():
            lines.append(f"    {key:14} {cell['passed']:4}/{cell['n']:<4} {_pct(cell['accuracy']):>7}")
    return "\n".join(lines)


def _misses(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if not _passed(r)]


def to_markdown(records: list[dict[str, Any]], baseline: list[dict[str, Any]] | None = None,
                title: str = "resultsqa eval") -> str:
    ours = summarize(records)
    base = summarize(baseline) if baseline else None
    head = "| | resultsqa |" + (" baseline |" if base else "")
    rule = "|---|---|" + ("---|" if base else "")

    def cell(s: dict[str, Any] | None, facet: str | None, key: str | None) -> str:
        if s is None:
            return ""
        c = s if facet is None else s["facets"][facet].get(key)
        if not c:
            return " – |"
        n = c.get("n", c.get("total"))
        return f" {c['passed']}/{n} ({_pct(c['accuracy'])}) |"

    out = [f"# {title}", "", head, rule,
           "| **overall** |" + cell(ours, None, None) + (cell(base, None, None) if base else "")]
    for label, key in (("latency p50 / p90 (ms)", "latency_ms"), ("tokens mean / max", "tokens")):
        row = f"| {label} | {ours[key]['p50' if key == 'latency_ms' else 'mean']:.0f} / " \
              f"{ours[key]['p90' if key == 'latency_ms' else 'max']:.0f} |"
        if base:
            row += f" {base[key]['p50' if key == 'latency_ms' else 'mean']:.0f} / " \
                   f"{base[key]['p90' if key == 'latency_ms' else 'max']:.0f} |"
        out.append(row)
    for facet in FACETS:
        out += ["", f"## Accuracy by {facet}", "", head, rule]
        keys = sorted(set(ours["facets"][facet]) | (set(base["facets"][facet]) if base else set()))
        for key in keys:
            out.append(f"| {key} |" + cell(ours, facet, key) + (cell(base, facet, key) if base else ""))
    base_by_id = {r["id"]: r for r in baseline or []}
    out += ["", f"## Misses ({len(_misses(records))})", "",
            "| id | question | why | answer given |" + (" baseline |" if base else ""),
            "|---|---|---|---|" + ("---|" if base else "")]
    for r in _misses(records):
        row = f"| {r['id']} | {_md(r.get('question', ''))} | {_md(r['score'].get('why', ''))} | " \
              f"{_md(r.get('answer', ''), 240)} |"
        if base:
            b = base_by_id.get(r["id"])
            row += f" {('PASS' if _passed(b) else 'miss') if b else '–'} |"
        out.append(row)
    return "\n".join(out) + "\n"


def _md(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- HTML with inline SVG ----------------------------------------------------------------

_COLORS = ("#2b6cb0", "#dd6b20")


def svg_bars(title: str, series: list[tuple[str, dict[str, float]]], percent: bool = True) -> str:
    """Horizontal (grouped) bars: one group per key, one bar per series."""
    keys = sorted({k for _, values in series for k in values})
    bar_h, gap, label_w, width = 12, 8, 170, 560
    group_h = bar_h * len(series) + gap
    height = 30 + group_h * max(1, len(keys)) + 20
    scale_max = 1.0 if percent else max([v for _, vals in series for v in vals.values()] + [1e-9])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(title)}">', f'<text x="0" y="16" font-weight="bold">{html.escape(title)}</text>']
    for i, key in enumerate(keys):
        y0 = 30 + i * group_h
        parts.append(f'<text x="{label_w - 6}" y="{y0 + bar_h}" text-anchor="end" font-size="11">'
                     f'{html.escape(key)}</text>')
        for j, (name, values) in enumerate(series):
            v = values.get(key)
            if v is None:
                continue
            w = (width - label_w - 60) * (v / scale_max)
            y = y0 + j * bar_h
            parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{_COLORS[j % 2]}">'
                         f'<title>{html.escape(name)}: {v:.3g}</title></rect>')
            parts.append(f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}" font-size="10">'
                         f'{_pct(v) if percent else f"{v:.0f}"}</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_histogram(title: str, series: list[tuple[str, list[float]]], unit: str, bins: int = 12) -> str:
    values = [v for _, vals in series for v in vals]
    width, height, pad = 560, 180, 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(title)}">', f'<text x="0" y="16" font-weight="bold">{html.escape(title)}</text>']
    if not values or max(values) <= 0:
        parts.append('<text x="0" y="50" font-size="12">no data</text></svg>')
        return "".join(parts)
    top = max(values)
    step = top / bins
    counts = [[0] * bins for _ in series]
    for j, (_, vals) in enumerate(series):
        for v in vals:
            counts[j][min(bins - 1, int(v / step) if step else 0)] += 1
    peak = max(max(c) for c in counts) or 1
    slot = (width - 2 * pad) / bins
    bar_w = slot / len(series) - 1
    for j in range(len(series)):
        for b in range(bins):
            h = (height - 2 * pad - 10) * counts[j][b] / peak
            x = pad + b * slot + j * (bar_w + 1)
            parts.append(f'<rect x="{x:.1f}" y="{height - pad - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                         f'fill="{_COLORS[j % 2]}"><title>{series[j][0]}: {counts[j][b]} in '
                         f'[{b * step:.0f}, {(b + 1) * step:.0f}) {unit}</title></rect>')
    parts.append(f'<text x="{pad}" y="{height - 8}" font-size="10">0</text>')
    parts.append(f'<text x="{width - pad}" y="{height - 8}" font-size="10" text-anchor="end">{top:.0f} {unit}</text>')
    parts.append("</svg>")
    return "".join(parts)


def to_html(records: list[dict[str, Any]], baseline: list[dict[str, Any]] | None = None,
            title: str = "resultsqa eval") -> str:
    ours = summarize(records)
    base = summarize(baseline) if baseline else None
    names = ["resultsqa"] + (["baseline"] if base else [])
    charts = []
    for facet in FACETS:
        series = [(names[0], {k: c["accuracy"] for k, c in ours["facets"][facet].items()})]
        if base:
            series.append((names[1], {k: c["accuracy"] for k, c in base["facets"][facet].items()}))
        charts.append(svg_bars(f"Accuracy by {facet}", series))
    lat = [(names[0], ours["latencies"])] + ([(names[1], base["latencies"])] if base else [])
    tok = [(names[0], ours["token_counts"])] + ([(names[1], base["token_counts"])] if base else [])
    charts.append(svg_histogram("Latency per question", lat, "ms"))
    charts.append(svg_histogram("Tokens per question (prompt + completion)", tok, "tokens"))
    legend = " ".join(f'<span style="color:{_COLORS[i]}">■ {n}</span>' for i, n in enumerate(names))
    overall = f"<p><b>resultsqa</b>: {ours['passed']}/{ours['total']} ({_pct(ours['accuracy'])})"
    if base:
        overall += f" &nbsp; <b>baseline</b>: {base['passed']}/{base['total']} ({_pct(base['accuracy'])})"
    overall += "</p>"
    base_by_id = {r["id"]: r for r in baseline or []}
    rows = []
    for r in _misses(records):
        b = base_by_id.get(r["id"])
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in (
            r["id"], r.get("question", ""), r["score"].get("why", ""), r.get("answer", ""))) +
            (f"<td>{'PASS' if b and _passed(b) else ('miss' if b else '–')}</td>" if base else "") + "</tr>")
    table = ("<table><tr><th>id</th><th>question</th><th>why</th><th>answer given</th>" +
             ("<th>baseline</th>" if base else "") + "</tr>" + "".join(rows) + "</table>")
    md_tables = html.escape(to_markdown(records, baseline, title).split("## Misses")[0])
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
            "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}"
            "svg{display:block;margin:1em 0}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{overall}<p>{legend}</p>{''.join(charts)}"
            f"<h2>Misses ({len(rows)})</h2>{table}<h2>Tables</h2><pre>{md_tables}</pre></body></html>")


def write_report(records: list[dict[str, Any]], out_dir: str | Path,
                 baseline: list[dict[str, Any]] | None = None, title: str = "resultsqa eval") -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "report.md"
    page = out_dir / "report.html"
    md.write_text(to_markdown(records, baseline, title), encoding="utf-8")
    page.write_text(to_html(records, baseline, title), encoding="utf-8")
    return [md, page]
