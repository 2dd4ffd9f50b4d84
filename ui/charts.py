"""Charts for answers, chosen and drawn by our code from `Answer.chart` — never model-written code.

The answer composer decides *which* chart fits (bar for a ranking, grouped bar for a
comparison, line for a round-over-round trend) and names the columns; this module only turns
that small dict plus the answer's rows into an Altair chart. Axes always carry the unit, and
latency charts say "lower is better", because a bar that is longer is not always better and
non-specialists should not have to know that.

The chart dict is read tolerantly (`x`, `y`, `series`/`color`, `unit`, `lower_is_better`,
`title`, optional `data`): a missing or unusable chart spec gives no chart rather than an error.
"""

from __future__ import annotations

from typing import Any

# Columns that make a readable label for one result row, best first.
_LABEL_COLUMNS = ("label", "system_name", "platform", "submitter", "benchmark")
# Friendly axis names for the table's columns.
_TITLES = {
    "system_name": "System",
    "submitter": "Submitter",
    "platform": "System ID",
    "benchmark": "Benchmark",
    "scenario": "Scenario",
    "round": "MLPerf round",
    "accelerator": "Accelerator",
    "accelerator_family": "Accelerator",
    "accelerator_vendor": "Chip vendor",
    "division": "Division",
    "result": "Result",
    "result_per_accelerator": "Result per accelerator (derived)",
    "power": "Power",
    "efficiency": "Result per watt (derived)",
    "value": "Value",
    "count": "Count",
}
_MAX_BARS = 25
_LABEL_CHARS = 48


def _title(column: str) -> str:
    return _TITLES.get(column, column.replace("_", " ").capitalize())


def _first_present(columns: list[str], candidates: tuple[str, ...] | list[str]) -> str | None:
    return next((c for c in candidates if c in columns), None)


def value_axis_title(column: str, unit: str | None, lower_is_better: bool) -> str:
    """The value axis says what, in which unit, and which way is better."""
    text = _title(column)
    if unit:
        text = f"{text} ({unit})" if column not in {"result", "value"} else unit
    return text + (" — lower is better" if lower_is_better else " — higher is better")


def chart_frame(answer: Any):
    """The rows the chart draws, as a DataFrame (the chart's own `data` if it carries one)."""
    import pandas as pd

    spec = answer.chart or {}
    data = spec.get("data") or answer.rows
    return pd.DataFrame(list(data)) if data else pd.DataFrame()


def _lower_is_better(spec: dict[str, Any], df) -> bool:
    if spec.get("lower_is_better") is not None:
        return bool(spec["lower_is_better"])
    if "lower_is_better" in df.columns and len(df):
        return bool(df["lower_is_better"].fillna(False).astype(bool).any())
    unit = str(spec.get("unit") or "")
    return unit.lower().startswith("latency")


def _unit(spec: dict[str, Any], df) -> str | None:
    if spec.get("unit"):
        return str(spec["unit"])
    if "units" in df.columns:
        units = df["units"].dropna().unique()
        if len(units) == 1:
            return str(units[0])
    return None


def _shorten(text: Any) -> str:
    text = str(text)
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def build_chart(answer: Any):
    """An Altair chart for the answer, or None when the answer has no chart or no drawable data."""
    import altair as alt
    import pandas as pd

    spec = answer.chart or {}
    kind = spec.get("type")
    if kind not in {"bar", "grouped_bar", "line"}:
        return None
    df = chart_frame(answer)
    if df.empty:
        return None
    columns = list(df.columns)
    y = spec.get("y") if spec.get("y") in columns else _first_present(columns, ("result", "value", "count"))
    if y is None:
        return None
    df = df[pd.to_numeric(df[y], errors="coerce").notna()].copy()
    if df.empty:
        return None
    df[y] = pd.to_numeric(df[y])
    unit = _unit(spec, df)
    lower = _lower_is_better(spec, df)
    y_title = value_axis_title(y, unit, lower)
    series = spec.get("series") or spec.get("color")
    series = series if series in columns else None
    title = spec.get("title") or None
    tooltip = [c for c in ("system_name", "submitter", "round", "benchmark", "scenario", y, "units",
                           "total_accelerators", "number_of_nodes", "result_id") if c in columns]

    if kind == "line":
        x = spec.get("x") if spec.get("x") in columns else _first_present(columns, ("round",) + _LABEL_COLUMNS)
        if x is None:
            return None
        order = None
        if x == "round" and "round_order" in columns:
            order = list(df.sort_values("round_order")["round"].drop_duplicates())
        enc = dict(
            x=alt.X(f"{x}:O", title=_title(x), sort=order or "ascending", axis=alt.Axis(labelAngle=0)),
            y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=False, reverse=False)),
            tooltip=tooltip,
        )
        if series:
            enc["color"] = alt.Color(f"{series}:N", title=_title(series))
        chart = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=80), strokeWidth=3).encode(**enc)
        return chart.properties(title=title or "", height=320)

    # Bars: categories on the vertical axis so long system names stay readable.
    x = spec.get("x") if spec.get("x") in columns else _first_present(columns, _LABEL_COLUMNS)
    if x is None:
        return None
    df["_label"] = df[x].map(_shorten)
    if kind == "bar":
        # One bar per label: keep the best row of each, in rank order (best at the top).
        df = df.sort_values(y, ascending=lower).drop_duplicates("_label").head(_MAX_BARS)
        order = list(df["_label"])
        bars = alt.Chart(df).mark_bar(cornerRadiusEnd=3).encode(
            y=alt.Y("_label:N", title=_title(x), sort=order, axis=alt.Axis(labelLimit=320)),
            x=alt.X(f"{y}:Q", title=y_title, axis=alt.Axis(format="~s")),
            color=alt.condition(alt.datum._label == order[0], alt.value("#1f77b4"), alt.value("#9ecae1")),
            tooltip=tooltip,
        )
        labels = bars.mark_text(align="left", dx=4, color="#333").encode(
            text=alt.Text(f"{y}:Q", format=",.6~g"), color=alt.value("#333"))
        return (bars + labels).properties(title=title or "", height=max(80, 34 * len(df)))

    # grouped_bar: one group per category, one bar per series inside it.
    if series is None:
        series = _first_present([c for c in columns if c != x], ("round", "scenario", "submitter", "system_name"))
    df = df.head(_MAX_BARS * 4)
    enc = dict(
        y=alt.Y("_label:N", title=_title(x), axis=alt.Axis(labelLimit=320)),
        x=alt.X(f"{y}:Q", title=y_title, axis=alt.Axis(format="~s")),
        tooltip=tooltip,
    )
    rows_per_group = 1
    if series:
        enc["color"] = alt.Color(f"{series}:N", title=_title(series), legend=alt.Legend(orient="bottom"))
        enc["yOffset"] = alt.YOffset(f"{series}:N")
        rows_per_group = max(1, df[series].nunique())
    chart = alt.Chart(df).mark_bar(cornerRadiusEnd=3).encode(**enc)
    height = max(100, 26 * rows_per_group * df["_label"].nunique())
    return chart.properties(title=title or "", height=height)
