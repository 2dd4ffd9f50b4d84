"""Shapes about one named thing: an overview of a chip, submitter or system with no benchmark
named ("how fast is the H200?"), one attribute of a named system ("is it available?", "how
many GPUs?"), and a named system's appearances across rounds."""

from __future__ import annotations

from assistant import lexicon
from assistant.parsed import Parsed, filters_of
from assistant.shapes import words
from assistant.shapes.registry import Context, shape
from assistant.spec import QuerySpec

# Columns that name one party or its hardware (what an overview or an attribute is about).
NAMED = ("system_name", "platform", "submitter", "accelerator_family", "accelerator", "accelerator_vendor")
SYSTEMS = ("system_name", "platform")
OVERVIEW_GROUPS = ["round", "benchmark", "scenario"]
# Attribute tags in the order a question about several is answered; the first is the answer.
ATTRIBUTES = ("accelerator", "system_name", "accelerators_per_node", "availability", "division", "system_type",
              "number_of_nodes", "total_accelerators", "host_processor", "framework", "precision", "accuracy",
              "power_result")
# Columns whose values a question offers as alternatives to ask which holds ("available or preview?").
CHOICES = ("availability", "division", "system_type")


def _named(ctx: Context) -> list[str]:
    return [c for c in NAMED if ctx.explicit.get(c)]


def overview(ctx: Context) -> Parsed:
    """The best result per benchmark and scenario for what the question named, in the latest
    round it appears in (or the round named): the answer to "how fast is the H200?"."""
    parsed = ctx.parsed
    parsed.intent = "overview"
    parsed.shape = "overview"
    explicit = {k: v for k, v in ctx.explicit.items() if k != "round"}
    parsed.spec = QuerySpec(op="rows", filters=filters_of(explicit, ctx.rounds[-1:], parsed), metric=ctx.metric,
                            order="best", group_by=ctx.catalog.present(OVERVIEW_GROUPS), limit=200)
    if not ctx.rounds:
        parsed.defaults.append(ctx.say("the latest round it appears in", "den senaste rundan där det finns"))
    parsed.defaults.append(ctx.say("best result per benchmark and scenario", "bästa resultat per benchmark och scenario"))
    return parsed


def _overview_applies(ctx: Context) -> bool:
    r = ctx.reading
    new = r.has("operation", "new") and not words.new_describes(r, ctx.explicit)  # not "the new chip, vera rubin"
    return (bool(_named(ctx)) and (not ctx.benchmarks or _every_scenario(ctx)) and not words.needs_commentary(r)
            and not new and not r.has("operation", "count", "list", "gone", "compare", "trend", "who"))


def _every_scenario(ctx: Context) -> bool:
    """"how did the gb300 nvl72 do on llama 405b": a chip, system or company on a benchmark, with no
    scenario, ranking, condition or measure of its own, asks how it did in each scenario it ran,
    not in the one scenario a ranking would default to; with two or more scenarios named ("… offline
    and server"), in each of those."""
    r = ctx.reading
    return bool(ctx.catalog.present(["scenario"])) and len(ctx.explicit.get("scenario") or []) != 1 \
        and not r.has("direction") and not r.conditions and not r.top_n and ctx.metric == "result" \
        and not any(t.kind in ("measure", "attribute") and t.value != "results" for t in r.tags)


@shape("overview", priority=88, applies=_overview_applies)
def overview_shape(ctx: Context) -> Parsed:
    """A chip, submitter or system named with no benchmark, or with one and no scenario: its best
    result per benchmark and scenario."""
    return overview(ctx)


def _attribute(ctx: Context) -> str | None:
    """The field asked for; "is X (commercially) available?" names availability as a value.
    A number right before the word describes the system ("the 512-GPU system"), it does not ask."""
    r = ctx.reading
    bounded = {c.column for c in r.conditions}  # "with 8 GPUs" is a condition, not a question
    values = list(dict.fromkeys(t.value for t in r.tagged("attribute")
                                if lexicon.number_value(r.word(t.first - 1), {}) is None and t.value not in bounded))
    asked = [c for c in CHOICES if ctx.explicit.get(c) and (
        r.has("cue", "yes_no") or r.has("cue", "alternative") or len(ctx.explicit[c]) > 1)]
    return next((a for a in (*asked, *ATTRIBUTES) if a in values or a in asked), None)


# Asking for the result itself ("what did X score") is a lookup, not an attribute question.
_RESULT_MEASURES = ("results", "throughput", "latency", "tokens", "samples", "queries", "efficiency",
                    "per_accelerator")


def _attribute_applies(ctx: Context) -> bool:
    r = ctx.reading
    asked = _attribute(ctx)
    # "was X's entry available?": a yes/no about a value (entry, result) still asks for the value
    yes_no = asked in CHOICES and r.has("cue", "yes_no")
    if asked is None or not _named(ctx) or (r.has("measure", *_RESULT_MEASURES, "size") and not yes_no):
        return False
    if r.has("direction", "best", "worst", "top_n", "most", "least") or words.is_list(r):
        return False
    if asked in CHOICES and _asked_after_a_result(ctx, asked):
        return False
    if r.has("operation", "compare", "trend", "new", "gone") or words.needs_commentary(r):
        return False
    if r.has("operation", "count"):  # "how many GPUs does X have" asks for a field, "how many results" counts
        counted = words.counted_words(r)
        return bool(counted) and any(t.first == counted[0] for t in r.tagged("attribute"))
    return True


def _asked_after_a_result(ctx: Context, asked: str) -> bool:
    """"hur gick vera rubin på deepseek server? går den att köpa än?": a result asked first, then
    whether it is available (or in which division): the result answers both, as each result
    states its availability and division."""
    from assistant.shapes.documents import sentences

    r = ctx.reading
    spans = sentences(r.text)
    if len(spans) < 2 or not ctx.benchmarks:
        return False
    first_end = spans[0][1]
    return any(m.column == "benchmark" and m.span[1] <= first_end for m in r.matches) \
        and all(t.start >= first_end for t in r.tagged("attribute", asked))


@shape("attribute", priority=38, applies=_attribute_applies)
def attribute(ctx: Context) -> Parsed:
    """One field of a named system's results (availability, nodes, accelerators, CPU, ...)."""
    parsed = ctx.parsed
    parsed.intent = "attribute"
    parsed.field = _attribute(ctx)
    # The field asked about must not filter the rows ("is it available?" is answered either way).
    explicit = {k: v for k, v in ctx.explicit.items() if k not in ("round", parsed.field)}
    # "How much power did it draw": only rows that have a power result can say (not the best result's row).
    metric = "power" if parsed.field == "power_result" else "result"
    parsed.spec = QuerySpec(op="rows", filters=filters_of(explicit, ctx.rounds[-1:], parsed), metric=metric,
                            order="best", group_by=ctx.catalog.present(OVERVIEW_GROUPS), limit=200)
    if not ctx.rounds:
        parsed.defaults.append(ctx.say("the latest round it appears in", "den senaste rundan där det finns"))
    return parsed


def _appearances_applies(ctx: Context) -> bool:
    r = ctx.reading
    asked = r.has("operation", "appearances") or (r.has("scope", "all_rounds") and not ctx.benchmarks)
    listing_other = words.is_list(r) and words.grouping(r) not in (None, "round")  # "which Intel chips appear"
    return asked and bool(_named(ctx)) and not r.has("operation", "count") and not listing_other


@shape("appearances", priority=44, applies=_appearances_applies)
def appearances(ctx: Context) -> Parsed:
    """A named system's rounds, with its best result per benchmark in each."""
    parsed = ctx.parsed
    parsed.intent = "appearances"
    explicit = {k: v for k, v in ctx.explicit.items() if k != "round"}
    # "Which rounds has Google been in": taking part is a submitter's, not a chip vendor's.
    for m in ctx.reading.matches:
        if m.column == "submitter" and explicit.get("accelerator_vendor") == list(m.values):
            explicit["submitter"] = explicit.pop("accelerator_vendor")
    parsed.spec = QuerySpec(op="rows", filters=filters_of(explicit, ctx.rounds if len(ctx.rounds) > 1 else [], parsed),
                            metric="result", order="best", group_by=ctx.catalog.present(OVERVIEW_GROUPS), limit=200)
    parsed.defaults.append(ctx.say("every round", "varje runda"))
    return parsed
