"""The entity catalog: from the words people use to the exact values of the results table.

Questions say "Llama 2 70B", "Blackwell Ultra", "MI355X" or "senaste rundan"; the table holds
`llama2-70b-99.9`, `GB300`, `MI355X` and `v6.1`. A QuerySpec must carry table values, so
every mention is resolved here once, for the offline parser and the agent alike.

Matching works on a *compact* form of the text (lower case, separators removed), so
"llama2-70b", "Llama 2 70B" and "llama 2 70b" are one key. Windows of up to six words are
looked up longest first; fuzzy matching (rapidfuzz) is a fallback for longer words only and
requires the same digits, because "B200" vs "B300" or "MI350X" vs "MI355X" are different
chips that differ by one character.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ingest.settings import PROJECT_ROOT

if TYPE_CHECKING:  # a Dataset is built from a card; the catalog only reads its fields
    from assistant.datasets import Dataset

ALIASES_FILE = PROJECT_ROOT / "data" / "aliases.toml"
LATEST = "@latest"
MAX_WINDOW = 6
FUZZY_MIN_LEN = 6
FUZZY_CUTOFF = 88.0

# Columns whose values become aliases by themselves (the table is the vocabulary).
_SELF_ALIASED = ("benchmark", "accelerator_family", "accelerator_vendor", "submitter", "scenario")
# Ambiguous spans are ranked by this (lower = preferred); parse.py uses context to override.
COLUMN_PRIORITY = {
    "round": 0, "benchmark": 1, "accelerator_family": 2, "accelerator": 3, "accelerator_vendor": 4,
    "submitter": 5, "system_name": 6, "platform": 7, "scenario": 8, "division": 9, "availability": 10,
    "system_type": 11,
}
# Parts of document file names that say what kind of document it is, not who wrote it.
_DOC_WORDS = {"news", "analysis", "blog", "vendor", "press", "release", "sv", "es", "en", "guide", "inference",
              "results", "mlperf"}
# Columns whose names take a possessive ("NVIDIA's", typed "nvidias").
_OWNERS = ("submitter", "accelerator_vendor")
# Words never worth a fuzzy match (they look like entity names to an edit distance).
_STOP = set("""
the a an of in on for and or vs versus with by to from at is was were which what who how many much best top
worst lowest highest fastest result results system systems round rounds benchmark benchmarks per did does do
had has have it its their there this that these those than then compare compared between over across new
both are all any each also just like
vilket vilken vilka hur många bäst bästa i på för och eller med av till från var är hade har det den de som
nya runda rundan resultat system systemet jämför mellan per
båda alla också bara typ
""".split())
_TOKEN = re.compile(r"[0-9a-zåäöéüæø]+(?:\.[0-9]+)*")
# "-node", "-gpu": a count joined by a hyphen to the noun it counts, not the end of a model number.
_COUNT_MODIFIER = re.compile(r"-[a-zåäö]", re.I)
# Tokens shaped like a chip model number (H300, MI400X, B400, TPU7): if the table has no such
# chip, a question about it must get "no data", not the best result of some other chip.
_RESULT_ID_TAIL = re.compile(r"-(?:csvrow-)?\d{3,}")
_PLURAL_MODEL = re.compile(r"^[a-z]*\d+[a-z]*s$")
# A round label; a bare "5.5" counts only after a word that names a round or the suite ("mlperf
# inference 5.5"), since "Llama 3.1" is a model version.
_ROUND = re.compile(r"(?<![\w.])(?:v|version\s+|round\s+|runda\s+|omgång\s+|inference\s+|mlperf\s+)?"
                    r"(\d{1,2})\.(\d{1,2})(?![\w]|\.\d)", re.I)


# Values that stand for "not stated" ("none" is the accelerator of a CPU-only system): never a name.
_PLACEHOLDERS = frozenset({"none", "n/a", "nan", "unknown"})


def compact(text: str) -> str:
    """The matching key of a phrase: lower case, only letters, digits and inner dots."""
    return "".join(m.group(0) for m in _TOKEN.finditer(text.lower()))


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


@dataclass(frozen=True)
class Match:
    """One entity mention found in a question."""

    column: str
    values: tuple[str, ...]
    span: tuple[int, int]  # character offsets in the question
    score: float  # 100 = exact alias, lower = fuzzy
    alias: str  # the catalog phrase that matched
    text: str = ""  # the words of the question that matched

    @property
    def fuzzy(self) -> bool:
        return self.score < 100


@dataclass(frozen=True)
class _Entry:
    column: str
    values: tuple[str, ...]
    alias: str


_AI_SUFFIX = "ai"
MIN_BARE_PUBLISHER = 5  # letters a publisher's name keeps without its "AI" ("megaone")


@dataclass
class Catalog:
    """Vocabulary of every filterable column plus the alias index built over it."""

    vocab: dict[str, list[str]]
    rounds: list[str]  # oldest first
    benchmarks_by_round: dict[str, set[str]] = field(default_factory=dict)
    # (round, benchmark, scenario) -> set of units, to pick defaults that exist
    combos: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)
    columns: frozenset[str] = frozenset()  # the table's columns: shapes group only by what exists
    # A dataset card's reader words per language ([lexicon.<language>.<kind>]); none for the default table.
    words: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A dimension's values, most preferred first (the card's [order]): the scenario assumed when none is named.
    order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The card's display names: a column's ("time to train") and values' ("Llama 2 70B LoRA").
    display: dict[str, str] = field(default_factory=dict)
    display_values: dict[str, dict[str, str]] = field(default_factory=dict)
    decimals: dict[str, int] = field(default_factory=dict)  # unit -> places answers show (the card's)
    _lexicons: dict[str, Any] = field(default_factory=dict, repr=False)
    # Known names with no rows in this table ("Gaudi 3"): asked about -> no_data, not a guess.
    absent: dict[str, str] = field(default_factory=dict)
    absent_columns: dict[str, str] = field(default_factory=dict)  # absent phrase key -> its alias's column
    _index: dict[str, list[_Entry]] = field(default_factory=dict, repr=False)
    _fuzzy_keys: list[str] = field(default_factory=list, repr=False)
    _chip_keys: list[str] | None = field(default=None, repr=False)
    _system_keys: list[tuple[str, str]] | None = field(default=None, repr=False)
    _short_keys: dict[str, str] | None = field(default=None, repr=False)
    _suffixless: dict[str, list[_Entry]] | None = field(default=None, repr=False)
    _family_words: list[tuple[str, list[str]]] | None = field(default=None, repr=False)
    # A chip family's other names, compact ("blackwell"): indexed once, read by _without_epithets.
    _epithets: dict[str, set[str]] = field(default_factory=dict, repr=False)
    # A chip's model number: the letters chip names start with (data/aliases.toml [chip_names]).
    _chip_shaped: re.Pattern[str] | None = field(default=None, repr=False)
    # Who wrote the indexed documents ("ieee spectrum", "storagereview", "supplemental discussion"),
    # read from their file names: naming one asks what that document says.
    publishers: dict[str, str] = field(default_factory=dict)
    publisher_docs: dict[str, list[str]] = field(default_factory=dict)  # publisher -> its document ids
    # The rounds the documents are about ("v5.0"), from their file names: a bare "5.0" then names one.
    document_rounds: set[str] = field(default_factory=set)

    def describe_with(self, dataset: "Dataset") -> None:
        """Take a card's order and display names (`assistant.datasets.Dataset`)."""
        self.order = dict(dataset.order)
        self.display = dict(dataset.display)
        self.display_values = {c: dict(v) for c, v in dataset.display_values.items()}
        self.decimals = dict(dataset.decimals)

    def preference(self, column: str, value: str) -> int:
        """Rank of `value` in the card's order of `column` (unlisted values last)."""
        order = self.order.get(column, ())
        return order.index(value) if value in order else len(order)

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def from_table(cls, df: Any, aliases_file: Path | str | None = ALIASES_FILE) -> "Catalog":
        """Build the catalog from the normalised results table (and the curated alias file). The
        default table's (`aliases_file` left as is) also takes its card's [order]."""
        from ingest.schema import FILTERABLE

        vocab: dict[str, list[str]] = {}
        for col in FILTERABLE:
            if col in df.columns and str(df[col].dtype) in {"object", "string", "str", "category"}:
                vocab[col] = sorted({str(v) for v in df[col].dropna().unique() if str(v).strip()})
        rounds = _sorted_rounds(df)
        by_round: dict[str, set[str]] = {}
        combos: dict[tuple[str, str, str], set[str]] = {}
        if {"round", "benchmark"} <= set(df.columns):
            for rnd, bench in df[["round", "benchmark"]].dropna().drop_duplicates().itertuples(index=False):
                by_round.setdefault(str(rnd), set()).add(str(bench))
        # A table without scenarios (a dataset card may have none) has no scenario to default to.
        if {"round", "benchmark", "scenario", "units"} <= set(df.columns):
            keys = df[["round", "benchmark", "scenario", "units"]].dropna().drop_duplicates()
            for rnd, bench, scen, unit in keys.itertuples(index=False):
                combos.setdefault((str(rnd), str(bench), str(scen)), set()).add(str(unit))
        catalog = cls(vocab=vocab, rounds=rounds, benchmarks_by_round=by_round, combos=combos,
                      columns=frozenset(str(c) for c in df.columns))
        catalog._build_index(df, aliases_file)
        if aliases_file == ALIASES_FILE:
            from assistant.datasets import default_dataset

            own = default_dataset()
            if own is not None:
                catalog.describe_with(own)
        return catalog

    def _add(self, phrase: str, column: str, values: Iterable[str], *, replace: bool = False) -> None:
        """Index `phrase`; `replace` lets a curated alias override what the data suggested."""
        key = compact(phrase)
        vals = tuple(dict.fromkeys(v for v in values if v))
        if not key or not vals:
            return
        entries = self._index.setdefault(key, [])
        for e in entries:
            if e.column == column:
                if replace:
                    entries[entries.index(e)] = _Entry(column, vals, phrase)
                elif set(vals) - set(e.values):
                    entries[entries.index(e)] = _Entry(column, tuple(dict.fromkeys(e.values + vals)), e.alias)
                return
        entries.append(_Entry(column, vals, phrase))

    def _build_index(self, df: Any, aliases_file: Path | str | None) -> None:
        for col in _SELF_ALIASED:
            for value in self.vocab.get(col, []):
                if value.lower() in _PLACEHOLDERS:
                    continue
                self._add(value, col, [value])
                if "_" in value:  # Dell_MangoBoost -> "dell mangoboost"
                    self._add(value.replace("_", " "), col, [value])
        # Heterogeneous systems ("NVIDIA+AMD") count for each of their chip vendors.
        vendors = self.vocab.get("accelerator_vendor", [])
        for value in vendors:
            if "+" not in value:
                self._add(value, "accelerator_vendor", [value] + [v for v in vendors if value in v.split("+")])
        # Benchmark accuracy variants: "llama2-70b" -> every llama2-70b-99 / -99.9 key.
        for bench in self.vocab.get("benchmark", []):
            base = re.sub(r"-99(?:\.9)?$", "", bench)
            if base != bench:
                self._add(base, "benchmark", [b for b in self.vocab["benchmark"] if b.startswith(base + "-99")])
        # Benchmark labels as published ("text_to_video", "agentic edge", "VLM").
        if {"benchmark_raw", "benchmark"} <= set(df.columns):
            pairs = df[["benchmark_raw", "benchmark"]].dropna().drop_duplicates()
            for raw, bench in pairs.itertuples(index=False):
                if str(raw) != str(bench):
                    self._add(str(raw), "benchmark", [str(bench)])
        # A chip and its form factor ("H200 NVL", "H100 PCIe"): the accelerators of that family
        # whose name has that word right after the family's.
        self._add_form_factors(df)
        # Architecture names the ingest layer already knows ("Hopper" -> H100/H200/GH200).
        from ingest.normalize import common_names

        for family in self.vocab.get("accelerator_family", []):
            for name in common_names(family):
                self._epithets.setdefault(family, set()).add(compact(name))
                self._add(name, "accelerator_family", [family])
        # Rounds: "v6.1", "6.1".
        for rnd in self.rounds:
            self._add(rnd, "round", [rnd])
        # System names are long; exact (compact) mentions only.
        for name in self.vocab.get("system_name", []):
            if len(compact(name)) >= 8:
                self._add(name, "system_name", [name])
        if aliases_file and Path(aliases_file).is_file():
            self._load_curated(Path(aliases_file))
        self._fuzzy_keys = [k for k in self._index if len(k) >= FUZZY_MIN_LEN]

    def _add_form_factors(self, df: Any) -> None:
        if not {"accelerator", "accelerator_family"} <= set(df.columns):
            return
        pairs = df[["accelerator", "accelerator_family"]].dropna().drop_duplicates()
        forms: dict[str, set[str]] = {}
        for accelerator, family in pairs.itertuples(index=False):
            words = [w for w in re.split(r"[\s\-]+", str(accelerator)) if w]
            fam = compact(str(family))
            for i, word in enumerate(words[:-1]):
                nxt = words[i + 1]
                if compact(word) == fam and nxt.isalpha() and len(nxt) <= 5:
                    forms.setdefault(f"{family} {nxt}", set()).add(str(accelerator))
        for phrase, accelerators in forms.items():
            if compact(phrase) not in self._index:
                self._add(phrase, "accelerator", sorted(accelerators))

    def _load_curated(self, path: Path) -> None:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        self.add_aliases(data.get("alias", []))
        self.use_chip_prefixes(data.get("chip_names", {}).get("prefixes", []))

    def use_chip_prefixes(self, prefixes: Iterable[str]) -> None:
        """The letters this table's chip names start with (`[chip_names]` of data/aliases.toml or
        a card): a word such as "h300" is then read as a chip, found or known to be absent."""
        keys = sorted({compact(p) for p in prefixes} - {""}, key=len, reverse=True)
        self._chip_shaped = re.compile(rf"^(?:{'|'.join(map(re.escape, keys))})\d{{1,4}}[a-z]{{0,2}}$") \
            if keys else None
        self._add_model_numbers()

    def _add_model_numbers(self) -> None:
        """A chip family named in several words is also found by its model number alone ("b60" for
        "Arc Pro B60", "a5000" for "RTX A5000"), when that word is chip-shaped and ends no other family."""
        families = self.vocab.get("accelerator_family", [])
        last = [compact(f.split()[-1]) for f in families]
        for family, word in zip(families, last):
            if " " in family and self.chip_shaped(word) and last.count(word) == 1 and word not in self._index:
                self._add(word, "accelerator_family", [family])
        self._fuzzy_keys = [k for k in self._index if len(k) >= FUZZY_MIN_LEN]

    def chip_shaped(self, key: str) -> bool:
        """Whether a compact word looks like a chip's model number ("mi355", "h300"): a letter
        prefix chip names use, then digits. A table without [chip_names] has none."""
        return self._chip_shaped is not None and bool(self._chip_shaped.match(key))

    def add_aliases(self, items: Iterable[dict[str, Any]]) -> None:
        """Curated aliases (`[[alias]]` of data/aliases.toml or a dataset card): phrase -> values.
        A phrase whose values are not in this table is remembered as absent ("no results for X")."""
        for item in items:
            column = item["column"]
            values = self._real_values(column, item.get("values", []), item.get("prefixes", []))
            for phrase in item.get("phrases", []):
                if values:
                    self._add(phrase, column, values, replace=True)
                elif item.get("absent_ok", True) and column != "round":
                    self.absent[compact(phrase)] = phrase
                    self.absent_columns[compact(phrase)] = column
        self._fuzzy_keys = [k for k in self._index if len(k) >= FUZZY_MIN_LEN]

    def _real_values(self, column: str, values: list[str], prefixes: list[str]) -> list[str]:
        if column == "round":
            return [self.latest_round if v == LATEST else v for v in values if v == LATEST or v in self.rounds]
        known = self.vocab.get(column, [])
        lower = {v.lower(): v for v in known}
        out = [lower[v.lower()] for v in values if v.lower() in lower]
        out += [v for v in known for p in prefixes if v.lower().startswith(p.lower())]
        return list(dict.fromkeys(out))

    # --- rounds ----------------------------------------------------------------------------
    @property
    def latest_round(self) -> str | None:
        return self.rounds[-1] if self.rounds else None

    def previous_round(self, rnd: str) -> str | None:
        """The round before `rnd` among the ingested ones (v6.1 -> v6.0)."""
        if rnd not in self.rounds:
            return None
        i = self.rounds.index(rnd)
        return self.rounds[i - 1] if i > 0 else None

    def round_mentions(self, text: str) -> tuple[list[str], list[str]]:
        """Rounds named in the text as (known, unknown): "v3.0" is unknown and must give no_data."""
        known: list[str] = []
        unknown: list[str] = []
        for m in _ROUND.finditer(text):
            if _RESULT_ID_TAIL.match(text, m.end()):  # "6.0-0001" is a result id, not round 6.0
                continue
            label = f"v{int(m.group(1))}.{int(m.group(2))}"
            prefix = m.group(0)[: m.start(1) - m.start(0)].lower()
            # Bare "3.1" without a v or "round" could be a model version (Llama 3.1): skip unless a
            # round of the results or of the documents ("nvidia's gb200 nvl72 in 5.0")
            if not prefix and label not in self.rounds and label not in self.document_rounds:
                continue
            if label in self.rounds:
                known.append(label)
            else:
                unknown.append(label)
        return list(dict.fromkeys(known)), list(dict.fromkeys(unknown))

    # --- resolution ------------------------------------------------------------------------
    def resolve(self, text: str, *, fuzzy: bool = True) -> list[Match]:
        """Entity mentions in `text`, longest first, non-overlapping; ambiguous spans give one
        Match per column (e.g. "NVIDIA" as vendor and as submitter), best column first."""
        tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.lower())]
        taken = [False] * len(tokens)
        # words a slash parts are two words: "w/ an" (with an) is no "wan", "b200/h200" no one chip
        slashed = [i for i, (a, b) in enumerate(zip(tokens, tokens[1:])) if "/" in text[a[2]:b[1]]]
        found: list[Match] = []
        for size in range(min(MAX_WINDOW, len(tokens)), 0, -1):
            for i in range(0, len(tokens) - size + 1):
                if any(taken[i:i + size]):
                    continue
                if any(i <= k < i + size - 1 for k in slashed):
                    continue
                window = tokens[i:i + size]
                key = "".join(t for t, _, _ in window)
                entries, score = self._index.get(key), 100.0
                if not entries and key.endswith("s") and (_PLURAL_MODEL.match(key) or len(key) >= 4):
                    # "b200s", "tpus": a chip named in the plural
                    entries = [e for e in self._index.get(key[:-1], []) if _PLURAL_MODEL.match(key)
                               or e.column in ("accelerator_family", "accelerator")] or None
                if not entries and self.chip_shaped(key):  # "mi355": a model number without its letter
                    entries = self._chip_without_suffix(key)
                if not entries and fuzzy:
                    entries, score = self._fuzzy(key, [t for t, _, _ in window])
                if not entries and size >= 2:  # "jetson thor": a chip's name with a word left out
                    entries = self._family_with_words([t for t, _, _ in window])
                if not entries:
                    continue
                span = (window[0][1], window[-1][2])
                if _RESULT_ID_TAIL.match(text, span[1]):  # "6.0-0001" is a result id, not round 6.0
                    entries = [e for e in entries if e.column != "round"]
                    if not entries:
                        continue
                for e in sorted(entries, key=lambda e: COLUMN_PRIORITY.get(e.column, 50)):
                    found.append(Match(e.column, e.values, span, score, e.alias, text[span[0]:span[1]]))
                for j in range(i, i + size):
                    taken[j] = True
        # Then parts of system names, only over words no exact or fuzzy match took, so a
        # name never swallows a chip or benchmark named inside it.
        for size in range(min(MAX_WINDOW, len(tokens)), 0, -1):
            for i in range(0, len(tokens) - size + 1):
                if any(taken[i:i + size]):
                    continue
                window = tokens[i:i + size]
                entries, score = self._system_part("".join(t for t, _, _ in window), [t for t, _, _ in window])
                if not entries:
                    continue
                span = (window[0][1], window[-1][2])
                found.extend(Match(e.column, e.values, span, score, e.alias, text[span[0]:span[1]]) for e in entries)
                for j in range(i, i + size):
                    taken[j] = True
        return self._without_epithets(text, sorted(found, key=lambda m: (m.span[0],
                                                                        COLUMN_PRIORITY.get(m.column, 50))))

    def _without_epithets(self, text: str, found: list[Match]) -> list[Match]:
        """"RTX PRO 6000 Blackwell", "MI355X Instinct": a family's other name right after that
        family is part of the chip's name, not a second chip (every Blackwell family)."""
        families = [m for m in found if m.column == "accelerator_family"]
        drop = {id(after) for before in families for after in families
                if after.span[0] > before.span[1] and not text[before.span[1]:after.span[0]].strip(" -")
                and any(compact(after.text) in self._epithets.get(v, ()) for v in before.values)}
        return [m for m in found if id(m) not in drop] if drop else found

    def _chip_without_suffix(self, key: str) -> list[_Entry] | None:
        """The one accelerator family that is this model number plus one letter ("mi355" -> MI355X)."""
        if self._suffixless is None:  # built once: resolve tries this for every unmatched chip-shaped word
            seen: dict[str, list[_Entry]] = {}
            for k, entries in self._index.items():
                if k[-1:].isalpha():
                    seen.setdefault(k[:-1], []).extend(e for e in entries if e.column == "accelerator_family")
            self._suffixless = {k: v for k, v in seen.items() if len({e.values for e in v}) == 1}
        return self._suffixless.get(key)

    def unknown_entities(self, text: str, matches: list[Match] | None = None) -> list[str]:
        """Names in `text` the data has no rows for: curated names absent from this table
        ("Gaudi 3") and chip-shaped model numbers no accelerator value contains ("H300"); a word
        and a count joined to a noun ("a 64-node cluster") is an article and a size, no chip."""
        matches = self.resolve(text) if matches is None else matches
        covered = [m.span for m in matches]
        if self._chip_keys is None:
            self._chip_keys = [compact(v) for col in ("accelerator_family", "accelerator", "system_name", "platform")
                               for v in self.vocab.get(col, [])]
        chips = self._chip_keys
        out: list[str] = []
        tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.lower())]
        for size in (3, 2, 1):
            for i in range(0, len(tokens) - size + 1):
                window = tokens[i:i + size]
                start, end = window[0][1], window[-1][2]
                if any(s <= start < e or s < end <= e for s, e in covered):
                    continue
                key = "".join(t for t, _, _ in window)
                if key in self.absent:
                    out.append(text[start:end])
                    covered.append((start, end))
                elif (size == 1 or window[0][0].isalpha() and not _COUNT_MODIFIER.match(text, end)) and size <= 2 \
                        and self.chip_shaped(key) and not any(key in c for c in chips) and key not in self._index:
                    out.append(text[start:end])  # "H300", and "RTX 5090" typed as two words (not "h300 in")
                    covered.append((start, end))
        return out

    def _fuzzy(self, key: str, words: list[str]) -> tuple[list[_Entry] | None, float]:
        if len(words) == 1 and key.endswith("s") and key not in _STOP:  # "nvidias best", "amds": a possessive
            owner = [e for e in self._index.get(key[:-1], []) if e.column in _OWNERS]
            if owner:
                return owner, 99.0
        if len(words) == 1 and len(key) >= 5 and key not in _STOP:  # "lenvo", "nvdia": one letter left out
            owner = self._one_letter_short().get(key)
            if owner:
                return self._index[owner], FUZZY_CUTOFF
        if len(key) < FUZZY_MIN_LEN or len(words) > 3 or all(w in _STOP for w in words):
            return None, 0.0
        from rapidfuzz import fuzz, process

        if any(w in _STOP for w in words):
            # "text to vidoe": a stop word inside a name typed one letter off; the name must start
            # with the first word as typed ("to" alone, or "the …", matches nothing)
            near = self._one_letter_off(key)
            if near and near.startswith(words[0]) and words[0] not in _STOP and words[-1] not in _STOP \
                    and _digits(near) == _digits(key):
                return self._index[near], FUZZY_CUTOFF
            return None, 0.0

        hit = process.extractOne(key, self._fuzzy_keys, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
        if hit is None:  # one swapped or missing letter ("whsiper"): ratio punishes a swap twice
            near = self._one_letter_off(key)
            hit = (near, FUZZY_CUTOFF) if near and near[0] == key[0] else None
        if hit is None or _digits(hit[0]) != _digits(key):
            return None, 0.0
        return self._index[hit[0]], float(hit[1])

    def _one_letter_off(self, key: str) -> str | None:
        """The name key one letter (or one swap of two) away from `key`, or None."""
        from rapidfuzz import process
        from rapidfuzz.distance import DamerauLevenshtein

        near = process.extractOne(key, self._fuzzy_keys, scorer=DamerauLevenshtein.distance, score_cutoff=1)
        return near[0] if near else None

    def _family_with_words(self, words: list[str]) -> list[_Entry] | None:
        """The one accelerator family whose name has these words in this order, with others between
        ("jetson thor" -> Jetson AGX Thor); never stop words, and never a single word."""
        if any(w in _STOP for w in words):
            return None
        if self._family_words is None:  # built once: resolve tries this for every unmatched window
            self._family_words = [(f, [w.lower() for w in re.findall(r"[0-9A-Za-z]+", f)])
                                  for f in self.vocab.get("accelerator_family", [])]
        hits = []
        for family, names in self._family_words:
            it = iter(names)
            if len(names) > len(words) and all(w in it for w in words):
                hits.append(family)
        return [_Entry("accelerator_family", (hits[0],), " ".join(words))] if len(hits) == 1 else None

    def _one_letter_short(self) -> dict[str, str]:
        """Submitter and vendor names with one letter left out -> the name's key (unique ones only)."""
        if self._short_keys is None:
            seen: dict[str, set[str]] = {}
            for k, entries in self._index.items():
                if len(k) >= 5 and any(e.column in _OWNERS for e in entries):
                    for i in range(len(k)):
                        seen.setdefault(k[:i] + k[i + 1:], set()).add(k)
            self._short_keys = {d: next(iter(ks)) for d, ks in seen.items() if len(ks) == 1 and d not in self._index}
        return self._short_keys

    def _system_part(self, key: str, words: list[str]) -> tuple[list[_Entry] | None, float]:
        """Part of a system's name ("ThinkSystem SR680a V3", "XE9680"): every system whose name
        contains it. Only name-like words (letters and digits, not a chip model number, which
        must stay a chip or no_data) and never stop words."""
        lettered = len(words) >= 2 and len(key) >= 6  # "strix halo", "pro max": two words, no digits
        if len(key) < 5 or not (re.search(r"\d", key) or lettered) or not re.search(r"[a-z]", key):
            return None, 0.0
        if any(w in _STOP for w in words) or (len(words) == 1 and self.chip_shaped(key)):
            return None, 0.0
        if self._system_keys is None:
            self._system_keys = [(compact(n), n) for n in self.vocab.get("system_name", [])]
        names = [n for k, n in self._system_keys if key in k]
        if not names or len(names) > (40 if re.search(r"\d", key) else 5):
            return None, 0.0
        return [_Entry("system_name", tuple(names), key)], 95.0

    def add_publishers(self, document_ids: Iterable[str]) -> None:
        """Publisher phrases from document file names (`v6.0_storagereview_nvidia-news.md`): each
        `_` part that is not a round, a document type or a name the table already knows. The
        publisher's own part (the first after the round) only loses its document-type words
        ("gentic-news": gentic); a later part holding one is a topic ("amd-world-labs-es")."""
        for doc in document_ids:
            stem = re.sub(r"\.(md|pdf|txt|html?)$", "", str(doc))
            if not re.match(r"v\d", stem):  # commentary is named by round; the guide's files are not sources
                continue
            if (m := _ROUND.fullmatch(stem.split("_")[0])) is not None:
                self.document_rounds.add(f"v{int(m.group(1))}.{int(m.group(2))}")
            for n, part in enumerate(stem.split("_")):
                words = [w for w in part.split("-") if w]
                if n == 1:
                    words = [w for w in words if w not in _DOC_WORDS]
                if not words or _ROUND.fullmatch(part) or any(w in _DOC_WORDS for w in words):
                    continue
                key = compact(" ".join(words))
                if len(key) >= 4 and key not in self._index:
                    self.publishers[key] = " ".join(words)
                    self.publisher_docs.setdefault(" ".join(words), []).append(str(doc))
        # A publisher of two or more words is also named by its first word when no other one starts
        # with it ("the supplemental statement": the "supplemental discussion"; "ieee": "ieee spectrum").
        firsts: dict[str, set[str]] = {}
        for name in self.publisher_docs:
            head = name.split()[0]
            if " " in name and len(head) >= 4:
                firsts.setdefault(compact(head), set()).add(name)
        for key, names in firsts.items():
            if len(names) == 1 and key not in self.publishers and key not in self._index:
                self.publishers[key] = next(iter(names))
        # "the MegaOne article": a publisher whose name ends in "AI" is named without it too
        for key, name in list(self.publishers.items()):
            bare = key[:-len(_AI_SUFFIX)]
            if key.endswith(_AI_SUFFIX) and len(bare) >= MIN_BARE_PUBLISHER and bare not in self.publishers \
                    and bare not in self._index:
                self.publishers[bare] = name

    def publisher_mentions(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Publishers named in `text`, with their character spans (a possessive 's is allowed)."""
        if not self.publishers:
            return []
        tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.lower())]
        found = []
        for size in (3, 2, 1):
            for i in range(0, len(tokens) - size + 1):
                key = "".join(t for t, _, _ in tokens[i:i + size])
                name = self.publishers.get(key) or (self.publishers.get(key[:-1]) if key.endswith("s") else None)
                if name and not any(s <= tokens[i][1] < e for _, (s, e) in found):
                    found.append((name, (tokens[i][1], tokens[i + size - 1][2])))
        return found

    def values(self, column: str) -> list[str]:
        return list(self.vocab.get(column, []))

    def has_value(self, column: str, value: str) -> bool:
        return value in self.vocab.get(column, [])

    def suggest(self, column: str, text: str, n: int = 5, cutoff: float = 0.0) -> list[str]:
        """The closest real values of `column` to `text` (for "did you mean" answers)."""
        from rapidfuzz import fuzz, process

        choices = [v for v in self.vocab.get(column, []) if v.lower() not in _PLACEHOLDERS]  # never "did you mean none"
        if column == "round":
            choices = self.rounds
        if not choices:
            return []
        hits = process.extract(text, choices, scorer=fuzz.WRatio, limit=n, processor=str.lower, score_cutoff=cutoff)
        return [h[0] for h in hits]

    def lexicon(self, language: str) -> Any:
        """The reader's lexicon for questions about this table: the language's words plus the
        card's (a dialect gets the card's English words and then its own)."""
        from assistant import lexicon

        if not self.words:
            return lexicon.load(language)
        if language not in self._lexicons:
            lex = lexicon.load(language)
            for lang in dict.fromkeys((lexicon.BASE_LANGUAGE, language)):
                lex = lexicon.extend(lex, self.words.get(lang, {}))
            self._lexicons[language] = lex
        return self._lexicons[language]

    def present(self, columns: Iterable[str]) -> list[str]:
        """`columns` that the table has, in order (every one when the catalog was built bare)."""
        return [c for c in columns if not self.columns or c in self.columns]

    def benchmarks_in(self, rnd: str) -> set[str]:
        return set(self.benchmarks_by_round.get(rnd, set()))

    def scenarios_for(self, benchmarks: Iterable[str], rounds: Iterable[str] | None = None) -> dict[str, set[str]]:
        """Scenario -> units that exist for these benchmarks (in these rounds)."""
        bset, rset = set(benchmarks), set(rounds) if rounds else None
        out: dict[str, set[str]] = {}
        for (rnd, bench, scen), units in self.combos.items():
            if bench in bset and (rset is None or rnd in rset):
                out.setdefault(scen, set()).update(units)
        return out

    def rounds_with(self, benchmarks: Iterable[str]) -> list[str]:
        bset = set(benchmarks)
        return [r for r in self.rounds if self.benchmarks_by_round.get(r, set()) & bset]


def _sorted_rounds(df: Any) -> list[str]:
    if "round" not in df.columns:
        return []
    if "round_order" in df.columns:
        pairs = df[["round", "round_order"]].dropna().drop_duplicates()
        return [str(r) for r, _ in sorted(pairs.itertuples(index=False), key=lambda p: int(p[1]))]

    def order(label: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", label))

    return sorted({str(r) for r in df["round"].dropna().unique()}, key=order)
