"""The plain-language guide in data/guide/ agrees with the result tables it explains.

Checked against the tidy CSVs in the shared data mirror (not a copy), so a new round that adds a
benchmark fails here until the guide has a section for it:

- every benchmark in the tables has a `## <benchmark>` section;
- every guide file opens with YAML front matter (title, kind: guide, https urls, language) that uses
  no anchors or aliases;
- every "first appears in this data in vX" statement names the earliest round that benchmark has rows in,
  sits in that benchmark's own section, and each benchmark section makes exactly one such statement;
- every section is one non-empty paragraph, so a retrieval system can quote it whole.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[2]
GUIDE = PROJECT / "data" / "guide"
FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n(.*)\Z", re.S)
FIRST_APPEARS = re.compile(r"first appears in this data in (v\d+(?:\.\d+)*)")


def _round_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.lstrip("v").split("."))


def _guide_files() -> list[Path]:
    return sorted(GUIDE.glob("*.md"))


def _split(path: Path) -> tuple[str, dict[str, str]]:
    """(front matter text, {section heading: section text}) of one guide file."""
    match = FRONT_MATTER.match(path.read_text(encoding="utf-8"))
    assert match, f"{path.name}: no YAML front matter between '---' lines at the top"
    front, body = match.groups()
    parts = re.split(r"^## ", body, flags=re.M)
    assert not parts[0].strip(), f"{path.name}: text before the first '## ' section"
    sections: dict[str, str] = {}
    for part in parts[1:]:
        heading, _, text = part.partition("\n")
        heading = heading.strip()
        assert heading not in sections, f"{path.name}: section '## {heading}' appears twice"
        sections[heading] = text.strip()
    return front, sections


@pytest.fixture(scope="module")
def first_round(shared_data) -> dict[str, str]:
    """benchmark -> the earliest round it has rows in, from the per-round tidy CSVs."""
    tables = sorted((shared_data / "mlperf").glob("mlperf_inference_v*_results.csv"))
    assert tables, "no tidy per-round CSVs in the data mirror"
    rounds: dict[str, set[str]] = defaultdict(set)
    for table in tables:
        with table.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                rounds[row["benchmark"]].add(row["round"])
    return {bench: min(seen, key=_round_key) for bench, seen in rounds.items()}


@pytest.fixture(scope="module")
def guide_sections() -> dict[str, tuple[str, str]]:
    """heading -> (file name, text) over all guide files; headings are unique across the guide."""
    files = _guide_files()
    assert files, f"no guide files in {GUIDE}"
    found: dict[str, tuple[str, str]] = {}
    for path in files:
        for heading, text in _split(path)[1].items():
            assert heading not in found, f"'## {heading}' is in both {found[heading][0]} and {path.name}"
            found[heading] = (path.name, text)
    return found


def test_every_benchmark_in_the_data_has_a_section(first_round, guide_sections):
    missing = sorted(set(first_round) - set(guide_sections))
    assert not missing, f"benchmarks in the tables without a '## <benchmark>' guide section: {missing}"


@pytest.mark.parametrize("path", _guide_files(), ids=lambda p: p.name)
def test_front_matter(path):
    front, _ = _split(path)
    for event in yaml.parse(front):
        assert not isinstance(event, yaml.AliasEvent), f"{path.name}: YAML alias in the front matter"
        assert getattr(event, "anchor", None) is None, f"{path.name}: YAML anchor in the front matter"
    meta = yaml.safe_load(front)
    assert isinstance(meta, dict), f"{path.name}: front matter is not a mapping"
    assert isinstance(meta.get("title"), str) and meta["title"].strip(), f"{path.name}: no title"
    assert meta.get("kind") == "guide", f"{path.name}: kind must be 'guide'"
    assert meta.get("language") == "en", f"{path.name}: language must be 'en'"
    urls = meta.get("urls")
    assert isinstance(urls, list) and urls, f"{path.name}: urls must be a non-empty list"
    bad = [url for url in urls if not (isinstance(url, str) and re.fullmatch(r"https://\S+", url))]
    assert not bad, f"{path.name}: urls that are not https addresses: {bad}"
    assert len(set(urls)) == len(urls), f"{path.name}: a url is listed twice"


def test_first_appearance_statements_match_the_data(first_round, guide_sections):
    wrong = []
    for heading, (name, text) in guide_sections.items():
        stated = FIRST_APPEARS.findall(text)
        if heading in first_round:
            if len(stated) != 1:
                wrong.append(f"{name} '## {heading}': {len(stated)} 'first appears in this data in' statements, want 1")
            elif stated[0] != first_round[heading]:
                wrong.append(f"{name} '## {heading}': says {stated[0]}, the data says {first_round[heading]}")
        elif stated:
            wrong.append(f"{name} '## {heading}': 'first appears in this data in' outside a benchmark section")
    assert not wrong, "\n".join(wrong)


def test_sections_are_single_paragraphs(guide_sections):
    bad = [f"{name} '## {heading}'" for heading, (name, text) in guide_sections.items()
           if not text or "\n\n" in text or text.lstrip().startswith("#")]
    assert not bad, f"sections that are empty or not one paragraph: {bad}"
