"""Property tests over the real table: random valid specs built from the real vocabulary never
raise (except the documented refusal to compare different units) and never return rows that
violate their filters. Checks are written independently of the executor's masks (plain Python
over row dicts)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from assistant.executor import SpecError, execute, validate
from assistant.spec import Filters, QuerySpec, Range

pytestmark = pytest.mark.filterwarnings("ignore")

LIST_COLUMNS = ["round", "division", "availability", "system_type", "submitter", "accelerator_vendor",
                "accelerator_family", "benchmark", "scenario", "units", "framework", "precision"]
GROUPABLE = ["round", "division", "submitter", "accelerator_family", "benchmark", "scenario", "units"]
PROPS = settings(max_examples=60, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="session")
def vocab(results_table):
    return {c: sorted(results_table[c].dropna().astype(str).unique().tolist()) for c in LIST_COLUMNS}


@pytest.fixture(scope="session")
def records(results_table):
    return results_table.to_dict("records")


def filters_strategy(vocab, records=None, max_fields=3):
    """Half the time anchored on one real row (so the filters match something), half free."""
    @st.composite
    def build(draw):
        fields = draw(st.lists(st.sampled_from(LIST_COLUMNS), max_size=max_fields, unique=True))
        anchor = records[draw(st.integers(0, len(records) - 1))] if records and draw(st.booleans()) else None
        data = {}
        for f in fields:
            if anchor is not None and anchor.get(f) is not None and not pd.isna(anchor.get(f)):
                data[f] = [str(anchor[f])]
            else:
                data[f] = draw(st.lists(st.sampled_from(vocab[f]), min_size=1, max_size=2, unique=True))
        if draw(st.integers(0, 2)) == 0:
            lo = draw(st.sampled_from([None, 1, 2, 8]))
            hi = draw(st.sampled_from([None, 1, 4, 72]))
            if lo is None or hi is None or lo <= hi:
                data["number_of_nodes"] = Range(min=lo, max=hi)
        if draw(st.integers(0, 4)) == 0:
            data["has_power"] = draw(st.booleans())
        return Filters(**data)
    return build()


def spec_strategy(vocab, records=None):
    @st.composite
    def build(draw):
        op = draw(st.sampled_from(["rows", "aggregate", "difference", "compare", "trend"]))
        kw = dict(op=op, filters=draw(filters_strategy(vocab, records)),
                  metric=draw(st.sampled_from(["result"] * 3 + ["result_per_accelerator", "power", "efficiency"])),
                  order=draw(st.sampled_from(["best", "worst", "asc", "desc"])),
                  limit=draw(st.integers(1, 40)), dedupe=draw(st.booleans()))
        if op == "aggregate":
            kw["aggregate"] = draw(st.sampled_from(["count", "nunique", "max", "min", "mean", "median", "sum"]))
            kw["group_by"] = draw(st.lists(st.sampled_from(GROUPABLE), max_size=1)) or None
            if kw["aggregate"] == "nunique":
                kw["column"] = draw(st.sampled_from(GROUPABLE))
        elif op == "difference":
            kw["column"] = draw(st.sampled_from(["benchmark", "submitter", "accelerator_family"]))
            kw["other"] = draw(filters_strategy(vocab, records, max_fields=1))
        elif op == "compare":
            kw["sides"] = draw(st.lists(filters_strategy(vocab, records, max_fields=1), min_size=2, max_size=3))
        return QuerySpec(**kw)
    return build()


def satisfies(rec: dict, filters: Filters) -> bool:
    """Plain-Python filter check, independent of the executor's masks."""
    for name in LIST_COLUMNS + ["system_name", "platform", "accelerator", "power_units"]:
        wanted = getattr(filters, name, None)
        if wanted:
            value = rec.get(name)
            if value is None or (not isinstance(value, str) and pd.isna(value)) or str(value) not in wanted:
                return False
    for name in ("number_of_nodes", "total_accelerators", "accelerators_per_node"):
        rng = getattr(filters, name)
        if rng is None:
            continue
        value = rec.get(name)
        if value is None or pd.isna(value):
            return False
        if rng.min is not None and float(value) < rng.min:
            return False
        if rng.max is not None and float(value) > rng.max:
            return False
    if filters.has_power is not None and bool(rec.get("has_power") or False) != filters.has_power:
        return False
    return True


def check_rows(rows: pd.DataFrame, filters: Filters) -> None:
    for rec in rows.to_dict("records"):
        assert satisfies(rec, filters), f"row {rec.get('result_id')} violates {filters.model_dump(exclude_none=True)}"


def test_random_valid_specs_run_and_respect_their_filters(results_table, vocab, records):
    @PROPS
    @given(spec=spec_strategy(vocab, records))
    def prop(spec):
        try:
            res = execute(spec, results_table, timeout_ms=0)
        except SpecError as err:
            assert spec.op == "compare" and "cannot compare different units" in str(err), str(err)
            return
        assert len(res.result_ids) == len(res.urls)
        assert "value" in res.rows.columns
        if spec.op == "compare":
            for side in res.sides:
                check_rows(side.rows, side.spec.filters)
                assert len(side.rows) <= 1
            return
        check_rows(res.rows, res.spec.filters)
        if spec.op == "rows":
            assert len(res.rows) <= spec.limit
            assert res.rows["value_unit"].nunique() <= 1
            values = res.rows["value"].tolist()
            ascending = spec.order == "asc" or (spec.order == "best" and res.lower_is_better) or \
                (spec.order == "worst" and not res.lower_is_better)
            assert values == sorted(values, reverse=not ascending)
            if spec.dedupe:
                assert not res.rows.duplicated(["round", "submitter", "platform", "benchmark", "scenario"]).any()
            if spec.metric == "result_per_accelerator":
                for rec in res.rows.to_dict("records"):
                    assert math.isclose(rec["value"], rec["result"] / rec["total_accelerators"], rel_tol=1e-12)
        elif spec.op == "trend":
            assert not res.rows["round"].duplicated().any()
            assert [b["round"] for b in res.by_round] == res.rows["round"].tolist()
        elif spec.op == "difference":
            other = {str(r[spec.column]) for r in records
                     if satisfies(r, res.spec.other) and r.get(spec.column) is not None
                     and not pd.isna(r.get(spec.column))}
            assert res.items == sorted(res.items) and not set(res.items) & other
        elif spec.op == "aggregate" and spec.aggregate == "count" and not spec.group_by:
            assert res.value == sum(1 for r in records if satisfies(r, res.spec.filters))

    prop()


def test_any_casing_of_a_real_value_validates_back_to_it(results_table, vocab):
    @PROPS
    @given(data=st.data())
    def prop(data):
        column = data.draw(st.sampled_from(LIST_COLUMNS))
        value = data.draw(st.sampled_from(vocab[column]))
        flips = data.draw(st.lists(st.booleans(), min_size=len(value), max_size=len(value)))
        typed = "".join(ch.upper() if f else ch.lower() for ch, f in zip(value, flips))
        spec = validate(QuerySpec(filters=Filters(**{column: [typed]})), results_table)
        assert value in getattr(spec.filters, column)
        for got in getattr(spec.filters, column):
            assert got.casefold() == value.casefold() or got == value

    prop()


def reference_ranking(table: pd.DataFrame, spec: QuerySpec, lower_is_better: bool) -> list[str]:
    """The ranking the pandas text describes, written here with pandas alone (filters in plain
    Python): metric, one unit (the most common), a stable sort, best row per system, head."""
    keep = [satisfies(rec, spec.filters) for rec in table.to_dict("records")]
    df = table[keep]
    result = pd.to_numeric(df["result"], errors="coerce").astype("float64")
    latency = df["units"].astype(str).str.startswith("Latency")
    if spec.metric == "result":
        df = df.assign(value=result, value_unit=df["units"])
    elif spec.metric == "result_per_accelerator":
        accs = pd.to_numeric(df["total_accelerators"], errors="coerce").astype("float64")
        ok = (~latency & (accs > 0)).fillna(False).astype(bool)
        df = df[ok].assign(value=(result / accs)[ok], value_unit=df["units"][ok] + " per accelerator")
    elif spec.metric == "power":
        power = pd.to_numeric(df["power_result"], errors="coerce").astype("float64")
        df = df[power.notna()].assign(value=power[power.notna()], value_unit=df["power_units"][power.notna()])
    elif spec.metric in ("total_accelerators", "number_of_nodes"):
        size = pd.to_numeric(df[spec.metric], errors="coerce").astype("float64")
        df = df.assign(value=size, value_unit="accelerators" if spec.metric == "total_accelerators" else "nodes")
    else:
        power = pd.to_numeric(df["power_result"], errors="coerce").astype("float64")
        ok = ((df["power_units"] == "Watts").fillna(False) & ~latency & (power > 0)).fillna(False).astype(bool)
        df = df[ok].assign(value=(result / power)[ok], value_unit=df["units"][ok] + " per Watt")
    df = df[df["value"].notna()]
    counts = df["value_unit"].value_counts()
    if len(counts) > 1:
        top = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
        df = df[df["value_unit"] == top]
    ascending = spec.order == "asc" or (spec.order == "best" and lower_is_better) or \
        (spec.order == "worst" and not lower_is_better)
    df = df.sort_values("value", ascending=ascending, kind="mergesort")
    # a system's size is one figure per system; a result is one per division, benchmark and scenario
    if spec.dedupe:
        per_system = spec.metric in ("total_accelerators", "number_of_nodes")
        df = df.drop_duplicates(["round", "submitter", "platform"]
                                + ([] if per_system else ["division", "benchmark", "scenario"]))
    return df.head(spec.limit)["result_id"].astype(str).tolist()


def test_ranking_picks_the_same_rows_as_plain_pandas(results_table, vocab, records):
    """The executor ranks on cached numpy columns for speed; the rows it returns must be exactly
    the rows the recorded pandas steps give (completeness, order and ties, not only validity)."""
    @PROPS
    @given(filters=filters_strategy(vocab, records),
           metric=st.sampled_from(["result", "result", "result_per_accelerator", "power", "efficiency",
                                   "total_accelerators", "number_of_nodes"]),
           order=st.sampled_from(["best", "worst", "asc", "desc"]), limit=st.integers(1, 40),
           dedupe=st.booleans())
    # Rows that share a system-result key (NeuralMagic's open v4.1 BERT runs): dedupe must matter.
    @example(filters=Filters(round=["v4.1"], submitter=["NeuralMagic"], benchmark=["bert-99"]),
             metric="result", order="best", limit=10, dedupe=True)
    @example(filters=Filters(round=["v4.1"], submitter=["NeuralMagic"]), metric="result_per_accelerator",
             order="worst", limit=40, dedupe=True)
    def prop(filters, metric, order, limit, dedupe):
        spec = QuerySpec(op="rows", filters=filters, metric=metric, order=order, limit=limit, dedupe=dedupe)
        res = execute(spec, results_table, timeout_ms=0, default_division=None)
        got = res.rows["result_id"].astype(str).tolist()
        assert got == reference_ranking(results_table, res.spec, res.lower_is_better)

    prop()
