"""The reader's data and its docs stay in step: every shape documented and reachable by its own
example, every lexicon tag used, Swedish a diff over English only, templates in every language.

Like datasette's test_docs: a shape, a tag or a template added without its documentation (or
left behind when code stops using it) fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from assistant import lexicon, units, templates
from assistant.catalog import Catalog
from assistant.parse import parse
from assistant.shapes.registry import ordered

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "reader.md").read_text(encoding="utf-8")
# Tag values that name a table column are used through the value itself (a grouping noun's
# column, an attribute's field, a unit's column), not as a literal in code.
COLUMN_KINDS = ("grouping", "attribute", "unit")


@pytest.fixture(scope="module")
def catalog(results_table) -> Catalog:
    return Catalog.from_table(results_table)


def _code_literals() -> set[str]:
    out: set[str] = set()
    for path in (ROOT / "assistant").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


def test_every_shape_is_documented_with_its_example():
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \d+ \| `(\w+)` \| .*? \| (.*) \|$", DOC, re.M)}
    for shape in ordered():
        assert shape.name in rows, f"shape {shape.name!r} is missing from docs/reader.md"
        assert rows[shape.name] == shape.example, f"docs/reader.md shows another example for {shape.name}"
        assert shape.doc, f"shape {shape.name!r} has no docstring"
    assert set(rows) == {s.name for s in ordered()}, "docs/reader.md lists a shape that is not registered"


def test_each_shape_reads_its_own_example(catalog):
    """The example of a shape is read as that shape (the fallback's only when nothing earlier applies)."""
    for shape in ordered():
        parsed = parse(shape.example, catalog)
        assert parsed.shape == shape.name or parsed.intent == shape.name, (shape.name, parsed.shape, parsed.intent)


def test_every_lexicon_tag_is_used_and_documented():
    literals = _code_literals()
    columns = _columns()
    english = lexicon.load("en")
    for kind in lexicon.KINDS:
        assert f"`{kind}`" in DOC, f"tag kind {kind} is not documented"
        for value in english.table.get(kind, {}):
            assert f"`{value}`" in DOC, f"{kind}.{value} is not in docs/reader.md"
            if kind in COLUMN_KINDS:
                bounds = units.vocabulary()["bounds"]  # a bound on the result in a unit ("under 2 ms")
                assert value in columns or value in literals or value in bounds, f"{kind}.{value} names no column"
            else:
                assert value in literals, f"lexicon tag {kind}.{value} is used by no code"


def _columns() -> set[str]:
    from ingest.schema import COLUMN_NAMES

    return set(COLUMN_NAMES)


def test_swedish_only_changes_tags_english_has():
    english = lexicon.load("en")
    import tomllib

    dialect = tomllib.loads((ROOT / "assistant" / "lexicon" / "sv.toml").read_text(encoding="utf-8"))
    for section in ("add", "remove"):
        for kind, values in dialect.get(section, {}).items():
            if kind in ("numbers", "scales"):
                continue
            assert kind in english.table, f"sv.toml [{section}.{kind}]: no such kind in English"
            for value in values:
                assert value in english.table[kind], f"sv.toml [{section}.{kind}] {value}: English has no such tag"


def test_templates_have_every_key_in_every_language():
    base = templates.load("en")
    for lang in templates.languages():
        table = templates.load(lang)
        for section, keys in base.items():
            missing = set(keys) - set(table.get(section, {}))
            assert not missing, f"{lang}.toml [{section}] lacks {sorted(missing)}"
            fields = {k: set(re.findall(r"{(\w+)}", v)) for k, v in keys.items()}
            for key, text in table.get(section, {}).items():
                assert set(re.findall(r"{(\w+)}", text)) == fields.get(key, set()), (lang, section, key)
