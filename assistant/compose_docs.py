"""Answers from documents: what a term means (the guide), and a figure a source states.

Extractive only: every sentence shown is quoted from a retrieved passage and cited, and a
figure from commentary is labelled as its author's claim, never as a table result. When no
retrieved sentence states a figure of the kind asked for, the answer says so instead of quoting
text that does not answer.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from assistant import glossary, lexicon, templates
from assistant.answer import Answer, Passage
from assistant.catalog import Catalog
from assistant.compose import _answer, _clips, _keywords, _shared, doc_citations, stem
from assistant.names import same_name
from assistant.parsed import Parsed
from assistant.reader import Reading
from assistant.retrieval import doc_parts
from assistant.shapes import words
from assistant.shapes.words import NAMED_COLUMNS, ratios
from assistant.shapes.documents import UNIT_MEASURES

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])|\n+")
_HEADING = re.compile(r"^#+\s*(.+)\n?", re.M)
# What a figure of each kind looks like in a sentence (number extraction, not intent).
# A number, not part of a word or a round label ("v6.0" holds no figure).
_NUM = r"(?<![\w.,])(?<![A-Za-z]-)(?:\d[\d,.\u00a0]*\d|\d)(?![\w]|\.\d)"
_SIZE = r"(?<![\w.,])\d+(?:\.\d+)?[BM]\b"  # a model's size in parameters: "671B", "8B"
# A quantity written with its unit attached: "8TB/s", "288GB", "10PFLOPS", "700W".
_UNIT_ATTACHED = r"(?<![\w.,])\d+(?:[.,]\d+)?(?:TB/s|GB/s|TB|GB|MB|PFLOPS|TFLOPS|kW|W)\b"
# A number in thousands or millions, the letter attached or not: "648k tok/s", "1.2 M tokens".
_SCALED = rf"(?:(?<![\w.,])\d+(?:[.,]\d+)?[kKM]|(?:{_NUM})\s*(?:k|K|M)?)"
# A ratio written with its "x" attached: "5x shorter", "4,4x lower", "2.5×".
_TIMES_ATTACHED = r"(?<![\w.,])\d+(?:[.,]\d+)?[x×](?![\w])"
def _number_words() -> dict[int, tuple[str, ...]]:
    """The lexicons' number words by value ("three", "tre" for 3)."""
    out: dict[int, tuple[str, ...]] = {}
    for language in ("en", "sv"):
        for word, value in lexicon.load(language).numbers.items():
            out[value] = out.get(value, ()) + (word,)
    return out


_NUMBER_WORDS = _number_words()
# A small count written as a word before what it counts ("nine OEMs", "tre servrar"), from the
# lexicons' number words (one/en/ett left out: "one of the", "en av").
_COUNT_WORDS = "|".join(sorted({w for n, ws in _NUMBER_WORDS.items() if 2 <= n <= 20 for w in ws},
                               key=len, reverse=True))
_COUNT_WORD = rf"\b(?:{_COUNT_WORDS})\b(?=\s+[^\W\d_])"
# Month names, English and Swedish, whole or short, for a date a document states ("September 9th
# 2025", "9 april 2026", "Apr 01"); never an organisation's name.
_MONTH_NAMES = list(calendar.month_name)[1:] + ["januari", "februari", "mars", "maj", "juni", "juli", "augusti",
                                                "oktober"] + list(calendar.month_abbr)[1:] + ["Sept"]
_MONTHS = "|".join(_MONTH_NAMES)
# One word of an organisation's name: capitalised, its hyphenated parts too ("AI-generated" is "AI").
_NAME_WORD = r"[A-Z][A-Za-z0-9&'’]*(?:[.-][A-Z][A-Za-z0-9]*)*"
# A word of a person's name: capitalised, then lower case ("Nanduri", "O'Neil", "Jean-Luc"); not a
# product's letter before a hyphen ("Pro B-Series").
_NAME_PART = r"[A-Z](?:['’][A-Z])?[a-z]+(?:-[A-Z]?[a-z]+)*"
_SCENARIO_WORD = r"(?:(?:offline|server|interactive)\s+)?"  # "5.44 offline samples/second"
FIGURES: dict[str, re.Pattern[str]] = {
    "ratio": re.compile(rf"(?:{_NUM})\s*(?:x|×|times|-fold)\b|(?:{_NUM})\s*%|{_TIMES_ATTACHED}", re.I),
    "share": re.compile(rf"(?:{_NUM})\s*(?:%|percent|per cent|procent)", re.I),
    "money": re.compile(rf"(?:US\$|\$|€|£)\s*(?:{_NUM})(?:\s*(?:billion|million|bn|m|miljarder|miljoner))?|"
                        rf"(?:{_NUM})\s*(?:billion|million)\s*(?:dollars|USD)", re.I),
    # ... with the scenario between the number and the unit too ("5.44 offline samples/second")
    "tokens": re.compile(rf"{_SCALED}\s*{_SCENARIO_WORD}(?:(?:tokens?|tok)(?:/s|\s*per\s*second|/sec)?|TPS\b)", re.I),
    "samples": re.compile(rf"(?:{_NUM})\s*{_SCENARIO_WORD}(?:samples?|queries|images?)(?:/s| per second)?", re.I),
    "efficiency": re.compile(rf"(?:{_NUM}).{{0,40}}per\s*watt|(?:{_NUM})\s*\S+/W\b", re.I),
    "power": re.compile(rf"(?:{_NUM})\s*(?:kW|W|watts?)\b", re.I),
    "latency": re.compile(rf"(?:{_NUM})\s*(?:ms|milliseconds?|seconds?|s)\b", re.I),
    # A result's value, in any unit MLPerf reports ("what score did X get", "their top results").
    "result": re.compile(rf"{_SCALED}\s*{_SCENARIO_WORD}(?:tokens?|tok|samples?|queries|images?)"
                         rf"\s*(?:/\s*s(?:ec(?:ond)?)?\b|per\s*second)|{_SCALED}\s*TPS\b"
                         rf"|(?:{_NUM})\s*(?:ms|milliseconds?|seconds?)\b", re.I),
    "count": re.compile(rf"(?:{_NUM})(?:\s*(?:billion|million|trillion))?|{_SIZE}|{_COUNT_WORD}", re.I),
    "amount": re.compile(rf"{_UNIT_ATTACHED}|(?:{_NUM})(?:\s*(?:billion|million|trillion|TB/s|GB/s|TB|GB|MB|%|x|×))?|"
                         rf"{_SIZE}", re.I),
    # A person or an organisation: two or more words written like names ("Miro Hodak", "University of
    # Florida"), not product names in capitals ("MLPerf Inference", "AMD Instinct").
    "date": re.compile(rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?(?:{_MONTHS})\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?"
                       rf"\d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:19|20)\d{{2}}\b", re.I),
    "person": re.compile(rf"\b{_NAME_PART}(?: (?:of|de|van|von) [A-Z][a-z]+| {_NAME_PART})+"),
    # An organisation: a name of one word or more, in capitals or not ("Google", "Cerebras", "NVIDIA",
    # "Stevens Institute of Technology"); a sentence's first word and a label before ":" are not names.
    "organisation": re.compile(rf"\b{_NAME_WORD}(?:\s(?:of|de)\s[A-Z][A-Za-z'’]*|\s{_NAME_WORD})*"),
}
_SAYS = re.compile(r"\b(said|says|quoted|commented|stated|noted|told|added|explained|reports|wrote|writes|byline|"
                   r"according to|co-chair|chair|president|ceo|cto|cfo|vp|vice president|executive|director|"
                   r"head of|professor|authors?|contributors?|columnist|reporter|editor|analy[sz]es|by)\b", re.I)


def _says(sentence: str, match: re.Match[str]) -> bool:
    """A word of speaking or of a role; "by" only for an author ("By Jane Doe", "written by Jane
    Doe"; not "varies by use" nor "powered by Managed Lustre")."""
    if match.group(0).lower() != "by":
        return True
    return sentence[match.end():match.end() + 2][-1:].isupper() and bool(_AUTHORED.search(sentence[:match.start()]))


# What comes before an author's "by": the sentence's start, or a verb of writing ("written by").
_AUTHORED = re.compile(r"(?:^|\b(?:written|posted|authored|reported|edited|presented|published|story|article|"
                       r"piece|column|interview)\s*)$", re.I)


# Numbers that belong to a name, not a figure: a round ("MLPerf Inference 6.0") or a model ("Llama 2 70B").
_NOT_A_FIGURE = re.compile(r"^\d\.\d$")
_MODEL_SIZE_AFTER = re.compile(r"^[\s-]*\d+(?:\.\d+)?[bB]\b")  # "Llama 2 70B", "Llama 2-70B"
# When no sentence states the kind asked, a near kind may ("scaling efficiency" is a percentage).
_NEAR = {"efficiency": ("share",), "ratio": ("share",), "share": ("ratio",), "tokens": ("samples",)}
# Which figure a question asks for, from its tags: the first that applies wins. "Per GPU" alone
# asks no figure ("is per-GPU performance official?"); "what per-GPU number" does (amount).
_ASKED = [("cue", "organisations", "organisation"), ("measure", "ratio", "ratio"), ("measure", "share", "share"),
          ("measure", "money", "money"),
          ("measure", "efficiency", "efficiency"), ("measure", "latency", "latency"), ("measure", "tokens", "tokens"),
          ("measure", "samples", "samples"), ("measure", "queries", "samples"), ("measure", "power", "power"),
          ("operation", "count", "count"), ("measure", "amount", "amount"),
          ("cue", "person", "person"), ("cue", "people_of", "person"), ("cue", "date", "date")]


# Figures a question asks for by their kind alone ("who was quoted": a person).
STATED = {"person", "organisation", "date"}


@dataclass(frozen=True)
class Quote:
    sentence: str
    figure: str
    passage: Passage


def asked_figure(parsed: Parsed, table_asked: bool = False) -> str | None:
    """The kind of figure a question asks a document for, or None when it asks no figure. A unit
    word alone ("samples/s means what exactly", "why is latency a result") asks what it is, not a
    figure: only a question for a number ("how many", "how much", "according to …") asks one, or
    one the table was asked (`table_asked`: "krai's edge samples per second and watts in 4.1")."""
    r = parsed.reading
    if r is None:
        return None
    r = _outside_remarks(r)
    # "can i just divide by the number of gpus?": a yes or no, not a figure, unless someone is
    # asked what they stated or "how many" is asked outright
    if r.has("cue", "yes_no") and not r.has("cue", "source", "source_weak") and not r.has("measure", "amount"):
        return None
    figure = next((figure for kind, value, figure in _ASKED if r.has(kind, value)), None)
    if figure is None and words.asks_result(r):  # "what score did X get": a result's value, any unit
        figure = "result"
    figure = figure or words.asks_column(r)  # "which two benchmarks did Netweb mention": their names
    asks_number = r.has("measure", "amount", "ratio", "share", "money") or r.has("operation", "count") \
        or r.has("cue", "source") or bool(parsed.claimed) or figure == "result" or table_asked
    return figure if figure in STATED or figure in NAMED_COLUMNS or asks_number else None


def _outside_remarks(r: Reading) -> Reading:
    """The reading without the measures of its remark clauses: "i read … bc industry wanted low
    latency. what model is that based on?" asks for a name; the latency is why the user read on.
    Nor does a "who" in a statement before the question ask for a person."""
    from assistant.shapes.documents import drop_in_context, drop_in_remarks

    return drop_in_context(drop_in_remarks(r, ("measure", "unit")), "cue", "person")


def _source(p: Passage) -> str:
    source = p.source or ""
    if not source or source.lower().startswith(("unknown", "resultsqa")):
        return p.title or p.id
    return source.split(" (")[0]


def counted_in(passages: list[Passage], nouns: Iterable[str], besides: Iterable[str] = ()) -> list[Passage]:
    """The passages cut to their sentences that count one of `nouns` ("24 organisations submitted",
    "486 resultat"): a number, up to two words, then the noun; none that names one of `besides` (a
    company's own count). A round's totals as a release or the press states them; other figures
    in the same passage are left out."""
    said = "|".join(sorted((re.escape(n) for n in nouns), key=len, reverse=True))
    counted = re.compile(rf"(?:{_NUM}|{_COUNT_WORD})(?:\s+[^\W\d_][\w-]*){{0,2}}?\s+(?:{said})\b", re.I)
    names = "|".join(sorted((re.escape(n) for n in besides if len(n) > 2), key=len, reverse=True))
    named = re.compile(rf"\b(?:{names})\b", re.I) if names else None
    out = []
    for p in passages:
        kept = [s for s in _sentences(p.text) if counted.search(s) and not (named and named.search(s))]
        if kept:
            out.append(p.model_copy(update={"text": " ".join(kept)}))
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*•#|\t") for s in _SENTENCE.split(_labelled_tables(text)) if len(s.strip()) > 20]


_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$")


def _labelled_tables(text: str) -> str:
    """A Markdown table's rows with each cell after its column's heading, so a row read alone
    still says what its figures are ("vs B200: 119%", not a bare "119%")."""
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] | None = None
    for i, line in enumerate(lines):
        row = _ROW.match(line)
        if not row:
            header = None
            out.append(line)
            continue
        if _RULE.match(line):
            continue
        cells = [c.strip() for c in row.group(1).split("|")]
        if header is None and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            header = cells
            out.append(line)
            continue
        if header and len(header) == len(cells):
            out.append("| " + " | ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells)) + " |")
        else:
            out.append(line)
    return "\n".join(out)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _keywords(text)}


def _key_of(word: str, keys: dict[str, float]) -> str | None:
    """The question word a text's word is, whole or clipped ("configs" for "configurations"), or
    the number word a digit is ("on 3 servers" for "on three servers")."""
    if word in keys:
        return word
    if word.isdigit():
        return next((stem(w) for w in _NUMBER_WORDS.get(int(word), ()) if stem(w) in keys), None)
    return next((k for k in keys if _clips(k, word)), None)


def holds_words(p: Passage, words: list[str], language: str = lexicon.BASE_LANGUAGE) -> int:
    """How many of `words` a passage has (in any inflection `_stem` undoes), a word of another
    language counting when the passage has an English word it stands for ("regioner": regions)."""
    stems = _stems(p.text)
    asked = {stem(w.lower()): w.lower() for w in words}  # one per stem, as the passage's words are
    return sum(bool(_shared(stems, {s} | {stem(e) for e in glossary.english(w, language)}))
               for s, w in asked.items())


# Tags whose words say how a question is put ("how many", "according to", "which"), not what it
# is about: they are left out of the words a sentence must share.
_FRAME = ("cue", "operation", "direction", "comparator", "grouping")
# Tags whose English words stand for the question's subject ("resultat" -> "results", "submissions").
_SUBJECT = ("measure",)
# ... but not a tag that stands for any quantity ("hur mycket": memory, bandwidth, transistors, ...).
_CATCH_ALL = {("measure", "amount"), ("measure", "throughput")}
# Cues that ask for names, and the cues that then say what the named did ("for the first time").
_NAMES_ASKED = ("organisations", "person")
_ACTS = ("ever", "acted")
# Cues that name the subject, not the frame ("how much memory": memory).
_SUBJECT_CUES = {("cue", "specs"), ("cue", "role"), ("cue", "replaced")}  # ... "who is the cto": cto


def _question_keys(question: str, parsed: Parsed) -> tuple[set[str], set[str]]:
    """What the question is about, in words a sentence can share: its words outside the phrases
    that frame it ("how many", "according to"), the names it gives and the rounds; and, apart,
    the English words of its measure tags, so "hur många resultat" weighs the English sentence
    that says "results" and "how many results" the one that says "130 submissions"."""
    r = parsed.reading
    if r is None:
        return _keywords(question), set()
    # "which organisations submitted for the first time", "who skipped v6.0": when names are asked,
    # what they did is the subject ("submitted", "first time"), not a frame
    acts = {"operation", *_ACTS} if r.has("cue", *_NAMES_ASKED) else set()
    framed = {i for t in r.tags if t.kind in _FRAME and (t.kind, t.value) not in _SUBJECT_CUES
              and t.kind not in acts and t.value not in acts for i in range(t.first, t.last)}
    # "how many submitters": the noun counted is the subject, though a grouping word elsewhere frames
    framed -= set(words.counted_words(r)[:1])
    spans = [m.span for m in r.matches]
    names = {w for n in r.publishers for w in _keywords(n)}
    # "who skipped": the act inside a cue that asks for names, which the sentence says its own way
    acting = {i for t in r.tagged("cue", *_NAMES_ASKED) for i in range(t.first + 1, t.last)}
    keys, framing = set(), set()
    for i, tok in enumerate(r.tokens):
        inside = any(s <= tok.start and tok.end <= e for s, e in spans)
        if inside or (i in framed and i not in acting):
            continue
        (framing if i in framed else keys).update(w for w in _keywords(tok.text) if w not in names and len(w) > 2)
    keys = {k for k in keys if not _ROUND_WORD.match(k)}
    # "skalningseffektivitet" asks for the English sentence's "scaling" and "efficiency"; "skipped"
    # for its "absentees"
    keys |= {e for k in keys | framing for e in glossary.english(k, r.language)}
    english = lexicon.load(lexicon.BASE_LANGUAGE)
    synonyms = {w for tag in r.tags if tag.kind in _SUBJECT and (tag.kind, tag.value) not in _CATCH_ALL
                for w in english.phrases(tag.kind, tag.value) if w.isalpha()}
    return keys, synonyms - keys


_ROUND_WORD = re.compile(r"^v?\d+(?:\.\d+)?$|^v\d")
_WORDS = re.compile(r"[0-9a-zåäöéü]+", re.I)


@dataclass(frozen=True)
class Asked:
    """What a question wants of a sentence: its subject words, the names it gives, the rounds
    and the document it names (by publisher)."""

    keys: frozenset[str]
    synonyms: frozenset[str]  # words of the subject's tags the question did not use: half weight
    names: tuple[str, ...]
    rounds: tuple[str, ...]
    publishers: tuple[str, ...]
    tolerance: bool = False  # "within what +/- %": a tolerance is the figure asked
    counted: frozenset[str] = frozenset()  # "how many transistors": the noun a count counts


_TOLERANCE = re.compile(r"\+\s*/\s*-|±|\+-|plus or minus|plus/minus|plus minus", re.I)
_TOLERANCE_BEFORE = re.compile(rf"(?:{_TOLERANCE.pattern})\s*$", re.I)  # "within +/-4%": right before the figure


def _asked(question: str, parsed: Parsed) -> Asked:
    r = parsed.reading
    publishers = tuple(r.publishers) if r is not None else ()
    names = tuple(dict.fromkeys([m.text for m in parsed.entities if m.column != "round"]
                                + [v for m in parsed.entities if m.column != "round" for v in m.values[:2]]))
    # a round the table lacks is still the round the documents are asked about ("in 5.0")
    rounds = tuple(parsed.explicit.get("round") or (r.unknown_rounds if r is not None else ()))
    named = {stem(w) for n in names + publishers for w in _keywords(n)} | {stem(w) for w in _GENERIC}
    own, synonyms = _question_keys(question, parsed)
    keys = frozenset(stem(k) for k in own) - named
    counted_at = words.counted_words(r) if r is not None else []
    counted = r.tokens[counted_at[0]].text if counted_at else None
    return Asked(keys, frozenset(stem(k) for k in synonyms) - named - keys, tuple(n for n in names if n), rounds,
                 publishers, bool(_TOLERANCE.search(question)),
                 frozenset({stem(counted.lower())} & keys) if counted else frozenset())


def _positions(sentence: str) -> list[tuple[int, str]]:
    return [(m.start(), stem(m.group(0).lower())) for m in _WORDS.finditer(sentence)]


# "… for samples/second and queries/second, respectively" (sv "respektive")
_RESPECTIVELY = re.compile(r"\b(?:respectively|respektive)\b", re.IGNORECASE)
_LIST_SPLIT = re.compile(r",|\band\b|\boch\b|\bor\b|\beller\b", re.IGNORECASE)
_LIST_LEAD = re.compile(r"^.*\b(?:for|on|in|för|på|i)\b", re.IGNORECASE)


def _respective(sentence: str, matches: list[re.Match[str]], keys: dict[str, float]) -> int | None:
    """"a 3.1x and 2.9x throughput improvement for samples/second and queries/second,
    respectively": the figures map in order onto the list before "respectively"; the index of the
    one whose item names what was asked, or None."""
    said = _RESPECTIVELY.search(sentence)
    if len(matches) < 2 or said is None or said.start() < matches[-1].end():
        return None
    items = [x for x in _LIST_SPLIT.split(sentence[matches[-1].end():said.start()]) if x.strip()]
    if len(items) < len(matches):
        return None
    items = items[-len(matches):]
    items[0] = _LIST_LEAD.sub("", items[0])  # "throughput improvement for samples/second": the item
    scores = [math.fsum(keys[k] for _, w in _positions(item) if (k := _key_of(w, keys)) is not None)
              for item in items]
    best = max(range(len(items)), key=lambda i: scores[i])
    return best if scores[best] > 0 and scores.count(scores[best]) == 1 else None


def _nearest(sentence: str, matches: list[re.Match[str]], keys: dict[str, float]) -> tuple[re.Match[str], float]:
    """The figure standing closest to what was asked ("185 billion transistors": the figure right
    before the word counts it), and a bonus for how close: after it counts more than before. With
    "respectively", the figure whose item in the list names what was asked."""
    words = _positions(sentence)
    best: tuple[float, int, re.Match[str]] | None = None
    mapped = _respective(sentence, matches, keys)
    for order, match in enumerate(matches):
        after = [w for pos, w in words if pos >= match.end()][:4]
        before = [w for pos, w in words if pos < match.start()][-4:]
        near: dict[str, float] = {}
        # the figure's own words ("5.44 offline samples/second" over "1.55 server queries/second" when
        # offline samples are asked) say most of all what it counts
        for pos, w in words:
            if match.start() <= pos < match.end() and (k := _key_of(w, keys)) is not None:
                near[k] = max(near.get(k, 0.0), keys[k] * 3.0)
        for gap, w in enumerate(after):
            if (k := _key_of(w, keys)) is not None:
                near[k] = max(near.get(k, 0.0), keys[k] * (3.0 - 0.5 * gap))
        for gap, w in enumerate(reversed(before)):
            if (k := _key_of(w, keys)) is not None:
                near[k] = max(near.get(k, 0.0), keys[k] * (1.5 - 0.3 * gap))
        bonus = math.fsum(near.values())
        if order == mapped:
            return match, bonus
        if best is None or bonus > best[0]:
            best = (bonus, order, match)
    assert best is not None
    return best[2], best[0]


def _people(sentence: str, asked: Asked, p: Passage, passages: list[Passage],
            kind: str = "person") -> list[tuple[int, str]]:
    """(position, name) of the people or organisations (`kind`) a sentence names: not the names
    asked about, not words of the document's title (a header is nobody's name). An abbreviation the
    document defines ("The University of Florida (UF)") stands for its full name; a sentence that
    names nobody in a submitter's statement speaks for the statement's owner (its heading)."""
    title = _keywords(p.title) | {"mlperf", "inference", "mlcommons"}
    asked_names = [n.lower() for n in asked.names + asked.publishers]
    same_doc = [q for q in passages if q.id.split(":")[:2] == p.id.split(":")[:2]]
    defined = {m.group(2): m.group(1) for q in same_doc for m in _DEFINED.finditer(q.text)}
    out = []
    for match in FIGURES[kind].finditer(sentence):
        start, name = match.start(), match.group(0).strip()
        if kind == "person":  # "Co-chair Frank Han of Dell": the person, without the role or the company asked
            name, start = _without_role(name, start, asked_names)
        text = name.lower()
        if _keywords(text) & title or any(n in text or text in n for n in asked_names):
            continue
        if all(stem(w) in asked.keys for w in _keywords(text)):
            continue  # "the article by iris coleman: which partner …": a name the question gives is not asked
        if kind == "person" and _AFTER_ROLE.search(sentence[:match.start()]):
            continue  # "Dr Daniel Kearney, CTO of Firmus Technologies": the company the person is with
        if kind == "organisation" and (not sentence[:match.start()].strip(" -*•") or
                                       sentence[match.end():].startswith(":")):
            continue  # "Absentees: Google …": the sentence's first word, a label
        if kind == "organisation" and (_COMPOUND.match(sentence[match.end():]) or text in _MONTH_WORDS):
            continue  # "an AI-generated piece", "on April 1": a word of a compound, a date
        out.append((start, name))
    for match in re.finditer(r"\b[A-Z]{2,6}\b", sentence):
        if match.group(0) in defined:
            out.append((match.start(), defined[match.group(0)]))
    if not out and (owner := statement_owner(p, passages)) and not any(n in owner.lower() for n in asked_names):
        out.append((-1, owner))
    return out


def _without_role(name: str, start: int, asked: list[str]) -> tuple[str, int]:
    """A person's name without a role word before it ("Co-chair Frank Han") and without "of" and an
    organisation asked after it ("Frank Han of Dell"), and where it then starts."""
    words = name.split()
    while len(words) > 2 and _SAYS.fullmatch(words[0]):
        start += len(words[0]) + 1
        words = words[1:]
    if len(words) > 3 and words[-2].lower() in ("of", "de", "van", "von") and words[-1].lower() in asked:
        words = words[:-2]
    return " ".join(words), start


_AFTER_ROLE = re.compile(r"\b(?:of|at)\s+$")  # "CTO of …", "VP of Product at …": a company, not a person
_COMPOUND = re.compile(r"-[a-z]")  # right after a name: "AI-generated", "NVIDIA-based"
_MONTH_WORDS = {m.lower() for m in _MONTH_NAMES}

# "The University of Florida (UF)": a name and the abbreviation it is given.
_DEFINED = re.compile(r"\b((?:[A-Z][a-z]+\s(?:of\s|de\s|for\s)?)+[A-Z][a-z]+)\s\(([A-Z]{2,6})\)")


def statement_owner(p: Passage, passages: list[Passage]) -> str:
    """Whose statement a chunk of MLCommons' Supplemental Discussion is: the heading that opens
    its page (each submitter's statement starts a page), from this chunk or another of the page."""
    if "statements written by" not in (p.source or "").lower():
        return ""
    for q in [p] + passages:
        if q.id.split(":")[:2] != p.id.split(":")[:2] or q.page != p.page:
            continue
        first = q.text.strip().split("\n", 1)[0].strip()
        if first and len(first.split()) <= 4 and not _CLOSED.search(first) and q.text.strip() != first:
            return first
    return ""


def _best_quote(asked: Asked, passages: list[Passage], figure: str, own: bool = False,
                only: set[float] | None = None, terms: Terms | None = None) -> Quote | None:
    ranked = ranked_quotes(asked, passages, figure, own, only, terms)
    return ranked[0][1] if ranked and ranked[0][0] > 0 else None


# (position, name as written) of the values of a column a sentence names.
Terms = Callable[[str], list[tuple[int, str]]]


def terms_in(catalog: Catalog, column: str, parsed: Parsed) -> Terms:
    """The values of `column` (a chip asked is any chip: family or model) a sentence names, read by
    the catalog that reads questions, leaving out those the question names itself."""
    columns = {"accelerator_family", "accelerator"} if column.startswith("accelerator") else {column}
    named = {v for m in parsed.entities for v in m.values}

    def found(sentence: str) -> list[tuple[int, str]]:
        by_value: dict[tuple[str, ...], tuple[int, str]] = {}
        for m in sorted(catalog.resolve(sentence, fuzzy=False), key=lambda m: m.span):
            text = sentence[m.span[0]:m.span[1]]
            # a name, not the task it is known by ("speech recognition" is Whisper's task, not its name)
            if m.column in columns and not set(m.values) & named and text != text.lower():
                by_value.setdefault(m.values, (m.span[0], text))
        return list(by_value.values())
    return found


COUNTED_WEIGHT = 2.0  # the noun "how many" counts, beside the question's other words


def ranked_quotes(asked: Asked, passages: list[Passage], figure: str, own: bool = False,
                  only: set[float] | None = None, terms: Terms | None = None) -> list[tuple[float, Quote]]:
    """Every sentence with a figure of the kind that best answers: the question's subject words
    weighted by how rare they are among the candidate sentences ("transistors" outweighs
    "MLPerf"), the figure standing next to what was asked ("86 results"), the names asked about,
    the document named and the round asked; a quote's speaker for a person."""
    candidates = [(p, s) for p in passages for s in dict.fromkeys(_sentences(p.text))]
    wanted = asked.keys | asked.synonyms
    df: dict[str, int] = {}
    for _, s in candidates:
        for w in _shared(_stems(s), wanted):
            df[w] = df.get(w, 0) + 1
    # what a figure may stand next to: the subject's words, its synonyms, then the names asked
    beside = {**{stem(w): 0.5 for n in asked.names for w in _keywords(n)}, **dict.fromkeys(asked.synonyms, 0.5),
              **dict.fromkeys(asked.keys, 1.0)}
    weight = {w: math.log(1 + len(candidates) / n) for w, n in df.items()}
    # a name most sentences carry (the document's subject) says less than one few do ("B200")
    # (the publisher asked chose the document: its name in a sentence of it, the summary line, says nothing)
    every = sorted({n.lower() for n in asked.names} - {n.lower() for n in asked.publishers})
    name_df = {n: sum(n in s.lower() for _, s in candidates) for n in every}
    name_weight = {n: min(1.5, math.log(1 + len(candidates) / c)) for n, c in name_df.items() if c}
    names = [n.lower() for n in asked.names]
    publishers = [n.lower() for n in asked.publishers]
    scored: list[tuple[float, int, Quote]] = []
    speaks_for: set[int] = set()  # ranks of sentences whose person is only the statement's owner
    by_asked: dict[str, bool] = {}  # passage id -> written by a name asked
    for rank, (p, sentence) in enumerate(candidates):
        lowered = sentence.lower()
        words = _shared(_stems(sentence), wanted)
        subject = math.fsum(weight.get(w, 0.0) for w in asked.keys & words) + \
            0.5 * math.fsum(weight.get(w, 0.0) for w in asked.synonyms & words)
        # "the article restating amd's claims … how many transistors?": the noun counted is the
        # subject; the words that say which article it is are not
        subject += COUNTED_WEIGHT * math.fsum(weight.get(w, 0.0) for w in asked.counted & words)
        named = math.fsum(w for n, w in name_weight.items() if n in lowered)
        publisher, kind_words = doc_parts(p)
        if p.id not in by_asked:  # its publisher, or the organisation whose section of a discussion it
            # is, unless the question names another publisher ("who at intel did hardwarebee quote")
            by_asked[p.id] = written_by(p, passages, names + publishers) if not publishers else \
                written_by(p, passages, publishers) or any(same_name(publisher, n) for n in names)
        written = by_asked[p.id]
        about = any(n in p.text.lower() for n in names)
        if subject + named == 0 and not (written or about):
            continue
        if figure in NAMED_COLUMNS:  # "which two benchmarks": every one the sentence names
            values = terms(sentence) if terms else []
            if not values:
                continue
            found, near = ", ".join(dict.fromkeys(v for _, v in sorted(values))), 0.0
        elif figure in STATED:
            people = _people(sentence, asked, p, passages, figure)
            if not people:
                continue
            says = [m.start() for m in _SAYS.finditer(sentence) if _says(sentence, m)]
            position, found = min(people, key=lambda m: min((abs(m[0] - x) for x in says), default=0))
            near = 2.0 if any(abs(position - x) <= 60 for x in says) else 0.0
            if position < 0:  # nobody named: the statement's owner speaks, a weaker reading
                near -= 1.0
                speaks_for.add(rank)
            elif figure == "person" and not near and found in sentence:
                continue  # "Notices & Disclaimers Performance": capitals with nobody speaking (an
                # abbreviation the document defines, "UF", stands for a name it gave)
        else:
            matches = [m for m in FIGURES[figure].finditer(sentence)
                       if _is_figure(sentence, m, figure, tolerance=asked.tolerance)
                       and (only is None or ratios(m.group(0)) & only)]
            if not matches:
                continue
            match, near = _nearest(sentence, matches, beside)
            found = match.group(0).strip()
        score = subject + near + min(named, 5.0) + 0.5 * about + 3.0 * written
        score += 1.0 * bool(kind_words & asked.keys)  # the document type asked ("blog")
        if asked.rounds and p.rounds:
            score += 1.0 if set(asked.rounds) & set(p.rounds) else -2.0
        scored.append((score, rank, written, Quote(sentence, found, p)))
    # "according to IT Brief": when the document named states such a figure, only it answers
    # `own`: only those (a figure beside a table answer is the named source's own, or none)
    if own or any(written for _, _, written, _ in scored):
        scored = [t for t in scored if t[2]]
    # "whats the guys name": a person asked is a person named; the owner, an organisation, answers
    # only when no sentence names anyone
    if figure == "person" and any(t[1] not in speaks_for for t in scored):
        scored = [t for t in scored if t[1] not in speaks_for]
    return [(score, quote) for score, _, _, quote in sorted(scored, key=lambda t: (-t[0], t[1]))]


def written_by(p: Passage, passages: list[Passage], names: Iterable[str]) -> bool:
    """Whether one of `names` wrote a passage: it published the document (its file name says so),
    or the passage is its own section of a supplemental discussion (`statement_owner`)."""
    authors = (doc_parts(p)[0], *_aliases(statement_owner(p, passages)))
    return any(same_name(who, name) for who in authors for name in names)


_PARENS = re.compile(r"^(.*?)\s*\((.+)\)\s*$")


def _aliases(heading: str) -> tuple[str, ...]:
    """A statement's heading and the other name it gives in parentheses ("GIGABYTE (Giga Computing)"
    is also Giga Computing, the submitter's name in the results; "Sustainable Metal Cloud (SMC)")."""
    m = _PARENS.match(heading)
    return (heading, m.group(1), m.group(2)) if m else (heading,)


def _is_figure(sentence: str, match: re.Match[str], figure: str, tolerance: bool = False) -> bool:
    """Not a number that belongs to a round or a model name ("MLPerf Inference 6.0", "Llama 2 70B"),
    nor a tolerance ("within +/-4%") unless the question asks for one."""
    text = match.group(0).strip()
    if not tolerance and _TOLERANCE_BEFORE.search(sentence[:match.start()]):
        return False  # "within +/-4%": a tolerance, not a figure stated
    if figure in ("count", "amount"):
        if _NOT_A_FIGURE.match(text) or _YEAR.match(text) or _MODEL_SIZE_AFTER.match(sentence[match.end():]):
            return False
        if re.fullmatch(_SIZE, text, re.I):  # "70B" is a model's name unless parameters are counted
            return bool(re.match(r"\s*(?:param|total param|active param)", sentence[match.end():], re.I))
    return True


_YEAR = re.compile(r"^(?:19[89]\d|20[0-4]\d)$")
# Words of every question about MLPerf documents, which say nothing about which sentence answers.
_GENERIC = {"mlperf", "inference", "mlcommons"}


def _source_of(quote: Quote, passages: list[Passage]) -> str:
    """Who states the figure: the publisher, or for MLCommons' Supplemental Discussion (each
    submitter's own statement) the submitter whose page heading the sentence is under. A chunk
    whose heading was not retrieved stays MLCommons': a submitter it merely names may not be its
    author (Dell's statement names AMD)."""
    p = quote.passage
    owner = statement_owner(p, passages)
    return f"{owner} ({p.title or _source(p)})" if owner else _source(p)


_CLOSED = re.compile(r"[.:;,!?]$")


# Words of the question's second ask a second sentence must hold to be quoted beside the figure's,
# or one word this long that no other sentence of the section has ("how many transistors":
# "185 billion transistors" is the only sentence that says it).
ALSO_MIN = 2
ALSO_RARE_LEN = 6
# Words that name the document asked ("the pubgpclite article"), never what a sentence of it states.
_DOCUMENT_WORDS = {"article", "piece", "post", "blog", "statement", "report", "story", "writeup"}


def _also_stated(asked: Asked, quote: Quote, passages: list[Passage], asks: tuple[str, str] | None,
                 language: str = lexicon.BASE_LANGUAGE) -> str | None:
    """The sentence of the quoted section that answers the ask of a two-part question which the
    figure's sentence leaves out (it states how much faster X was; the question also asks how much
    software raised Z): the sentence stating a figure that holds most of that ask's words, at least
    ALSO_MIN of them, or None."""
    if asks is None:
        return None
    p0 = quote.passage
    named = {stem(w) for n in asked.names for w in _keywords(n)}
    said = _stems(quote.sentence)
    # an ask's words and the glossary's for them ("token costs dropped": the document's "fell")
    words = [((set(asked.keys) | named) & (_stems(ask) | {stem(e) for w in _keywords(ask)
                                                          for e in glossary.english(w, language)})) - _GENERIC
             for ask in asks]
    # the ask the figure's sentence answers least is the one left
    left = min(words, key=lambda w: len(w & said) / max(len(w), 1))
    wanted = left - said - _DOCUMENT_WORDS
    same = [p for p in passages if p.id.split(":")[:2] == p0.id.split(":")[:2] and p.page == p0.page]
    rest = [s for p in same for s in dict.fromkeys(_sentences(p.text))
            if s != quote.sentence and any(_is_figure(s, m, kind) for kind in ("ratio", "amount")
                                           for m in FIGURES[kind].finditer(s))]
    best = max(rest, key=lambda s: len(wanted & _stems(s)), default=None)
    if best is None:
        return None
    shared = wanted & _stems(best)
    rare = {w for w in shared if len(w) >= ALSO_RARE_LEN and sum(w in _stems(s) for s in rest) == 1}
    return best if len(shared) >= ALSO_MIN or rare else None


def figure_answer(question: str, passages: list[Passage], parsed: Parsed, figure: str, own: bool = False,
                  only: set[float] | None = None, catalog: Catalog | None = None) -> Answer:
    """"According to <source>, <figure>": the figure of the kind asked, from the retrieved
    sentence that states it and best shares the question's words; quoted, cited, labelled.
    `own`: only from what the organisation or publisher the question names wrote. `only`: only a
    figure of these values ("the 2.7x speedup": a sentence that states 2.7x). A column's values
    asked for ("which benchmarks") are read with `catalog`."""
    lang = parsed.language
    asked = _asked(question, parsed)
    quoted = [p for p in passages if p.doc_kind != "guide"]  # our guide is nobody's claim
    passages = quoted or passages  # (kept to cite when nothing else was retrieved)
    terms = terms_in(catalog, figure, parsed) if catalog is not None and figure in NAMED_COLUMNS else None
    if terms is not None:  # "which nvidia card did GATEOverflow run, in their own text": theirs, or no name
        who = [n.lower() for m in parsed.entities if m.column == "submitter" for n in (m.text, *m.values)]
        quoted = [p for p in quoted if written_by(p, quoted, who + list(asked.publishers))] or quoted
    quote = None
    for kind in (figure, *_NEAR.get(figure, ())) if only is None else (figure,):
        quote = quote or _best_quote(asked, quoted, kind, own, only, terms)
    if quote is None:
        text = templates.text(lang, "docs", "no_figure")
        return _answer(question, text, status="no_data", passages=passages, citations=doc_citations(passages),
                       notes=[templates.text(lang, "docs", "claims_note")])
    p = quote.passage
    also = _also_stated(asked, quote, quoted, words.two_asks(parsed.reading), lang)
    pair = [quote.sentence] + ([also] if also else [])
    if also and also in p.text and p.text.index(also) < p.text.index(quote.sentence):
        pair.reverse()  # in the document's order
    text = templates.text(lang, "docs", "figure", source=_source_of(quote, passages), figure=quote.figure,
                          sentence=" … ".join(pair), title=p.title or p.id)
    return _answer(question, text, passages=[p] + [q for q in passages if q is not p],
                   citations=doc_citations([p] + passages), notes=[templates.text(lang, "docs", "claims_note")])


def asked_kind(parsed: Parsed) -> str | None:
    """The kind of term a definition asks to choose ("which scenario is for batch jobs": scenario),
    when it names no term of it; else None."""
    if parsed.reading is None or parsed.entities:
        return None
    return words.which_kind(parsed.reading)
# Cues whose words frame a question, never its subject ("ok so what actually is …", "what does … mean").
_FRAMING_CUES = ("define", "clause", "wh", "yes_no", "pronoun", "refers", "determiner", "one", "lead")
# Cues that name what a definition is about ("how often": the round cadence; "who runs mlperf":
# MLCommons; "who checks the results": review; "is smaller better": the direction of better;
# "why can't someone rank nvidia vs amd": no overall winner),
# unlike framing cues.
_TOPIC_CUES = ("frequency", "organiser", "review", "better", "overall")
# Cues that add the guide's words for an aspect of the term asked (topics.toml), and choose no
# entry of their own: "gpt-j? cant find it in the newest round" wants the sentence on its successor;
# "when did mlperf inference start" the sentence on its first round.
_ASPECT_CUES = ("missing", "start")


def _define_keys(question: str, parsed: Parsed) -> set[str]:
    """The words of a question about a term, plus for a Swedish one the English words of its
    tags (the English guide's headings may be the only match)."""
    keys = _keywords(question)
    if asked_kind(parsed):  # "which scenario is for batch jobs": the kind names no section; the description does
        keys -= {w for t in parsed.reading.tags if t.kind in ("grouping", "attribute") and t.value in words.TERMS
                 for w in _keywords(parsed.reading.text[t.start:t.end])}
    if parsed.reading is not None:  # words that only frame the question ("actually", "like", "so")
        # the phrase's own words, not the words its gap spans ("what do … mean" frames TTFT, it is not it)
        framing = {w for t in parsed.reading.tags if t.kind == "cue" and t.value in _FRAMING_CUES
                   for w in _keywords(parsed.reading.text[t.start:t.end]) & _keywords(t.phrase)}
        # (a word naming the subject stays: "what replaced gpt-j" asks for the sentence on "replaced")
        subject = {w for t in parsed.reading.tags if (t.kind, t.value) in _SUBJECT_CUES
                   for w in _keywords(parsed.reading.text[t.start:t.end])}
        keys -= framing - subject - {w for m in parsed.reading.matches for w in _keywords(m.text)}
    if parsed.language != lexicon.BASE_LANGUAGE:
        # the guide's headings are English in every language ("Speculative decoding"): the glossary's
        # English words of a Swedish question ("spekulativ avkodning") find the heading of the term
        keys |= {e for w in keys for e in glossary.english(w, parsed.language) if " " not in e}
    if parsed.reading is not None:
        english = lexicon.load(lexicon.BASE_LANGUAGE)
        # with a topic cue, the topic names the section: no other tag adds its English words ("vem" in
        # "vem står bakom mlperf" asks for no submitter; latency's "ttft" in "är lägre bättre för latens")
        topic = parsed.reading.has("cue", *_TOPIC_CUES)
        for tag in parsed.reading.tags:
            if tag.kind != "cue" and topic:
                continue
            # a cue says how a question is put ("för", "och"), not what it is about, but for a topic
            # cue ("how often": the round cadence); and an English word is its own key already
            # ("tpot" is one phrase of latency; "latency" would outweigh it)
            if tag.kind == "cue":
                if tag.value not in _TOPIC_CUES + _ASPECT_CUES:
                    continue
                keys.update(lexicon.topics().get(tag.value, ()))
            elif parsed.language == lexicon.BASE_LANGUAGE or tag.phrase in english.phrases(tag.kind, tag.value):
                continue
            keys.update(w for w in english.phrases(tag.kind, tag.value) if " " not in w and w.isalpha())
    # "samples/s means what exactly": a unit asked about is a question about units of results
    if parsed.reading is not None and parsed.reading.has("measure", "per_accelerator"):
        # "'tokens per second per GPU', is that official?": the derived figure is asked, not the unit;
        # its words name the guide's entry ("Per-accelerator figures")
        keys |= {w for phrase in lexicon.load(lexicon.BASE_LANGUAGE).phrases("measure", "per_accelerator")
                 for w in _keywords(phrase)} - {"per", "each"}
    elif parsed.reading is not None and parsed.reading.has("unit", "result") and not parsed.entities:
        keys |= {"unit", "units"}
    # "some results have watt, what does it measure": "results" is every answer's noun, not the
    # term asked about, when the question names anything else
    generic = {w for lang in {parsed.language, lexicon.BASE_LANGUAGE}
               for w in lexicon.load(lang).phrases("measure", "results") if " " not in w}
    keys = keys - generic if keys - generic else keys
    # "ttft?? keeps showing up next to the deepseek numbers": where the term was seen is no key, when
    # the question names the term outside its remark ("i saw 'preview' on rows, what is it" does not)
    aside = _remark_words(parsed)
    keys = keys - aside if keys - aside else keys
    # "besides closed and open, … a 'network' division. what is that one about?": the terms the
    # question leaves out are not the one it asks about
    left_out = {w for values in parsed.excluded.values() for v in values for w in _keywords(v)}
    return keys - left_out if keys - left_out else keys


def _remark_words(parsed: Parsed) -> set[str]:
    """The words only the question's remark clauses hold (shapes/documents.py `remarks`)."""
    from assistant.shapes.documents import remarks

    r = parsed.reading
    if r is None:
        return set()
    spans = remarks(r, -1)
    inside = " ".join(r.text[s:e] for s, e in spans)
    cuts = [0, *(i for span in sorted(set(spans)) for i in span), len(r.text)]  # clauses: equal or apart
    outside = " ".join(r.text[a:b] for a, b in zip(cuts[::2], cuts[1::2]))
    return _keywords(inside) - _keywords(outside)


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


# Sentences quoted from a guide section: a short paragraph whole, so the reason behind a term
# ("the apples-to-apples results") is not cut off after its first line.
TERM_SENTENCES = 3
TERMS_SENTENCES = 2  # per term, when a question asks about two
RARE_SHARE = 20  # a question word found in at most 1/RARE_SHARE of the sections is about this section only


def define_answer(question: str, passages: list[Passage], parsed: Parsed, facts: list[str],
                  choices: Iterable[str] = ()) -> Answer:
    """A term explained by the guide in the question's language: the section whose heading is the
    term (else the one that best shares the question's words), its first sentences quoted and
    cited, plus what the table adds ("first appears in v6.0; 14 results in v6.1"). Two terms
    ("the difference between closed and open") get each its own section, and the section that
    compares them when the guide has one ("Closed versus open results")."""
    lang = parsed.language
    sections = _sections(passages)
    named = {c.lower() for c in choices}  # "which scenario …": a scenario's own section answers, if one fits
    own = [sec for sec in sections if sec[0].lower() in named]
    if not sections:
        return _answer(question, templates.text(lang, "docs", "no_guide"), status="no_data", passages=passages)
    # a round named ("i v6.1") dates the question; it is no term the guide defines
    # a word many systems' names share ("nvl72") is the term as said, not the first system it names
    terms = list(dict.fromkeys((m.text if words.shared_name(m.column, list(m.values)) else m.values[0]).lower()
                               for m in parsed.entities if m.values and m.column != "round"))
    # "gpt-oss and mixtral both get called 'moe' models - moe meaning what": a word in quotes that
    # an entry's heading names is the term asked; the benchmarks are where it was seen
    # (a quoted name the catalog reads, "'open' … 'closed'", is a term already)
    spans = [m.span for m in parsed.entities]
    said = [_keywords(q.group(1)) for q in _QUOTED.finditer(question)
            if len(q.group(1).split()) <= QUOTED_WORDS and not any(q.start(1) <= a < q.end(1) for a, _ in spans)]
    quoted = [sec[0].lower() for quote in said for sec in sections if all(_mentions(sec[0], w) for w in quote)]
    if quoted and not set(quoted) & set(terms):
        terms = quoted[:1]
    terms = _family_apart(parsed, terms, sections) or _unit_entry(parsed, sections) \
        or _rounds_asked(parsed, sections)
    keys = _define_keys(question, parsed)

    # a word few sections use says more than one most do ("framework" over "results"); words match
    # by stem ("rounds" names "Round cadence")
    keys = {stem(k) for k in keys}
    if not terms:  # "watts and others in millijoules?? what are those": two entries named by their headings
        single = [sec[0].lower() for sec in sections if len(sec[0].split()) == 1 and stem(sec[0].lower()) in keys]
        terms = list(dict.fromkeys(single)) if len(set(single)) >= 2 else []
    asked = [] if terms else _asked_term(parsed)
    topics = 2
    if parsed.reading is not None and parsed.reading.has("cue", *_TOPIC_CUES):
        # "wan 2.2 is in seconds, so smaller is better?": the topic, not the benchmark it was seen on;
        # but "whats mlperf and who is behind it": the term first, then the topic's own entry
        first = _asked_term(parsed) if not terms else []
        terms, asked = [], first if first and _guide_knows(first[0], sections) else []
        topics = 1 if asked else 2
        named_words = {stem(w) for m in parsed.entities for w in _keywords(m.text)}
        keys = keys - named_words or keys
    if asked and not _guide_knows(asked[0], sections):
        # "vad är mlperf endpoints?": no entry mentions it; quoting the nearest one would answer
        # another question (the documents may know it)
        return _answer(question, templates.text(lang, "docs", "no_guide"), status="no_data", passages=passages)
    heads = {id(sec): _stems(sec[0]) for sec in sections}
    bodies = {id(sec): _stems(sec[1][:400]) for sec in sections}
    # "tokens per second vs samples per second, why": with two units side by side, a heading naming
    # one of them ("Tokens per second") is not what is asked; their words count in the text only.
    # So with a unit per accelerator ("'tokens per sekund per GPU', är det ett officiellt mått?"):
    # the derived figure is asked, not the unit
    units = parsed.reading.tagged("measure", *UNIT_MEASURES) if parsed.reading is not None else []
    derived = parsed.reading is not None and parsed.reading.has("measure", "per_accelerator")
    text_only = {stem(w) for t in units for w in _keywords(parsed.reading.text[t.start:t.end])} \
        if (len({t.value for t in units}) >= 2 or derived) and not parsed.entities else set()
    df = {k: sum(k in heads[id(sec)] | bodies[id(sec)] for sec in sections) for k in keys}
    idf = {k: math.log(1 + len(sections) / n) for k, n in df.items() if n}

    # each term's own words ("wan-2.2" for wan-2.2-t2v-a14b): when one term's section is chosen, the
    # other term's words say nothing about it ("wan-2.2 vs qwen3-vl" chose qwen's section twice)
    own_words = {t: {stem(w) for m in parsed.entities if m.values and m.values[0].lower() == t
                     for w in _keywords(m.text) | _keywords(t)} for t in terms}

    def score(section: tuple[str, str, Passage], term: str | None) -> tuple[float, int]:
        head, body, p = section
        heading = head.lower()
        named = 0
        for t in ([term] if term else terms or asked):
            named = max(named, 20 if heading == t else 10 if heading.startswith(t) or (head and t.startswith(
                heading)) else 0)
        others = set().union(*(w for t, w in own_words.items() if t != term)) if term in own_words else set()
        said = 3 * math.fsum(idf.get(k, 0.0) for k in (keys - text_only - others) & heads[id(section)]) + \
            math.fsum(idf.get(k, 0.0) for k in (keys - others) & bodies[id(section)])
        return named + said + 2 * (p.language == lang), -len(head.split())  # equal: the plainer heading

    compared = _compared_kind(parsed)
    doubted = _topic_entry(compared, sections)
    if doubted is not None:  # "is that legit?": the entry on what the question doubts, whatever it names
        terms = []
    if len(terms) >= 2:
        # a term's own entry, when the guide has one, is its entry: other entries can share more of the
        # question's words ("nya RAG- och agenttester" chose the entry on the benchmark column twice)
        chosen = [_in_language(max([sec for sec in sections if sec[0].lower() == t] or sections,
                                   key=lambda sec: score(sec, t)), sections, lang) for t in terms]
        both = [sec for sec in sections if sum(_mentions(sec[0], t) for t in terms) >= 2
                and not any(sec[0].lower() == t for t in terms)]
        if not both and parsed.reading is not None and parsed.reading.has("operation", "compare") \
                and not parsed.reading.has("cue", "likeness"):
            # "can I compare Offline with Server?": the section on comparing that kind of term
            # ("Same benchmark, scenario and unit"); "are they both object detection?" asks what
            # each is, not how to compare them
            kinds = {m.column for m in parsed.entities}
            both = [sec for sec in sections if any(_mentions(sec[0], kind) for kind in kinds)
                    and _about_comparing(sec[2])]
        if both:  # the entry that compares them says the difference: it comes first, then each term's own
            # (the question's own label first, "datacenter,edge"; then the best fit; between equals, an
            # entry "X versus Y", which compares them, over a plainer heading that only names both)
            said_whole = question.lower()

            def fit(sec: tuple[str, str, Passage]) -> tuple[bool, float, bool, int]:
                value, plain = score(sec, None)
                return sec[0].lower() in said_whole, value, " versus " in sec[0], plain

            chosen.insert(0, _in_language(max(both, key=fit), sections, lang))
        chosen = list({id(sec): sec for sec in chosen}.values())
        quotes = [templates.text(lang, "docs", "define",
                                 quote=" ".join(_sentences(body)[:TERMS_SENTENCES] or [body[:300]]),
                                 title=p.title or p.id) for _, body, p in chosen]
        text = " ".join(quotes)
        cited = [p for _, _, p in chosen]
    else:
        best = max(sections, key=lambda sec: score(sec, terms[0] if terms else None))
        fits = max(own, key=lambda sec: score(sec, None)) if own else None
        if fits is not None and score(fits, None)[0] - 2 * (fits[2].language == lang) > 0:
            best = fits
        best = _plainer(best, sections, keys) if best is not fits else best
        best = doubted or best
        if not terms and doubted is None and score(best, None)[0] - 2 * (best[2].language == lang) <= 0:
            # no section shares a word with the question ("asdfgh"): nothing to quote, never a random one
            return _answer(question, templates.text(lang, "docs", "no_guide"), status="no_data", passages=passages)
        head, body, p = _in_language(best, sections, lang)
        sentences = _sentences(body)
        quote = " ".join(sentences[:TERM_SENTENCES] or [body[:300]])
        later = _also_asked(sentences[:TERM_SENTENCES], sentences[TERM_SENTENCES:], keys, sections)
        if later:  # "what is gpt-j and what replaced it": the entry's sentence on the rest of the question
            quote += " … " + later
        text = templates.text(lang, "docs", "define", quote=quote, title=p.title or p.id)
        cited = [p]
        # "how often are there rounds, and who runs mlperf?": a second topic gets its own entry too
        for extra in _topic_sections(parsed, sections, lang, exclude=head, least=topics):
            text += " " + templates.text(lang, "docs", "define", quote=" ".join(
                _sentences(extra[1])[:TERMS_SENTENCES] or [extra[1][:300]]), title=extra[2].title or extra[2].id)
            cited.append(extra[2])
    if compared is not None:  # "can I compare Offline with Server?": no
        text = templates.text(lang, "docs", f"not_comparable_{compared}") + " " + text
    if facts:
        text += " " + " ".join(facts)
    return _answer(question, text, passages=cited + [q for q in passages if q not in cited],
                   citations=doc_citations(cited), notes=[templates.text(lang, "docs", "guide_note")])


def _unit_entry(parsed: Parsed, sections: list[tuple[str, str, Passage]]) -> list[str]:
    """"what does the number under tokens/s mean": one unit asked about, whose own entry the guide
    has ("Tokens per second"), is the term; else none (a unit per GPU is the derived figure). A
    longer heading the question says whole ("what does tokens per second per user mean") is the
    term it narrows."""
    r = parsed.reading
    if r is None or parsed.entities or not r.has("unit", "result") or r.has("measure", "per_accelerator"):
        return []
    measured = {t.value for t in r.tagged("measure", *UNIT_MEASURES)}
    # "some rows are in tokens/s, others samples/s. what's the difference?": the entry on all units
    if len(measured) >= 2 and r.has("cue", "differ"):
        entry = _topic_entry("units", sections)
        return [entry[0].lower()] if entry else []
    if len(measured) != 1:
        return []
    names = {p.lower() for p in lexicon.load(lexicon.BASE_LANGUAGE).phrases("measure", measured.pop())}
    own = [sec[0].lower() for sec in sections if sec[0].lower() in names][:1]
    said = r.text.lower()
    narrower = [sec[0].lower() for sec in sections if own and own[0] in sec[0].lower() and sec[0].lower() in said]
    return [max(narrower, key=len)] if narrower else own


def _rounds_asked(parsed: Parsed, sections: list[tuple[str, str, Passage]]) -> list[str]:
    """"what do the version numbers like v4.1 v5.1 v6.0 mean": several rounds and nothing else named
    ask what a round is (one round dates a question about another term)."""
    named = {m.column for m in parsed.entities}
    rounds = {m.values[0] for m in parsed.entities if m.column == "round" and m.values}
    if named != {"round"} or len(rounds) < 2:
        return []
    return [sec[0].lower() for sec in sections if sec[0].lower() == "round"][:1]


def _family_apart(parsed: Parsed, terms: list[str], sections: list[tuple[str, str, Passage]]) -> list[str]:
    """"why are there two llama2 70b benchmarks … what's the difference": a name that stands for
    several benchmarks, asked how they differ, is each of them, where the guide has its entry."""
    r = parsed.reading
    if len(terms) != 1 or r is None or not r.has("cue", "differ"):
        return terms
    headings = {sec[0].lower() for sec in sections}
    family = next((m.values for m in parsed.entities if m.values and m.values[0].lower() == terms[0]), ())
    keys = [v.lower() for v in family if v.lower() in headings]
    return keys if len(keys) >= 2 else terms


def _plainer(best: tuple[str, str, Passage], sections: list[tuple[str, str, Passage]],
             keys: set[str]) -> tuple[str, str, Passage]:
    """The entry whose heading begins the chosen one's, when the question asks none of the longer
    heading's own words: "every result has an id like '6.0-0001', what is it for?" is "Result ID",
    not "Result ID formats in this data" (whose text holds the example)."""
    words = best[0].split()
    for cut in range(len(words) - 1, 0, -1):
        if {stem(w) for w in _keywords(" ".join(words[cut:]))} & keys:
            break  # "tokens per second per user": the longer entry's own words are asked
        prefix = " ".join(words[:cut]).lower()
        shorter = next((sec for sec in sections if sec[0].lower() == prefix and sec[2].language == best[2].language),
                       None)
        if shorter is not None:
            return shorter
    return best


def _topic_sections(parsed: Parsed, sections: list[tuple[str, str, Passage]], lang: str,
                    exclude: str, least: int = 2) -> list[tuple[str, str, Passage]]:
    """With `least` topic cues or more ("hur ofta …, och vem står bakom mlperf?"; one after a term
    asked), the entry each topic names by its words (topics.toml: "who runs mlperf" names
    MLCommons), besides the one chosen."""
    r = parsed.reading
    asked = {t.value for t in r.tagged("cue", *_TOPIC_CUES)} if r is not None else set()
    if len(asked) < least:
        return []
    out = []
    for topic in sorted(asked):
        named = {stem(w) for w in lexicon.topics().get(topic, ())}
        hit = next((sec for sec in sections if named and _stems(sec[0]) & named and sec[0] != exclude), None)
        if hit is not None:
            out.append(_in_language(hit, sections, lang))
    return list({sec[0]: sec for sec in out}.values())


def _own_words(term: str) -> set[str]:
    return {stem(w) for w in _keywords(term)} - {stem(w) for w in _GENERIC}


def _guide_knows(term: str, sections: list[tuple[str, str, Passage]]) -> bool:
    """Some guide section names the term: each of its own words (not "mlperf") is in one section."""
    own = _own_words(term)
    return not own or any(own <= _stems(head) | _stems(body) for head, body, _ in sections)


def on_asked_term(parsed: Parsed, passages: list[Passage]) -> list[Passage]:
    """The documents that name the term a definition asks about ("mlperf endpoints"), for a term
    the guide lacks; none when no term was asked, so nothing unrelated is ever quoted."""
    asked = _asked_term(parsed)
    own = _own_words(asked[0]) if asked else set()
    return [p for p in passages if p.doc_kind != "guide" and own and own <= _stems(p.text)]


def _asked_term(parsed: Parsed) -> list[str]:
    """The word or two a definition asks about, right after its cue and before the sentence ends
    ("what even is mlperf? a company …": mlperf), when no catalog term names it; else []."""
    r = parsed.reading
    cue = next(iter(r.tagged("cue", "define")), None) if r is not None else None
    if cue is None:
        return []
    end = cue.end + len(re.split(r"[?!.,;:]", r.text[cue.end:], maxsplit=1)[0])
    # "whats mlperf and who is behind it": the term ends where a second clause begins
    end = min([end] + [t.start for t in r.tagged("cue", "conjunction") if cue.end < t.start < end])
    articles = {i for t in r.tagged("cue", "determiner") for i in range(t.first, t.last)}
    said = [i for i, tok in enumerate(r.tokens) if cue.end <= tok.start and tok.end <= end and i not in articles]
    framing = {i for t in r.tagged("cue", "plain", "lead") for i in range(t.first, t.last)}
    # "vad är mlperf endpoints för nåt", "samples/s means what exactly": not "för nåt", "exactly"
    while said and said[-1] in framing and r.tokens[said[-1]].text not in _GENERIC:
        said.pop()
    return [" ".join(r.tokens[i].text for i in said)] if 0 < len(said) <= 2 else []


def _also_asked(quoted: list[str], rest: list[str], keys: set[str],
                sections: list[tuple[str, str, Passage]]) -> str | None:
    """The first later sentence of an entry that holds a word of the question the quoted opening
    lacks, a word few sections use anywhere in their text ("replaced"; never "but" or "see"), or
    None."""
    said = set().union(*(_stems(s) for s in quoted)) if quoted else set()
    wanted = {k for k in keys - said if any(k in _stems(s) for s in rest)}
    if not wanted:
        return None
    bodies = [_stems(body) for _, body, _ in sections]
    rare = {k for k in wanted if sum(k in b for b in bodies) * RARE_SHARE <= max(len(sections), RARE_SHARE)}
    return next((s for s in rest if rare & _stems(s)), None)


# Kinds of term whose values are never ranked against each other (the guide's "Comparing results").
_NEVER_ACROSS = ("scenario", "units", "division")


def _compared_kind(parsed: Parsed) -> str | None:
    """The kind of two terms a yes/no question asks to compare ("can I compare Offline with
    Server?", "can I line up tokens/s against samples/s?", "so gpt-oss is just the faster one
    right?" beside deepseek-r1), when results are never compared across that kind; or what a
    question on fairness doubts: systems of different sizes ("size"), or a per-accelerator figure
    called official ("derived"); else None."""
    r = parsed.reading
    if r is None:
        return None
    if r.has("cue", "fair"):  # "is that legit?", "kan man jämföra det rakt av med nån som körde 8 gpuer?"
        if r.has("measure", "per_accelerator"):
            return "derived"
        if words.sized(r):
            return "size"
    if (words.benchmarks_only(r) and words.better_of_two(r)) or (words.set_side_by_side(r) and r.has("direction")):
        return "benchmark"
    if not (r.has("operation", "compare") and r.has("cue", "yes_no")):
        return None
    if len({t.value for t in r.tagged("measure", *UNIT_MEASURES)}) >= 2:
        return "units"
    kinds = {m.column for m in parsed.entities}
    if len(parsed.entities) >= 2 and len(kinds) == 1 and (kind := kinds.pop()) in _NEVER_ACROSS:
        return kind
    return None


def _topic_entry(kind: str | None, sections: list[tuple[str, str, Passage]]) -> tuple[str, str, Passage] | None:
    """The guide entry whose heading holds a topic's words in topics.toml: what a question about
    fairness doubts (its `_compared_kind`: "Big systems versus small systems" for a 512-GPU cluster
    against an 8-GPU server), or the entry on all units; None for other kinds."""
    named = _stems(" ".join(lexicon.topics().get(kind or "", ())))
    return next((sec for sec in sections if named and named <= _stems(sec[0])), None)


def _about_comparing(p: Passage) -> bool:
    """Whether a guide document is about comparing results: its title reads as a comparison in
    its own language's words ("Comparing …", "Så jämför du …")."""
    lex = lexicon.load(p.language or lexicon.BASE_LANGUAGE)
    return any(t.kind == "operation" and t.value == "compare" for t in lex.tag(lexicon.tokenize(p.title or "")))


def _in_language(section: tuple[str, str, Passage], sections: list[tuple[str, str, Passage]],
                 lang: str) -> tuple[str, str, Passage]:
    """The chosen section in the question's language when the guide has it there too: translations
    keep the English headings, so a Swedish question is answered in Swedish even when the English
    twin shared more of its words ("agentic edge")."""
    head, _, p = section
    if p.language == lang or not head:
        return section
    return next((sec for sec in sections if sec[0] == head and sec[2].language == lang), section)


# A term the user puts in quotes: opened after a space, closed before one or a hyphen ("called
# 'moe' models", "'moe'-modeller"), so the apostrophes of "nvidia's" and "isn't" open nothing.
_QUOTED = re.compile(r"(?:(?<=\s)|^)['‘\"“]([^'’\"”]{2,40})['’\"”](?=[\s.,;:?!)-]|$)")
QUOTED_WORDS = 4


def _mentions(heading: str, term: str) -> bool:
    """Whether a heading names a term ("Closed versus open results" names "open")."""
    return stem(term.lower()) in {stem(w) for w in _keywords(heading)}
