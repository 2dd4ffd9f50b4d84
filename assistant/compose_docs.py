"""Answers from documents: what a term means (the guide), and a figure a source states.

Extractive only: every sentence shown is quoted from a retrieved passage and cited, and a
figure from commentary is labelled as its author's claim, never as a table result. When no
retrieved sentence states a figure of the kind asked for, the answer says so instead of quoting
text that does not answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from assistant import lexicon, templates
from assistant.answer import Answer, Passage
from assistant.compose import _answer, _keywords, doc_citations
from assistant.parsed import Parsed

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])|\n+")
_HEADING = re.compile(r"^#+\s*(.+)\n?", re.M)
# What a figure of each kind looks like in a sentence (number extraction, not intent).
# A number, not part of a word or a round label ("v6.0" holds no figure).
_NUM = r"(?<![\w.,])(?:\d[\d,.\u00a0]*\d|\d)(?![\w]|\.\d)"
_SIZE = r"(?<![\w.,])\d+(?:\.\d+)?[BM]\b"  # a model's size in parameters: "671B", "8B"
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
    "count": re.compile(rf"(?:{_NUM})(?:\s*(?:billion|million|trillion))?|{_SIZE}", re.I),
    "amount": re.compile(rf"(?:{_NUM})(?:\s*(?:billion|million|trillion|TB/s|GB/s|TB|GB|MB|%|x|×))?|{_SIZE}", re.I),
    # A person or an organisation: two or more words written like names ("Miro Hodak", "University of
    # Florida"), not product names in capitals ("MLPerf Inference", "AMD Instinct").
    "person": re.compile(r"\b[A-Z][a-z]+(?:\s(?:of|de|van|von)\s[A-Z][a-z]+|\s[A-Z][a-z'’-]+)+"),
}
_SAYS = re.compile(r"\b(said|says|quoted|according to|co-chair|chair|president|ceo|cto|executive|director|"
                   r"professor|author|by)\b", re.I)
# Numbers that belong to a name, not a figure: a round ("MLPerf Inference 6.0") or a model ("Llama 2 70B").
_NOT_A_FIGURE = re.compile(r"^\d\.\d$")
_MODEL_SIZE_AFTER = re.compile(r"^\s*\d+(?:\.\d+)?[bB]\b")
# When no sentence states the kind asked, a near kind may ("scaling efficiency" is a percentage).
_NEAR = {"efficiency": ("share",), "ratio": ("share",), "share": ("ratio",), "tokens": ("samples",)}
# Which figure a question asks for, from its tags: the first that applies wins.
_ASKED = [("measure", "ratio", "ratio"), ("measure", "share", "share"), ("measure", "money", "money"),
          ("measure", "efficiency", "efficiency"), ("measure", "latency", "latency"), ("measure", "tokens", "tokens"),
          ("measure", "samples", "samples"), ("measure", "queries", "samples"), ("measure", "power", "power"),
          ("operation", "count", "count"), ("measure", "amount", "amount"), ("measure", "per_accelerator", "amount"),
          ("cue", "person", "person")]


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


def _figure_in(sentence: str, figure: str) -> re.Match[str] | None:
    """The first figure of the kind in the sentence that is not part of a round or model name."""
    for match in FIGURES[figure].finditer(sentence):
        text = match.group(0).strip()
        if figure in ("count", "amount") and (_NOT_A_FIGURE.match(text) or _MODEL_SIZE_AFTER.match(
                sentence[match.end():])):
            continue
        return match
    return None


def _stem(word: str) -> str:
    """A crude stem, enough to match "parameters" with "parameter" and "submissions" with "submission"."""
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _keywords(text)}


def _question_keys(question: str, parsed: Parsed) -> set[str]:
    """The question's words, plus the English words of its tags, so a Swedish question
    ("hur många resultat") weighs the English sentence that says "results"."""
    keys = _keywords(question)
    if parsed.reading is not None and parsed.language != lexicon.BASE_LANGUAGE:
        english = lexicon.load(lexicon.BASE_LANGUAGE)
        for tag in parsed.reading.tags:
            for phrase in english.phrases(tag.kind, tag.value):
                if " " not in phrase and "*" not in phrase and phrase.isalpha():
                    keys.add(phrase)
    return keys


def _best_quote(keys: set[str], passages: list[Passage], figure: str, names: list[str]) -> Quote | None:
    """The sentence with a figure of the kind that best answers: the question's words weighted by
    how rare they are among the candidate sentences ("transistors" outweighs "MLPerf"), the names
    asked about, the figure followed by what was asked ("14 partners"), a quote for a person."""
    keys = {_stem(k) for k in keys}
    candidates = [(p, s) for p in passages for s in dict.fromkeys(_sentences(p.text))]
    df: dict[str, int] = {}
    for _, s in candidates:
        for w in _stems(s) & keys:
            df[w] = df.get(w, 0) + 1
    weight = {w: math.log(1 + len(candidates) / n) for w, n in df.items()}
    best: tuple[float, int, Quote] | None = None
    rank = 0
    for p, sentence in candidates:
        head = (p.title + " " + p.source + " " + p.id.replace("-", " ").replace("_", " ")).lower()
        about = any(n.lower() in (p.text + " " + head).lower() for n in names)  # the chunk is about a name
        written = any(n.lower() in head for n in names)  # ... or was written by the publisher named
        match = _figure_in(sentence, figure)
        if not match:
            continue
        words = _stems(sentence)
        score = sum(weight.get(w, 0.0) for w in keys & words) + 2 * sum(n.lower() in sentence.lower() for n in names)
        score += 1.0 * about + 2.0 * written
        after = sentence[match.end():match.end() + 30].lower()
        score += 2 * sum(1 for k in keys if k in after)  # "14 partners": the figure counts what was asked
        if figure == "person" and _SAYS.search(sentence):
            score += 2
        rank += 1
        if best is None or score > best[0]:
            best = (score, -rank, Quote(sentence, match.group(0).strip(), p))
    return best[2] if best and best[0] > 0 else None


def figure_answer(question: str, passages: list[Passage], parsed: Parsed, figure: str) -> Answer:
    """"According to <source>, <figure>": the figure of the kind asked, from the retrieved
    sentence that states it and best shares the question's words; quoted, cited, labelled."""
    lang = parsed.language
    names = [m.text for m in parsed.entities] + (parsed.reading.publishers if parsed.reading else [])
    keys = _question_keys(question, parsed)
    passages = [p for p in passages if p.doc_kind != "guide"] or passages  # our guide is nobody's claim
    quote = None
    for kind in (figure, *_NEAR.get(figure, ())):
        quote = quote or _best_quote(keys, passages, kind, names)
    if quote is None:
        text = templates.text(lang, "docs", "no_figure")
        return _answer(question, text, status="no_data", passages=passages, citations=doc_citations(passages),
                       notes=[templates.text(lang, "docs", "claims_note")])
    p = quote.passage
    text = templates.text(lang, "docs", "figure", source=_source(p), figure=quote.figure, sentence=quote.sentence,
                          title=p.title or p.id)
    return _answer(question, text, passages=passages, citations=doc_citations([p] + passages),
                   notes=[templates.text(lang, "docs", "claims_note")])


def _sections(passages: list[Passage]) -> list[tuple[str, str, Passage]]:
    """(heading, body, passage) of every guide section in the passages, each once."""
    out: list[tuple[str, str, Passage]] = []
    seen: set[tuple[str | None, str, str]] = set()
    for p in passages:
        if p.doc_kind != "guide":
            continue
        for chunk in re.split(r"(?m)^(?=#+\s)", p.text):
            m = _HEADING.match(chunk)
            head = m.group(1).strip() if m else ""
            body = chunk[m.end():].strip() if m else chunk.strip()
            key = (p.language, head, body[:80])
            if body and key not in seen:
                seen.add(key)
                out.append((head, body, p))
    return out


def define_answer(question: str, passages: list[Passage], parsed: Parsed, facts: list[str]) -> Answer:
    """A term explained by the guide in the question's language: the section whose heading is the
    term (else the one that best shares the question's words), its first sentences quoted and
    cited, plus what the table adds ("first appears in v6.0; 14 results in v6.1")."""
    lang = parsed.language
    sections = _sections(passages)
    if not sections:
        return _answer(question, templates.text(lang, "docs", "no_guide"), status="no_data", passages=passages)
    terms = [m.values[0].lower() for m in parsed.entities if m.values]
    keys = _question_keys(question, parsed)

    def score(section: tuple[str, str, Passage]) -> int:
        head, body, p = section
        named = any(head.lower().startswith(t) or (head and t.startswith(head.lower())) for t in terms)
        return 10 * named + 3 * len(keys & _keywords(head)) + len(keys & _keywords(body[:400])) + 2 * (
            p.language == lang)

    head, body, p = max(sections, key=score)
    sentences = _sentences(body)[:2] or [body[:300]]
    text = templates.text(lang, "docs", "define", quote=" ".join(sentences), title=p.title or p.id)
    if facts:
        text += " " + " ".join(facts)
    return _answer(question, text, passages=[p] + [q for q in passages if q is not p],
                   citations=doc_citations([p]), notes=[templates.text(lang, "docs", "guide_note")])
