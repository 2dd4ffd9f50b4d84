"""Caveats as codes with parameters, rendered in the answer's language.

Why a code and not a sentence: a caveat is produced by the executor and the semantics rules, in
no particular language, and read by people in English or Swedish, by models (tool results) and
by API clients. Each is a `Note`: a code from the `[note]` section of the templates
(`assistant/templates/<language>.toml`) and its parameters. Its own text is the English
wording, so it can travel anywhere a string does (tool results, JSON, tests); `localize` renders
each note a reader sees in their language from its code, never by parsing the English back. An
`Answer` keeps plain strings, so notes issued here are also remembered by their exact text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Iterable

from assistant import templates

BASE = "en"
REMEMBERED = 4096  # notes issued recently, so their text (an Answer keeps strings) still finds its code


class Localized(str):
    """A parameter worded per language ("1 node" / "1 nod"): its text is the English one."""

    by_language: dict[str, str]

    def __new__(cls, **by_language: str) -> "Localized":
        value = super().__new__(cls, by_language[BASE])
        value.by_language = dict(by_language)
        return value

    def to(self, language: str) -> str:
        return self.by_language.get(language, str(self))


class Note(str):
    """A caveat: its English text, plus the code and parameters that render it in any language."""

    code: str
    params: dict[str, str]  # each a plain value, a Localized one, or a Note (rendered in the same language)

    def __new__(cls, code: str, **params: object) -> "Note":
        values = {key: value if isinstance(value, (Localized, Note)) else str(value) for key, value in params.items()}
        note = super().__new__(cls, templates.text(BASE, "note", code, **values))
        note.code, note.params = code, values
        _remember(note)
        return note

    def render(self, language: str) -> str:
        """The note in `language` (its parameters too: a nested note or a worded value)."""
        values = {key: value.to(language) if isinstance(value, Localized) else
                  value.render(language) if isinstance(value, Note) else value for key, value in self.params.items()}
        return templates.text(language, "note", self.code, **values)


_ISSUED: OrderedDict[str, Note] = OrderedDict()
_LOCK = threading.Lock()


def _remember(note: Note) -> None:
    with _LOCK:
        _ISSUED[str(note)] = note
        _ISSUED.move_to_end(str(note))
        while len(_ISSUED) > REMEMBERED:
            _ISSUED.popitem(last=False)


def localize(notes: Iterable[str], language: str) -> list[str]:
    """Each note in `language`: a `Note` (or the text of one issued here) from its code's template;
    any other text (already written in the reader's language) as it is."""
    if language == BASE:
        return [str(n) for n in notes]
    out = []
    for text in notes:
        if isinstance(text, Note):
            note: Note | None = text
        else:
            with _LOCK:
                note = _ISSUED.get(str(text))
        out.append(note.render(language) if note is not None else str(text))
    return out
