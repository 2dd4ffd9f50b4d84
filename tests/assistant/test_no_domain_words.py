"""No code in assistant/ names an MLPerf Inference benchmark, scenario or unit (issue 13).

Such words live in the dataset cards (data/cards/), the alias file and the lexicon and template
files, so another results table plugs in through its card without a code change. This scans
every string literal of every module (docstrings and comments are documentation and may give
examples) for the names the table itself holds: benchmark keys and labels as published, the
alias phrases of benchmarks, scenarios and units (these two exactly as written, since "offline"
is also the name of a backend and "Interactive" an English word).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ASSISTANT = ROOT / "assistant"


def _strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and ast.get_docstring(node) is not None}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _word(words: set[str], flags: int = 0) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True) if w.strip())
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", flags)


@pytest.fixture(scope="module")
def domain_words(results_table) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(benchmark names, any case; scenario and unit names, as written) of the Inference table."""
    benchmarks = {str(v) for column in ("benchmark", "benchmark_raw") for v in results_table[column].dropna().unique()}
    aliases = tomllib.loads((ROOT / "data" / "aliases.toml").read_text(encoding="utf-8"))["alias"]
    benchmarks |= {phrase for alias in aliases if alias["column"] == "benchmark" for phrase in alias["phrases"]}
    exact = {str(v) for column in ("scenario", "units", "power_units") for v in results_table[column].dropna().unique()}
    return _word(benchmarks, re.IGNORECASE), _word(exact)


def test_the_scan_finds_what_it_looks_for(domain_words):
    """The scan is not vacuous: the names it looks for are found in text that has them."""
    names, exact = domain_words
    assert names.search('BUILT_IN = "Top 3 Llama 2 70B Server results"')
    assert names.search("llama2-70b-99.9") and exact.search("'Server'") and exact.search("power_units == 'Watts'")
    assert exact.search("12 Latency (ms)") and not exact.search("the offline backend")


def test_no_module_in_assistant_names_a_benchmark_scenario_or_unit(domain_words):
    names, exact = domain_words
    found = []
    for path in sorted(ASSISTANT.rglob("*.py")):
        for line, text in _strings(path):
            for pattern in (names, exact):
                if hit := pattern.search(text):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {hit.group(0)!r}")
    assert not found, "MLPerf words in code (move them to a card, the lexicon or a template file):\n" + \
        "\n".join(found)
