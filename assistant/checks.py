"""The wording checks: whether a model's text may be shown instead of ours.

A model words the answer; our code computed it. Whatever the model writes is checked against
the tool results (`assistant.facts.Facts`) before anyone sees it, and a wording that fails any
check is replaced by the deterministic answer (`assistant.compose`) with a note saying why: a
model only ever makes an answer better. The agent loop, the streaming guard and the scan of
eval answer files (`scan_answers`, `python -m assistant.checks FILE...`) apply the same checks.

In order:
1. **numbers**: every stated number is in a tool result, exactly or rounded as written;
2. **counts**: "N nodes" / "N GPUs" is a count of that kind;
3. **internal words**: no tool names, "TOOL RESULTS", tags or JSON keys;
4. **labels**: a number is called what it is — a throughput is not accuracy or power, a total is
   not per-GPU, per-node or relative;
5. **attribution**: a figure from the table is not put in a vendor's, an article's or a
   claim's mouth, unless a quoted passage of that source states it;
6. **names**: every round, benchmark, scenario, submitter, chip and system named is in the
   results (or the question) — no "v6.1-closed"; and the wording is in the question's language;
7. **verdicts**: a verdict on a claim agrees with what code computed about the quoted figure;
8. **key figures** and **key names**: what the checked answer rests on is stated (the best
   system and its submitter; the items of a list, up to a cap);
9. a table answer states a figure, and an answer is more than a bare number.

The same module holds the checks that decide between two *readings* of a question (the
reader's spec and the model's, `check_reading` and `prefer`): a reading passes when it returns
rows, uses every entity the question names and does not dead-end. Code decides, not the model.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from assistant.answer import Answer
from assistant.facts import Facts, build_facts, core_name, key_values, unit_key, unit_kinds
from assistant.numbers import readings, stated_numbers, states, unsupported_numbers
from assistant.wording import ALLOWED, GENERIC_DOCUMENT, LANGUAGE_NAMES, attributions, clauses, internal_words, \
    measure_kinds, number_contexts, other_language, sentences

__all__ = ["Facts", "build_facts", "check_wording", "key_values", "WordingGuard", "scan_answers", "scan_record",
           "ReadingCheck", "check_reading", "prefer"]

MIN_WORDS = 2  # fewer words than this (e.g. a bare "33.0") and the deterministic sentence is shown

# --- counts attached to a word --------------------------------------------------------------------

# Counts people attach to a word: "18 nodes", "72× GB300", "8 GPUs". A number that exists in the
# tool results but under another label (288 from "288GB" stated as an accelerator count) is as
# wrong as an invented one, so these are checked against the values of their own label.
_NODE_WORDS = r"(?:nodes?|noder|nod)\b"
_ACCEL_WORDS = r"(?:[x×](?=\s|[A-Z])|(?:GPUs?|accelerators?|acceleratorer|chips?)\b)"
_LABELS = {"nodes": (_NODE_WORDS, ("number_of_nodes",)),
           "accelerators": (_ACCEL_WORDS, ("total_accelerators", "accelerators_per_node"))}


def labelled_numbers(texts: list[str]) -> dict[str, set[float]]:
    """Per label, the counts the tool results support (JSON fields and 'N nodes' / 'N×' phrases)."""
    out: dict[str, set[float]] = {}
    for label, (words, fields) in _LABELS.items():
        found: set[float] = set()
        for text in texts:
            for field in fields:
                found.update(float(m) for m in re.findall(rf'"{field}":\s*(\d+)', text))
            found.update(float(m) for m in re.findall(rf"(\d+)\s*{words}", text))
        out[label] = found
    return out


def mislabelled_numbers(text: str, supported: dict[str, set[float]]) -> list[str]:
    """Counts in `text` stated under a label ("8 nodes") that no count of that label supports."""
    bad = []
    for label, (words, _) in _LABELS.items():
        for match in re.finditer(rf"(?<![\w.,])(\d+)\s*{words}", text):
            if float(match.group(1)) not in supported.get(label, set()):
                bad.append(match.group(0).strip())
    return bad


# --- what a number is called --------------------------------------------------------------------------

def mislabelled_figures(text: str, facts: Facts) -> list[str]:
    """Figures `text` calls something they are not: "22.6141 Samples/s accuracy" (a
    throughput), "drew 102,909 Tokens/s" (power), "throughput per GPU reached 1,555,110"
    (a total), or a unit not its own ("102,909 Samples/s" for Tokens/s)."""
    bad = []
    for sentence in sentences(text):
        for token, unit, before, after in number_contexts(sentence, lambda t: bool(facts.kinds_of(t)[0])):
            kinds, units = facts.kinds_of(token)
            if "count" in kinds:
                continue  # counts are checked against their own label (mislabelled_numbers)
            allowed = set().union(*(ALLOWED.get(k, {k}) for k in kinds))
            said = measure_kinds(f"{before} {after}") | (unit_kinds(unit) - {"count"})
            wrong = said - allowed
            if unit and unit_kinds(unit) - {"count", "relative"} and units and unit_key(unit) not in units:
                wrong.add(unit)
            if wrong:
                bad.append(f"{token}{' ' + unit if unit else ''} as {', '.join(sorted(wrong))}")
    return bad


# --- who said it --------------------------------------------------------------------------------------------

def false_attributions(text: str, facts: Facts) -> list[str]:
    """Table figures `text` attributes to a vendor, an article or a claim ("according to NVIDIA,
    ... 1,555,110 Tokens/s") that no quoted passage of that source states."""
    from assistant.numbers import numbers_in

    bad = []
    for clause in (c for sentence in sentences(text) for c in clauses(sentence)):
        sources = attributions(clause)
        if not sources:
            continue
        for token in stated_numbers(clause):
            if not facts.kinds_of(token)[0]:
                continue  # not a figure of the results (e.g. the "2" of "Llama 2")
            value = readings(token)
            for src in sources:
                if not any(_source_states(p, src, value) for p in facts.passages) and not (
                        src.lower() in facts.question.lower()
                        and any(states(value, q) for q in numbers_in(facts.question))):
                    bad.append(f"{token} to {src}")
    return bad


def _source_states(passage: Any, src: str, value: list[tuple[float, int]]) -> bool:
    from assistant.numbers import numbers_in

    about = f"{passage.title} {passage.source} {passage.url or ''} {passage.text}".lower()
    named = bool(GENERIC_DOCUMENT.search(src)) or src.lower().removesuffix("'s") in about
    return named and any(states(value, n) for n in numbers_in(passage.text))


# --- names and rounds ---------------------------------------------------------------------------------------

def invented_names(text: str, facts: Facts) -> list[str]:
    """Rounds, scenarios and names in `text` that are not in the results or the question."""
    from assistant.facts import NAME_COLUMNS, ROUND

    bad = [r for r in ROUND.findall(text) if r.rstrip(".") not in facts.rounds]
    if facts.catalog is None:
        return bad  # no vocabulary to tell a name from a word
    by_span: dict[tuple[int, int], list[Any]] = {}
    for match in facts.catalog.resolve(text, fuzzy=False):
        by_span.setdefault(match.span, []).append(match)
    for span, matches in by_span.items():
        words = text[span[0]:span[1]]
        checked = [m for m in matches if m.column in NAME_COLUMNS
                   or (m.column == "scenario" and words[:1].isupper())]
        if len(checked) < len(matches) or not checked:
            continue  # also a word of an unchecked kind (a division, an availability)
        if not any((m.column, v) in facts.names for m in checked for v in m.values):
            bad.append(words)
    quoted = " ".join([facts.question, *(p.text for p in facts.passages)]).lower()
    bad += [name for name in facts.catalog.unknown_entities(text) if name.lower() not in quoted]
    return list(dict.fromkeys(bad))


def missing_names(text: str, facts: Facts) -> list[str]:
    """The checked answer's key names `text` leaves out, when it states fewer than required."""
    from assistant.catalog import compact

    written = compact(text)

    def named(name: str) -> bool:
        words = core_name(name).split()
        variants = [" ".join(words), " ".join(words[1:]) if len(words) > 1 else ""]
        return any(len(compact(v)) >= 2 and compact(v) in written for v in variants)

    missing = [n for n in facts.key_names if not named(n)]
    return missing if len(facts.key_names) - len(missing) < facts.names_required else []


# --- verdicts on claims --------------------------------------------------------------------------------

# A verdict on a claim ("the table does not support NVIDIA's claim") is a conclusion that no
# number check catches. Only code may draw it: a figure quoted in the question (the parser's
# `claimed`) either is or is not in the table's results. The model's verdict wording must agree
# with that; with no quoted figure there is nothing computed to agree with, and it is refused.
VERDICT_ASKED = re.compile(r"\bclaims?\b|\bclaimed\b|\b(does|do) the (table|data|results?) (support|agree|confirm|"
                           r"back)|\b(is|was) (it|this|that) (true|correct|accurate|right)\b|\btrue that\b|"
                           r"\bstämmer\b|\bpåst[åo]|\bhävd|\bbekräfta", re.IGNORECASE)
_VERDICT = re.compile(
    r"\b(?:(?:does|do|did)(?: not|n't)? (?:support|confirm|contradict|agree with|back up)|supports?|supported|"
    r"confirms?|confirmed|contradicts?|contradicted|refutes?|refuted|disproves?|backs? up|"
    r"(?:is|are|was|were)(?: not|n't)? (?:true|false|correct|incorrect|accurate|inaccurate|right|wrong)|"
    r"stämmer(?: inte)?|stöder(?: inte)?|stödjer(?: inte)?|bekräftar(?: inte)?|motsäger|styrker(?: inte)?)\b",
    re.IGNORECASE)
# Negation anywhere in the clause before the verdict word ("cannot confirm", "no result supports").
_NEGATIVE = re.compile(r"\b(not|no|never|cannot|none|nothing|inte|ej|aldrig|ingen|inget|contradict\w*|refute\w*|"
                       r"disprove\w*|false|incorrect|inaccurate|wrong|motsäger)\b|n't\b", re.IGNORECASE)


def unchecked_verdict(question: str, text: str, claimed: list[float], results: set[float]) -> str | None:
    """The verdict phrase in `text` that no computed check backs, or None.

    A verdict is backed when the question quoted a figure and the verdict's polarity (a negation
    in its clause counts) matches whether that figure is one of the result values the tools
    returned, exactly."""
    if not VERDICT_ASKED.search(question):
        return None
    found = _VERDICT.search(text)
    if found is None:
        return None
    if not claimed:
        return found.group(0)
    in_table = any(any(abs(r - c) <= max(abs(c) * 1e-9, 1e-9) for r in results) for c in claimed)
    clause = re.split(r"[.;:!?]\s", text[:found.start()])[-1] + found.group(0)
    negative = bool(_NEGATIVE.search(clause))
    return found.group(0) if negative == in_table else None


def result_values(results: Iterable[Any]) -> set[float]:
    """The result figures (official or derived) of the rows the table tool found — not every
    digit in its output, so the "70" of llama2-70b is no claimed figure found."""
    out: set[float] = set()
    for r in results:
        found = r.query_result
        if found is None:
            continue
        for frame in [found.rows] + [side.rows for side in found.sides]:
            for column in ("result", "value"):
                if frame is not None and column in frame.columns:
                    out.update(float(v) for v in frame[column].dropna().tolist())
        out.update(float(b["value"]) for b in found.by_round)
    return out


# --- all of them --------------------------------------------------------------------------------------------

def missing_values(text: str, facts: Facts) -> list[str]:
    """The key figures `text` does not state, exactly or rounded as written ("1,136,100"
    states 1136100.47). A wording that leaves out the figure asked for is not an answer."""
    written = readings(text)
    return [f"{v:,.10g}" for v in facts.key_values if not states(written, v)]


def sentence_problem(text: str, facts: Facts) -> str | None:
    """Why `text` may not be shown, by the checks a part of a text can fail (1–6), or None."""
    bad = unsupported_numbers(text, facts.allowed) or mislabelled_numbers(text, labelled_numbers(facts.texts))
    if bad:
        return f"The model's wording stated {', '.join(bad[:5])}, which no tool result contains"
    internal = internal_words(text)
    if internal:
        return f"The model's wording used internal words ({', '.join(internal[:3])})"
    other = other_language(text, facts.language)
    if other:
        return (f"The model's wording was in {LANGUAGE_NAMES[other]}, not the question's "
                f"{LANGUAGE_NAMES[facts.language or '']}")
    labels = mislabelled_figures(text, facts)
    if labels:
        return f"The model's wording labelled {'; '.join(labels[:3])}, which the figure is not"
    attributed = false_attributions(text, facts)
    if attributed:
        return f"The model's wording attributed a figure of the results table ({'; '.join(attributed[:3])})"
    invented = invented_names(text, facts)
    if invented:
        return f"The model's wording named {', '.join(invented[:5])}, which the tool results do not contain"
    return None


def check_wording(text: str, facts: Facts) -> str | None:
    """Why a model's whole wording may not be shown (the first check it fails), or None."""
    problem = sentence_problem(text, facts)
    if problem:
        return problem
    verdict = unchecked_verdict(facts.question, text, facts.claimed, facts.result_figures)
    if verdict:
        return f"The model's wording drew a verdict (\"{verdict}\") that no computed check backs"
    missing = missing_values(text, facts)
    if missing:
        return f"The model's wording left out {', '.join(missing)}, the figure(s) the answer rests on"
    if facts.table_text and stated_numbers(facts.table_text) and not stated_numbers(text):
        # A table answer that states no figure ("The submitter holds that result") says nothing checkable.
        return "The model's answer stated none of the table's figures"
    if len(re.findall(r"[^\W\d_]{2,}", text)) < MIN_WORDS:
        # "33.0" is not an answer a reader can check; the deterministic sentence says what it counts.
        return "The model's answer was too terse"
    names = missing_names(text, facts)
    if names:
        return f"The model's wording left out {', '.join(names[:5])}, the name(s) the answer rests on"
    return None


class WordingGuard:
    """Checks streamed text as it arrives and releases only whole sentences that pass the
    checks a part of a text can fail, so nothing unchecked is shown even mid-stream; and
    nothing at all until the key figures and names have been stated, so a wording that never
    states them is never shown. `problem` says why it stopped."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.text = ""
        self.emitted = 0
        self.problem: str | None = None
        self.complete = not facts.key_values and not facts.names_required

    def feed(self, delta: str) -> str:
        if self.problem:
            return ""
        self.text += delta
        ends = [m.end() for m in re.finditer(r"[.!?](?=\s)|\n", self.text)]
        return self._release(ends[-1]) if ends else ""

    def finish(self) -> str:
        return "" if self.problem else self._release(len(self.text))

    def _release(self, end: int) -> str:
        head = self.text[:end]
        self.problem = sentence_problem(head, self.facts)
        if self.problem or end <= self.emitted:
            return ""
        if not self.complete:
            if missing_values(head, self.facts) or missing_names(head, self.facts):
                return ""  # hold back until the key figures and names have been stated
            self.complete = True
        piece, self.emitted = self.text[self.emitted:end], end
        return piece


# --- which reading runs: the reader's or the model's -----------------------------------------------

@dataclass(frozen=True)
class ReadingCheck:
    """How one reading of a question fared on the checks that decide between readings."""

    who: str  # "parser" or "model"
    rows: bool  # its answer rests on rows (or computed values) of the table
    missing: tuple[str, ...]  # names the question states that its spec does not use
    dead_end: bool  # its answer is not an answer: no data, a question back, an error

    @property
    def passes(self) -> bool:
        return self.rows and not self.missing and not self.dead_end

    def failed(self) -> str:
        """What it failed, in a few words ("" when it passes)."""
        out = [] if self.rows else ["returned no rows"]
        if self.missing:
            out.append(f"left out {', '.join(self.missing[:3])}")
        if self.dead_end:
            out.append("dead-ended")
        return ", ".join(out)


def _spec_filters(spec: Any) -> list[Any]:
    return [f for f in (spec.filters, spec.other, *(spec.sides or [])) if f is not None]


def unused_names(spec: Any, parsed: Any) -> list[str]:
    """What the question states that `spec` does not use: the reader's entities (as a filter
    value anywhere: filters, `other`, `sides`), its numeric conditions ("more than 1000 GPUs",
    as a range on that column), "power runs only", and the measure the reader read when it is
    not the headline result ("power", "per GPU"). A reading that drops one of them answers
    another question, however many rows it returns. What an "is it true that X had the top
    result?" question checks is exempt: it must not filter the ranking it checks."""
    groups = _spec_filters(spec) if spec is not None else []
    used = {str(v).lower() for f in groups for values in f.model_dump().values() if isinstance(values, list)
            for v in values}
    out = []
    for match in parsed.entities:
        if set(match.values) & set(parsed.checked.get(match.column, [])):
            continue
        if not any(str(v).lower() in used for v in match.values):
            out.append(match.text or match.alias)
    for column in parsed.ranges:
        if not any(getattr(f, column, None) is not None for f in groups):
            out.append(f"the condition on {column}")
    if parsed.has_power and not any(f.has_power for f in groups):
        out.append("power runs only")
    measure = parsed.spec.metric if parsed.spec is not None else "result"
    if measure != "result" and (spec is None or spec.metric != measure):
        out.append(f"the measure {measure}")
    return list(dict.fromkeys(out))


def check_reading(who: str, spec: Any, answer: Answer | None, parsed: Any) -> ReadingCheck:
    """The checks of one reading: `spec` as run and the deterministic `answer` it gave."""
    rows = answer is not None and spec is not None and bool(answer.rows or answer.values)
    dead_end = answer is None or answer.status != "answered"
    return ReadingCheck(who, rows, tuple(unused_names(spec, parsed)), dead_end)


def prefer(reader: ReadingCheck, model: ReadingCheck | None) -> ReadingCheck:
    """The reading to answer from: the model's only when its checks pass and the reader's do
    not. On a tie (both pass, or both fail) the reader wins: the offline answerer is the floor."""
    return model if model is not None and model.passes and not reader.passes else reader


# --- the scan of eval answer files --------------------------------------------------------------------------

def models_wording(answer: Answer) -> bool:
    """Whether the text shown is a model's wording (not ours: an offline answer, or the
    deterministic answer shown because the wording failed a check)."""
    ours = any("showing the deterministic answer" in n or "answered offline" in n for n in answer.notes)
    return answer.backend != "offline" and answer.llm_calls > 0 and not ours


def scan_record(record: dict[str, Any], engine: Any = None) -> str | None:
    """Why the answer text of one eval record (an `Answer` as JSON) fails the wording checks,
    or None. With an engine, the checked answer is rebuilt by running the record's query again,
    so its key figures and names are known; without one, only the record's rows, values and
    passages are the facts."""
    answer = Answer.model_validate({k: v for k, v in record.items() if k in Answer.model_fields})
    if answer.status != "answered" or not answer.answer.strip() or not models_wording(answer):
        return None
    from assistant.parse import claimed_numbers

    checked, items = _rebuilt(answer, engine) if engine is not None else (None, [])
    # Never the record's own text: it is the wording under check, not a fact.
    facts = build_facts((checked or answer.model_copy(update={"answer": ""})).model_copy(
                            update={"passages": answer.passages}),
                        question=answer.question, table_texts=[json.dumps(answer.rows, default=str)],
                        table_text=checked.answer if checked else "", catalog=engine.catalog if engine else None,
                        claimed=claimed_numbers(answer.question), items=items)
    return check_wording(answer.answer, facts)


def _rebuilt(answer: Answer, engine: Any) -> tuple[Answer | None, list[str]]:
    """The deterministic answer to the record's query (and the items it lists); None when
    there is no query to run."""
    from assistant.compose import compose
    from assistant.spec import QuerySpec

    spec_data = {k: v for k, v in (answer.query or {}).items() if k in QuerySpec.model_fields}
    if not spec_data:
        return None, []
    try:
        result = engine.execute(QuerySpec.model_validate(spec_data))
        rebuilt = compose(answer.question, result, None)
    except Exception:  # noqa: BLE001 - a record whose query no longer runs is checked on its own
        return None, []
    rebuilt.query = {**(rebuilt.query or {}), "parsed": (answer.query or {}).get("parsed")}
    return rebuilt, list(result.items)


def scan_answers(paths: Iterable[str | Path], engine: Any = None) -> list[dict[str, str]]:
    """Every record of the answers files (JSONL, as `resultsqa eval --out` writes) whose shown
    text fails a wording check: [{"file", "id", "backend", "problem", "answer"}]."""
    found = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line of an interrupted run
            if not isinstance(record, dict) or "answer" not in record:
                continue
            problem = scan_record(record, engine)
            if problem:
                found.append({"file": str(path), "id": str(record.get("id", "")), "backend": str(record.get("backend")),
                              "problem": problem, "answer": str(record["answer"])[:300]})
    return found


def main(argv: list[str] | None = None) -> int:
    """`python -m assistant.checks FILE...`: list the answers that fail a check; exit 1 if any.
    `--no-engine` checks against the records alone (no index needed)."""
    args = list(sys.argv[1:] if argv is None else argv)
    engine = None
    if "--no-engine" in args:
        args.remove("--no-engine")
    else:
        from assistant.engine import get_engine

        engine = get_engine()
    found = scan_answers(args, engine)
    for item in found:
        print(f"{item['file']}:{item['id']} [{item['backend']}] {item['problem']}\n    {item['answer']}")
    print(f"{len(found)} answer(s) fail a wording check")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
