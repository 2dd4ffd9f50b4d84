"""The shapes of last resort and of first refusal: text we cannot compute from (code, a measure
the table does not have), questions for the documents, and a clarifying question with choices
built from the data when nothing at all was named."""

from __future__ import annotations

import re

from assistant.notes import Note
from assistant.parsed import Parsed
from assistant.reader import Reading
from assistant.spec import Filters
from assistant.shapes import words
from assistant.shapes.registry import Context, shape

# An identifier-like word ("banana_score", "df.query") that no column or value of the data has.
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_SAID = ("measure", "operation", "direction", "grouping", "attribute", "comparator", "scope")


def _unknown_identifiers(ctx: Context) -> list[str]:
    """Names of measures the data does not have: an identifier ("banana_score"), or an unknown
    word before a measure noun ("the banana score") that is no entity and no word we read."""
    r = ctx.reading

    def known(i: int) -> bool:
        return words.read_at(r, i)

    numbers = ctx.catalog.lexicon(r.language).numbers  # "the best llama two seventy b" misspells a name

    def unknown_run(start: int) -> tuple[list[str], int]:
        """The words the data does not know from `start` (plain words may sit between them), and
        the index after them; a known word that is not plain ends it."""
        run, i = [], start
        while i < len(r.tokens) and (_plain_at(r, i) or not known(i)):
            if not _plain_at(r, i):
                run.append(r.tokens[i].text)
            i += 1
        ok = all(w.isalpha() and w not in numbers for w in run)
        return (run if ok else []), i

    # a column the table has ("the result_id column") is no unknown measure
    out = [tok.text for i, tok in enumerate(r.tokens) if _IDENTIFIER.match(tok.text) and not known(i)
           and tok.text not in ctx.catalog.columns]
    for noun in (t for t in r.tags if t.kind == "cue" and t.value == "measure_noun"):
        i = noun.first - 1
        if i >= 0 and r.tokens[i].text.isalpha() and not known(i):
            out.append(f"{r.tokens[i].text} {r.tokens[noun.first].text}")
    # "the lowest carbon footprint", "the best taste in music": after a ranking word, words the
    # data does not know, to the end of the question
    if words.needs_commentary(r):  # "who described v6.0 as the biggest revision ...": a document's words
        return list(dict.fromkeys(out))
    out += _unknown_benchmarks(ctx)
    for d in r.tagged("direction", "best", "worst", "lowest", "high"):
        run, end = unknown_run(d.last)
        if 2 <= len(run) <= 4 and end == len(r.tokens) and end - d.last <= 5:
            out.append(" ".join(run))
    return list(dict.fromkeys(out))


def _plain_at(r: Reading, i: int) -> bool:
    """"in", "of", "their": words that may stand inside a measure's or a benchmark's name."""
    return any(t.first <= i < t.last and (t.kind, t.value) == ("cue", "plain") for t in r.tags)


def _unknown_benchmarks(ctx: Context) -> list[str]:
    """"The gpt-5 benchmark": words right before a benchmark noun that name no benchmark of the data
    (a question what such a benchmark is goes to the guide, which may know it)."""
    r, out = ctx.reading, []
    if r.has("cue", "define"):
        return out
    for noun in r.tagged("cue", "benchmark_noun"):
        first = noun.first
        while first > 0 and not words.read_at(r, first - 1) and not _plain_at(r, first - 1) and noun.first - first < 3:
            first -= 1
        # "the vision-language model benchmark": words after a benchmark the data has describe it
        after_benchmark = first > 0 and any(m.column == "benchmark" and m.span[0] <= r.tokens[first - 1].start
                                            < m.span[1] for m in r.matches)
        if first < noun.first and not after_benchmark:
            out.append(r.text[r.tokens[first].start:r.tokens[noun.last - 1].end])
    return out


def _refuse_applies(ctx: Context) -> bool:
    r = ctx.reading
    # Prices and costs are not in any results table; a document may state one ("according to"). A
    # doubt about MLPerf itself ("is it independent or does nvidia pay for it?") asks the guide.
    money = r.has("measure", "money", "unmeasured") and not words.needs_commentary(r) \
        and not r.has("cue", "review", "organiser", "overall")
    # a forecast a document quotes ("the forbes piece quotes a market forecast") is the document's
    future = r.has("cue", "future") and not words.needs_commentary(r)
    return r.has("cue", "code") or future or bool(_unknown_identifiers(ctx)) or money


@shape("refuse", priority=10, applies=_refuse_applies)
def refuse(ctx: Context) -> Parsed:
    """Code, or a column the data does not have: say what is missing, never run or quote it."""
    parsed = ctx.parsed
    parsed.intent = "refuse"
    parsed.status = "no_data"
    unknown = _unknown_identifiers(ctx)
    measures = "throughput or latency (the result), power, efficiency, per-accelerator figures, system size"
    measures_sv = "genomströmning eller latens (resultatet), effekt, effektivitet, per accelerator, systemstorlek"
    if ctx.reading.has("cue", "future") and not unknown and not words.needs_commentary(ctx.reading):
        parsed.message = ctx.say(
            f"The data holds published results only ({', '.join(ctx.catalog.rounds)}), so it cannot say what a "
            "future round will bring; I never guess. Ask about a round that has results.",
            f"Datan har bara publicerade resultat ({', '.join(ctx.catalog.rounds)}), så den kan inte säga vad en "
            "kommande runda ger; jag gissar aldrig. Fråga om en runda som har resultat.")
    elif ctx.reading.has("measure", "unmeasured") and not unknown:
        asked = ", ".join(ctx.reading.text[t.start:t.end] for t in ctx.reading.tagged("measure", "unmeasured"))
        parsed.message = ctx.say(f"The results do not record {asked}, so I cannot answer that from the data. "
                                 f"They have: {measures}.",
                                 f"Resultaten anger inte {asked}, så det kan jag inte svara på ur datan. "
                                 f"De har: {measures_sv}.")
    elif ctx.reading.has("measure", "money") and not unknown:
        parsed.message = ctx.say(
            "The results have no prices or costs, so I cannot answer that from the data; they have throughput "
            "or latency, power and system size. For a price stated in an article, ask what the article says.",
            "Resultaten har inga priser eller kostnader, så det kan jag inte svara på ur datan; de har "
            "genomströmning eller latens, effekt och systemstorlek. Fråga vad en artikel säger om ett pris.")
    elif unknown and unknown == _unknown_benchmarks(ctx):
        latest = ctx.catalog.latest_round or ""
        have = ", ".join(sorted(ctx.catalog.benchmarks_by_round.get(latest, set())))
        named = ", ".join(repr(u) for u in unknown)
        parsed.message = ctx.say(f"The data has no {named}. Benchmarks in {latest}: {have}.",
                                 f"Datan har inget {named}. Benchmarks i {latest}: {have}.")
    elif unknown:
        parsed.message = ctx.say(
            f"The data has no column or measure called {', '.join(repr(u) for u in unknown)}. "
            f"It has: {measures}.",
            f"Datan har ingen kolumn eller mätning som heter {', '.join(repr(u) for u in unknown)}. "
            f"Den har: {measures_sv}.")
    else:
        parsed.message = ctx.say(
            "That looks like code; I never run code. Ask in words, e.g. which system had the best "
            "result on a benchmark, or how many submitters a round had.",
            "Det ser ut som kod; jag kör aldrig kod. Fråga med ord, till exempel vilket system som hade "
            "bäst resultat på ett benchmark, eller hur många inskickare en runda hade.")
    parsed.suggestions = _choices(ctx)
    return parsed


def _commentary_applies(ctx: Context) -> bool:
    r = ctx.reading
    if r.has("cue", "why") or (r.has("cue", "source") and not r.has("cue", "table")):
        return True
    # "how many partners did they list": no column counts partners; a document may state them
    if words.is_count(r, ctx.explicit) and words.uncounted(r) is not None:
        return True
    # "which rocm version did amd use": no column holds what is asked either
    if words.unknown_asked(r) is not None and not r.has("direction"):
        return True
    # A weak cue ("reports", "skriver") does not replace a ranking of counts ("... flest resultat").
    ranked = r.has("direction", "most", "least", "ordinal")
    # ... and a benchmark's results do not say what its model is made of ("how many parameters")
    # ... nor its rules ("what token speed does the interactive version require")
    return words.needs_commentary(r) and not words.is_count(r, ctx.explicit) and not ranked \
        and (not ctx.benchmarks or words.asks_specs(r) or r.has("cue", "rule"))


@shape("commentary", priority=20, applies=_commentary_applies)
def commentary(ctx: Context) -> Parsed:
    """What the documents say: quoted and cited, labelled as the authors' claims."""
    ctx.parsed.intent = "commentary"
    ctx.parsed.needs_commentary = True
    return ctx.parsed


def _nothing_named(ctx: Context) -> bool:
    r = ctx.reading
    return not ctx.explicit and not ctx.rounds and not r.conditions and not any(r.has(k) for k in _SAID) \
        and not words.needs_commentary(r)


@shape("clarify", priority=98, applies=_nothing_named)
def clarify(ctx: Context) -> Parsed:
    """Nothing the data knows was named: ask back, with choices built from the data."""
    parsed = ctx.parsed
    parsed.intent = "clarify"
    parsed.status = "clarify"
    latest = ctx.catalog.latest_round or ""
    said = ctx.reading.text.strip()
    if any(t.text.isalpha() for t in ctx.reading.tokens):
        parsed.message = ctx.say(f"“{said}” is not in the data I know. ", f"”{said}” finns inte i datan jag känner. ")
    else:  # an emoji or punctuation alone: say that nothing was asked, not that it is missing from the data
        parsed.message = ctx.say(f"There is no question in “{said}”: it has no words to look up. ",
                                 f"Det finns ingen fråga i ”{said}”: den har inga ord att slå upp. ")
    parsed.message += ctx.say(
        f"I answer questions about MLPerf Inference results ({', '.join(ctx.catalog.rounds)}) and the commentary "
        "on them. Name a chip, a company, a benchmark or a round, or pick one of these:",
        f"Jag svarar på frågor om MLPerf Inference-resultat ({', '.join(ctx.catalog.rounds)}) och kommentarerna "
        "om dem. Nämn ett chip, ett företag, ett benchmark eller en runda, eller välj en av dessa:")
    parsed.suggestions = _choices(ctx)
    parsed.notes.append(Note("round_latest_is", round=latest))
    return parsed


@shape("fallback", priority=99, applies=lambda ctx: True)
def fallback(ctx: Context) -> Parsed:
    """Anything else: an overview of what was named; a round alone in numbers; the documents when
    only words were."""
    from assistant.shapes import entity

    if ctx.explicit or ctx.reading.conditions or ctx.parsed.has_power:
        return entity.overview(ctx) if not ctx.benchmarks else _best(ctx)
    unknown = _unknown_names(ctx)
    if unknown and ctx.reading.has("measure") and not words.needs_commentary(ctx.reading):
        # "jetson orin results in v6.1": results of something the data does not name
        parsed = ctx.parsed
        parsed.intent = "refuse"
        parsed.status = "no_data"
        near = ctx.catalog.suggest("accelerator_family", unknown, 3, cutoff=70) + ctx.catalog.suggest(
            "submitter", unknown, 3, cutoff=70)
        hint = ctx.say(f" (closest names in the data: {', '.join(near)})", f" (närmaste namn i datan: "
                                                                             f"{', '.join(near)})") if near else ""
        parsed.message = ctx.say(f"The data has no results for “{unknown}”{hint}.",
                                 f"Datan har inga resultat för ”{unknown}”{hint}.")
        parsed.suggestions = _choices(ctx)
        return parsed
    vague = len(words.unread(ctx.reading)) <= 1 or ctx.reading.has("cue", "overview")
    if len(ctx.rounds) == 1 and vague and not ctx.reading.has("cue", "source", "why"):
        return round_overview(ctx)  # nothing but a round: the round in numbers
    return commentary(ctx)  # only a round and words: what the documents say about it


def round_overview(ctx: Context) -> Parsed:
    """"What happened in v6.1?", "results for v6.1": the round in numbers, from the table (results
    per division, submitters, and what is new against the round before), each part cited."""
    from dataclasses import replace

    from assistant.spec import QuerySpec

    parsed, rnd = ctx.parsed, ctx.rounds[0]
    where = Filters(round=[rnd])

    def part(intent: str, spec: QuerySpec, column: str | None = None) -> Parsed:
        return replace(parsed, intent=intent, spec=spec, count_column=column, parts=[], notes=[], defaults=[])

    parts = [part("count", QuerySpec(op="aggregate", aggregate="count", filters=where)),
             part("count", QuerySpec(op="aggregate", aggregate="nunique", column="submitter", filters=where),
                  "submitter")]
    before = ctx.catalog.previous_round(rnd)
    if before:
        parts.append(part("difference", QuerySpec(op="difference", column="benchmark", filters=where,
                                                   other=Filters(round=[before]), limit=1000), "benchmark"))
    parsed.intent, parsed.shape, parsed.parts = "parts", "fallback", parts
    return parsed


def _unknown_names(ctx: Context) -> str:
    """Words right before "results" that are no entity and no word the lexicon reads: the name of
    something the data does not have ("jetson orin results")."""
    r = ctx.reading

    def unknown(i: int) -> bool:
        return r.tokens[i].text.isalpha() and len(r.tokens[i].text) > 1 and not words.read_at(r, i)

    for t in r.tagged("measure", "results", "throughput"):
        i = t.first
        while i > 0 and unknown(i - 1):
            i -= 1
        if i < t.first:
            return " ".join(tok.text for tok in r.tokens[i:t.first])
    return ""


def _best(ctx: Context) -> Parsed:
    from assistant.shapes import ranking

    return ranking.rank(ctx, "best")


def _choices(ctx: Context) -> list[str]:
    """Three questions the data can answer, in the question's language (templates are data)."""
    from assistant.templates import suggestion

    catalog = ctx.catalog
    latest = catalog.latest_round or ""
    # The benchmark run in the most rounds is the one most people know.
    benches = sorted(catalog.benchmarks_in(latest), key=lambda b: (-len(catalog.rounds_with([b])), b))
    bench = benches[0] if benches else ""
    lang = ctx.parsed.language
    return [suggestion(lang, "best_in_round", benchmark=bench, round=latest),
            suggestion(lang, "count_submitters", round=latest),
            suggestion(lang, "new_in_round", round=latest)]
