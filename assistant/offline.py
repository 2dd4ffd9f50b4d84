"""The no-LLM answerer: parse -> engine.execute -> compose (+ commentary retrieval).

Deterministic and instant, so it is the default backend, the agent's fallback and the
baseline eval compares models against. It never guesses: a round that does not exist, an
entity that never submitted or a spec the executor rejects becomes status `no_data` with the
closest valid values, and every number in an answered turn cites its rows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from assistant.answer import Answer
from assistant.datasets import Route, default_dataset
from assistant.notes import Note, localize
from assistant.parsed import Parsed
from assistant.retrieval import Want
from assistant.shapes.words import TERMS

if TYPE_CHECKING:
    from assistant.executor import QueryResult
    from assistant.spec import QuerySpec


def _no_data(question: str, text: str, notes: list[str] | None = None, query: dict | None = None) -> Answer:
    return Answer(question=question, answer=text, status="no_data", backend="offline", notes=notes or [],
                  query=query)


# Notes that say the latest round was assumed: gone when an earlier round answers instead.
_LATEST_ROUND_NOTES = ("round_latest", "round_latest_with_benchmark", "round_latest_is")


def _unanswered(question: str, parsed: Parsed) -> Answer:
    """No data for what was asked, or nothing specific asked: say so, with choices from the data."""
    from assistant import readout

    return Answer(question=question, answer=parsed.message, status=parsed.status if parsed.status != "ok" else
                  "no_data", backend="offline", notes=localize(parsed.notes, parsed.language),
                  query={"parsed": parsed.state()},
                  suggestions=parsed.suggestions, reading=readout.line(parsed, None))


def _joined(question: str, parts: list[Answer]) -> Answer:
    """One answer from the answers to each part: every number keeps its own citations."""
    first = parts[0]
    citations = list({(c.kind, c.id, c.url): c for p in parts for c in p.citations}.values())
    pandas = "\n\n".join(f"# part {i + 1}\n{(p.query or {}).get('pandas', '')}" for i, p in enumerate(parts))
    query = {"parts": [{k: v for k, v in (p.query or {}).items() if k not in ("pandas", "parsed")} for p in parts],
             "pandas": pandas, "parsed": (parts[-1].query or {}).get("parsed")}
    answered = [p for p in parts if p.status == "answered"]
    return first.model_copy(update={
        "question": question, "answer": " ".join(p.answer for p in parts),
        "status": "answered" if answered else first.status,
        "values": [v for p in parts for v in p.values], "rows": [r for p in parts for r in p.rows][:50],
        "citations": citations, "notes": list(dict.fromkeys(n for p in parts for n in p.notes)), "query": query,
        "reading": " ".join(p.reading for p in parts if p.reading),
        "suggestions": list(dict.fromkeys(s for p in parts for s in p.suggestions))[:3],
        "chart": next((p.chart for p in parts if p.chart), None)})


def answer_question(question: str, *, engine: Any, conversation: Any = None, settings: Any = None,
                    scope: dict[str, list[str]] | None = None, commentary: bool = True) -> Answer:
    """Answer one question from the engine's table (and commentary store) with no model: the
    question is read once, and each part of a two-part question is answered from its reading. The
    router picks the table (assistant/datasets.py); a question that names no table is answered
    from every table that can, each part labelled."""
    route, scope = routed(question, engine, scope)
    if route.reason == "unknown":
        return Answer(question=question, status="no_data",
                      answer=f"There is no data set {route.missing[0]!r}; the data sets are: "
                             f"{', '.join(engine.router.ids())}.")
    previous = conversation.last_state if conversation is not None else None
    answer, parsed = _answer_on(question, route.engine, conversation, previous, scope, commentary)
    defined = conversation.last_definition if conversation is not None else None
    if defined is not None and _refers_back(parsed, answer):
        answer = _read_with(question, defined, route.engine, conversation, scope, commentary) or answer
    if route.reason == "round":  # the table people mean by default has no such round: say so first
        answer.answer = _other_table_note(route, parsed.language) + " " + answer.answer
    elif route.reason == "default" and previous is None and answer.status == "answered" and answer.rows:
        others = [(other.dataset.title, _also(question, other, scope, parsed)) for other in route.engine.router.others]
        others = [(title, a) for title, a in others if a is not None]
        if others:
            own = default_dataset()
            answer = _labelled(question, [(own.title if own is not None else "", answer), *others])
    return answer


# A follow-up longer than this says enough on its own to be read alone.
FOLLOWUP_WORDS = 14


def _refers_back(parsed: Parsed, answer: Answer) -> bool:
    """Whether a turn after a definition may be about that definition's term ("so which one matters
    for a chatbot?", "vs the -99 one?", "kan ett system vara med i båda?"): short, naming no round,
    company or system of its own, and either read as no definition or pointing back at something."""
    r = parsed.reading
    if r is None or len(r.tokens) > FOLLOWUP_WORDS or r.known_rounds:
        return False
    if any(m.column not in TERMS for m in parsed.entities):
        return False
    pointing = r.has("cue", "pronoun", "anaphor", "followup", "pointing", "likeness", "which", "one")
    return pointing or parsed.intent != "define" or answer.status != "answered"


def _read_with(question: str, defined: str, engine: Any, conversation: Any,
               scope: dict[str, list[str]] | None, commentary: bool) -> Answer | None:
    """The follow-up read together with the definition before it, kept when that reading is a
    definition the guide answers; else None (the follow-up's own reading stands)."""
    asked = f"{defined.rstrip(' ?.!')}. {question}"
    answer, parsed = _answer_on(asked, engine, conversation, None, scope, commentary)
    if parsed.intent != "define" or answer.status != "answered":
        return None
    answer.question = question
    answer.query = dict(answer.query or {}, asked=asked)
    return answer


def _answer_on(question: str, engine: Any, conversation: Any, previous: dict[str, Any] | None,
               scope: dict[str, list[str]] | None, commentary: bool) -> tuple[Answer, Parsed]:
    """The answer from one engine's table, and how the question was read there."""
    from assistant.parse import parse

    parsed = parse(question, engine.catalog, previous=previous)
    if parsed.parts:
        answers = [answer_parsed(p.reading.text if p.reading else question, p, engine=engine,
                                 conversation=conversation, scope=scope, commentary=False) for p in parsed.parts]
        if commentary:  # "how many organisations … and how many results?": each total's published count
            for part, part_answer in zip(parsed.parts, answers):
                if part.spec is not None and part_answer.status == "answered":
                    cited = {c.id for a in answers for c in a.citations if c.kind == "doc"}
                    _published_count(question, part_answer, engine, part, part.spec, cited)
        answer = _joined(question, answers)
        # a part the table answers may ask what only a document states ("what's the tool called and
        # how many images a second"): the documents' part is quoted for the whole question
        if commentary and (parsed.needs_commentary or any(p.needs_commentary and p.spec is not None
                                                          for p in parsed.parts)):
            _quote_sources(question, answer, engine, parsed, parsed.explicit.get("round"))
        elif commentary and answer.status == "answered" and parsed.reading is not None:
            # "connect tech 4.1: what was their edge box called and what module was inside?": the
            # parts come from the table; what the company wrote may say the rest
            _statement_beside(question, answer, engine, parsed, parsed.explicit.get("round"))
    else:
        answer = answer_parsed(question, parsed, engine=engine, conversation=conversation, scope=scope,
                               commentary=commentary)
    return answer, parsed


def _also(question: str, other: Any, scope: dict[str, list[str]] | None, read: Parsed) -> Answer | None:
    """The answer from another table to a question that named no table, when that table knows
    every name the default reading used (`read`), and answers with rows; else None."""
    from assistant.parse import parse

    named = {m.column for m in other.catalog.resolve(question, fuzzy=False)}
    if not named & {"benchmark", "round"}:
        return None
    parsed = parse(question, other.catalog)
    if parsed.status in ("no_data", "clarify") or parsed.spec is None or parsed.parts or parsed.needs_commentary:
        return None
    if _names(read) - _names(parsed):  # "whisper" is no Training benchmark: not the same question there
        return None
    answer = answer_parsed(question, parsed, engine=other, scope=scope, commentary=False)
    return answer if answer.status == "answered" and answer.rows else None


def _names(parsed: Parsed) -> set[str]:
    return {m.text.lower() for m in parsed.entities if m.text}


def _labelled(question: str, titled: list[tuple[str, Answer]]) -> Answer:
    """One answer from several tables, each part starting with its table's title."""
    for title, a in titled:
        if title:
            a.answer = f"{title}: {a.answer}"
    answers = [a for _, a in titled]
    joined = _joined(question, answers)
    # a follow-up continues from the default table's reading
    joined.query = {**(joined.query or {}), "parsed": (answers[0].query or {}).get("parsed")}
    return joined


def routed(question: str, engine: Any,
           scope: dict[str, list[str]] | None) -> tuple[Route, dict[str, list[str]] | None]:
    """The engine of the table the question is about (a `dataset` in `scope` pins one), and the
    scope's filters without that key (`table_scope`)."""
    pinned = (scope or {}).get("dataset")
    rest = table_scope(scope)
    router = getattr(engine, "router", None)
    if router is None:
        return Route(engine, "only"), rest
    if pinned:
        chosen = router.by_id(pinned[0])
        return (Route(chosen, "pinned") if chosen is not None else Route(engine, "unknown", (pinned[0],))), rest
    return router.route(question), rest


def table_scope(scope: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
    """A scope's filters on the table's columns: without the `dataset` key, which picks the table."""
    return {k: v for k, v in scope.items() if k != "dataset"} if scope else scope


def _other_table_note(route: Route, language: str) -> str:
    own = default_dataset()
    title = own.title if own is not None else "the default table"
    rounds = ", ".join(route.missing)
    other = route.engine.dataset.title
    if language == "sv":
        return f"{title} har ingen runda {rounds}; svaret kommer från {other}."
    return f"{title} has no round {rounds}; this answer is from {other}."


def answer_parsed(question: str, parsed: Parsed, *, engine: Any, conversation: Any = None,
                  scope: dict[str, list[str]] | None = None, commentary: bool = True) -> Answer:
    """Plan, execute and compose one reading; every answer says how the question was read."""
    from assistant import readout

    answer = _answer_parsed(question, parsed, engine=engine, conversation=conversation, scope=scope,
                            commentary=commentary)
    answer.reading = answer.reading or readout.line(parsed, None)
    dataset = getattr(engine, "dataset", None)
    if dataset is not None and not answer.reading.startswith(dataset.title):
        answer.reading = f"{dataset.title} · {answer.reading}"
    return answer


def _answer_parsed(question: str, parsed: Parsed, *, engine: Any, conversation: Any = None,
                   scope: dict[str, list[str]] | None = None, commentary: bool = True) -> Answer:
    from assistant import claims, compose
    from assistant.executor import SpecError
    from assistant.parse import ATTRIBUTION, with_scope

    catalog = engine.catalog
    if parsed.status in ("no_data", "clarify"):
        answer = (_commentary_only_round(question, parsed, engine, catalog)
                  or _written_by_unknown(question, parsed, engine)) if parsed.status == "no_data" else None
        return answer or _unanswered(question, parsed)
    if parsed.intent == "field":
        return compose.field_answer(question, parsed.field or "", conversation.last_rows, parsed.language,
                                    conversation.last_query)
    if parsed.spec is None:
        return _commentary(question, parsed, engine, scope)

    spec = with_scope(parsed.spec, scope)
    try:
        result = engine.execute(spec)
    except SpecError as exc:
        refused = _spec_error(question, exc, parsed)
        # "gigabyte's h200 vs its older h100 numbers, how much faster on sdxl and on llama?": the table
        # cannot line up those units, but the company may state the figure itself
        named = commentary and _named_organisation(parsed)
        return (_documents_instead(question, refused, engine, parsed, own_only=True) if named else None) or refused
    if result.empty and spec.op in ("rows", "aggregate"):
        result = _other_column(engine, spec, parsed) or _joint_submitters(engine, spec, parsed) or result
    if result.empty and parsed.round_defaulted and spec.op == "rows":
        result = _earlier_round(engine, spec, parsed) or result
    if parsed.claimed and spec.op == "rows":
        result = claims.exact(engine, spec, parsed, ATTRIBUTION) or result
    verdict = None  # "AMD says … passed 1 million tokens/s": the claim, its rows and a verdict, on the
    # spec that found rows (another column, joint submitters, an earlier round)
    if not parsed.claimed and (checked := claims.check(engine, result.spec, parsed, ATTRIBUTION)) is not None:
        result, verdict = checked
    answer = compose.compose(question, result, parsed)
    if verdict is not None:  # the verdict's rows are the answer's, so there is always one
        answer.answer = verdict.sentence + " " + answer.answer
    # the documents of the rounds the user named, or of the rows found when the round was only the
    # latest by default ("juniper's in-house lab": Juniper's rows, and its statement, are v4.1's)
    rounds = (result.spec or spec).filters.round if not parsed.round_defaulted else None
    if commentary and answer.status == "answered":
        _new_terms_defined(answer, result, parsed, engine)
    if commentary and answer.status == "answered" and (lead := _quoted_ratio(question, answer, engine, parsed)):
        answer = lead
    elif commentary and parsed.needs_commentary and answer.status == "answered":
        _quote_sources(question, answer, engine, parsed, rounds)
    elif commentary and parsed.needs_commentary and answer.status == "no_data" and result.empty:
        answer = _documents_instead(question, answer, engine, parsed) or answer
    elif commentary and answer.status == "no_data" and result.empty and _named_organisation(parsed):
        # "krai's edge power result in 4.1 for the three speedai 240 cards?": no such rows, but the
        # organisation named may state the figure in its own words
        answer = _documents_instead(question, answer, engine, parsed, own_only=True) or answer
    elif commentary and answer.status == "answered" and parsed.reading is not None:
        _statement_beside(question, answer, engine, parsed, rounds)
        _published_count(question, answer, engine, parsed, result.spec or spec)
    return answer


def _published_count(question: str, answer: Answer, engine: Any, parsed: Parsed, spec: QuerySpec,
                     cited: set[str] | frozenset[str] = frozenset()) -> None:
    """"how many organisations took part in v6.1?": MLCommons' releases and the press count a round's
    organisations their own way (30 organisations, where the table has 33 submitter names), so the
    count a document states for that round is quoted after the table's, labelled as the author's.
    Only for a whole round's count of submitters, and only a sentence that counts them; nothing is
    added when no document states one."""
    from assistant import lexicon
    from assistant.compose_docs import counted_in, figure_answer

    rounds = spec.filters.round or []
    # only a count of organisations: a count of results stays a table question that needs no search
    # (a document's sentence on the organisations often gives the results too)
    if spec.op != "aggregate" or spec.aggregate != "nunique" or spec.column != "submitter" or spec.group_by \
            or len(rounds) != 1 or answer.passages:
        return
    if set(spec.filters.model_dump(exclude_defaults=True)) - {"round", "division"}:
        return
    # the documents' own language, whatever the question's ("30 deltagande organisationer")
    nouns = {n for lang in lexicon.languages() for n in lexicon.load(lang).phrases("grouping", "submitter")
             if " " not in n and len(n) > 3}
    # ... a round's total, not one company's ("Google Cloud submitted nine results")
    companies = engine.catalog.values("submitter") + engine.catalog.values("accelerator_vendor")
    stated = counted_in(_documents(question, engine, rounds, parsed, k=STATEMENT_K), nouns, besides=companies)
    if stated:
        extra = figure_answer(question, stated, parsed, "count")
        if extra.status == "answered" and extra.citations[0].id not in cited:  # a sentence quoted once
            _append_documents(answer, extra)


def _organisations(parsed: Parsed) -> list[str]:
    """The submitters and chip vendors the question names (who may have written a statement), each
    by its first value."""
    return [v for m in parsed.entities if m.column in ("submitter", "accelerator_vendor") for v in m.values[:1]]


def _named_organisation(parsed: Parsed) -> bool:
    return bool(_organisations(parsed))


# Letters of a word the table did not read that a document must hold: shorter ones ("four", "very",
# "tbh") say little about which document answers.
BEYOND_MIN = 5
STATEMENT_K = 12


def _statement_beside(question: str, answer: Answer, engine: Any, parsed: Parsed,
                      rounds: list[str] | None) -> None:
    """A table answer about an organisation whose question says more than the table holds ("what
    scaling did MangoBoost get across the US and Korea in 6.0?"): the passages the organisation wrote
    (its section of a supplemental discussion, or a document it published) that hold at least half of
    those words are quoted after it ("tbh curious what speculative decoding": not "curious").
    Nothing is quoted when none does, so a table answer gains no unrelated text."""
    from assistant import lexicon
    from assistant.compose import compose_commentary
    from assistant.compose_docs import holds_words, written_by
    from assistant.shapes import words

    orgs = _organisations(parsed)
    numbers = lexicon.load(parsed.language).numbers
    beyond = [w for w in words.unread(parsed.reading) if len(w) >= BEYOND_MIN and w.lower() not in numbers]
    if not orgs or not beyond:
        return
    # more candidates than a quote needs: the organisation's own section can rank below news
    # about it (whose titles name it too), and only its own words with the question's are kept
    found = _documents(question, engine, rounds, parsed, k=STATEMENT_K)
    # the organisation's own words: its section of a discussion, or a document it published
    passages = [p for p in found
                if written_by(p, found, orgs) and 2 * holds_words(p, beyond, parsed.language) >= len(beyond)]
    if passages:  # the table gave the figures; the statement says the rest
        _append_documents(answer, compose_commentary(question, passages, parsed))


def _own_first(found: list, parsed: Parsed) -> list:
    """The passages the organisations the question names wrote, then the others; [] when none."""
    from assistant.compose_docs import written_by

    orgs = _organisations(parsed)
    own = [p for p in found if written_by(p, found, orgs)]
    return own + [p for p in found if p not in own] if own else []


def _documents_instead(question: str, answer: Answer, engine: Any, parsed: Parsed,
                       own_only: bool = False) -> Answer | None:
    """"intel said resnet went up 11x since 2021, what's the figure for bert?": the table has no such
    rows, but the question asks what someone said, so the documents answer first (the figure the
    named organisation states, else what the passages say), and the table's "no rows" follows.
    `own_only`: only a figure the organisation named states itself, or nothing."""
    from assistant.compose import compose_commentary
    from assistant.compose_docs import asked_figure

    rounds = parsed.explicit.get("round")  # a round the user named, not the latest by default
    passages = _documents(question, engine, rounds, parsed)
    if not passages:
        return None
    figure = asked_figure(parsed, table_asked=True) if not parsed.claimed else None
    documents = _figure_then_quotes(question, passages, parsed, figure, own=True,
                                    catalog=engine.catalog) if figure else None
    if (documents is None or documents.status != "answered") and not own_only:
        documents = compose_commentary(question, passages, parsed)
    if documents is None or documents.status != "answered":
        return None
    documents.answer += " " + answer.answer
    documents.query, documents.notes = answer.query, answer.notes + documents.notes
    return documents


def _quoted_ratio(question: str, answer: Answer, engine: Any, parsed: Parsed) -> Answer | None:
    """"which nvidia partner achieved the 2.7x deepseek-r1 speedup?": the question quotes a ratio
    someone stated, which no result records, so the sentence that states that very ratio leads,
    whoever wrote it, and the table's answer follows with its rows. None when no retrieved sentence
    states it (a claim to check is not this: it gets its verdict)."""
    from assistant.compose_docs import figure_answer
    from assistant.shapes import words

    r = parsed.reading
    # a claim to check, or the table's own figure asked ("whats the ratio in the table?"), is not this
    if r is None or parsed.claimed or r.has("cue", "is_it_true", "yes_no", "table") or not words.quotes_ratio(r):
        return None
    rounds = parsed.explicit.get("round")
    passages = _documents(question, engine, rounds, parsed)
    documents = figure_answer(question, passages, parsed, "ratio", only=words.ratios(r.text)) if passages else None
    if documents is None or documents.status != "answered":
        return None
    lead = answer.model_copy(deep=True)
    lead.answer = documents.answer + " " + answer.answer
    lead.citations = documents.citations + [c for c in answer.citations if c not in documents.citations]
    lead.passages, lead.notes = documents.passages, answer.notes + documents.notes
    return lead


def _append_documents(answer: Answer, extra: Answer) -> None:
    """A table answer followed by what the documents say: their text, passages and citations."""
    answer.passages = extra.passages
    answer.citations += extra.citations
    answer.answer += " " + extra.answer


def _quote_sources(question: str, answer: Answer, engine: Any, parsed: Any, rounds: list[str] | None) -> None:
    """The documents' part of an answer the table gave: the figure a source states, or what the
    best passages say."""
    from assistant import compose
    from assistant.compose_docs import asked_figure

    cited = {c.id for c in answer.citations}  # a passage a part quoted already is not quoted twice
    passages = [p for p in _passages(question, engine, rounds, parsed) if p.id not in cited]
    if passages:
        # "Dell said it made a lot of submissions, how many?": beside the table's count, the figure
        # Dell states, from its own words; else what the best passages say. Never another
        # author's figure ("my professor said …": no document of theirs), nor beside a claim check.
        figure = asked_figure(parsed) if not parsed.claimed else None
        extra = _figure_then_quotes(question, passages, parsed, figure, own=True,
                                    catalog=engine.catalog) if figure else None
        if extra is None or extra.status != "answered":
            # "which speculative decoding method did NVIDIA use …": what the organisation named wrote
            # comes first, before news about it (only three documents are quoted)
            extra = compose.compose_commentary(question, _own_first(passages, parsed) or passages, parsed)
        _append_documents(answer, extra)


# Columns one name can mean ("Google" makes chips and submits results on others' chips).
_SAME_NAME = (("accelerator_vendor", "submitter"), ("submitter", "accelerator_vendor"))


def _other_column(engine: Any, spec: Any, parsed: Parsed) -> Any:
    """No rows, and a name the question gave also names another column: the other reading runs
    and answers when it has rows, and the notes say how the name was read. Code decides between
    readings by their results, never by a guess."""
    if parsed.reading is None:
        return None
    for used, other in _SAME_NAME:
        values = getattr(spec.filters, used) or []
        alt = [m for m in parsed.reading.matches if m.column == other and set(values) & set(
            v for n in parsed.reading.matches if n.span == m.span and n.column == used for v in n.values)]
        if not values or not alt or getattr(spec.filters, other):
            continue
        # "google tpus": "tpus" names the vendor and nothing else, so the vendor reading stands
        spans = {m.span for m in parsed.reading.matches if m.column == other}
        if any(m.span not in spans for m in parsed.reading.matches if m.column == used):
            continue
        filters = spec.filters.model_copy(update={used: None, other: list(alt[0].values)})
        result = engine.execute(spec.model_copy(update={"filters": filters}))
        if not result.empty:
            word = alt[0].text or alt[0].values[0]
            parsed.notes.append(Note("read_as_other", word=word, other=other.replace("_", " "),
                                     used=used.replace("_", " ")))
            return result
    return None


def _joint_submitters(engine: Any, spec: Any, parsed: Parsed) -> Any:
    """No rows for a submitter, and it submitted jointly with another ("AMD_MangoBoost" for
    MangoBoost): the joint submissions answer, and the notes say so. Only when it alone has none,
    so a count for Dell never silently adds Dell_AMD."""
    named = spec.filters.submitter or []
    wanted = {n.lower() for n in named}
    joint = [v for v in engine.catalog.values("submitter")
             if "_" in v and v not in named and wanted & {part.lower() for part in v.split("_")}]
    if not joint:
        return None
    result = engine.execute(spec.model_copy(update={"filters": spec.filters.model_copy(update={"submitter": joint})}))
    if result.empty:
        return None
    parsed.notes.append(Note("joint_submitters", named=", ".join(named), joint=", ".join(joint)))
    return result


def _earlier_round(engine: Any, spec: Any, parsed: Any) -> Any:
    """No round was named and the latest round has no match: the latest earlier round that has
    one answers instead (and says so) — "Blackwell Ultra on Llama 2 70B Interactive" is v6.0."""
    tried = set(spec.filters.round or [])
    for rnd in reversed(engine.catalog.rounds_with(spec.filters.benchmark or [])):
        if rnd in tried:
            continue
        result = engine.execute(spec.model_copy(update={"filters": spec.filters.model_copy(update={"round": [rnd]})}))
        if not result.empty:
            parsed.notes = [n for n in parsed.notes if getattr(n, "code", "") not in _LATEST_ROUND_NOTES]
            parsed.notes.append(Note("round_earlier", tried=", ".join(sorted(tried)), round=rnd))
            return result
    return None


def _commentary_only_round(question: str, parsed: Any, engine: Any, catalog: Any) -> Answer | None:
    """A round with commentary but no results table (v5.0): what the documents say, clearly
    marked as commentary, instead of a flat "no data"."""
    from assistant.compose import compose_commentary

    unknown = parsed.reading.unknown_rounds if parsed.reading else []
    if not unknown or not parsed.needs_commentary:
        return None
    passages = [p for p in _passages(question, engine, unknown) if set(p.rounds) & set(unknown)]
    if not passages:
        return None
    answer = compose_commentary(question, passages, parsed)
    answer.notes.insert(0, parsed.message + (" Svaret bygger bara på kommentarer." if parsed.language == "sv" else
                                             " This answer is from commentary only."))
    answer.query = {"parsed": parsed.state()}
    return answer


def _written_by_unknown(question: str, parsed: Parsed, engine: Any) -> Answer | None:
    """"who submitted for Stevens Institute of Technology in v6.0?": no column knows the name, but
    an organisation of that name wrote a statement or a document. The table's "no results for
    that name" stands first, then what the organisation wrote (the name or figure asked, else
    what its passages say). None when nothing retrieved was written by it."""
    from assistant.compose import compose_commentary
    from assistant.compose_docs import asked_figure, written_by

    if not parsed.unknown:
        return None
    rounds = parsed.explicit.get("round")
    found = _documents(question, engine, rounds, parsed)
    own = [p for p in found if written_by(p, found, parsed.unknown)]
    if not own:
        return None
    figure = asked_figure(parsed)  # from its own words only: another author's name or figure never leads
    documents = _figure_then_quotes(question, own, parsed, figure, catalog=engine.catalog) if figure else None
    if documents is None or documents.status != "answered":
        documents = compose_commentary(question, own, parsed)
    if documents.status != "answered":
        return None
    documents.answer = parsed.message + " " + documents.answer
    documents.query = {"parsed": parsed.state()}
    return documents


# Entities whose names a document about them carries in its title or source.
_NAMED = ("submitter", "accelerator_vendor", "accelerator_family", "accelerator", "system_name", "benchmark")


def _asks_meaning(r: Any) -> bool:
    """"… what does that even mean", "what is that": the question asks what words mean, framed
    around them or pointing back; a bare "what's" opens any question ("what's the biggest speedup
    they quote")."""
    return r.has("cue", "pointing") or any(t.kind == "cue" and t.value == "define" and (
        "…" in t.phrase.split() or t.phrase.endswith("$")) for t in r.tags)


def _want(parsed: Parsed | None, rounds: list[str] | None, catalog: Any = None) -> Want:
    """What the question asks of the documents besides its words (retrieval boosts)."""
    from assistant.shapes import words

    if parsed is None:
        return Want()
    names = tuple(dict.fromkeys(n for m in parsed.entities if m.column in _NAMED for n in (m.text, *m.values[:3])))
    r = parsed.reading
    # ... not "whats the lab called": a thing asked by a name no column holds is no term of ours
    guide = parsed.intent == "define" or (r is not None and r.has("cue", "define") and not words.unknown_asked(r)
                                          and not words.unread_named(r))
    publishers = list(r.publishers) if r is not None else []
    written = next((WRITTEN[t.value] for t in r.tags if t.kind == "cue" and t.value in WRITTEN), "") \
        if r is not None else ""
    # "MLCommons har förhandsvisat …, enligt den svenska artikeln": the article named by its language
    # is the source; a publisher's name beside it is what the article is about
    docs = [d for name in publishers for d in (catalog.publisher_docs.get(name, []) if catalog is not None else [])
            if not written]
    if rounds:  # documents are named by round: the named publisher's piece on the round asked
        docs = [d for d in docs if any(d.startswith(rnd + "_") for rnd in rounds)] or docs
    # Organisations that submit results: a chip vendor named ("NVIDIA said") is one when it also submits,
    # and its section of a supplemental discussion is then its own statement.
    submitters = set(catalog.vocab.get("submitter", [])) if catalog is not None else set()
    organisations = tuple(dict.fromkeys(v for m in parsed.entities for v in m.values[:1]
                                        if m.column == "submitter" or (m.column == "accelerator_vendor"
                                                                       and v in submitters)))
    # "what did X claim", "according to Y": a source's words are asked, never our guide's
    claims = r is not None and r.has("cue", "source", "commentary", "source_weak") and not r.has("cue", "why")
    return Want(names=names + tuple(publishers), guide=guide, language=parsed.language, documents=tuple(docs),
                organisations=organisations, claims=claims, written=written)


# The lexicon's cues for a document's language ("the swedish article") and the language code its
# chunks carry: one entry per language that a document is written in.
WRITTEN = {"written_sv": "sv"}


def _passages(question: str, engine: Any, rounds: list[str] | None, parsed: Parsed | None = None,
              guide: bool | None = None, k: int | None = None) -> list:
    """The commentary passages for a question; `guide=False` searches as if it asked no definition
    (the documents, not the guide first)."""
    try:
        want = _want(parsed, rounds, engine.catalog)
        return engine.search(question, k=k, rounds=rounds,
                             want=want if guide is None else replace(want, guide=guide))
    except Exception:  # the commentary store is optional for numeric answers
        return []


def _documents(question: str, engine: Any, rounds: list[str] | None, parsed: Parsed,
               k: int | None = None) -> list:
    """What the documents say, never our guide: searched as if no definition were asked (a
    "what's the …" would boost the guide), and the guide's chunks left out (it is nobody's claim)."""
    return [p for p in _passages(question, engine, rounds, parsed, guide=False, k=k) if p.doc_kind != "guide"]


# Guide chunks a definition chooses from: more than the guide holds, so define_answer chooses among
# every section by its words, and the vectors only order them. A translated chunk shares its
# original's vector (ingest.twins), so a Swedish question's nearest chunks are not always its best.
GUIDE_K = 200


def _guide(question: str, parsed: Parsed, engine: Any) -> list:
    """Every guide section for a definition, nearest to the term itself (its heading) first, else to
    the question. One search: with GUIDE_K above the guide's size a second one (by the question
    after the term) returned the same chunks again and cost a query embedding."""
    term = next((m.text for m in parsed.entities), "")
    want = Want(names=(term,) if term else (), guide=True, language=parsed.language)
    try:
        return engine.search(term or question, k=GUIDE_K, want=want, doc_kind="guide")
    except Exception:  # the commentary store is optional
        return []


def _facts(parsed: Parsed, engine: Any) -> list[str]:
    """What the table adds to a definition: when a benchmark first appears, and how many
    results it has in the latest round (each figure computed here from the table)."""
    from assistant import templates
    from assistant.spec import Filters, QuerySpec

    catalog = engine.catalog
    out: list[str] = []
    for m in parsed.entities:
        if m.column != "benchmark":
            continue
        rounds = catalog.rounds_with(list(m.values))
        if not rounds:
            continue
        out.append(templates.text(parsed.language, "docs", "first_round", term=m.values[0], round=rounds[0]))
        result = engine.execute(QuerySpec(op="aggregate", aggregate="count",
                                          filters=Filters(benchmark=list(m.values), round=rounds[-1:])))
        if result.value:
            out.append(templates.text(parsed.language, "docs", "results_in", count=int(result.value),
                                      round=rounds[-1]))
        break
    return out


def _figure_then_quotes(question: str, passages: list, parsed: Parsed, figure: str, own: bool = False,
                        catalog: Any = None) -> Answer:
    """The figure asked, from the sentence that states it, then the other passages for context
    (a second figure asked is often in another sentence). "No such figure" when none states one;
    the names of a column asked for ("which benchmarks") that no sentence gives: what the passages say."""
    from assistant.compose import compose_commentary
    from assistant.compose_docs import figure_answer
    from assistant.shapes import words

    answer = figure_answer(question, passages, parsed, figure, own, catalog=catalog)
    if answer.status != "answered" and figure in words.NAMED_COLUMNS:
        return compose_commentary(question, passages, parsed)
    if answer.status == "answered":
        more = compose_commentary(question, passages, parsed)
        answer.answer += " " + more.answer
        answer.citations += [c for c in more.citations if c not in answer.citations]
    return answer


def _commentary(question: str, parsed: Any, engine: Any, scope: dict[str, list[str]] | None) -> Answer:
    from assistant.compose import compose_commentary
    from assistant.compose_docs import STATED, asked_figure, asked_kind, define_answer, on_asked_term

    # a round the table lacks may still be a round the documents cover (commentary on v5.0)
    unknown = list(parsed.reading.unknown_rounds) if parsed.reading is not None else []
    rounds = parsed.explicit.get("round") or (scope or {}).get("round") or unknown
    passages = _passages(question, engine, rounds, parsed)
    if not passages and rounds:
        passages = _passages(question, engine, None, parsed)
    figure = asked_figure(parsed)
    if parsed.intent == "define":
        kind = asked_kind(parsed)
        answer = define_answer(question, _guide(question, parsed, engine) + passages, parsed, _facts(parsed, engine),
                               choices=engine.catalog.values(kind) if kind else ())
        if answer.status == "no_data":  # a term the guide lacks ("mlperf endpoints"): what the documents say
            documents = on_asked_term(parsed, _passages(question, engine, rounds, parsed, guide=False))
            answer = compose_commentary(question, documents, parsed) if documents else answer
    elif figure and passages:
        r = parsed.reading
        # "mitac's llama 2 70b score in v5.1, in their own text": MiTAC's figure, not one a news
        # piece states about another company (a publisher named, "in the supplemental discussion",
        # already chooses whose words answer)
        own = r is not None and r.has("cue", "own_words") and _named_organisation(parsed) and not r.publishers
        answer = None
        if own:  # its own words rank below news about it: look further, and put them first
            mine = _own_first(_passages(question, engine, rounds, parsed, k=STATEMENT_K), parsed)
            answer = _figure_then_quotes(question, mine, parsed, figure, own=True, catalog=engine.catalog) \
                if mine else None
        if answer is None or answer.status != "answered":  # it states none: whoever does, as without the cue
            answer = _figure_then_quotes(question, passages, parsed, figure, catalog=engine.catalog)
        if answer.status == "no_data" and r is not None and (_asks_meaning(r) or not (
                r.has("cue", "source") or r.publishers)):
            # "nvidia's blog says '12.5 tokens/second/user' … what does that even mean", "is that per-gpu
            # number an official metric?": no document states a figure, and the question asks what the
            # words mean, or names no source whose figure it wants: the guide says
            defined = define_answer(question, _guide(question, parsed, engine), parsed, [])
            answer = defined if defined.status == "answered" else answer
        if answer.status == "no_data" and figure in STATED:
            # "who didnt show up to 6.0? gentic news mentioned some no-shows": no sentence names them
            # as a speaker or such; "no such figure" is for numbers, so what the passages say
            answer = compose_commentary(question, passages, parsed)
    else:
        answer = compose_commentary(question, passages, parsed)
    answer.query = {"parsed": parsed.state()}
    if parsed.intent != "define":  # beside the documents: the guide's term, and the table's claim check
        _term_beside(answer, parsed, engine)
        _claim_beside(answer, parsed, engine)
    from assistant import readout

    answer.reading = readout.line(parsed, None)
    return answer


# Terms a definition can explain beside what a document says (a benchmark asks for its results).
_TERM_COLUMNS = ("scenario", "division", "availability", "system_type", "units")


def _term_beside(answer: Answer, parsed: Parsed, engine: Any) -> None:
    """"vera rubin was a 'preview' in v6.1, what does that mean? can I compare …": a question
    asking what a term means beside what a document says about something else gets the guide's
    definition of the term first, then the documents' words. The term is read as a question of
    its own, so the guide section is chosen by the term, not by the chip the question is about."""
    r = parsed.reading
    terms = sorted((m for m in parsed.entities if m.column in _TERM_COLUMNS), key=lambda m: m.span)  # the first named
    if r is None or not r.has("cue", "define") or not terms:
        return
    defined = _defined(terms[0].text, parsed.language, engine)
    if defined.status != "answered":
        return
    answer.answer = defined.answer + " " + answer.answer
    answer.status = "answered"
    answer.citations = defined.citations + [c for c in answer.citations if c not in defined.citations]


def _defined(term: str, language: str, engine: Any) -> Answer:
    """The guide's definition of one term, read as a question of its own, so its section is
    chosen by the term and not by the rest of the question it came from."""
    from assistant.compose_docs import define_answer
    from assistant.parse import parse

    asked = parse(term, engine.catalog)
    asked.intent, asked.language = "define", language
    return define_answer(term, _guide(term, asked, engine), asked, [])


# At most this many new benchmarks get the guide's entry beside the list ("what do the new ones
# measure" over a round that added five would bury the list).
NEW_DEFINED = 2


def _new_terms_defined(answer: Answer, result: QueryResult, parsed: Parsed, engine: Any) -> None:
    """"vad mäter det nya agenttestet för edge i v6.1?": the table lists what is new in the round,
    and the question asks what it measures, so the guide's entry for each new benchmark follows
    (one or two; more and the list says enough)."""
    r = parsed.reading
    spec = result.spec
    if r is None or not r.has("cue", "define") or spec is None or spec.op != "difference" \
            or spec.column != "benchmark" or result.empty:
        return
    names = list(dict.fromkeys(result.items))
    if not 0 < len(names) <= NEW_DEFINED:
        return
    for name in names:
        defined = _defined(name, parsed.language, engine)
        if defined.status == "answered":
            answer.answer += " " + defined.answer
            answer.citations += [c for c in defined.citations if c not in answer.citations]


def _claim_beside(answer: Answer, parsed: Parsed, engine: Any) -> None:
    """"Digital Today says … 1.55 million tokens/s on DeepSeek-R1": beside what the documents say,
    the table's matching row with its id and the verdict code computed (assistant.claims)."""
    from assistant import claims
    from assistant.compose import _query, compact_rows, row_citations
    from assistant.parse import ATTRIBUTION
    from assistant.parsed import filters_of
    from assistant.spec import QuerySpec

    if not parsed.explicit.get("benchmark"):  # a figure of which results? the table cannot say
        return
    spec = QuerySpec(op="rows", filters=filters_of(parsed.explicit, parsed.explicit.get("round") or [], parsed),
                     metric="result", order="best", limit=5)
    checked = claims.check(engine, spec, parsed, ATTRIBUTION)
    if checked is None:
        return
    result, verdict = checked
    rows = compact_rows(result.rows)
    answer.answer = verdict.sentence + " " + answer.answer
    answer.status = "answered"  # the table answers the claim even when no document states a figure
    answer.rows = rows + answer.rows
    answer.citations = row_citations(rows) + answer.citations
    answer.query = {**answer.query, "claim": _query(result)}


def _spec_error(question: str, exc: Any, parsed: Any) -> Answer:
    lines = [str(exc.message if hasattr(exc, "message") else exc)]
    for column, values in (getattr(exc, "suggestions", None) or {}).items():
        if values:
            lines.append(f"closest valid {column} values: {', '.join(map(str, values[:5]))}")
    text = ("Det går inte att svara på det ur datan: " if parsed.language == "sv" else
            "That cannot be answered from the data: ") + "; ".join(lines) + "."
    return _no_data(question, text, localize(parsed.notes, parsed.language), {"parsed": parsed.state()})
