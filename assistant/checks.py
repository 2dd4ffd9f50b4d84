"""The wording checks: whether a model's sentence may be shown instead of ours.

A model words the answer; our code computed it. Whatever the model writes is checked against
the tool results before anyone sees it, and a wording that fails any check is replaced by the
deterministic answer (`assistant.compose`) with a note saying why. The checks are here, apart
from the agent loop, so the loop, the streaming guard and the scan of eval answer files all
apply the same ones.

What is checked:
- **numbers**: every stated number is in a tool result, exactly or rounded as written;
- **labels**: a count stated as "N nodes" / "N GPUs" is a count of that kind;
- **key figures**: the figures the checked answer rests on are stated;
- **verdicts**: a verdict on a claim agrees with what code computed about the quoted figure;
- a table answer states a figure, and an answer is more than a bare number.
"""

from __future__ import annotations

import re

from assistant.answer import Answer
from assistant.numbers import readings, stated_numbers, states, unsupported_numbers
from assistant.parsed import Parsed
from assistant.tools import ToolResult

MIN_WORDS = 2  # fewer words than this (e.g. a bare "33.0") and the deterministic sentence is shown

# --- labels: counts attached to a word ---------------------------------------------------------

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


# --- verdicts on claims --------------------------------------------------------------------------

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


def result_values(results: list[ToolResult]) -> set[float]:
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


# --- key figures -----------------------------------------------------------------------------------

def key_values(answer: Answer) -> list[float]:
    """The figures a wording of `answer` must state: the first one (the best row, the count),
    and for a comparison or a trend also the last (the other side, the latest round) — of
    those, only the ones the checked answer's own text states (a list of names carries a row
    count per name as values, which it never says)."""
    values = [v.value for v in answer.values]
    if not values:
        return []
    picked = [values[0]]
    if (answer.query or {}).get("op") in ("compare", "trend") and len(values) > 1:
        picked.append(values[-1])
    own = readings(answer.answer)
    return [v for v in picked if states(own, v)]


def missing_values(text: str, answer: Answer) -> list[str]:
    """The checked answer's key figures (`key_values`) that `text` does not state, exactly or
    rounded as written ("1,136,100" states 1136100.47). A wording that leaves out the figure
    the question asked for is not an answer, however correct the rest."""
    written = readings(text)
    return [f"{v:,.10g}" for v in key_values(answer) if not states(written, v)]


# --- all of them ------------------------------------------------------------------------------------

def refusal(question: str, text: str, parsed: Parsed, results: list[ToolResult], deterministic: Answer,
            table_text: str) -> str | None:
    """Why a wording whose numbers all check out still may not be shown, or None."""
    verdict = unchecked_verdict(question, text, parsed.claimed, result_values(results))
    if verdict:
        return f"The model's wording drew a verdict (\"{verdict}\") that no computed check backs"
    missing = missing_values(text, deterministic) if deterministic.status == "answered" else []
    if missing:
        return f"The model's wording left out {', '.join(missing)}, the figure(s) the answer rests on"
    if table_text and stated_numbers(table_text) and not stated_numbers(text):
        # A table answer that states no figure ("The submitter holds that result") says nothing checkable.
        return "The model's answer stated none of the table's figures"
    if len(re.findall(r"[^\W\d_]{2,}", text)) < MIN_WORDS:
        # "33.0" is not an answer a reader can check; the deterministic sentence says what it counts.
        return "The model's answer was too terse"
    return None


class NumberGuard:
    """Checks streamed text as it arrives and releases it only up to the last checked number,
    so a number that no tool returned is never shown, even mid-stream. With `required` (the
    checked answer's key figures) nothing is released until they have all been stated: a
    wording that never states them is never shown at all."""

    _TAIL = re.compile(r"[\d][\d.,\u00a0\u202f ]*$")

    def __init__(self, allowed: set[float], required: list[float] | None = None) -> None:
        self.allowed = allowed
        self.required = list(required or [])
        self.text = ""
        self.emitted = 0
        self.bad: list[str] = []

    def feed(self, delta: str) -> str:
        if self.bad:
            return ""
        self.text += delta
        tail = self._TAIL.search(self.text)
        safe_end = tail.start() if tail else len(self.text)
        return self._release(safe_end)

    def finish(self) -> str:
        return "" if self.bad else self._release(len(self.text))

    def _release(self, end: int) -> str:
        self.bad = unsupported_numbers(self.text[:end], self.allowed)
        if self.bad or end <= self.emitted:
            return ""
        if self.required:
            if not all(states(readings(self.text[:end]), v) for v in self.required):
                return ""  # hold back until the key figures have been stated
            self.required = []
        piece, self.emitted = self.text[self.emitted:end], end
        return piece
