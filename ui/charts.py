"""Charts for answers, chosen and drawn by our code from `Answer.chart` — never model-written code.

The answer composer (`assistant.compose`) decides *which* chart fits — bar for a ranking,
grouped bar for a comparison, line for a round-over-round trend — and hands over the values
it cited: `{"type", "x": [labels], "y": [values], "unit", "lower_is_better", "derived",
"title", "series"}`. This module only draws them with Altair. The value axis always names
the unit and, for measured performance, which direction is better: a longer bar is not always
better (latency) and non-specialists should not have to know that.

A chart may also name row columns instead of carrying lists (`"x": "system_name"`,
`"y": "result"`, drawn from `Answer.rows`). Anything unusable gives no chart, never an error.
"""

from __future__ import annotations

from typing import Any

_MAX_BARS = 25
_LABEL_CHARS = 56
_TITLES = {
    "system_name": "System", "submitter": "Submitter", "platform": "System ID", "benchmark": "Benchmark",
    "scenario": "Scenario", "round": "MLPerf round", "accelerator": "Accelerator",
    "accelerator_family": "Accelerator", "accelerator_vendor": "Chip vendor", "division": "Division",
}
_BEST = "#1f6fb4"
VALUE_FORMAT = ",.7~r"  # 1,136,100 and 1,466.008: thousands separators, no exponent
_REST = "#9cc3e6"


def _shorten(text: Any) -> str:
    text = str(text)
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def _is_performance_unit(unit: str) -> bool:
    u = unit.lower()
    return "/s" in u or "latency" in u or "watt" in u or "joule" in u


def value_axis_title(unit: str | None, lower_is_better: bool, derived: bool = False) -> str:
    """What the value axis measures, in which unit, and — for performance — which way is better."""
    text = str(unit or "Value")
    if derived:
        text += " (derived, not an official MLPerf metric)"
    if lower_is_better:
        return text + " — lower is better"
    if unit and _is_performance_unit(str(unit)):
        return text + " — higher is better"
    return text


def chart_frame(answer: Any):
    """The chart's points as a DataFrame with `label`, `value` and optional `series` columns."""
    import pandas as pd

    spec = answer.chart or {}
    x, y = spec.get("x"), spec.get("y")
    if isinstance(x, list) and isinstance(y, list):
        if not x or len(x) != len(y):
            return pd.DataFrame()
        df = pd.DataFrame({"label": [str(v) for v in x], "value": y})
        series = spec.get("series")
        if isinstance(series, list) and len(series) == len(x):
            df["series"] = [str(s) for s in series]
    else:
        rows = spec.get("data") or answer.rows
        df = pd.DataFrame(list(rows or []))
        if df.empty:
            return df
        x = x if x in df.columns else next((c for c in ("round", "system_name", "submitter") if c in df.columns), None)
        y = y if y in df.columns else ("result" if "result" in df.columns else None)
        if x is None or y is None:
            return pd.DataFrame()
        series = spec.get("series")
        out = pd.DataFrame({"label": df[x].astype(str), "value": df[y]})
        if isinstance(series, str) and series in df.columns:
            out["series"] = df[series].astype(str)
        if "round_order" in df.columns:
            out["order"] = df["round_order"]
        df = out
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    return df[df["value"].notna()].reset_index(drop=True)


def _unit(spec: dict[str, Any], answer: Any) -> str | None:
    if spec.get("unit"):
        return str(spec["unit"])
    units = {r.get("units") for r in answer.rows if r.get("units")}
    return units.pop() if len(units) == 1 else None


def _category_title(spec: dict[str, Any], kind: str) -> str:
    if isinstance(spec.get("x"), str):
        return _TITLES.get(spec["x"], spec["x"].replace("_", " ").capitalize())
    return "MLPerf round" if kind == "line" else ""


def build_chart(answer: Any):
    """An Altair chart for the answer, or None when it has no chart or nothing drawable."""
    import altair as alt

    spec = answer.chart or {}
    kind = spec.get("type")
    if kind not in {"bar", "grouped_bar", "line"}:
        return None
    df = chart_frame(answer)
    if df.empty:
        return None
    lower = bool(spec.get("lower_is_better"))
    y_title = value_axis_title(_unit(spec, answer), lower, bool(spec.get("derived")))
    x_title = _category_title(spec, kind)
    title = str(spec.get("title") or "")
    tooltip = [alt.Tooltip("label:N", title=x_title or "Name"), alt.Tooltip("value:Q", title=y_title, format=VALUE_FORMAT)]

    if kind == "line":
        order = list(df.sort_values("order")["label"].drop_duplicates()) if "order" in df.columns else \
            list(dict.fromkeys(df["label"]))
        enc: dict[str, Any] = dict(
            x=alt.X("label:O", title=x_title, sort=order, axis=alt.Axis(labelAngle=0)),
            y=alt.Y("value:Q", title=y_title, scale=alt.Scale(zero=False), axis=alt.Axis(format="~s")),
            tooltip=tooltip,
        )
        if "series" in df.columns:
            enc["color"] = alt.Color("series:N", title="", legend=alt.Legend(orient="bottom"))
        line = alt.Chart(df).mark_line(strokeWidth=3, color=_BEST).encode(**enc)
        points = alt.Chart(df).mark_circle(size=90, color=_BEST).encode(**enc)
        labels = alt.Chart(df).mark_text(dy=-14, color="#333").encode(
            x=enc["x"], y=enc["y"], text=alt.Text("value:Q", format=VALUE_FORMAT))
        return (line + points + labels).properties(title=title, height=320)

    # Bars run sideways so long system names stay readable; best first (at the top).
    df["label"] = df["label"].map(_shorten)
    if "series" not in df.columns:
        df = df.sort_values("value", ascending=lower, kind="stable").drop_duplicates("label").head(_MAX_BARS)
    order = list(dict.fromkeys(df["label"]))
    best = order[0]
    # Room right of the longest bar for its value label.
    domain = [0, float(df["value"].max()) * 1.2 or 1.0]
    enc = dict(
        y=alt.Y("label:N", title=x_title, sort=order, axis=alt.Axis(labelLimit=360, labelFontSize=12)),
        x=alt.X("value:Q", title=y_title, axis=alt.Axis(format="~s"), scale=alt.Scale(domain=domain, nice=False)),
        tooltip=tooltip,
    )
    if "series" in df.columns:
        enc["color"] = alt.Color("series:N", title="", legend=alt.Legend(orient="bottom"))
        enc["yOffset"] = alt.YOffset("series:N")
    elif kind == "grouped_bar":
        enc["color"] = alt.Color("label:N", legend=None, scale=alt.Scale(scheme="tableau10"))
    else:
        enc["color"] = alt.condition(alt.datum.label == best, alt.value(_BEST), alt.value(_REST))
    bars = alt.Chart(df).mark_bar(cornerRadiusEnd=3).encode(**enc)
    text_enc = {k: v for k, v in enc.items() if k in {"y", "x", "yOffset"}}
    labels = alt.Chart(df).mark_text(align="left", dx=4, color="#333").encode(
        text=alt.Text("value:Q", format=VALUE_FORMAT), **text_enc)
    per_label = df["series"].nunique() if "series" in df.columns else 1
    height = max(90, 30 * per_label * len(order) + 20)
    return (bars + labels).properties(title=title, height=height)


def chart_height(chart) -> int:
    """The element height for Streamlit: the plot height plus room for title, axis and legend."""
    return int(getattr(chart, "height", 300) or 300) + 110
