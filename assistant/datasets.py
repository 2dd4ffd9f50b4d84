"""The results tables a question can be about, and which one a question is about.

A store holds the default table (MLPerf Inference) and the table of every dataset card ingested
with `resultsqa ingest --card` (MLPerf Training, a team's own results). Each is answered by the
same reader, shapes and executor over a catalog of its own: the card gives the names people use
(aliases), the reader's extra words (lexicon) and the measure's direction (the table's
`lower_is_better` column). Nothing here knows what any table measures.

Routing is by evidence in the question, strongest first: a pinned data set (UI, API `scope`,
CLI); the cards' `dataset` words ("training", "träna"; the default table's card words keep a
question on it); their `dataset_hint` words ("how long"), unless the question names a source
outright; a round that only one table has; a benchmark name only one table knows.
Otherwise the default table answers, and `assistant.offline` adds the answer of every other table
that knows what the question names (docs/datasets.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from assistant import lexicon
from ingest.dataset_card import ROUTING_KINDS

DATASET_KIND, DATASET_HINT = ROUTING_KINDS
DEFAULT_ID = "default"  # pins the default table when no card describes it
DOCUMENT_CUES = ("source", "source_weak", "commentary")  # lexicon cues of a question about documents
SOURCE_CUES = ("source",)  # ... that name a source outright ("according to", "statement"), not "reported"


@dataclass(frozen=True)
class Dataset:
    """What the assistant needs from a dataset card: names, words, and how to label answers."""

    id: str
    title: str
    aliases: tuple[dict[str, Any], ...] = ()
    chip_prefixes: tuple[str, ...] = ()  # letters its chips' model numbers start with ("mi", "h")
    words: dict[str, dict[str, Any]] = field(default_factory=dict)  # language -> kind -> tag -> phrases
    order: dict[str, tuple[str, ...]] = field(default_factory=dict)  # column -> values, most preferred first
    display: dict[str, str] = field(default_factory=dict)  # column -> the name answers use ("time to train")
    display_values: dict[str, dict[str, str]] = field(default_factory=dict)  # column -> value -> display name
    decimals: dict[str, int] = field(default_factory=dict)  # unit -> places answers show ("minutes" -> 3)

    def routing_words(self, kind: str = DATASET_KIND) -> list[str]:
        """Every language's phrases of a routing kind: "träna" routes an English-typed question too."""
        return [p for kinds in self.words.values() for p in kinds.get(kind, {}).get(self.id, [])]


def from_card(card: Any) -> Dataset:
    """A `Dataset` from a loaded `ingest.dataset_card.DatasetCard`."""
    return Dataset(id=card.id, title=card.title, aliases=tuple(card.aliases),
                   chip_prefixes=tuple(card.chip_prefixes), words=dict(card.lexicon),
                   order=dict(card.order), display=dict(card.display_columns),
                   display_values={c: dict(v) for c, v in card.display_values.items()},
                   decimals={card.measure.unit: card.measure.decimals}
                   if card.measure.unit and card.measure.decimals is not None else {})


def in_store(store: Any) -> list[tuple[Dataset, Any]]:
    """(dataset, table) for each card table in the store's generation, in manifest order."""
    from ingest.dataset_card import load_card
    from ingest.store import TABLE

    out = []
    for entry in store.datasets:
        if entry.get("table") == TABLE:
            continue  # a card that describes the default table adds no table
        card_path = Path(store.path) / entry["card"]
        if not card_path.is_file():
            continue
        out.append((from_card(load_card(card_path)), store.dataset_table(entry["id"])))
    return out


@dataclass(frozen=True)
class Route:
    """The engine that answers, and why: `pinned`, `words`, `round` (a round only that table has;
    `missing` are the rounds the default table lacks), `names`, `default` or `only`."""

    engine: Any
    reason: str
    missing: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def default_dataset() -> Dataset | None:
    """The card in data/cards/ that describes the default table: its words route questions to it
    ("inference", "tokens/s") even when a round is one only another table has."""
    from ingest.dataset_card import CardError, load_card
    from ingest.settings import PROJECT_ROOT

    for path in sorted((PROJECT_ROOT / "data" / "cards").glob("*.toml")):
        try:
            card = load_card(path)
        except CardError:
            continue
        if card.describes_default_table:
            return from_card(card)
    return None


class Router:
    """Picks the engine that answers a question: see the module docstring for the order."""

    def __init__(self, default: Any, others: list[Any]):
        self.default = default
        self.others = others
        own = default_dataset()
        self._default_words_id = own.id if own is not None else None
        table = {kind: {e.dataset.id: e.dataset.routing_words(kind) for e in others} for kind in ROUTING_KINDS}
        if own is not None:
            for kind in ROUTING_KINDS:
                table[kind][own.id] = own.routing_words(kind)
        self._words = lexicon.Lexicon(lexicon.BASE_LANGUAGE, table, {}, [], [])

    def by_id(self, dataset_id: str) -> Any | None:
        own = default_dataset()
        if dataset_id in (None, "", DEFAULT_ID) or (own is not None and dataset_id == own.id):
            return self.default
        return next((e for e in self.others if e.dataset.id == dataset_id), None)

    def ids(self) -> list[str]:
        own = default_dataset()
        return [own.id if own is not None else DEFAULT_ID] + [e.dataset.id for e in self.others]

    def route(self, question: str) -> Route:
        if not self.others:
            return Route(self.default, "only")
        words = self._named(question)
        named, hinted = words[DATASET_KIND], words[DATASET_HINT]
        # "how long before the submission had the MI355X launched, according to AMD" asks a
        # document, not the time to train (the cue check tags the whole question: only when a
        # hint is there to hold back)
        if not named and hinted and not self._about_documents(question, SOURCE_CUES):
            # "krai ran the text-to-video benchmark … how long did it take per video": a benchmark
            # only the default table has outweighs a hint ("how long") of another table's measure
            named = {i for i in hinted if not _names_own(self.default.catalog, self.by_id(i), question)}
        if self._default_words_id in named:
            return Route(self.default, "words")
        hit = next((e for e in self.others if e.dataset.id in named), None)
        if hit is not None:
            return Route(hit, "words")
        _, unknown = self.default.catalog.round_mentions(question)
        if unknown and not self._about_documents(question):
            for other in self.others:
                known, missing = other.catalog.round_mentions(question)
                if known and not missing:
                    return Route(other, "round", tuple(unknown))
        # "the IEEE Spectrum write-up … what parameter count does it give for GPT3?": a name only
        # another table has ("gpt3") inside a question about a publisher's words is no benchmark asked
        if self.default.catalog.publisher_mentions(question):
            return Route(self.default, "default")
        hit = next((e for e in self.others if _names_more(e.catalog, self.default.catalog, question)), None)
        return Route(hit, "names") if hit is not None else Route(self.default, "default")

    def _about_documents(self, question: str, cues: tuple[str, ...] = DOCUMENT_CUES) -> bool:
        """The question asks what a source says (a publisher, or one of `cues`)."""
        if self.default.catalog.publisher_mentions(question):
            return True
        tokens = lexicon.tokenize(question)
        tags = self.default.catalog.lexicon(lexicon.detect_language(tokens, question)).tag(tokens)
        return any(t.kind == "cue" and t.value in cues for t in tags)

    def _named(self, question: str) -> dict[str, set[str]]:
        """Data sets whose words the question uses, by routing kind, where the default table's
        lexicon does not read the same words as something else ("time" routes; "time to first
        token" does not). One pass over the question for both kinds."""
        tokens = lexicon.tokenize(question)
        hits = self._words.tag(tokens)
        named: dict[str, set[str]] = {kind: set() for kind in ROUTING_KINDS}
        if not hits:
            return named
        language = lexicon.detect_language(tokens, question)
        taken = {i for t in self.default.catalog.lexicon(language).tag(tokens) if t.last - t.first > 1
                 for i in range(t.first, t.last)}
        for t in hits:
            if not taken & set(range(t.first, t.last)):
                named[t.kind].add(t.value)
        return named


def _names_own(default: Any, other: Any, question: str) -> bool:
    """The question names a benchmark the default table knows and `other`'s table does not."""
    return other is not None and bool(_outside(_benchmarks(default, question), _benchmarks(other.catalog, question)))


def _benchmarks(catalog: Any, question: str) -> list[tuple[int, int]]:
    """Where the question names a benchmark, as `catalog` reads it (exact names only)."""
    return [m.span for m in catalog.resolve(question, fuzzy=False) if m.column == "benchmark"]


def _outside(spans: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans no span of `others` covers."""
    return [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] for o in others)]


def _names_more(catalog: Any, default: Any, question: str) -> bool:
    """The question names a benchmark by a name only `catalog` knows, or by a longer one than
    the default table matches ("llama 2 70b lora" against "llama 2 70b")."""
    theirs = _benchmarks(catalog, question)
    if not theirs:
        return False
    ours = _benchmarks(default, question)
    # a benchmark the default table names on its own ("yolo-95", beside a word only the other
    # table aliases) keeps the question on the default table
    return not _outside(ours, theirs) and bool(_outside(theirs, ours))
