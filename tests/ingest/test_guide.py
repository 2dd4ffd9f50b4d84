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


def test_the_nvl72_entry_counts_match_the_data(results_table, guide_sections):
    """The row counts the NVL72 entry states are the table's own."""
    t = results_table
    racks = t[t["system_name"].str.contains("NVL72", na=False)].groupby("round").size()
    said = guide_sections["NVL72 rack systems"][1]
    assert f"{racks['v6.0']} v6.0 rows and {racks['v6.1']} v6.1 rows" in said, said


def test_the_inference_software_entry_counts_match_the_data(results_table, guide_sections):
    """The row counts the inference-software entry states are the table's own."""
    said = guide_sections["Inference software: TensorRT, vLLM and SGLang"][1]
    for name in ("TensorRT", "vLLM", "SGLang"):
        rows = int(results_table["framework"].str.contains(name, case=False, na=False).sum())
        assert f"{rows:,} rows name {name}" in said or f"{rows:,} {name}" in said, (name, rows, said)


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


# --- The Swedish guide (data/guide/sv/) lines up with the English one section by section ---

GUIDE_SV = GUIDE / "sv"
# Numbers, rounds and benchmark keys; a trailing "," or "." (end of a clause or sentence) is dropped so
# that where a number falls in the sentence, which differs between the languages, does not count.
FACTS = re.compile(r"v\d+\.\d+|\d[\d,.]*|[a-z0-9.-]+-\d+(?:\.\d+)?")
FIRST_APPEARS_SV = re.compile(r"första gången i datamaterialet i (v\d+(?:\.\d+)*)")


def _facts(text: str) -> set[str]:
    return {token.rstrip(".,") for token in FACTS.findall(text)}


@pytest.mark.parametrize("path", _guide_files(), ids=lambda p: p.name)
def test_every_english_section_has_a_swedish_section_with_the_same_facts(path):
    swedish = GUIDE_SV / f"{path.stem}.sv.md"  # its own file name: a document id is its file name
    assert swedish.is_file(), f"no Swedish guide file {swedish.relative_to(PROJECT)} for {path.name}"
    english_sections = _split(path)[1]
    swedish_sections = _split(swedish)[1]
    missing = [h for h in english_sections if h not in swedish_sections]
    extra = [h for h in swedish_sections if h not in english_sections]
    assert not missing and not extra, f"sv/{path.name}: headings missing {missing}, not in English {extra}"
    wrong = []
    for heading, english in english_sections.items():
        sv = swedish_sections[heading]
        if not sv or "\n\n" in sv or sv.startswith("#"):
            wrong.append(f"'## {heading}': not one non-empty paragraph")
        en_facts, sv_facts = _facts(english), _facts(sv)
        if en_facts != sv_facts:
            wrong.append(f"'## {heading}': only in English {sorted(en_facts - sv_facts)}, "
                         f"only in Swedish {sorted(sv_facts - en_facts)}")
        if FIRST_APPEARS_SV.findall(sv) != FIRST_APPEARS.findall(english):
            wrong.append(f"'## {heading}': first-appearance rounds {FIRST_APPEARS_SV.findall(sv)} in Swedish, "
                         f"{FIRST_APPEARS.findall(english)} in English")
    assert not wrong, f"sv/{path.name}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", sorted(GUIDE_SV.glob("*.md")), ids=lambda p: p.name)
def test_swedish_front_matter(path):
    original = GUIDE / path.name.replace(".sv.md", ".md")
    assert original.is_file(), f"sv/{path.name} has no English original"
    front, _ = _split(path)
    for event in yaml.parse(front):
        assert not isinstance(event, yaml.AliasEvent), f"sv/{path.name}: YAML alias in the front matter"
        assert getattr(event, "anchor", None) is None, f"sv/{path.name}: YAML anchor in the front matter"
    meta = yaml.safe_load(front)
    english = yaml.safe_load(_split(original)[0])
    assert isinstance(meta, dict), f"sv/{path.name}: front matter is not a mapping"
    assert meta.get("language") == "sv", f"sv/{path.name}: language must be 'sv'"
    assert meta.get("kind") == "guide", f"sv/{path.name}: kind must be 'guide'"
    assert isinstance(meta.get("title"), str) and meta["title"].strip(), f"sv/{path.name}: no title"
    assert meta["title"] != english["title"], f"sv/{path.name}: the title is not translated"
    assert meta.get("urls") == english["urls"], f"sv/{path.name}: urls differ from the English file's"


# What a non-specialist asks of an entry, in the words they would look for, in both languages:
# whether an RDI system can be bought, what unit a latency is in and what its percentile means,
# which way a unit is better, and that Server and Interactive are about latency (the word in the
# data's own units) and Server about throughput.
PLAIN_WORDS = [
    ("divisions-and-availability", "RDI", "not for sale", "går inte att köpa"),
    ("scenarios", "Server", "latency limit", "latensgräns"),
    ("scenarios", "Server", "throughput", "genomströmning"),
    ("scenarios", "Interactive", "latency limits", "latensgränser"),
    ("scenarios", "Latency", "milliseconds", "millisekunder"),
    ("scenarios", "Latency", "99 of every 100", "99 av 100"),
    ("scenarios", "Percentile latency", "99 out of every 100", "99 av 100"),
    ("scenarios", "Percentile latency", "slowest 1%", "långsammaste 1 %"),
    ("comparing-results", "No overall score or winner", "no single overall score", "inget samlat totalbetyg"),
    ("scenarios", "Units of results", "higher is better", "högre bättre"),
]


@pytest.mark.parametrize("stem, heading, english, swedish", PLAIN_WORDS)
def test_entries_say_in_plain_words_what_a_newcomer_asks(stem, heading, english, swedish):
    """Within the sentences a definition quotes (the first three), so the answer carries them."""
    for path, phrase in ((GUIDE / f"{stem}.md", english), (GUIDE_SV / f"{stem}.sv.md", swedish)):
        text = _split(path)[1][heading]
        quoted = " ".join(re.split(r"(?<=[.!?])\s+", text)[:3])
        assert phrase in quoted, f"{path.name} '## {heading}': {phrase!r} not in its first three sentences"
