"""Answer and suggestion templates, one TOML file per language with the same keys.

Sentences a person reads are data, so a new language is a new file and a wording change is
not a code change; `suggestion()` fills a template with values from the data.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = "en"


@lru_cache(maxsize=8)
def load(language: str) -> dict[str, dict[str, str]]:
    path = HERE / f"{language}.toml"
    if not path.is_file():
        path = HERE / f"{BASE}.toml"
    with path.open("rb") as fh:
        return tomllib.load(fh)


def languages() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.toml"))


def suggestion(language: str, key: str, **values: str) -> str:
    """A suggested question of kind `key`, in `language` (English when it has no such file)."""
    return load(language)["suggestion"][key].format(**values)


def text(language: str, section: str, key: str, **values: object) -> str:
    """A sentence template of `section.key` in `language`, filled with `values`."""
    table = load(language).get(section) or load(BASE)[section]
    return table.get(key, load(BASE)[section][key]).format(**values)
