"""Shapes answered from documents: what a term means (the guide)."""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.catalog import Match
from assistant.lexicon import Tag
from assistant.parsed import Parsed
from assistant.reader import Reading
from assistant.shapes import words
from assistant.shapes.registry import Context, shape

TERMS = words.TERMS
# A word of at least this many letters that the reader did not read describes what is asked for.
DESCRIBING_LEN = 6
# Measures that make "what is the ..." a question about results, not about a term.
_NOT_DEFINING = ("size", "money")


# Measure tags that each name a unit of results ("tokens/s", "samples", "latency").
UNIT_MEASURES = ("tokens", "samples", "queries", "latency")


def _units_compared(ctx: Context) -> bool:
    """"Can I compare tokens/s with samples/s?", "kan man jämföra offline med server?": two units,
    or two scenarios, divisions or categories asked about with nothing else named, ask why they are
    not comparable, a question for the guide, never a ranking."""
    r = ctx.reading
    if not r.has("operation", "compare") or ctx.rounds:
        return False
    units = {t.value for t in r.tags if t.kind == "measure" and t.value in UNIT_MEASURES}
    # "line up llama tokens/s against dlrm samples/s": the benchmarks only say whose units they are
    if len(units) >= 2 and all(column == "benchmark" for column, values in ctx.explicit.items() if values):
        return True
    terms = [m for m in r.matches if m.column in TERMS and m.column != "benchmark"]
    if len(terms) < 2 or len(terms) != len(r.matches):
        return False
    # "closed vs open division?": two terms alone, with no measure or ranking to compare them by,
    # ask how they differ (the table has no one figure for "closed" against "open")
    return r.has("cue", "yes_no") or not any(t.kind in ("measure", "direction", "attribute") for t in r.tags)


def _attributes_compared(ctx: Context) -> bool:
    """"number of nodes vs accelerators per node vs total accelerators, how do these fit together":
    two or more attributes of a result set side by side, naming nothing and ranking nothing, with a
    question about what they mean, ask how the terms relate (the guide), not for their values."""
    r = ctx.reading
    attributes = {t.value for t in r.tagged("attribute")}
    return len(attributes) >= 2 and r.has("operation", "compare") and r.has("cue", "define") and not r.matches \
        and not ctx.rounds and not r.conditions and not r.has("direction") and not ctx.parsed.claimed


def _benchmarks_compared(ctx: Context) -> bool:
    """Two benchmarks and nothing else, and either a yes/no on which is better ("is 99.9 better than
    99? i see llama2-70b-99 and llama2-70b-99.9", "so gpt-oss is just the faster one right?"), which
    asks why benchmarks are never ranked against each other, or what changed between them
    ("dlrm-v3 vs the old dlrm-v2 — what changed"): both for the guide. With a round, a measure or a
    ranking ("how did the best gpt-oss and deepseek results change") it asks results."""
    r = ctx.reading
    if not words.benchmarks_only(r) or ctx.rounds or r.conditions or ctx.parsed.claimed:
        return False
    return words.better_of_two(r) or words.set_side_by_side(r) \
        or (r.has("operation", "trend") and not r.has("measure") and not r.has("direction"))


def _bare_term(ctx: Context) -> bool:
    """"loadgen??", "fp4?", "preview = ?": a word or two and nothing else asks what the word means
    (a benchmark named alone still asks for its results, and a chip or a company for theirs; but a
    benchmark with a doubled mark, "dlrm??", is puzzlement: what is it)."""
    r = ctx.reading
    named = {m.column for m in r.matches}
    terms = set(TERMS) if _PUZZLED.search(r.text) else set(TERMS) - {"benchmark"}
    # a name is one word however many tokens it spans ("gpt-oss-120b")
    loose = [t for t in r.tokens if not any(s <= t.start < e for s, e in (m.span for m in r.matches))]
    return 0 < len(loose) + len(r.matches) <= 2 and not r.has("operation") and not r.conditions \
        and not r.has("cue", "greeting") and named <= terms


_PUZZLED = re.compile(r"\?\s*\?\s*$")  # "dlrm??", "dlrm ? ?"


def _asked_last(ctx: Context) -> bool:
    """"yolo-95 showed up in 6.0, whats that", "llama 3.1 405b is the biggest one right? what does
    it do in the test": the last clause asks what the named term is, and asks nothing else, so the
    words before it ("showed up", "biggest") only say why the term was noticed."""
    r = ctx.reading
    text = r.text.rstrip(" ?!.")
    # "…, whats the difference? both sound like 'serving requests' to me": a closing remark asks nothing
    closing = [s for s, e in _remarked(ctx) if e >= len(text) and s > 0]
    if closing:
        text = r.text[:min(closing)].rstrip(" ?!.,;")
    tail = max(text.rfind(mark) for mark in "?!.,;") + 1
    last = [t for t in r.tags if tail <= t.start < len(text)]
    before = [t for t in r.tags if t.start < tail]  # a statement or a yes/no about the term, not a request
    # ("showed up among the edge results": results as where the term was seen, not as a request)
    if any(t.kind == "cue" and t.value == "better" for t in last) and any(t.kind == "direction" for t in before):
        return False  # "fastest wan 2.2 singlestream? lower is better right": a ranking, and a reminder
    if any(t.kind == "direction" for t in before) and any(t.kind == "grouping" for t in before):
        return False  # "who's top on rgat, and is it a cpu?": a ranking asked, then a field of its winner
    return any(t.kind == "cue" and t.value == "define" for t in last) \
        and not any(t.kind in ("direction", "operation", "measure", "comparator") for t in last) \
        and not any((t.kind == "measure" and (t.value != "results" or any(b.kind == "direction" for b in before)))
                    or (t.kind, t.value) in (("cue", "wh"), ("cue", "define")) for t in before) \
        and all(column in TERMS for column, values in ctx.explicit.items() if values) and bool(r.matches)


# Tags that make a clause a request of its own, not a remark beside a definition.
_REQUESTS = ("operation", "direction", "comparator", "attribute", "unit")


def _asked_first(ctx: Context) -> int | None:
    """"what is disaggregated inference? nvidia keeps bringing it up", "tpot?? saw it next to ttft":
    the first sentence asks what a term is, or is the bare term, and names nothing but terms; what
    follows only says where the term was seen, so the company it names is no filter. Returns where
    the first sentence ends, or None."""
    r = ctx.reading
    end = r.text.find("?")
    if end < 0 or not r.text[end + 1:].strip():
        return None
    first = [t for t in r.tags if t.start < end]
    asides = remarks(r, end)  # "asking because nvidia wins everything": why the user asks, no request
    rest = [t for t in r.tags if t.start > end and not any(s <= t.start < e for s, e in asides)]
    named_first = [m for m in r.matches if m.span[1] <= end]
    named_rest = [m for m in r.matches if m.span[0] > end]
    # a bare term, then a remark that asks nothing ("what did nvidia score" is a question of its own)
    bare = 0 < sum(t.end <= end for t in r.tokens) <= 2 and not any(m.column == "benchmark" for m in named_first) \
        and not any(t.kind in _REQUESTS for t in first) and not r.text.rstrip().endswith("?") \
        and not any(t.kind == "cue" and t.value == "clause" for t in rest)
    if not (bare or (any(t.kind == "cue" and t.value == "define" for t in first) and named_rest)):
        return None
    if any(m.column not in TERMS for m in named_first) or r.publishers:
        return None  # "what is X according to AMD?": a source's words, not ours
    seen = {t.value for t in first if t.kind == "measure"}  # "next to ttft": beside a term of its own kind
    if any(t.kind in _REQUESTS or (t.kind == "measure" and t.value not in ("results", *seen))
           or (t.kind == "cue" and t.value in ("define", "wh", "why", "source", "commentary")) for t in rest):
        return None
    return end


_CLAUSE_MARK = r"[.?!,;]+(?=\s|$)"  # "5.1" and "1,000" hold no end
_CLAUSE_END = re.compile(_CLAUSE_MARK + r"|\.\.\.")
# ... or a dash between spaces ("naeem khoshnevis results - are those available?")
CLAUSE_OR_DASH = re.compile(_CLAUSE_MARK + r"|\s[-–—]\s")


RELATIVE_GAP = 3  # words from a relative word to the remark cue: "that" + "nvidia" (+ one more)


def remarks(r: Reading, start: int) -> list[tuple[int, int]]:
    """The clauses after `start` that only say why the user asks or where a term was seen ("asking
    because …", "i saw it next to ttft", "det stod att …"): each runs from the punctuation before
    its remark cue to the punctuation after it."""
    ends = [start] + [m.end() for m in _CLAUSE_END.finditer(r.text, start + 1)] + [len(r.text)]
    spans = []
    for t in r.tagged("cue", "remark"):
        if t.start > start:
            lo = max(e for e in ends if e <= t.start)
            # "… 'disaggregated serving' that nvidia keeps talking about": a relative word with at most
            # the remark's subject between it and the cue opens the clause, inside its sentence
            lo = max([lo] + [w.start for w in r.tagged("cue", "relative")
                             if lo < w.start and t.first - RELATIVE_GAP <= w.first < t.first])
            hi = min((e for e in ends if e > t.end), default=len(r.text))
            spans.append((lo, hi))
    return spans


# The end of a sentence: its marks, then a space or the end ("v6.0" and "3.1" hold no end).
_SENTENCE_END = re.compile(r"[.?!]+(?=\s|$)")


def sentences(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each sentence of `text`."""
    cuts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
    return [(a, b) for a, b in zip(cuts, cuts[1:] + [len(text)]) if text[a:b].strip()]


def _opener(phrase: str) -> bool:
    """A define cue that only opens a question ("what is", "what's", "vad är"): it may ask for a
    figure as well as a meaning, unlike "stand for" or "what does … mean"."""
    words = phrase.split()
    return len(words) <= 2 and words[0].strip("^") in ("what", "what's", "whats", "vad", "wtf", "which")


def statements(r: Reading) -> list[tuple[int, int]]:
    """The sentences beside a definition asked that state, and ask nothing: after a question, one
    that opens with its subject and ends with no question mark ("what do ttft and tpot mean? they
    show up in every article", "vad är rdi? det står på massor av rader"); before a last question
    that asks what "that" is, or that frames a term ("what is … about"), every sentence with no
    question mark ("nvidia keeps bragging about disaggregated serving. what is that exactly?")."""
    text = r.text
    spans = sentences(text)
    if len(spans) < 2:
        return []
    out: list[tuple[int, int]] = []
    asked = False
    for a, b in spans:
        first = next((t for t in r.tokens if a <= t.start < b), None)
        opens = first is not None and any(t.start == first.start for t in r.tagged("cue", "stating"))
        if asked and opens and not text[a:b].rstrip().endswith("?"):
            out.append((a, b))
        asked = asked or text[a:b].rstrip().endswith("?")
    a, b = spans[-1]
    last = [t for t in r.tags if a <= t.start < b]
    # "what is that exactly", "vad är det": the last sentence only points back ("what's that post
    # called" names what it asks for)
    framing = [t for t in last if t.kind == "cue" and t.value in ("pointing", "plain")]
    pointed = any(t.value == "pointing" for t in framing) \
        and all(any(t.start <= tok.start < t.end for t in framing) for tok in r.tokens if a <= tok.start < b)
    # "… most don't. what is the power part of mlperf about?": a definition framed around its term
    # ("what is … about", "what does … mean"), not a bare "what is" that may ask for a figure
    # ("NVIDIA's post says X. why does it say that, what does it mean?" asks about the source's words)
    framed = text[a:b].rstrip().endswith("?") and any(
        t.kind == "cue" and t.value == "define" and ("…" in t.phrase.split() or not _opener(t.phrase)) for t in last) \
        and not r.has("cue", "why", "source", "source_weak")
    if pointed or framed:
        out += [(s, e) for s, e in spans[:-1] if not text[s:e].rstrip().endswith("?")]
    return sorted(set(out))


def context(r: Reading) -> list[tuple[int, int]]:
    """The sentences before the last question a text asks ("there was an individual submitter who
    ran on a macbook. which onnx version did he use?", "a single person submitted on a laptop?? what
    machine was that"): they set the scene, the last question asks."""
    spans = sentences(r.text)
    wh = [t.start for t in r.tagged("cue", "wh_word")]  # "…?? what machine was that": a question too
    asks = [i for i, (a, b) in enumerate(spans) if r.text[a:b].rstrip().endswith("?") or any(a <= w < b for w in wh)]
    return spans[:asks[-1]] if asks else []


def drop_in_context(r: Reading, kind: str, *values: str) -> Reading:
    """The reading without its tags `kind`/`values` inside a sentence before the last question,
    unless one opens that sentence: "who" in "a submitter who ran …." describes someone, it does not
    ask who, as "who at intel was quoted? and what did he say?" does."""
    spans = context(r)
    opening = {a + len(r.text[a:b]) - len(r.text[a:b].lstrip()) for a, b in spans}
    kept = [t for t in r.tags if not (t.kind == kind and t.value in values and _inside(spans, t.start)
                                      and t.start not in opening)]
    return r if len(kept) == len(r.tags) else replace(r, tags=kept)


def drop_in_remarks(r: Reading, kinds: tuple[str, ...]) -> Reading:
    """The reading without its tags of `kinds` inside remark clauses (`remarks`): what a remark
    says is why the user asks ("i read it was a record"), not what."""
    spans = remarks(r, -1)
    kept = [t for t in r.tags if not (t.kind in kinds and _inside(spans, t.start))]
    return r if len(kept) == len(r.tags) else replace(r, tags=kept)


def _term_confirmed(ctx: Context) -> bool:
    """"the whisper test is speech to text, right?", "stämmer det att interactive är för chattar?":
    a yes/no check of what a term is, naming only terms and asking for no figure, is answered from
    the guide (a check naming a company or a figure is a claim about results)."""
    r = ctx.reading
    # "is gpt oss basically chatgpt?", "rgat?? is that about graphs?", "are those both detection tests?"
    likened = r.has("cue", "yes_no", "asks_whether") and r.has("cue", "likeness")
    return (r.has("cue", "is_it_true") or likened) and bool(r.matches) and all(m.column in TERMS for m in r.matches) \
        and not ctx.rounds and not ctx.parsed.claimed and not r.conditions \
        and not any(t.kind in ("measure", "direction", "operation", "comparator", "attribute") and not _which_one(r, t)
                    for t in r.tags)


def _which_one(r: Reading, t: Tag) -> bool:
    """"which one" is "which of them" ("… which one is used where?"), no top-1 ranking."""
    return t.kind == "direction" and t.value == "top_n" and r.text[t.start:t.end].lower() == "which one"


def _term_attribute(ctx: Context) -> bool:
    """"if a system is marked preview can i buy it?": asking the very attribute that the named term
    is a value of (availability, for "preview"), naming nothing but such terms, asks what the term
    means; an attribute of a named system ("can i buy the gb300") is a field of its result."""
    r = ctx.reading
    asked = {t.value for t in r.tags if t.kind == "attribute"}
    named = {m.column for m in r.matches}
    return bool(asked) and asked <= named <= set(TERMS) - {"benchmark"} and not ctx.rounds \
        and not ctx.parsed.claimed and not r.conditions \
        and not any(t.kind in ("measure", "direction", "operation", "comparator") for t in r.tags)


def _which_term(ctx: Context) -> bool:
    """"which scenario is for chatbots", "vilket scenario motsvarar ett nattjobb": which of a kind of
    term fits a description, naming no value, company or round and ranking nothing, is answered by
    the guide's section that fits it ("which scenarios did nvidia run" names a company: results)."""
    r = ctx.reading
    kinds = {t.value for t in r.tags if t.kind in ("grouping", "attribute")}
    # the description: words the reader did not read ("chatbots"), not "which benchmarks are there"
    described = any(len(tok.text) >= DESCRIBING_LEN and tok.text.isalpha() and not words.read_at(r, i)
                    for i, tok in enumerate(r.tokens))
    return words.which_kind(r) is not None and kinds <= set(TERMS) and described and not r.matches \
        and not ctx.rounds and not r.conditions and not ctx.parsed.claimed and not r.publishers \
        and not any(t.kind in ("direction", "operation") for t in r.tags)  # a comparator word binds no number


def _remarked(ctx: Context) -> list[tuple[int, int]]:
    """The remark clauses of the question that ask no definition themselves ("coreweave's text
    keeps saying 'mixture-of-experts'", "asking because nvidia wins everything")."""
    r = ctx.reading
    return [(s, e) for s, e in asides(r) if not any(s <= t.start < e for t in r.tagged("cue", "define"))]


def asides(r: Reading) -> list[tuple[int, int]]:
    """Every clause beside a definition asked that only says why or where: remarks and statements."""
    merged: list[tuple[int, int]] = []
    for s, e in sorted(set(remarks(r, -1)) | set(statements(r))):
        if merged and s < merged[-1][1]:  # a remark inside a statement: one clause
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _without_remarks(ctx: Context) -> Context | None:
    """The question as if its remark clauses were not there, or None when it has none: what a
    remark says or names (a source, a company, a ranking) is why the user asks, not what. A term
    named in a remark stays ("i saw 'preview' on some rows, what does it mean")."""
    spans = _remarked(ctx)
    if not spans:
        return None
    r = ctx.reading
    matches, explicit = _unremarked(r.matches, ctx.explicit, spans)
    reading = replace(r, tags=[t for t in r.tags if not _inside(spans, t.start)], matches=matches)
    return replace(ctx, reading=reading, explicit=explicit)


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    return any(s <= at < e for s, e in spans)


def _unremarked(matches: list[Match], explicit: dict[str, list[str]],
                spans: list[tuple[int, int]]) -> tuple[list[Match], dict[str, list[str]]]:
    """The names outside the remark clauses and the terms inside them, and the filters of only
    the columns those still name."""
    kept = [m for m in matches if m.column in TERMS or not _inside(spans, m.span[0])]
    columns = {m.column for m in kept}
    return kept, {c: v for c, v in explicit.items() if c in columns}


def _define_applies(ctx: Context) -> bool:
    bare = _without_remarks(ctx)
    return _define_reads(ctx) or (bare is not None and _define_reads(bare))


def _define_reads(ctx: Context) -> bool:
    r = ctx.reading
    # "what's the tool called": a name asked of a thing nothing reads, which a document states
    if words.unread_named(r) is not None:
        return False
    # "är inte det orättvist att jämföra dom??", "betyder det att mi355x är bäst?": whether a comparison
    # is fair is the guide's to say, whatever sizes, names or rankings it states; a count or a list
    # still asks for results
    if r.has("cue", "fair") and not r.has("operation", "count", "list"):
        return True
    # "techarena on the 405b test in v5.0, what's the median input length?": a publisher beside a term,
    # asked with a define cue that only opens a question, asks what the publisher wrote
    if r.publishers and r.matches and all(_opener(t.phrase) for t in r.tagged("cue", "define")):
        return False
    if _units_compared(ctx) or _asked_last(ctx) or _asked_first(ctx) is not None or _term_confirmed(ctx) \
            or _term_attribute(ctx) or _which_term(ctx) or _benchmarks_compared(ctx) or _attributes_compared(ctx):
        return True
    # "which one should I look at": "which one" is "which of them", no ranking; "more streams" is no
    # ranking either ("more"/"fewer" rank only named sides, shapes/counting.py)
    # ... nor is a direction inside a question about what is better ("is smaller better there?")
    if _about_organiser(ctx):  # "are they the ones running mlperf?" asks who, with no define cue
        return True
    # ... nor a direction inside the words on what is better ("the biggest number wins, right?")
    asked = [(t.start, t.end) for t in r.tagged("cue", "define", "better")]
    ranked = any(t.kind == "direction" and t.value not in ("more", "fewer") and not _which_one(r, t)
                 and not any(s <= t.start and t.end <= e for s, e in asked) for t in r.tags)
    # "the biggest number wins, right?" asks which way is better, as "is bigger better?" does
    if not (r.has("cue", "define", "better") or _bare_term(ctx)) or ranked or r.conditions:  # a comparator alone binds nothing
        return False
    # "yolo-95 showed up in 6.0, what's that": a round beside a term dates it; a round beside a
    # measure ("what is the result in 6.0") asks for results
    if ctx.rounds and (not r.has("cue", "define") or r.has("measure")):
        return False
    # "what does the new benchmark in v6.1 measure": what is new in a round is a list from the table
    # (the guide then defines each), even inside the definition's own words; but "how often do new
    # rounds come" asks the cadence, and a benchmark named ("the new agentic edge test in v6.1") is
    # the term, which "new" only describes
    describes = r.has("cue", "frequency") or bool(ctx.benchmarks)
    if ctx.rounds and r.has("operation", "new") and not describes:
        return False
    rejected = ("count", "list", "gone", "trend", "who", "appearances") + (() if describes else ("new",))
    # ... an operation inside the definition's own words asks nothing ("dlrm-v3 vs dlrm-v2, what changed")
    if any(not any(s <= t.start and t.end <= e for s, e in asked) for t in r.tagged("operation", *rejected)):
        return False
    if r.has("measure", *_NOT_DEFINING):
        return False
    # "what is X, according to Y": Y's words, not ours; but "what is MLCommons" asks what a publisher is
    # ("availability says 'available'", "both say 8": a weak "says" with no document named is no source)
    if any(t.kind == "cue" and (t.value in ("source", "commentary") or (t.value == "source_weak" and r.publishers))
           and t.phrase not in r.publishers for t in r.tags):
        return False
    # "techarena's piece compares the 405b latency target to ...": a publisher beside a term asks what
    # the publisher wrote about it ("what is techarena" names the publisher alone)
    if r.publishers and r.matches:
        return False
    return all(column in TERMS or words.shared_name(column, values) for column, values in ctx.explicit.items()
               if values)


def _about_organiser(ctx: Context) -> bool:
    """"who actually runs mlperf, is it just nvidia marketing?", "who checks the results? couldn't
    nvidia just make up numbers", "why can't someone just rank nvidia vs amd?": a question about who
    runs the benchmark, how its results are reviewed or why it ranks no vendor overall names its
    subject with that phrase; a company beside it is a guess at the answer, no filter
    (a round or a ranking still asks for results, and so does a benchmark beside who runs it: "vem
    kör llama2 i mlperf" asks who submitted it; "isn't speculative decoding on deepseek-r1 cheating?"
    still asks how results are reviewed)."""
    r = ctx.reading
    asked = r.has("cue", "review") or (r.has("cue", "organiser", "overall") and not ctx.benchmarks)
    return asked and not ctx.rounds and not r.has("direction") and not r.conditions


@shape("define", priority=15, applies=_define_applies)
def define(ctx: Context) -> Parsed:
    """What a term means (a scenario, a division, a benchmark, rdi): the guide, quoted, plus table facts."""
    end = _asked_first(ctx)
    if end is not None:  # the remark's company is where the term was seen, not the term
        ctx.parsed.entities = [m for m in ctx.parsed.entities if m.span[1] <= end]
        ctx.parsed.explicit = {}
    if _about_organiser(ctx):  # the company named is a guess at who runs it, not the term
        ctx.parsed.entities = [m for m in ctx.parsed.entities if m.column in TERMS]
        ctx.parsed.explicit = {}
    spans = _remarked(ctx)
    if spans and not _define_reads(ctx):  # read without its remarks: what they name is no filter
        ctx.parsed.entities, ctx.parsed.explicit = _unremarked(ctx.parsed.entities, ctx.parsed.explicit, spans)
    ctx.parsed.intent = "define"
    ctx.parsed.needs_commentary = True
    return ctx.parsed
