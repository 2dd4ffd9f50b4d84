"""A conversation: earlier turns (question + Answer) so follow-ups can be answered.

Follow-ups come in two kinds and both need only the last turn: "And in the Server
scenario?" re-runs the previous spec with one filter changed (the parser needs the previous
turn's parse state), and "How many nodes did it have?" is read off the previous rows. Older
turns are kept for the agent's prompt, trimmed to a token budget (setting `history_tokens`)
counted with tiktoken so the budget means the same thing the model's context does.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from assistant.answer import Answer

# What identifies the system of the previous answer's first row ("that same system"): the platform
# id, as two systems can share a name (NVIDIA's GB300 NVL72 with 72 and with 288 GPUs), its
# submitter and its round.
SHOWN = ("platform", "submitter", "round")


@dataclass
class Turn:
    question: str
    answer: Answer


def _encoding() -> Any:
    try:
        from ingest.settings import setup_offline_env

        setup_offline_env()
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception:  # no BPE files available: fall back to a word-based estimate
        return None


_ENC: Any = None


def count_tokens(text: str) -> int:
    """Tokens in `text` (cl100k_base), or ~4/3 tokens per word if tiktoken cannot load."""
    global _ENC
    if _ENC is None:
        _ENC = _encoding() or False
    if _ENC:
        return len(_ENC.encode(text))
    return int(len(text.split()) * 4 / 3) + 1


def _ran(query: dict[str, Any] | None) -> bool:
    """Whether an answer's query ran on a table: one spec, or one per part (a question answered
    from two tables, or in two parts)."""
    if not query:
        return False
    return "op" in query or any(isinstance(p, dict) and "op" in p for p in query.get("parts") or [])


@dataclass
class Conversation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    turns: list[Turn] = field(default_factory=list)
    history_tokens: int = 1000

    def add(self, question: str, answer: Answer) -> None:
        self.turns.append(Turn(question, answer))

    @property
    def last(self) -> Turn | None:
        """The last turn that ran a query (a failed or commentary turn does not reset the context)."""
        for turn in reversed(self.turns):
            if _ran(turn.answer.query) and turn.answer.status == "answered":
                return turn
        return None

    @property
    def last_spec(self) -> Any:
        """The previous turn's QuerySpec (or None)."""
        from assistant.spec import QuerySpec

        turn = self.last
        if turn is None or not turn.answer.query:
            return None
        query = turn.answer.query
        if "op" not in query and query.get("parts"):  # answered from two tables: the first one's query
            query = query["parts"][0]
        data = {k: v for k, v in query.items() if k in QuerySpec.model_fields}
        try:
            return QuerySpec(**data)
        except Exception:
            return None

    @property
    def last_state(self) -> dict[str, Any] | None:
        """The previous turn's parse state (intent + the filters the user named)."""
        turn = self.last
        if turn is None or not turn.answer.query:
            return None
        state = turn.answer.query.get("parsed")
        if state is not None and turn.answer.rows:  # "how did that same system do on …": the first row's
            first = turn.answer.rows[0]
            state = dict(state, shown={c: [first[c]] for c in SHOWN if first.get(c) is not None})
        return state

    @property
    def last_definition(self) -> str | None:
        """The words of the previous turn when the guide answered it ("what's the closed division"
        before "so which one should i look at?"): a definition runs no query, so `last` skips it,
        yet a follow-up refers to its term. A follow-up read with it keeps the words it was read
        with (query["asked"]), so a third turn still knows the term."""
        if not self.turns:
            return None
        turn = self.turns[-1]
        query = turn.answer.query or {}
        if (query.get("parsed") or {}).get("intent") != "define" or turn.answer.status != "answered":
            return None
        return query.get("asked") or turn.question

    @property
    def last_rows(self) -> list[dict[str, Any]]:
        turn = self.last
        return list(turn.answer.rows) if turn else []

    @property
    def last_query(self) -> dict[str, Any] | None:
        turn = self.last
        return turn.answer.query if turn else None

    def history(self, budget: int | None = None) -> list[dict[str, str]]:
        """Earlier turns as chat messages, newest kept first, within the token budget."""
        budget = self.history_tokens if budget is None else budget
        messages: list[dict[str, str]] = []
        used = 0
        for turn in reversed(self.turns):
            pair = [{"role": "user", "content": turn.question}, {"role": "assistant", "content": turn.answer.answer}]
            cost = sum(count_tokens(m["content"]) for m in pair)
            if used + cost > budget:
                break
            messages[:0] = pair
            used += cost
        return messages

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "turns": [{"question": t.question, "answer": t.answer.to_json()} for t in self.turns]}
