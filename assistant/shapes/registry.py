"""The shape registry: each question shape is one function that turns a reading into a spec.

A shape declares when it applies (a predicate over the `Reading`'s tags and entities) and how
it builds the `QuerySpec`. Shapes are tried in priority order and the first that applies
builds the answer's spec, so which shape wins is a number in one table (`docs/reader.md`
lists them, and a test checks that every registered shape is documented there), not the order
of `if`s spread over several modules.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from assistant.catalog import Catalog
from assistant.parsed import Parsed
from assistant.reader import Reading


@dataclass
class Context:
    """Everything a shape may read: the question's reading, what it named, and the catalog."""

    reading: Reading
    parsed: Parsed
    catalog: Catalog
    explicit: dict[str, list[str]]  # filters the question named (no round)
    rounds: list[str]  # rounds named, oldest first
    metric: str = "result"
    limit: int | None = None
    side_column: str | None = None
    count_column: str | None = None
    two_sides: bool = False  # two entities of one column were named ("AMD ... NVIDIA")
    inherited_column: str | None = None  # second part of a two-part question: what the first part counted

    @property
    def benchmarks(self) -> list[str]:
        return list(self.explicit.get("benchmark") or [])

    def say(self, en: str, sv: str) -> str:
        return self.parsed.say(en, sv)


@dataclass(frozen=True)
class Shape:
    name: str
    priority: int  # lower is tried first
    applies: Callable[[Context], bool]
    build: Callable[[Context], Parsed]
    example: str  # an English question of this shape (docs and tests use it)
    doc: str


REGISTRY: dict[str, Shape] = {}
EXAMPLES = Path(__file__).resolve().parent / "examples.toml"


def shape(name: str, *, priority: int,
          applies: Callable[[Context], bool]) -> Callable[[Callable[[Context], Parsed]], Callable[[Context], Parsed]]:
    """Register `build` as the shape `name` (its docstring's first line documents it, and
    `examples.toml` holds its example question)."""

    def register(build: Callable[[Context], Parsed]) -> Callable[[Context], Parsed]:
        if name in REGISTRY:
            raise ValueError(f"shape {name!r} registered twice")
        doc = (build.__doc__ or "").strip().splitlines()[0] if build.__doc__ else ""
        REGISTRY[name] = Shape(name, priority, applies, build, _examples().get(name, ""), doc)
        return build

    return register


@lru_cache(maxsize=1)
def _examples() -> dict[str, str]:
    with EXAMPLES.open("rb") as fh:
        return tomllib.load(fh)["example"]


def ordered() -> list[Shape]:
    _load()
    return sorted(REGISTRY.values(), key=lambda s: s.priority)


def dispatch(ctx: Context) -> Parsed:
    """The first shape (by priority) that applies builds the spec."""
    for candidate in ordered():
        if candidate.applies(ctx):
            return run(candidate.name, ctx)
    raise LookupError("no shape applies")  # the fallback shape always applies


def run(name: str, ctx: Context) -> Parsed:
    """Build with the named shape (a follow-up re-runs the previous turn's shape)."""
    _load()
    chosen = REGISTRY[name]
    ctx.parsed.shape = ctx.parsed.shape or chosen.name
    ctx.parsed.order = ctx.catalog.order
    ctx.parsed.display, ctx.parsed.display_values = ctx.catalog.display, ctx.catalog.display_values
    ctx.parsed.decimals = ctx.catalog.decimals
    return chosen.build(ctx)


def _load() -> None:
    """Import the shape modules once (they register themselves)."""
    from assistant.shapes import counting, documents, entity, fallback, ranking  # noqa: F401
