"""Facts about a reading that several shapes ask: is it counting, listing, which metric, what
is counted. Each is a small combination of lexicon tags, so a wording change is a lexicon
edit and every shape sees it the same way."""

from __future__ import annotations

import re

from assistant import lexicon
from assistant.reader import Reading

# What "how many X" counts, when several grouping nouns are named (first wins).
COUNT_PRIORITY = ("submitter", "benchmark", "platform", "accelerator", "accelerator_family", "accelerator_vendor",
                  "scenario", "round")
SOURCE_CUES = ("why", "source", "commentary", "source_weak")
# Named things the guide explains; a question naming a chip or a company is about results.
TERMS = ("benchmark", "scenario", "division", "availability", "system_type", "units")


def read_at(r: Reading, i: int) -> bool:
    """Token i is read: inside an entity name, or under any lexicon phrase (a card's words too)."""
    return _named_at(r, i) or any(t.first <= i < t.last for t in r.tags)


def unread(r: Reading) -> list[str]:
    """Words no entity and no lexicon phrase covers: what the question says that we did not read."""
    return [tok.text for i, tok in enumerate(r.tokens) if tok.text.isalpha() and not read_at(r, i)]


def benchmarks_only(r: Reading) -> bool:
    """Two or more benchmarks named and nothing else ("llama2-70b-99 and llama2-70b-99.9")."""
    named = {m.values[0] for m in r.matches if m.column == "benchmark" and m.values}
    return len(named) >= 2 and {m.column for m in r.matches} == {"benchmark"}


def better_of_two(r: Reading) -> bool:
    """A yes/no on which of two things is better, faster or bigger ("is 99.9 better than 99?", "so
    gpt-oss is just the faster one right?")."""
    return r.has("cue", "yes_no", "is_it_true") and (r.has("operation", "compare") or r.has("direction")
                                                     or r.has("measure", "ratio"))


def set_side_by_side(r: Reading) -> bool:
    """Two or more benchmarks compared with nothing measured ("llama2-70b-99 vs llama2-70b-99.9
    which is better??", "retinanet vs yolo in the results - are they both object detection?"):
    benchmarks are never ranked against each other, so this asks how they differ; a measure, or a
    ranking word outside the comparison's own phrase ("the best gpt-oss vs deepseek results"), asks
    results, but "the results" beside a likeness ("are they both …") only says where they were seen."""
    seen = r.has("cue", "likeness") and set(r.values("measure")) <= {"results"}
    if not benchmarks_only(r) or (r.has("measure") and not seen):
        return False
    spans = [(t.start, t.end) for t in r.tagged("operation", "compare")]
    return bool(spans) and all(any(s <= t.start and t.end <= e for s, e in spans) for t in r.tagged("direction"))


# Columns that name one tested system; a word many of their values share is a kind, not one system.
SYSTEM_NAMES = ("system_name", "platform")
SHARED_NAME_SYSTEMS = 3


def shared_name(column: str, values: list[str]) -> bool:
    """"whats an nvl72", "what's tensorrt": a word that many systems' names share names a kind of
    rack or software, which the guide may explain, not one system whose results are asked; a
    system's full name matches one or two systems and still asks for its results."""
    return column in SYSTEM_NAMES and len(values) >= SHARED_NAME_SYSTEMS


def which_kind(r: Reading) -> str | None:
    """"which scenario is for batch jobs": the kind of term a "which" question asks to choose (not
    "what does scenario mean", which asks what the kind itself is), or None."""
    if not r.has("cue", "which"):
        return None
    return next((t.value for t in r.tags if t.kind in ("grouping", "attribute") and t.value in TERMS), None)


def needs_commentary(r: Reading) -> bool:
    """The question asks what documents say (why, according to, claims, news, a person's role, a date), or asks how
    much of what a system or model is made of ("how much memory", "how many parameters"), which
    only documents state, or names a ratio someone stated ("the 2.7x speedup"), which no result
    records; a spec that only describes ("the 141 GB memory version") asks nothing."""
    return r.has("cue", *SOURCE_CUES, "role", "rule", "date") or asks_specs(r) or quotes_ratio(r) or people_of(r) \
        or unread_named(r) is not None


# Words between a name cue ("called", "name of") and the noun whose name it asks.
NAME_REACH = 4
_QUOTES = "'\"‘’“”"


def unread_named(r: Reading) -> str | None:
    """The noun whose name is asked when nothing reads it ("whats their optimizer tool called",
    "what was the lab called where juniper tested", "the name of thestage ai's optimizer tool", sv
    "vad heter deras verktyg"): no column holds such a name, a document may state it. None for a
    name the table holds ("whats the name of the system that won": "system" is read)."""
    for tag in r.tagged("cue", "name_of", "called"):
        given = tag.last < len(r.tokens) and r.text[r.tokens[tag.last].start - 1] in _QUOTES
        if given or (tag.value == "called" and tag.last < len(r.tokens) and _named_at(r, tag.last)):
            continue  # the name is given ("one scenario is called 'Offline'", "a new one called qwen3-vl")
        if tag.value == "name_of":
            near = range(tag.last, min(len(r.tokens), tag.last + NAME_REACH))
        else:
            near = range(tag.first - 1, max(-1, tag.first - 1 - NAME_REACH), -1)
        for i in near:
            word = r.tokens[i].text
            if any(_tagged_at(r, i, kind) for kind in _NOUN_KINDS) or (_named_at(r, i) and tag.value == "called"):
                break  # "what was their edge box called": a system's name, which the table holds
            if _noun_owning(r, word):
                break  # "the winning system's name": the same, said with a possessive
            word = re.sub(r"['’]s$", "", word)  # "the startup's name": the startup's
            if word.isalpha() and len(word) >= 3 and not read_at(r, i):
                return word
    return None


def _noun_owning(r: Reading, word: str) -> bool:
    """"system's": a possessive whose noun the lexicon reads as a column's noun (the tokens keep the
    "'s", so the tags miss it)."""
    base = re.sub(r"['’]s$", "", word)
    if base == word:
        return False
    lex = lexicon.load(r.language)
    return any(t.kind in _NOUN_KINDS for t in lex.tag(lexicon.tokenize(base)))


def people_of(r: Reading) -> bool:
    """"who from stevens institute of technology submitted?", "vem på intel citerades?": the people
    of an organisation, named in documents only; "who from 4.1 didn't come back" names a round."""
    words = lexicon.load(r.language)
    return any(t.last < len(r.tokens) and not words.word_matches("<round>", r.tokens[t.last].text)
               for t in r.tagged("cue", "people_of"))


# A ratio written in a text ("2.7x", "2.7 times", "2,5 gånger"): a number and a ratio word.
_RATIO_WORDS = "|".join(sorted({w for language in ("en", "sv") for w in lexicon.load(language).phrases(
    "cue", "ratio_word")}, key=len, reverse=True))
_RATIO_FIGURE = re.compile(rf"\b(\d+(?:[.,]\d+)?)\s*-?(?:×|{_RATIO_WORDS})(?![a-zåäö])", re.I)
# Names a count of chips can stand before ("8x h100", "an 8x b200 system"): then "8x" is no ratio.
_COUNTED = ("accelerator_family", "accelerator", "accelerator_vendor", "system_name", "platform")


def ratios(text: str) -> set[float]:
    """The ratios a text writes ("2.7x", "2.7 times", "3-fold"), as numbers."""
    return {float(m.group(1).replace(",", ".")) for m in _RATIO_FIGURE.finditer(text)}


def quotes_ratio(r: Reading) -> bool:
    """"which partner achieved the 2.7x deepseek-r1 speedup?", "the 3 times faster claim": a ratio
    written as a figure beside a ratio word, and not part of a name (a system called "… 6x …") nor
    a count of chips or machines ("8x h100", "an 8x gpu system", "8x systems")."""
    if not r.has("measure", "ratio"):
        return False
    spans = [m.span for m in r.matches]
    starts = {m.span[0] for m in r.matches if m.column in _COUNTED}
    for found in _RATIO_FIGURE.finditer(r.text):
        if any(s <= found.start() < e for s, e in spans):
            continue
        following = next((i for i, tok in enumerate(r.tokens) if tok.start >= found.end()), None)
        if following is not None and (r.tokens[following].start in starts or any(
                r.tag_at(following, kind) is not None for kind in ("grouping", "attribute", "unit"))):
            continue
        return True
    return False


def _asked_after_wh(r: Reading, kind: str, values: tuple[str, ...]) -> str | None:
    """The value of the first `kind` tag among `values` that a wh-word asks for: the tag follows the
    wh-word with only names and read words between, and no other noun; else None."""
    for tag in r.tagged(kind, *values):
        wh = max((t.last for t in r.tagged("cue", "wh", "wh_word") if t.last <= tag.first), default=None)
        if wh is not None and all(read_at(r, i) and not any(_tagged_at(r, i, k) for k in _NOUN_KINDS)
                                  for i in range(wh, tag.first)):
            return tag.value
    return None


# Tags that stand for a noun a question may ask about instead ("which benchmarks … results").
_NOUN_KINDS = ("grouping", "attribute", "measure")


def asks_result(r: Reading) -> bool:
    """Whether the question's wh-word asks for a result's value: "what score did X get", "what were
    NVIDIA's top Qwen3-VL results", "vilken poäng fick". "Which two benchmarks did AMD post results
    on" asks for benchmarks; "which cloud provider … leading results" for a name."""
    return _asked_after_wh(r, "measure", ("results", "throughput")) is not None


# Columns whose values a document can be asked to name ("which two benchmarks did Netweb mention").
NAMED_COLUMNS = ("benchmark", "accelerator_family", "accelerator", "scenario")


def asks_column(r: Reading) -> str | None:
    """The column whose values the question's wh-word asks for ("vilka två benchmarks nämner de",
    "which gpu did CoreWeave say it was first with"), or None. "What a benchmark really is" asks
    what one is, not which."""
    column = _asked_after_wh(r, "grouping", NAMED_COLUMNS)
    tag = next(iter(r.tagged("grouping", column)), None) if column else None
    if tag is not None and tag.first > 0 and r.tokens[tag.first - 1].text.lower() in _INDEFINITE:
        return None
    return column


_INDEFINITE = {"a", "an", "en", "ett"}


def asks_specs(r: Reading) -> bool:
    """"how much memory", "how many parameters does wan 2.2 have": an amount of what a system or
    model is made of, which no result records."""
    specs = [(t.first, t.last) for t in r.tagged("cue", "specs")]
    return bool(specs) and any(not any(a <= t.first and t.last <= b for a, b in specs)
                               for t in r.tagged("measure", "amount"))


def best(r: Reading) -> bool:
    return r.has("direction", "best")


def worst(r: Reading) -> bool:
    return r.has("direction", "worst")


def runner_up(r: Reading) -> bool:
    """"By how much over second place", "the gap to #2", "who came second": the first two, and the lead."""
    return r.has("cue", "runner_up") or (r.has("cue", "margin") and best(r))


def top_n(r: Reading) -> int:
    return r.top_n or 1


def counted_words(r: Reading) -> list[int]:
    """Token indices of the (up to three) words right after "how many", adjectives skipped."""
    tag = next(iter(r.tagged("operation", "count")), None)
    if tag is None:
        return []
    skip = {t.first for t in r.tagged("cue", "distinct")} | {
        i for i, tok in enumerate(r.tokens) for m in r.matches if m.span[0] <= tok.start and tok.end <= m.span[1]}
    return [i for i in range(tag.last, min(tag.last + 8, len(r.tokens))) if i not in skip][:3]


def uncounted(r: Reading) -> str | None:
    """The noun "how many" counts when no column holds it ("how many partners did they list",
    "how many OEMs"), else None: the first word after "how many" is read by nothing, and neither
    it nor the next word names a column or a measure ("how many graphics cards" counts cards)."""
    counted = counted_words(r)
    if not counted or read_at(r, counted[0]):
        return None
    word = r.tokens[counted[0]].text
    if len(word) < 3 or not word.isalpha() or any(_tagged_at(r, i, kind) for i in counted[:2]
                                                   for kind in ("grouping", "measure", "attribute")):
        return None
    return word


def noun_after(r: Reading, i: int) -> int:
    """The index of the noun a question word at `i` asks for, past its determiners and "the name
    of" ("whats the name of the optimisation tool": "optimisation")."""
    for cue in ("determiner", "name_of", "determiner"):
        tag = next((t for t in r.tagged("cue", cue) if t.first == i), None)
        if tag is not None and tag.last < len(r.tokens):
            i = tag.last
    return i


def unknown_asked(r: Reading) -> str | None:
    """The noun a wh-word opening the question asks for when nothing reads it and no column or
    measure follows ("which rocm version did amd use", "whats the name of the optimisation tool
    thestage used"): no result holds it, a document may state it. None for a noun the lexicon or
    the table knows ("which gpu", "what type of gpu", "which ones")."""
    # (in a later clause, "…, what scaling did they get?", "…, whats the lab called", the table answers
    # what it holds and the organisation's statement is quoted beside it)
    wh = next((t for t in r.tagged("cue", "asks_noun") if t.first == 0), None)
    if wh is None or wh.last >= len(r.tokens):
        return None
    i = noun_after(r, wh.last)
    word = r.tokens[i].text
    if read_at(r, i) or len(word) < 3 or not word.isalpha():
        return None
    if any(_tagged_at(r, j, k) for j in range(i + 1, min(i + 4, len(r.tokens))) for k in _NOUN_KINDS):
        return None
    # a noun, not a verb: what follows it (past a word of its compound) asks on ("which rocm version
    # did …", "whats the lab called"), or the question ends; "what happened to gpt-j" goes on with a
    # preposition
    after = i + 1 + (i + 1 < len(r.tokens) and not read_at(r, i + 1))
    if after < len(r.tokens) and _tagged_at(r, after, "cue", "plain", "lead") \
            and not _tagged_at(r, after, "cue", "clause", "name_of", "called", "acted", "refers", "pronoun"):
        return None
    return word


def _named_at(r: Reading, i: int) -> bool:
    """Token i is inside a name the catalog read."""
    tok = r.tokens[i]
    return any(m.span[0] <= tok.start and tok.end <= m.span[1] for m in r.matches)


def _tagged_at(r: Reading, index: int, kind: str, *values: str) -> bool:
    return any(t.first == index for t in r.tagged(kind, *values))


def is_count(r: Reading, explicit: dict[str, list[str]]) -> bool:
    """"How many submitters/results ..." counts; "how many tokens/s per GPU" and "how many nodes
    did the best system use" ask for a value of a row."""
    if not r.has("operation", "count") or r.has("measure", "per_accelerator"):
        return False
    words = counted_words(r)
    if words and _tagged_at(r, words[0], "cue", "value_word"):
        return False
    if words and _tagged_at(r, words[0], "cue", "specs"):
        return False  # "how many parameters does wan 2.2 have": what a model is made of, not a count of results
    asked = next(iter(r.tagged("operation", "count")))
    if words and any(asked.first <= t.first <= words[0] for t in r.tagged("measure", "ratio")):
        return False  # "how many times faster", "how many x faster": a ratio of two values
    if words and _tagged_at(r, words[0], "attribute", "number_of_nodes", "total_accelerators", "host_processor") \
            and (explicit.get("benchmark") or best(r)):
        return False
    if (best(r) or worst(r) or r.has("direction", "top_n")) and r.has("cue", "refers"):
        return False
    return True


def count_target(r: Reading) -> str | None:
    """What "how many X" counts: the words right after "how many" decide ("how many results are
    on NVIDIA GPUs" counts results), then the rest of the question."""
    words = counted_words(r)
    if words:
        def grouping_in(indices: list[int]) -> str | None:
            hits = [t for t in r.tagged("grouping") if t.first in indices]
            return next((c for c in COUNT_PRIORITY if any(t.value == c for t in hits)), None)

        first_hit = grouping_in(words[:2])
        results_first = _tagged_at(r, words[0], "measure", "results")
        if first_hit and not results_first:
            return first_hit
        if any(_tagged_at(r, i, "measure", "results") for i in words):
            return None
        hit = grouping_in(words)
        if hit:
            return hit
    return grouping(r)


def new_describes(r: Reading, explicit: dict[str, list[str]]) -> bool:
    """"the new nvidia chip, vera rubin": "new" describes a thing the question names (a value of the
    column its noun names), it asks for no list of what is new ("which chips were new in 6.1")."""
    column = grouping(r, exclude=("round",))
    return column is not None and bool(explicit.get(READABLE.get(column, column)))


# The column a grouping noun lists by: people read system names, not folder ids ("systems").
READABLE = {"platform": "system_name"}


def grouping(r: Reading, exclude: tuple[str, ...] = ()) -> str | None:
    """The column a grouping noun names, by COUNT_PRIORITY."""
    named = r.values("grouping")
    return next((c for c in COUNT_PRIORITY if c in named and c not in exclude), None)


def is_list(r: Reading) -> bool:
    """"Which benchmarks ...", "list the submitters", "who submitted ..."."""
    if r.has("operation", "list", "who"):
        return True
    return r.has("cue", "wh") and any(t.first <= 8 for t in r.tagged("cue", "plural"))


def _each_side(r: Reading) -> bool:
    """"The best number each chip got", two chips named: each side's result, not a figure per chip."""
    per = r.tagged("measure", "per_accelerator")
    chips = [m for m in r.matches if m.column in ("accelerator_family", "accelerator")]
    return len({m.values for m in chips}) >= 2 and all(r.tokens[t.first].text in ("each", "every") for t in per)


def metric(r: Reading) -> str:
    if r.has("measure", "per_accelerator") and not _each_side(r):
        return "result_per_accelerator"
    if r.has("measure", "efficiency"):
        return "efficiency"
    if r.has("measure", "power"):
        return "power"
    return "result"


def size_metric(r: Reading) -> str | None:
    """"total_accelerators" or "number_of_nodes" when the question ranks systems by size."""
    if not r.has("measure", "size") or r.has("measure", "results", "throughput", "latency", "tokens", "samples",
                                             "queries"):
        return None
    nodes = r.has("attribute", "number_of_nodes") and not r.has("attribute", "total_accelerators")
    return "number_of_nodes" if nodes else "total_accelerators"


def is_followup(r: Reading, explicit: dict[str, list[str]], rounds: list[str]) -> bool:
    """A short turn that changes a filter of the previous question ("and for AMD?")."""
    has_shape = r.has("operation", "count", "new", "list", "trend", "compare")
    short = len(r.tokens) <= 9
    prep = r.has("cue", "followup_prep") and r.text.rstrip().endswith("?") and len(r.text) <= 48
    if r.top_n and len(r.tokens) <= 5 and not explicit:  # "show the top 3"
        return True
    if r.has("direction", "ordinal") and len(r.tokens) <= 6 and not explicit and not rounds:
        return True  # "and which one came second?": a place in the previous ranking
    # "what's their deepseek server number": "their" is the previous turn's party when none is named
    theirs = r.has("cue", "their") and not any(explicit.get(c) for c in PARTIES)
    return (r.has("cue", "followup") or prep or theirs) and short and not has_shape and bool(explicit or rounds)


# Columns that name who or what posted a result: a question naming one is not about "their" rows.
PARTIES = ("submitter", "system_name", "platform", "accelerator", "accelerator_family", "accelerator_vendor")


def not_one_claim(r: Reading) -> bool:
    """"AMD beat NVIDIA", "among B200 systems", "the top 3 all used B300": not one named party
    ("of all" is a scope, not a group)."""
    return any(r.word(t.first - 1) not in {"of", "av"} for t in r.tagged("cue", "not_one_claim"))


def power_order_high(r: Reading) -> bool:
    """"The most power" is the worst power figure."""
    return r.has("direction", "high")


SECOND_ASK_GAP = 3  # tokens between "and" and the clause word it opens ("and by how much")


def two_asks(r: Reading | None) -> tuple[str, str] | None:
    """A question that asks two things ("how much faster was X than Y, and by how much did software
    raise Z?"), split where a conjunction is followed closely by a clause word; else None."""
    if r is None:
        return None
    clauses = [t.first for t in r.tagged("cue", "clause")]
    for conj in r.tagged("cue", "conjunction"):
        if any(conj.last <= c <= conj.last + SECOND_ASK_GAP for c in clauses):
            return r.text[:conj.start], r.text[conj.start:]
    return None


# Columns that say how big a tested system is.
SIZE_COLUMNS = ("total_accelerators", "accelerators_per_node", "number_of_nodes")


def sized(r: Reading) -> bool:
    """The question states a system's size: a number of accelerators or nodes ("a 72 gpu rack", "8
    gpuer", "en server med 8"), as a condition or a number before a unit word."""
    numbers = lexicon.load(r.language).numbers
    return any(c.column in SIZE_COLUMNS for c in r.conditions) or any(
        t.first > 0 and lexicon.number_value(r.tokens[t.first - 1].text, numbers) is not None
        for t in r.tagged("unit", *SIZE_COLUMNS))
