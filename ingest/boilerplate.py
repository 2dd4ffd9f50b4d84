"""Boilerplate out of loaded documents before they are chunked: what a page repeats is not content.

Two generic rules, no per-document ones:

- **Repetition.** In a document of several pages (a PDF, or text with form feeds as pdftotext
  writes it), a line that sits among the first or last few lines of many pages is a running
  header, footer, title block or page number, and is dropped wherever it appears in that
  document. Numbers are ignored when short lines are compared, so "Page 3 of 24" and
  "Page 4 of 24" are one line.
- **Patterns.** `boilerplate.toml` lists lines that are never content (press embargo notices)
  and parts of titles to cut; a small data list, not code.

Text extracted from a PDF is also **unwrapped**: the layout's line breaks inside a paragraph are
joined, so a sentence is one line again ("… more than 600 inference results submitted by" /
"HPE since v1.0." was quoted as a fragment). A list item, a line after a colon and a short line
with no closing punctuation (a heading) keep their breaks.

A title that is itself one of the dropped lines gives way to the first line of the cleaned text.
Cleaning runs after the extracted-text cache (it costs milliseconds), so changing these rules
never re-extracts a PDF; the pipeline's fingerprint covers this module and its data file.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ingest.documents import Document

PATTERNS = Path(__file__).with_name("boilerplate.toml")
EDGE_LINES = 3  # lines at the top and at the bottom of a page where headers and footers sit
MIN_PAGES = 3  # fewer pages than this cannot show that a line repeats
SHARE = 0.5  # ... on at least this share of the pages
PAGE_NUMBER_WORDS = 4  # "Page 3 of 24": lines this short compare without their numbers


@lru_cache(maxsize=1)
def _patterns() -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
    with PATTERNS.open("rb") as fh:
        data = tomllib.load(fh)
    return ([re.compile(p, re.I) for p in data.get("lines", [])],
            [re.compile(p, re.I) for p in data.get("title", [])])


def _squash(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip()


def _key(line: str) -> str:
    """What two lines must share to be the same header or footer. In a short line ("3",
    "Page 3 of 24", "- 3 -") the numbers do not count, so page numbers compare equal; a longer
    line must repeat exactly (two sentences that differ only in their figures are content)."""
    text = _squash(line).casefold()
    return re.sub(r"\d+", "#", text) if len(text.split()) <= PAGE_NUMBER_WORDS else text


def _is_pattern_line(line: str) -> bool:
    text = _squash(line)
    return bool(text) and any(p.fullmatch(text) for p in _patterns()[0])


def repeated_lines(pages: list[str]) -> set[str]:
    """Keys of the lines found at a page edge on at least SHARE of the pages (and on MIN_PAGES)."""
    filled = [page for page in pages if page.strip()]
    if len(filled) < MIN_PAGES:
        return set()
    seen: dict[str, int] = {}
    for page in filled:
        lines = [line for line in page.splitlines() if line.strip()]
        for key in {_key(line) for line in lines[:EDGE_LINES] + lines[-EDGE_LINES:]}:
            seen[key] = seen.get(key, 0) + 1
    need = max(MIN_PAGES, math.ceil(SHARE * len(filled)))
    return {key for key, count in seen.items() if count >= need}


def clean_page(page: str, repeated: set[str]) -> str:
    kept = [line for line in page.splitlines()
            if not (line.strip() and (_key(line) in repeated or _is_pattern_line(line)))]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


_LIST_ITEM = re.compile(r"^\s*(?:[-*•▪●◦]|\d{1,2}[.)])\s")
_CLOSED = re.compile(r"[.,;!?\"”’)]$")
HEADING_SHARE = 0.5  # a line shorter than this share of the page's longest line, with no closing
                     # punctuation, is a heading, not a wrapped line


def unwrap(page: str) -> str:
    """A PDF page's paragraphs with the layout's line breaks inside them joined."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", page):
        lines = [line.strip() for line in para.splitlines() if line.strip()]
        if not lines:
            continue
        width = max(len(line) for line in lines)
        joined = [lines[0]]
        for last, line in zip(lines, lines[1:]):
            heading = len(last) < HEADING_SHARE * width and not _CLOSED.search(last)
            if _LIST_ITEM.match(line):
                joined.append(line)
            elif last.endswith("-") and not last.endswith(" -"):
                joined[-1] += line  # "highly-" / "scalable": the hyphen stays, no space
            elif last.endswith(":") or heading:
                joined.append(line)
            else:
                joined[-1] += " " + line
        out.append("\n".join(joined))
    return "\n\n".join(out)


def clean_title(title: str, repeated: set[str]) -> str:
    """The title without embargo notices and the like; "" if nothing of it is content."""
    for pattern in _patterns()[1]:
        title = pattern.sub(" ", title)
    title = _squash(title).strip(" -–—|:;,")
    return "" if _key(title) in repeated or _is_pattern_line(title) else title


def clean_document(doc: Document) -> Document:
    """The document with its boilerplate lines gone and its title cleaned of the same."""
    if doc.paged:
        repeated = repeated_lines(doc.pages)
        pages = [unwrap(clean_page(page, repeated)) for page in doc.pages]
    else:  # form feeds mark the pages of text extracted from a PDF; the document stays one page
        parts = "\f".join(doc.pages).split("\f")
        repeated = repeated_lines(parts)
        cleaned = [clean_page(p, repeated) for p in parts]
        if len(parts) > 1:  # pdftotext output: unwrap its lines too
            cleaned = [unwrap(p) for p in cleaned]
        pages = ["\n\n".join(part for part in cleaned if part)]
    title = clean_title(doc.title, repeated)
    if not title:
        title = next((line.strip("# \t") for page in pages for line in page.splitlines() if line.strip("# \t")),
                     Path(doc.doc_id).stem)[:200]
    return replace(doc, title=title, pages=pages)
