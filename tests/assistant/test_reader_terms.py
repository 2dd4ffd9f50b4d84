"""Questions about MLPerf's own terms on the full table: the values a term names (preview, rdi)
and the columns a question quotes (result_id) exist only there, not in the small fixtures."""

from __future__ import annotations

import pytest

from assistant.catalog import Catalog
from assistant.parse import parse


@pytest.fixture(scope="module")
def catalog(results_table) -> Catalog:
    return Catalog.from_table(results_table)


@pytest.mark.parametrize("question", [
    "if a system is marked preview can i actually go buy it right now?",  # the attribute "preview" is a value of
    "kan man köpa ett system som är preview?",
    "rdi?? nvidia has it on some rows",  # a bare term, then a remark
    "what's the id thing like 6.0-0087 in the result_id column, does it mean anything?",  # a column the table has
])
def test_a_term_asked_about_goes_to_the_guide(catalog, question):
    p = parse(question, catalog)
    assert p.intent == "define" and p.spec is None, (p.intent, p.message)


@pytest.mark.parametrize("question", ["is the CoreWeave GB300 NVL72 commercially available?",  # a named system's field
                                      "kan man köpa coreweave gb300 nvl72?",
                                      "what is the banana_score of nvidia in v6.1?"])  # still no such column
def test_a_named_system_or_an_unknown_column_is_no_term(catalog, question):
    assert parse(question, catalog).intent != "define"
