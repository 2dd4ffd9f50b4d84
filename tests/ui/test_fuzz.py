"""Fuzzing the API from its own OpenAPI schema (schemathesis) and with raw bodies (hypothesis).

The property is the same for both: whatever arrives, the server answers with a status below
500. The example budget is fixed and the generation derandomized, so a run costs the same
every time and a failure reproduces. Runs against the real answerer over the real store, so a
5xx anywhere in parse → execute → compose shows up here.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings, strategies as st

from ingest import settings as settings_mod
from ui.api import create_app

BUDGET = settings(max_examples=15, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def fuzz_app(store_settings):
    unlimited = settings_mod.Settings({**store_settings, "rate_limit_per_min": 0})
    return create_app(unlimited, warm=False)


@pytest.fixture(scope="module")
def api_schema(fuzz_app):
    return schemathesis.openapi.from_asgi("/openapi.json", fuzz_app)


# Every operation of our OpenAPI (read from an app that touches no store until asked).
# Operations are driven one by one with hypothesis: schemathesis' lazy pytest fixture
# integration does not work with pytest 9.
OPERATIONS = [(method.upper(), path) for path, item in create_app(settings_mod.load(), warm=False).openapi()["paths"].items()
              for method in item]


# Negative cases (violating the schema) for operations that take a body; GET operations
# without parameters have nothing to violate.
CASES = [(m, p, schemathesis.GenerationMode.POSITIVE) for m, p in OPERATIONS] + \
        [(m, p, schemathesis.GenerationMode.NEGATIVE) for m, p in OPERATIONS if m == "POST"]


@pytest.mark.parametrize("method, path, mode", CASES, ids=lambda v: getattr(v, "value", v))
def test_no_server_errors_from_schema_cases(api_schema, method, path, mode):
    operation = api_schema[path][method]

    @BUDGET
    @given(case=operation.as_strategy(generation_mode=mode))
    def check(case):
        response = case.call()
        assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])

    check()


# Raw JSON bodies: right keys with wrong shapes, huge/unicode/control strings, nesting.
_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
                     max_leaves=12)
_bodies = st.one_of(
    st.fixed_dictionaries({"question": _json}, optional={"conversation_id": _json, "history": _json, "scope": _json}),
    st.fixed_dictionaries({"messages": _json}, optional={"stream": _json, "model": _json}),
    st.fixed_dictionaries({"messages": st.lists(st.fixed_dictionaries({"role": st.sampled_from(
        ["user", "system", "assistant", "bogus"]), "content": _json}), min_size=1, max_size=3)}),
    _json,
)


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream", "/v1/chat/completions"])
def test_no_server_errors_from_raw_bodies(fuzz_app, path):
    client = TestClient(fuzz_app, raise_server_exceptions=False)

    @BUDGET
    @given(body=_bodies)
    def check(body):
        r = client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code < 500, (body, r.text[:300])
        # a stream that failed half-way still has status 200: its error event says "internal error"
        assert "Traceback" not in r.text and "internal error" not in r.text, (body, r.text[:300])

    check()
