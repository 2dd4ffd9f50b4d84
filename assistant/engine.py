"""The engine: one store generation's table, catalog and retriever behind one object.

Why cached per generation: loading the parquet table and opening Chroma costs far more than
answering a question, so `get_engine` keeps one `Engine` per store and reloads only when the
store's `current` generation changes (an ingest swapped it).
"""

from __future__ import annotations

import threading
from typing import Any

from assistant import datasets as datasets_mod
from assistant.answer import Passage
from assistant.datasets import Dataset, Router
from assistant.retrieval import Want
from ingest import settings as settings_mod


class EngineUnavailable(Exception):
    """No usable store: the message says how to fix it."""


def for_answering(table: Any) -> Any:
    """The table with its text columns as plain Python objects.

    Why: pandas 3 reads text as Arrow-backed strings, and taking a handful of rows from 28 Arrow
    columns costs milliseconds, most of an offline answer. Object columns take rows several
    times faster, and filters cost the same. Values and missing values are unchanged.
    """
    if table is None or not hasattr(table, "dtypes"):
        return table
    text = [c for c, dtype in table.dtypes.items() if str(dtype) in ("str", "string")]
    return table.astype({c: object for c in text}) if text else table


class Engine:
    """Table + catalog + retrieval for one store generation (or a bare table in tests)."""

    def __init__(self, table: Any, settings: settings_mod.Settings | None = None, store: Any = None,
                 generation: str | None = None, dataset: Dataset | None = None):
        self.table = for_answering(table)
        self.settings = settings if settings is not None else settings_mod.load()
        self.store = store
        self.generation = generation
        self.dataset = dataset  # None: the default table
        self._catalog: Any = None
        self._router: Router | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_table(cls, df: Any, settings: settings_mod.Settings | None = None) -> "Engine":
        """An engine over a DataFrame, with no store (search returns [])."""
        return cls(df, settings=settings, store=None, generation=None)

    @property
    def catalog(self) -> Any:
        """Built on first use: the offline answerer needs it, the agent's query tool may not."""
        if self._catalog is None:
            with self._lock:
                if self._catalog is None:
                    from assistant.catalog import Catalog

                    if self.dataset is None:
                        catalog = Catalog.from_table(self.table)
                    else:  # a card's table: its own names and words, not the default table's
                        catalog = Catalog.from_table(self.table, aliases_file=None)
                        catalog.add_aliases(self.dataset.aliases)
                        catalog.use_chip_prefixes(self.dataset.chip_prefixes)
                        catalog.words = self.dataset.words
                        catalog.describe_with(self.dataset)
                    documents = (self.store.manifest or {}).get("document_ids") if self.store is not None else None
                    catalog.add_publishers(documents or [])
                    self._catalog = catalog
        return self._catalog

    @property
    def router(self) -> Router:
        """The engines of every table in this store generation, and which answers a question."""
        if self._router is None:
            others = []
            if self.store is not None and self.dataset is None:
                others = [Engine(table, settings=self.settings, store=self.store, generation=self.generation,
                                 dataset=dataset) for dataset, table in datasets_mod.in_store(self.store)]
            self._router = Router(self, others)
        return self._router

    def with_dataset(self, dataset: Dataset, table: Any) -> "Engine":
        """An engine over a card's table beside this one (tests; the router builds its own)."""
        return Engine(table, settings=self.settings, store=self.store, generation=self.generation, dataset=dataset)

    def execute(self, spec: Any) -> Any:
        """Validate and run a `QuerySpec` with the settings' row cap, time box and default division."""
        from assistant.executor import execute

        return execute(spec, self.table, max_rows=int(self.settings.max_rows),
                       timeout_ms=int(self.settings.query_timeout_ms),
                       default_division=self.settings.default_division or None)

    def validate(self, spec: Any) -> Any:
        from assistant.executor import validate

        return validate(spec, self.table)

    def search(self, query: str, k: int | None = None, rounds: list[str] | None = None,
               kind: str = "doc", want: Want | None = None, doc_kind: str | None = None) -> list[Passage]:
        from assistant.retrieval import search

        if self.store is None:
            return []
        # A card table's own documents, never the default's; but the guide (what the words mean) is everyone's.
        if kind == "doc" and self.dataset is not None and doc_kind != "guide":
            kind = f"doc:{self.dataset.id}"
        return search(self.store, query, int(k or self.settings.retrieval_k), rounds=rounds, kind=kind, want=want,
                      doc_kind=doc_kind)

    def describe(self) -> dict[str, Any]:
        """What the data holds, for the agent's describe tool and the UI sidebar."""
        from ingest.schema import COLUMNS

        df = self.table
        order = "round_order" if "round_order" in df.columns else "round"
        rounds = df[["round", order]].drop_duplicates().sort_values(order)["round"].astype(str).tolist() \
            if "round" in df.columns else []
        rows_per_round = {r: int(n) for r, n in df.groupby("round").size().items()} if rounds else {}
        benchmarks = {r: sorted(df.loc[df["round"] == r, "benchmark"].dropna().astype(str).unique().tolist())
                      for r in rounds} if "benchmark" in df.columns else {}
        units = sorted(df["units"].dropna().astype(str).unique().tolist()) if "units" in df.columns else []
        return {
            "rows": int(len(df)),
            "rounds": rounds,
            "latest_round": rounds[-1] if rounds else None,
            "rows_per_round": rows_per_round,
            "benchmarks_per_round": benchmarks,
            "units": units,
            "columns": [{"name": c.name, "help": c.help, "filterable": c.filterable}
                        for c in COLUMNS if c.name in df.columns],
            "generation": self.generation,
        }


_CACHE: dict[tuple[str, str | None], tuple[str, Engine]] = {}
_CACHE_LOCK = threading.Lock()

_FIX = "run `resultsqa ingest` to build it (see `resultsqa status`)"


def get_engine(settings: settings_mod.Settings | None = None) -> Engine:
    """The engine of the store's current generation, reused until an ingest swaps `current`."""
    from ingest.store import StoreMissing, open_store

    settings = settings if settings is not None else settings_mod.load()
    root, key, marker = _where(settings)
    if marker is None:
        raise EngineUnavailable(f"No index found at {root}: {_FIX}.")
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] == marker:
            return hit[1]
        try:
            store = open_store(settings)
            table = store.table()
        except StoreMissing as exc:
            raise EngineUnavailable(f"No usable index at {root} ({exc}).") from exc
        except (OSError, ValueError) as exc:
            raise EngineUnavailable(f"The index at {root} cannot be read ({exc}): {_FIX}.") from exc
        if table is None or len(table) == 0:
            raise EngineUnavailable(f"The index at {root} holds no results: {_FIX}.")
        engine = Engine(table, settings=settings, store=store, generation=str(store.generation))
        _open_vectors(store)
        _CACHE[key] = (marker, engine)
        return engine


def _open_vectors(store: Any) -> None:
    """Open the vector collection with the engine, so it happens wherever engines load (a
    thread, in the API), never on the event loop where answers run. Retrieval is optional for
    numbers: a collection that will not open is logged, and searches report it later."""
    import logging

    try:
        store.collection()
    except Exception as exc:  # noqa: BLE001 - any Chroma failure leaves table answers working
        logging.getLogger("resultsqa.engine").warning("vector collection not opened: %s", exc)


def _where(settings: settings_mod.Settings) -> tuple[Any, tuple[str, str | None], str | None]:
    """(store root, cache key, current generation or None): a readlink, no parquet or Chroma."""
    from ingest.store import current_generation, store_root

    root = store_root(settings)
    gen = current_generation(root)
    return root, (str(root), settings.get("chroma_url")), None if gen is None else str(gen)


def is_loaded(settings: settings_mod.Settings | None = None) -> bool:
    """True when `get_engine` would return at once: the current generation's engine is cached.
    Cheap (a readlink and a dict lookup), never loads and never waits for a lock."""
    _, key, marker = _where(settings if settings is not None else settings_mod.load())
    hit = _CACHE.get(key)
    return marker is not None and hit is not None and hit[0] == marker


def clear_cache() -> None:
    """Forget cached engines (tests; a server after deleting a store)."""
    with _CACHE_LOCK:
        _CACHE.clear()
