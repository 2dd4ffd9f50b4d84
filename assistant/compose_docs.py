"""Answers from documents: what a term means (the guide), and a figure a source states.

Extractive only: every sentence shown is quoted from a retrieved passage and cited, and a
figure from commentary is labelled as its author's claim, never as a table result. When no
retrieved sentence states a figure of the kind asked for, the answer says so instead of quoting
text that does not answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant import templates
from assistant.answer import Answer, Passage
from assistant.compose import _answer, _keywords, doc_citations
from assistant.parsed import Parsed

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])|\n+")
_HEADING = re.compile(r"^#+\s*(.+)$", re.M)
# What a figure of each kind looks like in a sentence (number extraction, not intent).
# A number, not part of a word or a round label ("v6.0" holds no figure).
_NUM = r"(?<![\w.,])(?:\d[\d,.\u00a0]*\d|\d)(?![\w]|\.\d)"
FIGURES: dict[str, re.Pattern[str]] = {
    "ratio": re.compile(rf"(?:{_NUM})\s*(?:x|×|times|-fold)\b|(?:{_NUM})\s*%", re.I),
    "share": re.compile(rf"(?:{_NUM})\s*(?:%|percent|per cent|procent)", re.I),
    "money": re.compile(rf"(?:US\$|\$|€|£)\s*(?:{_NUM})(?:\s*(?:billion|million|bn|m|miljarder|miljoner))?|"
                        rf"(?:{_NUM})\s*(?:billion|million)\s*(?:dollars|USD)", re.I),
    "tokens": re.compile(rf"(?:{_NUM})\s*(?:k|K|M)?\s*(?:tokens?|tok)(?:/s|\s*per\s*second|/sec)?", re.I),
    "samples": re.compile(rf"(?:{_NUM})\s*(?:samples?|queries)(?:/s| per second)?", re.I),
    "efficiency": re.compile(rf"(?:{_NUM}).{{0,40}}per\s*watt|(?:{_NUM})\s*\S+/W\b", re.I),
    "power": re.compile(rf"(?:{_NUM})\s*(?:kW|W|watts?)\b", re.I),
    "latency": re.compile(rf"(?:{_NUM})\s*(?:ms|milliseconds?|seconds?|s)\b", re.I),
    "count": re.compile(rf"(?:{_NUM})"),
}
# When no sentence states the kind asked, a near kind may ("scaling efficiency" is a percentage).
_NEAR = {"efficiency": ("share",), "ratio": ("share",), "share": ("ratio",), "tokens": ("samples",)}
# Which figure a question asks for, from its tags: the first that applies wins.
_ASKED = [("measure", "ratio", "ratio"), ("measure", "share", "share"), ("measure", "money", "money"),
          ("measure", "efficiency", "efficiency"), ("measure", "latency", "latency"), ("measure", "tokens", "tokens"),
          ("measure", "samples", "samples"), ("measure", "queries", "samples"), ("measure", "power", "power"),
          ("operation", "count", "count")]


@dataclass(frozen=True)
class Quote:
    sentence: str
    figure: str
    passage: Passage


def asked_figure(parsed: Parsed) -> str | None:
    """The kind of figure a question asks a document for, or None when it asks no figure."""
    r = parsed.reading
    if r is None:
        return None
    return next((figure for kind, value, figure in _ASKED if r.has(kind, value)), None)


def _source(p: Passage) -> str:
    source = p.source or ""
    if not source or source.lower().startswith(("unknown", "resultsqa")):
        return p.title or p.id
    return source.split(" (")[0]


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*•#|\t") for s in _SENTENCE.split(text) if len(s.strip()) > 20]


def _best_quote(question: str, passages: list[Passage], figure: str, names: list[str]) -> Quote | None:
    keys = _keywords(question)
    best: tuple[float, int, Quote] | None = None
    rank = 0
    for p in passages:
        for sentence in dict.fromkeys(_sentences(p.text)):
            match = FIGURES[figure].search(sentence)
            if not match:
                continue
            words = _keywords(sentence)
            score = len(keys & words) + 2 * sum(n.lower() in sentence.lower() for n in names)
            after = sentence[match.end():match.end() + 30].lower()
            score += 2 * sum(1 for k in keys if k in after)  # "14 partners": the figure counts what was asked
            rank += 1
            if best is None or score > best[0]:
                best = (score, -rank, Quote(sentence, match.group(0).strip(), p))
    return best[2] if best and best[0] > 0 else None


def figure_answer(question: str, passages: list[Passage], parsed: Parsed, figure: str) -> Answer:
    """"According to <source>, <figure>": the figure of the kind asked, from the retrieved
    sentence that states it and best shares the question's words; quoted, cited, labelled."""
    lang = parsed.language
    names = [m.text for m in parsed.entities]
    quote = None
    for kind in (figure, *_NEAR.get(figure, ())):
        quote = quote or _best_quote(question, passages, kind, names)
    if quote is None:
        text = templates.text(lang, "docs", "no_figure")
        return _answer(question, text, status="no_data", passages=passages, citations=doc_citations(passages),
                       notes=[templates.text(lang, "docs", "claims_note")])
    p = quote.passage
    text = templates.text(lang, "docs", "figure", source=_source(p), figure=quote.figure, sentence=quote.sentence,
                          title=p.title or p.id)
    return _answer(question, text, passages=passages, citations=doc_citations([p] + passages),
                   notes=[templates.text(lang, "docs", "claims_note")])


def _section(text: str, term: str) -> str:
    """The guide section about `term` inside a chunk (its heading names it), else the chunk."""
    sections = re.split(r"(?m)^#+\s*", text)
    want = term.lower()
    for s in sections:
        head, _, body = s.partition("\n")
        if want and (head.strip().lower() == want or want in head.lower()):
            return body.strip()
    return text.strip()


def define_answer(question: str, passages: list[Passage], parsed: Parsed, facts: list[str]) -> Answer:
    """A term explained by the guide in the question's language (its first sentences, quoted
    and cited), plus what the table adds ("first in v6.0; 14 results in v6.1")."""
    lang = parsed.language
    guide = [p for p in passages if p.doc_kind == "guide"]
    if not guide:
        return _answer(question, templates.text(lang, "docs", "no_guide"), status="no_data", passages=passages)
    term = next((m.text for m in parsed.entities), "")
    ordered = sorted(guide, key=lambda p: (p.language != lang, not _mentions(p.text, term)))
    p = ordered[0]
    sentences = _sentences(_section(p.text, term))[:2]
    text = templates.text(lang, "docs", "define", quote=" ".join(sentences), title=p.title or p.id)
    if facts:
        text += " " + " ".join(facts)
    return _answer(question, text, passages=[p] + [q for q in passages if q is not p],
                   citations=doc_citations([p]), notes=[templates.text(lang, "docs", "guide_note")])


def _mentions(text: str, term: str) -> bool:
    return bool(term) and any(h.strip().lower() == term.lower() for h in _HEADING.findall(text))
