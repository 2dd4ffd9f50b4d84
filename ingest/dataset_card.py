"""Dataset cards: a TOML description of a results table, and reading a table through one.

Not to be confused with `ingest.cards` (entity cards: short texts embedded for retrieval).
A dataset card says, as data, what a results table holds and how to read it: where its files
are and which reader reads them; which column plays which role (entities, sizes, dimensions,
the measure with its unit and direction, secondary measures); display names, aliases,
defaults; the id and URL of each row for citations; and the reader's words for it (lexicon
additions). docs/datasets.md documents every field.

Through a card, a CSV or Parquet file becomes a normalised table whose columns are named by
their roles (the names of `ingest.schema`: `round`, `benchmark`, `submitter`, `result`,
`units`, `lower_is_better`, ...), so one set of query code can serve any card's table.
`ingest.dataset_ingest` puts such tables into the store (`resultsqa ingest --card PATH`).

Errors are `CardError`s: one line naming the card file and the card field
(`measure.direction must be 'lower' or 'higher', got 'up'`). Nothing is skipped silently: a
value that does not fit its role stops the read, naming the row and the file.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import re
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ingest import sources as sources_mod
from ingest import store as store_mod
from ingest.errors import SourceError
from ingest.settings import PROJECT_ROOT

READERS = ("csv", "parquet")
DESCRIBE_READER = "sources"  # the default ingest's own table (results.parquet), described, not read by --card
ROOTS = ("card", "mirror", "clone")  # what a source's `path` is relative to
DIRECTIONS = ("lower", "higher")
KINDS = ("number", "text")  # of a secondary measure

# Roles, by section of the card; each key is the column name in the normalised table.
ROLES: dict[str, tuple[str, ...]] = {
    "dimensions": ("round", "benchmark", "scenario", "division", "availability", "system_type"),
    "entities": ("submitter", "system_name", "platform", "accelerator", "host_processor", "framework", "precision"),
    "sizes": ("number_of_nodes", "accelerators_per_node", "total_accelerators"),
}
REQUIRED = {"dimensions": ("round", "benchmark")}
# Columns every normalised table has, whatever the card says.
COMPUTED = ("result_id", "round_order", "result", "units", "lower_is_better", "result_url", "source_file")
DERIVABLE = {"accelerator_vendor": "accelerator", "accelerator_family": "accelerator"}  # column -> role it needs

# Tag kinds of assistant/lexicon/en.toml that hold phrases (tests/ingest/test_dataset_cards.py keeps
# this list equal to that file's sections), plus the routing kinds: `dataset` words say a question
# is about this table ("trained"); `dataset_hint` words suggest it but fit other questions too
# ("how long"); assistant.datasets routes on both. `unit_names` maps a measure tag to the table's
# unit, as in en.toml.
ROUTING_KINDS = ("dataset", "dataset_hint")
LEXICON_KINDS = ("measure", "operation", "direction", "grouping", "scope", "cue", "attribute", "comparator", "unit",
                 *ROUTING_KINDS)
LEXICON_LANGUAGES = ("en", "sv")

FIELDS = ("id", "title", "description", "publisher", "homepage", "source", "dimensions", "entities", "sizes",
          "measure", "secondary", "columns", "citation", "defaults", "order", "display", "alias",
          "chip_names", "lexicon")
SOURCE_FIELDS = ("path", "url", "root", "reader", "sha256", "rows")
MEASURE_FIELDS = ("column", "name", "unit", "unit_column", "direction", "lower_units", "kind", "decimals")
MAX_DECIMALS = 12  # a double holds about 15 significant digits; more places would print noise
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_LIST_COLUMNS = 30  # columns named in an "unknown column" error


class CardError(SourceError):
    """A dataset card is wrong, or its data does not fit it. `str()` is one line: file, field, problem."""


# --- the card -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CardSource:
    index: int  # 1-based, as in the error messages (`source[1].path`)
    reader: str
    path: str = ""
    url: str = ""
    root: str = "card"
    sha256: str | None = None
    rows: int | None = None

    @property
    def field(self) -> str:
        return f"source[{self.index}]"

    @property
    def label(self) -> str:
        """The file's name, as errors say it (`mlperf_training_results.csv`)."""
        return Path(urllib.parse.urlparse(self.path or self.url).path).name or (self.path or self.url)


@dataclass(frozen=True)
class Measure:
    field: str  # `measure` or `secondary.<name>`
    column: str
    name: str
    unit: str | None = None
    unit_column: str | None = None
    direction: str | None = None
    lower_units: tuple[str, ...] = ()
    kind: str = "number"
    # Places an answer shows (None: the value as stored). For values computed at full double
    # precision (0.40340363577863575 minutes), not for published figures, which print as published.
    decimals: int | None = None

    def lower_is_better(self, unit: str) -> bool:
        """`direction`, except for units matching `lower_units` (fnmatch patterns, any case)."""
        if any(fnmatch.fnmatchcase(unit.strip().lower(), p.lower()) for p in self.lower_units):
            return True
        return self.direction == "lower"

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "source_column": self.column}
        if self.kind != "number":
            return out | {"kind": self.kind}
        out |= {"unit": self.unit} if self.unit else {"unit_column": self.unit_column}
        out["direction"] = self.direction
        if self.decimals is not None:
            out["decimals"] = self.decimals
        if self.lower_units:
            out["lower_units"] = list(self.lower_units)
        return out


@dataclass(frozen=True)
class DatasetCard:
    path: Path
    sha256: str
    text: str
    id: str
    title: str
    sources: tuple[CardSource, ...]
    roles: dict[str, str]  # normalised column -> source column (dimensions, entities, sizes)
    measure: Measure
    secondary: dict[str, Measure] = field(default_factory=dict)
    keep: tuple[str, ...] = ()
    derive: tuple[str, ...] = ()
    id_column: str | None = None
    url_column: str | None = None
    url_template: str | None = None
    defaults: dict[str, str] = field(default_factory=dict)
    # A dimension's values, most preferred first: what an answer assumes when a question names none
    # (the scenario of "best Llama 2 70B result"), and the order of one-per-benchmark overviews.
    order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    display_columns: dict[str, str] = field(default_factory=dict)
    display_values: dict[str, dict[str, str]] = field(default_factory=dict)
    aliases: tuple[dict[str, Any], ...] = ()
    chip_prefixes: tuple[str, ...] = ()  # letters a chip's model number starts with ("mi" of "mi355")
    lexicon: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    info: dict[str, str] = field(default_factory=dict)  # description, publisher, homepage, citation note

    @property
    def describes_default_table(self) -> bool:
        return any(s.reader == DESCRIBE_READER for s in self.sources)

    def section_of(self, role: str) -> str:
        return next(section for section, names in ROLES.items() if role in names)

    def referenced(self) -> list[tuple[str, str]]:
        """(card field, source column) for every column the card names, in card order."""
        refs = [(f"{self.section_of(r)}.{r}", c) for r, c in self.roles.items()]
        for m in (self.measure, *self.secondary.values()):
            refs.append((f"{m.field}.column", m.column))
            if m.unit_column:
                refs.append((f"{m.field}.unit_column", m.unit_column))
        refs += [("columns.keep", c) for c in self.keep]
        if self.id_column:
            refs.append(("citation.id_column", self.id_column))
        if self.url_column:
            refs.append(("citation.url_column", self.url_column))
        refs += [("citation.url_template", c) for c in _PLACEHOLDER.findall(self.url_template or "")]
        return refs

    def output_columns(self) -> list[str]:
        """The normalised table's columns, in order."""
        dims = [r for r in ROLES["dimensions"] if r in self.roles]
        cols = ["result_id", dims[0], "round_order", *dims[1:]]
        cols += [r for section in ("entities", "sizes") for r in ROLES[section] if r in self.roles]
        cols += list(self.derive) + ["result", "units", "lower_is_better"]
        for name, m in self.secondary.items():
            cols.append(name)
            if m.kind == "number":
                cols.append(f"{name}_units")
        return cols + list(self.keep) + ["result_url", "source_file"]


def card_error(card: Path, message: str) -> CardError:
    """The one-line error for `card` (the message starts with the card field)."""
    return CardError(card, message)


class _Reader:
    """Typed access to a parsed card; every mistake is a CardError naming the field."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, message: str) -> CardError:
        return card_error(self.path, message)

    def table(self, data: dict, key: str, where: str, allowed: tuple[str, ...] | None = None) -> dict:
        value = data.get(key, {})
        name = f"{where}.{key}" if where else key
        if not isinstance(value, dict):
            raise self.fail(f"{name} must be a table ([{name}]), got {type(value).__name__}")
        if allowed is not None:
            self.known(value, allowed, name)
        return value

    def known(self, data: dict, allowed: tuple[str, ...], where: str) -> None:
        for key in data:
            if key not in allowed:
                name = f"{where}.{key}" if where else key
                raise self.fail(f"{name}: unknown field; fields here are {', '.join(allowed)}")

    def entries(self, data: dict, key: str, allowed: tuple[str, ...]) -> list[tuple[str, dict]]:
        """An array of tables (`[[key]]`) as (field, entry) pairs, each entry's fields checked."""
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
            raise self.fail(f"{key} must be an array of tables ([[{key}]])")
        for i, entry in enumerate(value, 1):
            self.known(entry, allowed, f"{key}[{i}]")
        return [(f"{key}[{i}]", entry) for i, entry in enumerate(value, 1)]

    def text(self, data: dict, key: str, where: str, required: bool = False) -> str | None:
        name = f"{where}.{key}" if where else key
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(f"{name}: missing")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{name} must be a non-empty string, got {value!r}")
        return value.strip()

    def texts(self, data: dict, key: str, where: str) -> tuple[str, ...]:
        name = f"{where}.{key}" if where else key
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(f"{name} must be a list of non-empty strings, got {value!r}")
        return tuple(v.strip() for v in value)

    def mapping(self, data: dict, key: str, where: str) -> dict[str, str]:
        name = f"{where}.{key}" if where else key
        value = self.table(data, key, where)
        for k, v in value.items():
            if not isinstance(v, str) or not v.strip():
                raise self.fail(f"{name}.{k} must be a non-empty string, got {v!r}")
        return {k: v.strip() for k, v in value.items()}


def load_card(path: str | Path) -> DatasetCard:
    """Parse and check a card's structure (not yet its data: see `read_card_table`)."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise card_error(path, "card file not found" if not path.exists() else "card is not a regular file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise card_error(path, "card is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise card_error(path, f"not valid TOML ({exc})") from None
    r = _Reader(path)
    r.known(data, FIELDS, "")
    card_id = r.text(data, "id", "", required=True)
    if not _ID.match(card_id):
        raise r.fail(f"id must be lower-case letters, digits, '.', '-' or '_' (at most 64), got {card_id!r}")
    title = r.text(data, "title", "", required=True)
    info = {k: v for k in ("description", "publisher", "homepage") if (v := r.text(data, k, ""))}

    sources = _load_sources(r, data)
    roles: dict[str, str] = {}
    for section, names in ROLES.items():
        table = r.table(data, section, "", names)
        for role in names:
            column = r.text(table, role, section, required=role in REQUIRED.get(section, ()))
            if column:
                roles[role] = column
    if "measure" not in data:
        raise r.fail("measure: missing; a card needs [measure] with column, unit and direction")
    measure = _load_measure(r, r.table(data, "measure", ""), "measure", secondary=False)
    secondary = {}
    for name, value in r.table(data, "secondary", "").items():
        where = f"secondary.{name}"
        if not isinstance(value, dict):
            raise r.fail(f"{where} must be a table ([{where}]), got {type(value).__name__}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise r.fail(f"{where}: a secondary measure's name must be lower_case_with_underscores")
        secondary[name] = _load_measure(r, value, where, secondary=True)

    columns = r.table(data, "columns", "", ("keep", "derive"))
    keep = r.texts(columns, "keep", "columns")
    derive = r.texts(columns, "derive", "columns")
    for name in derive:
        if name not in DERIVABLE:
            raise r.fail(f"columns.derive: cannot derive {name!r}; derivable columns are {', '.join(DERIVABLE)}")
        if DERIVABLE[name] not in roles:
            raise r.fail(f"columns.derive: {name} needs the {DERIVABLE[name]} role (entities.{DERIVABLE[name]})")

    citation = r.table(data, "citation", "", ("id_column", "url_column", "url_template", "note"))
    id_column = r.text(citation, "id_column", "citation")
    url_column = r.text(citation, "url_column", "citation")
    url_template = r.text(citation, "url_template", "citation")
    if url_column and url_template:
        raise r.fail("citation: give url_column or url_template, not both")
    if url_template and not _PLACEHOLDER.search(url_template):
        raise r.fail("citation.url_template names no {column}; every row would cite the same address")
    if note := r.text(citation, "note", "citation"):
        info["citation_note"] = note

    card = DatasetCard(
        path=path, sha256=hashlib.sha256(raw).hexdigest(), text=text, id=card_id, title=title,
        sources=sources, roles=roles, measure=measure, secondary=secondary, keep=keep, derive=derive,
        id_column=id_column, url_column=url_column, url_template=url_template,
        defaults=r.mapping(data, "defaults", ""), order=_load_order(r, data), display_columns={}, display_values={},
        aliases=_load_aliases(r, data), chip_prefixes=r.texts(r.table(data, "chip_names", "", ("prefixes",)),
                                                              "prefixes", "chip_names"),
        lexicon=_load_lexicon(r, data, card_id), info=info,
    )
    _check_names(r, card)
    display = r.table(data, "display", "", ("columns", "values"))
    display_columns = r.mapping(display, "columns", "display")
    values_table = r.table(display, "values", "display")
    display_values = {column: r.mapping(values_table, column, "display.values") for column in values_table}
    outputs = card.output_columns()
    for name, where in [*[(c, "display.columns") for c in display_columns],
                        *[(c, "display.values") for c in display_values],
                        *[(c, "defaults") for c in card.defaults],
                        *[(c, "order") for c in card.order]]:
        if name not in outputs:
            raise r.fail(f"{where}.{name}: no column {name!r} in the normalised table; "
                         f"columns are {', '.join(outputs)}")
    return dataclasses.replace(card, display_columns=display_columns, display_values=display_values)


def _load_order(r: _Reader, data: dict) -> dict[str, tuple[str, ...]]:
    order = r.table(data, "order", "")
    return {column: r.texts(order, column, "order") for column in order}


def _load_sources(r: _Reader, data: dict) -> tuple[CardSource, ...]:
    entries = r.entries(data, "source", SOURCE_FIELDS)
    if not entries:
        raise r.fail("source: missing; a card needs at least one [[source]] with a path or url and a reader")
    out = []
    for i, (where, entry) in enumerate(entries, 1):
        path = r.text(entry, "path", where) or ""
        url = r.text(entry, "url", where) or ""
        if bool(path) == bool(url):
            raise r.fail(f"{where}: give a path or a url (one of them)")
        if url and not sources_mod.is_url(url):
            raise r.fail(f"{where}.url must be an http(s) URL, got {url!r}")
        root = r.text(entry, "root", where) or "card"
        if root not in ROOTS:
            raise r.fail(f"{where}.root must be one of {', '.join(ROOTS)}, got {root!r}")
        if path and root != "card" and (Path(path).is_absolute() or ".." in Path(path).parts):
            raise r.fail(f"{where}.path must be relative to the {root} root, got {path!r}")
        reader = r.text(entry, "reader", where) or _reader_from_suffix(path or url)
        if reader is None:
            raise r.fail(f"{where}.reader: missing, and the file name does not say (one of {', '.join(READERS)})")
        if reader not in (*READERS, DESCRIBE_READER):
            raise r.fail(f"{where}.reader must be one of {', '.join(READERS)}, got {reader!r}")
        pin = r.text(entry, "sha256", where)
        if pin and not re.fullmatch(r"[0-9a-fA-F]{64}", pin):
            raise r.fail(f"{where}.sha256 must be 64 hex digits, got {pin!r}")
        rows = entry.get("rows")
        if rows is not None and (not isinstance(rows, int) or isinstance(rows, bool) or rows < 1):
            raise r.fail(f"{where}.rows must be a positive whole number, got {rows!r}")
        out.append(CardSource(i, reader, path, url, root, pin.lower() if pin else None, rows))
    if len(out) > 1 and any(s.reader == DESCRIBE_READER for s in out):
        raise r.fail(f"source: a reader = {DESCRIBE_READER!r} source must be the card's only source")
    return tuple(out)


def _reader_from_suffix(name: str) -> str | None:
    suffix = Path(urllib.parse.urlparse(name).path).suffix.lower()
    return {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(suffix)


def _load_measure(r: _Reader, data: dict, where: str, secondary: bool) -> Measure:
    r.known(data, MEASURE_FIELDS if secondary else tuple(f for f in MEASURE_FIELDS if f != "kind"), where)
    column = r.text(data, "column", where, required=True)
    kind = r.text(data, "kind", where) or "number"
    if kind not in KINDS:
        raise r.fail(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
    name = r.text(data, "name", where) or (where.split(".")[-1] if secondary else column)
    if kind == "text":
        extra = [k for k in ("unit", "unit_column", "direction", "lower_units", "decimals") if k in data]
        if extra:
            raise r.fail(f"{where}.{extra[0]}: a text measure has no {extra[0]}")
        return Measure(where, column, name, kind=kind)
    unit = r.text(data, "unit", where)
    unit_column = r.text(data, "unit_column", where)
    if bool(unit) == bool(unit_column):
        raise r.fail(f"{where}.unit: give `unit` (one unit for every row) or `unit_column` (a column naming "
                     "each row's unit), one of them")
    direction = data.get("direction")
    if direction is None:
        raise r.fail(f"{where}.direction: missing; say 'lower' or 'higher' (which end is better)")
    if direction not in DIRECTIONS:
        raise r.fail(f"{where}.direction must be 'lower' or 'higher', got {direction!r}")
    lower_units = r.texts(data, "lower_units", where)
    if lower_units and not unit_column:
        raise r.fail(f"{where}.lower_units: only with unit_column (a fixed unit has one direction)")
    decimals = data.get("decimals")
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= MAX_DECIMALS:
            raise r.fail(f"{where}.decimals must be a whole number from 0 to {MAX_DECIMALS}, got {decimals!r}")
        if not unit or secondary:
            raise r.fail(f"{where}.decimals: only in [measure] with `unit` (answers round the headline "
                         "measure by its unit; a unit_column's units are not known from the card)")
    return Measure(where, column, name, unit, unit_column, direction, lower_units, kind, decimals)


def _load_aliases(r: _Reader, data: dict) -> tuple[dict[str, Any], ...]:
    """[[alias]] entries in the shape of data/aliases.toml: phrases, column, values or prefixes."""
    out = []
    for where, entry in r.entries(data, "alias", ("phrases", "column", "values", "prefixes")):
        phrases = r.texts(entry, "phrases", where)
        if not phrases:
            raise r.fail(f"{where}.phrases: missing")
        column = r.text(entry, "column", where, required=True)
        values, prefixes = r.texts(entry, "values", where), r.texts(entry, "prefixes", where)
        if not values and not prefixes:
            raise r.fail(f"{where}: give values or prefixes")
        out.append({"phrases": list(phrases), "column": column, "values": list(values), "prefixes": list(prefixes)})
    return tuple(out)


def _load_lexicon(r: _Reader, data: dict, card_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """[lexicon.<language>.<kind>] tag = [phrases], as assistant/lexicon/en.toml's sections."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for language, kinds in r.table(data, "lexicon", "", LEXICON_LANGUAGES).items():
        where = f"lexicon.{language}"
        if not isinstance(kinds, dict):
            raise r.fail(f"{where} must be a table of tag kinds")
        r.known(kinds, (*LEXICON_KINDS, "unit_names"), where)
        out[language] = {}
        for kind, tags in kinds.items():
            if not isinstance(tags, dict):
                raise r.fail(f"{where}.{kind} must be a table (tag = [phrases])")
            if kind == "unit_names":
                out[language][kind] = r.mapping(kinds, kind, where)
                continue
            out[language][kind] = {tag: list(r.texts(tags, tag, f"{where}.{kind}")) for tag in tags}
            if kind in ROUTING_KINDS and set(tags) - {card_id}:
                other = sorted(set(tags) - {card_id})[0]
                raise r.fail(f"{where}.{kind}.{other}: {kind} words are keyed by this card's id ({card_id!r})")
    return out


def _check_names(r: _Reader, card: DatasetCard) -> None:
    """No two outputs share a name, and nothing the card keeps or names shadows a role."""
    seen: dict[str, str] = {}
    named = [(f"{card.section_of(role)}.{role}", role) for role in card.roles]
    named += [(f"secondary.{n}", n) for n in card.secondary]
    named += [(f"secondary.{n}", f"{n}_units") for n, m in card.secondary.items() if m.kind == "number"]
    named += [("columns.keep", c) for c in card.keep] + [("columns.derive", c) for c in card.derive]
    named += [("(computed)", c) for c in COMPUTED]
    for where, name in named:
        if name in seen:
            raise r.fail(f"{where}: {name!r} is already a column of the normalised table ({seen[name]})")
        seen.setdefault(name, where)
    for i, alias in enumerate(card.aliases, 1):
        if alias["column"] not in card.output_columns():
            raise r.fail(f"alias[{i}].column: no column {alias['column']!r} in the normalised table")


# --- reading a card's data ------------------------------------------------------------------

@dataclass
class ReadSource:
    source: CardSource
    path: Path
    sha256: str
    size: int
    shown: str  # what the manifest records: the path as written in the card, or the URL


def _locate(card: DatasetCard, src: CardSource, settings, mirror: str | None, progress: bool) -> ReadSource:
    """The source on local disk (a URL downloaded into the cache), size-checked, hashed and pin-checked."""
    max_mb = settings.max_source_mb
    pinned = sources_mod.Source(name=card.id, kind="results", path=src.path or src.url, sha256=src.sha256)
    where = f"{src.field}.{'url' if src.url else 'path'}"
    url, base = src.url, None  # base: the root a path must stay inside (mirror, clone); none for the card's own
    if src.root == "mirror" and src.path:
        root = sources_mod.resolve_root(settings, mirror)
        if sources_mod.is_url(root):
            url = root.rstrip("/") + "/" + urllib.parse.quote(src.path)
        base = Path(root)
    elif src.root == "clone":
        base = PROJECT_ROOT
    try:
        if url:
            target = sources_mod.cache_folder(settings.cache, f"card:{card.id}") / f"{src.index}-{src.label}"
            got = sources_mod._download(url, target, pinned, src.path or src.url, max_mb, progress)
            return ReadSource(src, got.path, got.sha256, got.size, src.url or src.path)
        path = base / src.path if base else card.path.parent / Path(src.path).expanduser()
        if not path.exists():
            raise card_error(card.path, f"{where}: no such file {path}")
        if not path.is_file():
            raise card_error(card.path, f"{where}: not a regular file: {path}")
        if base:
            sources_mod._check_inside(path, base, src.root)
        size = path.stat().st_size
        sources_mod._check_size(path, size, max_mb)
        digest = sources_mod.sha256_file(path)
        sources_mod._verify(path, pinned, src.path, digest)
    except CardError:
        raise
    except SourceError as exc:
        raise card_error(card.path, f"{where}: {exc}") from None
    return ReadSource(src, path, digest, size, src.path)


def _read_frame(card: DatasetCard, read: ReadSource, max_mb: int):
    """The source file as a DataFrame of its own columns (CSV: every value as text)."""
    from ingest import tables

    where = read.source.field
    try:
        if read.source.reader == "parquet":
            frame = tables._read_parquet(read.path)
        else:
            data = tables._read_bytes(read.path, max_mb * 1024 * 1024)
            frame = tables._parse_csv(tables._decode(data, read.path), read.path)
    except SourceError as exc:
        raise card_error(card.path, f"{where}.reader ({read.source.reader}): {exc}") from None
    if len(frame) == 0:
        raise card_error(card.path, f"{where}: {read.source.label} has no rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    if read.source.rows is not None and len(frame) != read.source.rows:
        raise card_error(card.path, f"{where}.rows: {read.source.label} has {len(frame)} rows, "
                                    f"the card expects {read.source.rows}")
    return frame


def check_columns(card: DatasetCard, columns: list[str], name: str) -> None:
    """Every column the card names is in the file; else one line naming the first wrong field."""
    have = set(columns)
    for where, column in card.referenced():
        if column not in have:
            shown = ", ".join(columns[:_LIST_COLUMNS]) + (", …" if len(columns) > _LIST_COLUMNS else "")
            raise card_error(card.path, f"{where}: no column {column!r} in {name}; columns are {shown}")


def normalise(card: DatasetCard, frame, name: str):
    """One source's rows through the card: the normalised columns (round_order, ids and derived
    columns are added once all sources are read, by `_finish`)."""
    import pandas as pd

    from ingest import tables

    check_columns(card, list(frame.columns), name)
    n = len(frame)

    def values(column: str) -> list[Any]:
        return frame[column].tolist()

    def text(column: str, where: str, required: bool = False) -> list[Any]:
        out = [pd.NA if tables._is_blank(v) else str(tables._as_text(v)).strip() for v in values(column)]
        empty = next((row for row, v in enumerate(out, 1) if v is pd.NA or v == ""), None)
        if required and empty:
            raise card_error(card.path, f"{where}: row {empty} of {name} is empty")
        return [pd.NA if v == "" else v for v in out]

    def convert(column: str, where: str, parse: Callable[[Any], Any], what: str, required: bool) -> list[Any]:
        out = []
        for row, value in enumerate(values(column), 1):
            if tables._is_blank(value):
                if required:
                    raise card_error(card.path, f"{where}: row {row} of {name} is empty")
                out.append(None)
                continue
            try:
                out.append(parse(value))
            except (TypeError, ValueError):
                raise card_error(card.path, f"{where}: row {row} of {name}: {value!r} is not {what}") from None
        return out

    out: dict[str, Any] = {}
    out["result_id"] = text(card.id_column, "citation.id_column", required=True) if card.id_column else [pd.NA] * n
    for role, column in card.roles.items():
        where = f"{card.section_of(role)}.{role}"
        if role in ROLES["sizes"]:
            out[role] = convert(column, where, tables._int, "a whole number", required=False)
        else:
            out[role] = text(column, where, required=role in REQUIRED.get("dimensions", ()))
    m = card.measure
    out["result"] = convert(m.column, "measure.column", tables._float, "a number", required=True)
    units = [m.unit] * n if m.unit else text(m.unit_column, "measure.unit_column", required=True)
    out["units"] = units
    out["lower_is_better"] = [m.lower_is_better(u) for u in units]
    for key, s in card.secondary.items():
        if s.kind == "text":
            out[key] = text(s.column, f"{s.field}.column")
            continue
        out[key] = convert(s.column, f"{s.field}.column", tables._float, "a number", required=False)
        out[f"{key}_units"] = [s.unit if v is not None else pd.NA for v in out[key]] if s.unit else \
            text(s.unit_column, f"{s.field}.unit_column")
    for column in card.keep:
        out[column] = values(column)
    if card.url_column:
        out["result_url"] = text(card.url_column, "citation.url_column")
    elif card.url_template:
        out["result_url"] = _fill_template(card, frame, name)
    else:
        out["result_url"] = [pd.NA] * n
    out["source_file"] = [name] * n
    return pd.DataFrame(out)


def _fill_template(card: DatasetCard, frame, name: str) -> list[str]:
    """`citation.url_template` per row: each `{column}` replaced by the row's %-encoded value."""
    from ingest import tables

    out = []
    for row, record in enumerate(frame.to_dict("records"), 1):
        def value(match: re.Match) -> str:
            raw = record[match.group(1)]
            if tables._is_blank(raw):
                raise card_error(card.path, f"citation.url_template: row {row} of {name} has no {match.group(1)}")
            return urllib.parse.quote(str(tables._as_text(raw)).strip(), safe="/")

        out.append(_PLACEHOLDER.sub(value, card.url_template))
    return out


def _finish(card: DatasetCard, parts: list):
    """Concatenate the sources, then add what needs every row: round order, ids, derived columns, dtypes."""
    import pandas as pd

    from ingest import normalize

    table = pd.concat(parts, ignore_index=True)
    table["round_order"] = _round_orders(table["round"].tolist())
    if card.id_column is None:
        table["result_id"] = [f"{card.id}-{i:04d}" for i in range(1, len(table) + 1)]
    for name in card.derive:
        rule = {"accelerator_vendor": normalize.accelerator_vendor,
                "accelerator_family": normalize.accelerator_family}[name]
        table[name] = [pd.NA if v is pd.NA else rule(v) for v in table[DERIVABLE[name]]]
    table = table[card.output_columns()]
    dtypes = {"round_order": "Int64", "result": "float64", "lower_is_better": "boolean"}
    dtypes |= {r: "Int64" for r in ROLES["sizes"]}
    dtypes |= {k: ("float64" if s.kind == "number" else "string") for k, s in card.secondary.items()}
    for column in table.columns:
        if column in card.keep:
            table[column] = _infer(table[column])
        else:
            table[column] = table[column].astype(dtypes.get(column, "string"))
    return table


def _natural(label: str) -> list[Any]:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in re.split(r"(\d+)", label) if p]


def _round_orders(rounds: list[str]) -> list[int]:
    """MLPerf-style labels (v4.0, 5.1) sort by number (v4.0 -> 400); any others in natural order (1, 2, ...)."""
    from ingest import normalize

    try:
        return [normalize.round_order(normalize.round_label(r)) for r in rounds]
    except ValueError:
        ranks = {label: i for i, label in enumerate(sorted(set(rounds), key=_natural), 1)}
        return [ranks[r] for r in rounds]


def _infer(series):
    """A kept column's type: a Parquet column keeps its own; text (CSV) becomes whole numbers,
    numbers or booleans when every value reads as one, else stays text."""
    import pandas as pd

    from ingest import normalize, tables

    if pd.api.types.is_bool_dtype(series):
        return series.astype("boolean")
    if pd.api.types.is_integer_dtype(series):
        return series.astype("Int64")
    if pd.api.types.is_float_dtype(series):
        return series.astype("float64")
    raw = series.tolist()
    if any(not tables._is_blank(v) for v in raw):
        for parse, dtype in ((tables._int, "Int64"), (tables._float, "float64"), (normalize.parse_bool, "boolean")):
            try:
                parsed = [None if tables._is_blank(v) else parse(v) for v in raw]
            except (TypeError, ValueError):
                continue
            return pd.Series(parsed, dtype=object).astype(dtype)
    return series.map(lambda v: pd.NA if tables._is_blank(v) else str(tables._as_text(v))).astype("string")


def check_table(card: DatasetCard, table, name: str = "the table") -> None:
    """What the card says about values holds in the data: defaults, display values, aliases, directions."""

    def values_of(column: str) -> list[str]:
        return sorted({str(v) for v in table[column].dropna().tolist()})

    def shown(values: list[str]) -> str:
        return ", ".join(values[:12]) + (", …" if len(values) > 12 else "")

    for column, value in card.defaults.items():
        have = values_of(column)
        if value not in have:
            raise card_error(card.path, f"defaults.{column}: no value {value!r} in column {column} of {name}; "
                                        f"values are {shown(have)}")
    for column, values in card.order.items():
        have = set(values_of(column))
        if missing := [v for v in values if v not in have]:
            raise card_error(card.path, f"order.{column}: no value {missing[0]!r} in column {column} of {name}; "
                                        f"values are {shown(sorted(have))}")
    for column, mapping in card.display_values.items():
        have = set(values_of(column))
        for value in mapping:
            if value not in have:
                raise card_error(card.path, f"display.values.{column}.{value}: no value {value!r} in column {column} "
                                            f"of {name}; values are {shown(sorted(have))}")
    for i, alias in enumerate(card.aliases, 1):
        have = values_of(alias["column"])
        lowered = {v.casefold() for v in have}
        for value in alias["values"]:
            if value.casefold() not in lowered:
                raise card_error(card.path, f"alias[{i}].values: no value {value!r} in column {alias['column']} of "
                                            f"{name}; values are {shown(have)}")
        for prefix in alias["prefixes"]:
            if not any(v.casefold().startswith(prefix.casefold()) for v in have):
                raise card_error(card.path, f"alias[{i}].prefixes: no value of column {alias['column']} in {name} "
                                            f"starts with {prefix!r}")
    check_measure(card, table, name)


def check_measure(card: DatasetCard, table, name: str = "the table") -> None:
    """The measure is numbers, ranked in the direction the card gives each row.

    Unlike the value checks of `check_table`, this holds for any part of the data: the default
    ingest applies only this (and `check_columns`), since a sources file may list fewer rounds
    than the card describes, and a value a card names may be in a round that file leaves out."""
    import pandas as pd

    if "lower_is_better" in table.columns and "units" in table.columns:
        rule = [card.measure.lower_is_better(str(u)) for u in table["units"].tolist()]
        if list(table["lower_is_better"].astype(bool)) != rule:
            row = next(i for i, (a, b) in enumerate(zip(table["lower_is_better"], rule), 1) if bool(a) != b)
            raise card_error(card.path, f"measure.lower_units: row {row} of {name} is "
                                        f"{'lower' if not rule[row - 1] else 'higher'}-is-better in the table, "
                                        "the card's direction says otherwise")
    if not pd.api.types.is_numeric_dtype(table[measure_column(card, table)]):
        raise card_error(card.path, f"measure.column: {name} holds values that are not numbers")


def measure_column(card: DatasetCard, table) -> str:
    """The measure's column in `table`: `result` in a normalised table, the card's column in a described one."""
    return "result" if "result" in table.columns else card.measure.column


def read_card_table(card: DatasetCard, settings, mirror: str | None = None, progress: bool = False):
    """Read and check every source of a card: (normalised table, the sources as read)."""
    if card.describes_default_table:
        return _describe_default(card, settings, mirror), []
    reads, parts = [], []
    for src in card.sources:
        read = _locate(card, src, settings, mirror, progress)
        frame = _read_frame(card, read, settings.max_source_mb)
        parts.append(normalise(card, frame, src.label))
        reads.append(read)
    table = _finish(card, parts)
    check_table(card, table, ", ".join(dict.fromkeys(r.source.label for r in reads)))
    return table, reads


def _describe_default(card: DatasetCard, settings, mirror: str | None):
    """A card of the default table (reader "sources"): check it against the table the default ingest builds."""
    from ingest.pipeline import _read_tables

    src = card.sources[0]
    base = card.path.parent if src.root == "card" else PROJECT_ROOT
    if src.root == "mirror":
        raise card_error(card.path, f"{src.field}.root: a sources file is read from the clone or beside the card")
    sources_file = base / src.path
    if not sources_file.is_file():
        raise card_error(card.path, f"{src.field}.path: no such file {sources_file}")
    local = dict(settings, sources=str(sources_file))
    from ingest.settings import Settings

    try:
        _, _, files = sources_mod.gather(Settings(local), mirror, progress=False)
        table = _read_tables([f for f in files if f.source.kind == "results"], settings.max_source_mb)
    except SourceError as exc:
        raise card_error(card.path, f"{src.field}: {exc}") from None
    check_columns(card, list(table.columns), store_mod.TABLE)
    check_table(card, table, store_mod.TABLE)
    return table
