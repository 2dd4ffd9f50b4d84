"""The agent loop: a model that routes, confirms and (if it is big enough) words — never
computes — over the exact engine.

First the router picks the table (as offline); a question about another table, one the reader
knows has no data, a field of the last answer or a two-part question is answered offline with
no model call. Otherwise two paths, both bounded by settings (`max_tool_calls`, `max_tokens`,
`llm_timeout_s`):

- **schema** (default; what small local models can do reliably): the reader reads the
  question first; the model gets that reading as hints and answers with one JSON object
  (`assistant.route`) that confirms or fixes it. Our code validates it, runs both readings and
  keeps the one whose checks pass (the reader's on a tie).
- **tools** (models with native tool calling, `agent_mode=tools`): llama-index's
  `chat_with_tools` loop over the registry in `assistant.tools`.

Who words the answer is `model_wording`: our templates (the offline answer to the reading that
won; `auto` for models under 7B, since small models' rewording only lost answers) or the model,
asked once more from the tool results (`assistant.prompts`). Whatever the model writes is
checked (`assistant.checks`) before it is shown; otherwise the deterministic answer is shown and
the notes say why. Citations, rows, values and the chart always come from our code.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import time
from typing import Any, Iterator

from pydantic import ValidationError

from assistant.answer import Answer, Passage
from assistant.backends.base import AgentBackend, offline_fallback, words
from assistant.checks import VERDICT_ASKED, ReadingCheck, WordingGuard, check_reading, check_wording, prefer, \
    result_values
from assistant.compose import compose, doc_citations
from assistant.llm import ChatModel, Reply, Usage, is_unreachable, redact
from assistant.facts import Facts, build_facts
from assistant.offline import routed, table_scope
from assistant.parse import parse
from assistant.parsed import Parsed
from assistant.prompts import answer_system, answer_user, document_block, language_line
from assistant.route import Example, hint, model_reading, repair_messages, route_messages
from assistant.route_schema import RouteBase, pick_tier, route_model, route_schema, size_in_billions
from assistant.spec import QuerySpec
from assistant.tools import Toolbox, ToolResult

__all__ = ["Agent", "AgentBackend"]  # AgentBackend lives in assistant.backends.base; re-exported for callers

_LOG = logging.getLogger(__name__)
MAX_MODEL_CALLS = 3  # schema mode: route, at most one repair, wording
READING_NOTE = re.compile(r"^Reading used: the (parser|model)'s")  # which reading an answer rests on
# Models below this size read the question but do not word the answer (`model_wording=auto`):
# measured here, the 0.5B and 1.5B models' rewording lost answers the templates had right and
# wrote text the checks cannot all catch (docs/agent.md#measured). No larger model was measured.
MODEL_WORDING_FROM_B = 7.0
TEMPLATE_NOTE = "Worded by our templates: the model {role} only (model_wording=template)."


@dataclasses.dataclass
class _Plan:
    """What the tools produced for one question, and the prompt (if any) that words it."""

    results: list[ToolResult]
    deterministic: Answer
    table_text: str
    messages: list[dict[str, str]] | None = None  # the wording prompt (schema path)
    final_text: str | None = None  # the model's own last reply (tools path)


def _with_spec(parsed: Parsed, spec: QuerySpec) -> Parsed:
    return dataclasses.replace(parsed, spec=spec)


def _merge_passages(*groups: list[Passage]) -> list[Passage]:
    seen: set[str] = set()
    out = []
    for group in groups:
        for p in group:
            if p.id not in seen:
                seen.add(p.id)
                out.append(p)
    return out


def _merge_citations(answer: Answer, passages: list[Passage]) -> list[Any]:
    seen = {(c.kind, c.id) for c in answer.citations}
    return list(answer.citations) + [c for c in doc_citations(passages) if (c.kind, c.id) not in seen]


class Agent:
    """One question through one model. `run` yields answer text pieces, then the final Answer."""

    def __init__(self, model: ChatModel, *, engine: Any, settings: Any, backend: str,
                 policies: list[Any] | None = None, mode: str | None = None, secrets: list[str | None] | None = None):
        self.model = model
        self.engine = engine
        self.settings = settings
        self.backend = backend
        self.policies = policies
        self.mode = mode or settings.get("agent_mode") or "schema"
        self.secrets = list(secrets or [])
        self.usage = Usage()
        self.tier = pick_tier(settings.get("route_tier"), backend=backend, model_name=model.model_name)
        self.wording = pick_wording(settings.get("model_wording"), backend=backend, model_name=model.model_name)

    def answer(self, question: str, *, conversation: Any = None, scope: dict | None = None) -> Answer:
        final = None
        for piece in self.run(question, conversation=conversation, scope=scope, streaming=False):
            if isinstance(piece, Answer):
                final = piece
        assert final is not None
        return final

    def examples_for(self, question: str, *, read: bool = False) -> list[Example]:
        """Few-shot (question, spec) pairs for the routing prompt: the verified questions nearest
        this one (assistant.verified), after the built-in examples in the cached prefix. Only when
        the reader found no spec: then the model must read the question itself, and where the
        reader has one an example would only spend the prompt budget (1,500 tokens)."""
        from assistant.verified import nearest

        return [] if read else [(v.question, v.spec) for v in nearest(self.engine.store, question, k=2)]

    # --- model calls: each one recorded in self.usage -------------------------------------------

    def _chat(self, messages: list[dict[str, str]], **kwargs: Any) -> Reply:
        reply = self.model.chat(messages, **kwargs)
        self.usage.record(messages, reply.completion_text, kwargs.get("tools") or ())
        return reply

    def _stream(self, messages: list[dict[str, str]]) -> Iterator[str]:
        written: list[str] = []
        try:
            for delta in self.model.stream(messages):
                written.append(delta)
                yield delta
        finally:
            self.usage.record(messages, "".join(written))

    # --- the answer's frame ------------------------------------------------------------------------

    def _offline(self, question: str, conversation: Any, scope: dict | None) -> Answer:
        """What the offline answerer shows for the question: from the table the router picks (every
        table that can answer, each labelled, when it names none), two-part questions joined."""
        from assistant.offline import answer_question

        return answer_question(question, engine=self.engine, conversation=conversation, settings=self.settings,
                               scope=scope)

    def _finish(self, answer: Answer, started: float, toolbox: Toolbox, notes: list[str]) -> Answer:
        return answer.model_copy(update={
            "backend": self.backend, "model": self.model.model_name, "llm_calls": self.usage.calls,
            "tool_calls": len(toolbox.log), "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
            "notes": list(answer.notes) + [redact(n, self.secrets) for n in notes],
        })

    # --- the loop ------------------------------------------------------------------------------------

    def run(self, question: str, *, conversation: Any = None, scope: dict | None = None,
            streaming: bool = True) -> Iterator[str | Answer]:
        started = time.perf_counter()
        self.usage = Usage()
        notes: list[str] = []
        route, filters = routed(question, self.engine, scope)
        toolbox = Toolbox(self.engine, settings=self.settings, policies=self.policies, scope=filters,
                          max_calls=int(self.settings.max_tool_calls))
        previous = conversation.last_state if conversation is not None else None
        parsed = parse(question, self.engine.catalog, previous=previous)
        if route.engine is not self.engine or route.reason == "unknown" or parsed.status == "no_data" \
                or parsed.intent == "field" or parsed.parts:
            # The question is about another table (its route speaks this table's fields), the
            # reader already knows the data cannot answer, the answer is a field of the previous
            # rows, or it is a two-part question the offline answerer joins: a model has nothing
            # to add, so spend no call on it. (A `clarify` reading goes to the model, which may
            # read what the reader could not.)
            answer = self._finish(self._offline(question, conversation, scope), started, toolbox, [])
            yield from words(answer.answer) if streaming else ()
            yield answer
            return
        try:
            if self.mode == "tools":
                plan = self._tools_loop(question, parsed, toolbox, conversation, scope, notes)
            else:
                plan = self._schema_plan(question, parsed, toolbox, conversation, scope, notes)
        except Exception as exc:  # noqa: BLE001 - any model failure must become an answer
            if not is_unreachable(exc):
                _LOG.warning("model call failed: %s", redact(repr(exc), self.secrets)[:500])
            fallback = offline_fallback(question, exc, backend=self.backend, secrets=self.secrets, engine=self.engine,
                                        conversation=conversation, settings=self.settings, scope=scope)
            answer = self._finish(fallback, started, toolbox, []).model_copy(update={"backend": "offline"})
            yield from words(answer.answer) if streaming else ()
            yield answer
            return
        answer_text = yield from self._word(question, parsed, plan, notes, streaming)
        passages = [p for r in plan.results for p in r.passages]
        final = plan.deterministic.model_copy(update={
            "answer": answer_text,
            "passages": _merge_passages(plan.deterministic.passages, passages),
            "citations": _merge_citations(plan.deterministic, passages),
        })
        yield self._finish(final, started, toolbox, notes)

    def _word(self, question: str, parsed: Parsed, plan: _Plan, notes: list[str],
              streaming: bool) -> Iterator[str]:
        """Get the model's wording, check it, and return the text to show (the deterministic
        answer when the wording fails a check). Streamed pieces are yielded as they pass."""
        if plan.messages is None and plan.final_text is None and not (self.mode == "tools" and self.wording == "model"):
            # Nothing of the model's to check (our templates word it, or no tool returned
            # anything): the deterministic answer, without building the facts a check reads.
            if streaming:
                yield from words(plan.deterministic.answer)
            return plan.deterministic.answer
        facts = self._facts(question, parsed, plan)
        text: str | None = plan.final_text
        problem: str | None = None
        streamed = False  # model text already shown to a streaming reader
        # A claim question's wording is checked whole before anyone sees it (see checks.unchecked_verdict).
        verdict_question = bool(VERDICT_ASKED.search(question))
        if plan.messages is not None:
            try:
                if streaming and not verdict_question:
                    guard = WordingGuard(facts)
                    for delta in self._stream(plan.messages):
                        piece = guard.feed(delta)
                        if piece:
                            yield piece
                        if guard.problem:
                            break
                    tail = guard.finish()
                    if tail:
                        yield tail
                    text, problem = guard.text.strip(), guard.problem
                    streamed = guard.emitted > 0
                else:
                    text = self._chat(plan.messages).text.strip()
            except Exception as exc:  # noqa: BLE001
                notes.append(redact(f"The model failed while writing the answer ({type(exc).__name__}); "
                                    "showing the deterministic answer.", self.secrets))
                text = None
        if text and not problem:
            problem = check_wording(text, facts)
        if text and not problem:
            if streaming and plan.messages is None:
                yield from words(text)
            return text
        if problem:
            notes.append(problem + "; showing the deterministic answer.")
        elif text is not None or (self.mode == "tools" and self.wording == "model"):
            notes.append("The model wrote no answer; showing the deterministic answer.")
        if streaming:
            if streamed:
                yield "\n\n"
            yield from words(plan.deterministic.answer)
        return plan.deterministic.answer

    def _facts(self, question: str, parsed: Parsed, plan: _Plan) -> Facts:
        """What the tool results say, for the wording checks."""
        passages = _merge_passages(plan.deterministic.passages, [p for r in plan.results for p in r.passages])
        facts = build_facts(
            plan.deterministic.model_copy(update={"passages": passages}), question=question,
            table_texts=[r.text() for r in plan.results if r.name != "search_commentary"], table_text=plan.table_text,
            catalog=self.engine.catalog, claimed=parsed.claimed, language=parsed.language,
            items=[i for r in plan.results if r.query_result is not None for i in r.query_result.items])
        facts.result_figures |= result_values(plan.results)
        return facts

    # --- schema path --------------------------------------------------------------------------

    def _ask_route(self, messages: list[dict[str, str]], notes: list[str]) -> tuple[RouteBase | None, str]:
        """The model's route for the routing conversation (None when its reply does not parse)."""
        try:
            reply = self._chat(messages, schema=route_schema(self.tier))
            return route_model(self.tier).model_validate(json.loads(reply.text)), reply.text
        except (ValueError, ValidationError) as exc:
            notes.append(f"The model's routing reply was not valid JSON for the schema ({type(exc).__name__}); "
                         "used the parser's reading.")
            return None, ""

    def _schema_plan(self, question: str, parsed: Parsed, toolbox: Toolbox, conversation: Any, scope: dict | None,
                     notes: list[str]) -> _Plan:
        messages = route_messages(question, parsed, self.tier, self.examples_for(question, read=parsed.spec is not None))
        route, reply = self._ask_route(messages, notes)
        want_docs = parsed.needs_commentary or (route is not None and route.tool in ("search_commentary", "both"))
        # Two readings, and code decides between them: the reader's (what the offline answerer
        # runs) and the model's. Each is run and checked (rows, every name used, no dead end);
        # the model's is answered from only when its checks pass and the reader's do not.
        reader = _Reading.checked("parser", parsed, parsed.spec,
                                  _run(toolbox, parsed.spec) if parsed.spec is not None else None,
                                  self._offline(question, conversation, scope))
        model = self._model_reading(question, parsed, route, reply, messages, toolbox, reader, notes)
        chosen = model if model is not None and prefer(reader.check, model.check) is model.check else reader
        notes.append(_reading_note(chosen is model, reader, model))
        if self.wording == "template":
            return self._template_plan(question, parsed, chosen, chosen is reader, conversation, scope, notes)
        spec, query, deterministic = chosen.spec, chosen.query, chosen.answer
        results: list[ToolResult] = [query] if query is not None else []
        if want_docs:
            search_query = (route.search_query if route and route.search_query else "") or question
            rounds = list(spec.filters.round) if spec is not None and spec.filters.round else None
            k = min(int(self.settings.retrieval_k or 2), 2)
            results.append(toolbox.call("search_commentary", {"query": search_query[:300], "rounds": rounds, "k": k}))

        table_text = ""
        if query is not None and query.ok and query.spec is not None:
            table_text = compose(question, query.query_result, _with_spec(parsed, query.spec)).answer

        if not any(r.ok and (r.name != "search_commentary" or r.passages) for r in results):
            # Nothing for the model to word: the deterministic answer says what is (not) there.
            notes.append("No tool returned anything to answer from; showing the deterministic answer.")
            return _Plan(results, deterministic, table_text)
        budget = min(int(self.settings.history_tokens), 400)
        messages = [{"role": "system", "content": answer_system()},
                    *_history(conversation, budget),
                    {"role": "user", "content": answer_user(question, results, table_text, parsed.language)}]
        return _Plan(results, deterministic, table_text, messages=messages)

    def _template_plan(self, question: str, parsed: Parsed, chosen: "_Reading", by_reader: bool,
                       conversation: Any, scope: dict | None, notes: list[str]) -> _Plan:
        """Our templates word the reading that won: the offline answer to it, with the documents,
        claim verdicts and notes the offline answerer adds (a small model's rewording only ever
        lost answers). No search and no wording call; the model's tool choice is not used."""
        notes.append(TEMPLATE_NOTE.format(role="read the question"))
        answer = chosen.answer
        if not by_reader and chosen.spec is not None:
            answer = self._offline_to(question, parsed, chosen.spec, conversation, scope) or answer
        assert answer is not None  # the reader's reading always has the offline answer; a winning model's has rows
        return _Plan([chosen.query] if chosen.query is not None else [], answer, "")

    def _offline_to(self, question: str, parsed: Parsed, spec: QuerySpec, conversation: Any,
                    scope: dict | None) -> Answer | None:
        """The offline answer to another reading's spec (None when it does not answer)."""
        from assistant.offline import answer_parsed

        answer = answer_parsed(question, dataclasses.replace(parsed, spec=spec, status="ok"), engine=self.engine,
                               conversation=conversation, scope=table_scope(scope))
        return answer if answer.status == "answered" else None

    def _model_reading(self, question: str, parsed: Parsed, route: RouteBase | None, reply: str,
                       messages: list[dict[str, str]], toolbox: Toolbox, reader: "_Reading",
                       notes: list[str]) -> "_Reading | None":
        """The model's reading, run and checked; None when it has none or it is the reader's.
        A spec of its own that does not run goes back to it once (`repair_messages`) when the
        reader's reading fails its checks (else the repair could not change the answer)."""
        spec = model_reading(parsed, route, question, self.engine, notes, self.tier)
        if spec is None or spec == reader.spec:
            return None
        query = _run(toolbox, spec)
        if not query.ok and "suggestions" in query.content and not reader.check.passes \
                and self.usage.calls <= MAX_MODEL_CALLS - 2:  # room for the repair and the wording
            # One repair: the model sees why its spec did not run and the closest valid values.
            # Route, repair and wording make at most MAX_MODEL_CALLS calls.
            notes.append(f"The model's spec did not run ({query.content['error']}); asked the model once to "
                         "repair it.")
            fixed, _ = self._ask_route(repair_messages(messages, reply, query.content), notes)
            repaired = model_reading(parsed, fixed, question, self.engine, notes, self.tier)
            if repaired is not None and repaired not in (spec, reader.spec):
                spec, query = repaired, _run(toolbox, repaired)
        answer = compose(question, query.query_result, _with_spec(parsed, query.spec)) \
            if query.ok and query.spec is not None else None
        return _Reading.checked("model", parsed, query.spec if query.ok else spec, query, answer)

    # --- native tool-calling path ---------------------------------------------------------------

    def _tools_loop(self, question: str, parsed: Parsed, toolbox: Toolbox, conversation: Any,
                    scope: dict | None, notes: list[str]) -> _Plan:
        tools = toolbox.function_tools()
        messages = [{"role": "system", "content": answer_system(tools=True)},
                    *_history(conversation, int(self.settings.history_tokens)),
                    {"role": "user",
                     "content": f"{question}\n(Our parser's reading: {json.dumps(hint(parsed, self.tier))})\n"
                                f"{language_line(parsed.language)}"}]
        results: list[ToolResult] = []
        final_text: str | None = None
        for _ in range(int(self.settings.max_tool_calls) + 1):
            reply = self._chat(messages, tools=tools)
            if not reply.tool_calls:
                final_text = reply.text.strip()
                break
            for call in reply.tool_calls:
                result = toolbox.call(call.name, call.arguments)
                results.append(result)
                body = (document_block(result.passages) if result.name == "search_commentary" and result.ok
                        else result.text())
                messages.append({"role": "assistant",
                                 "content": f"call {call.name} {json.dumps(call.arguments, default=str)}"})
                messages.append({"role": "user", "content": f"TOOL RESULT {call.name}:\n{body}"})
            if self.wording == "template" and _with_rows(results) is not None:
                break  # our templates word the rows it found: no call for the model's own wording
        else:
            notes.append(f"The model used up its {self.settings.max_tool_calls} tool calls without answering.")
        if self.wording == "template":
            # The offline answer to the model's last query (documents and all) when it found rows;
            # else the reader's offline answer, not a template over no rows. Only the answer's own
            # passages are cited.
            notes.append(TEMPLATE_NOTE.format(role="chose and ran the tools" if results else "called no tool"))
            found = _with_rows(results)
            answer = self._offline_to(question, parsed, found.spec, conversation, scope) if found else None
            return _Plan([r for r in results if r.name != "search_commentary"],
                         answer or self._offline(question, conversation, scope), "")
        queries = [r for r in results if r.name == "query_results" and r.ok and r.spec is not None]
        if queries:
            last = queries[-1]
            deterministic = compose(question, last.query_result, _with_spec(parsed, last.spec))
            return _Plan(results, deterministic, deterministic.answer, final_text=final_text)
        return _Plan(results, self._offline(question, conversation, scope), "", final_text=final_text)


def pick_wording(setting: str | None, *, backend: str, model_name: str | None) -> str:
    """Who words the answer: the setting when it names one, else by the model's size as its
    name states it (like `route_schema.pick_tier`, with its own threshold)."""
    if setting in ("model", "template"):
        return setting
    size = size_in_billions(model_name)
    if size is None:
        return "model" if backend == "openai" else "template"
    return "model" if size >= MODEL_WORDING_FROM_B else "template"


@dataclasses.dataclass
class _Reading:
    """One reading of the question: its spec, the tool result of running it, the deterministic
    answer it gives and how it fared on the checks (`assistant.checks.check_reading`)."""

    spec: QuerySpec | None
    query: ToolResult | None
    answer: Answer | None
    check: ReadingCheck

    @classmethod
    def checked(cls, who: str, parsed: Parsed, spec: QuerySpec | None, query: ToolResult | None,
                answer: Answer | None) -> "_Reading":
        return cls(spec, query, answer, check_reading(who, spec, answer, parsed))


def _reading_note(model_won: bool, reader: _Reading, model: _Reading | None) -> str:
    """Which reading the answer rests on and why, for the notes and the eval answers file
    (`READING_NOTE` finds it)."""
    if model is None:
        return "Reading used: the parser's (the model proposed no other)."
    if model_won:
        return f"Reading used: the model's (its checks pass; the parser's {reader.check.failed()})."
    if reader.check.passes:
        why = "its checks pass" + ("; so do the model's, and on a tie the parser's wins" if model.check.passes
                                   else f"; the model's {model.check.failed()}")
    else:
        why = f"neither passes its checks: the parser's {reader.check.failed()}; the model's {model.check.failed()}"
    return f"Reading used: the parser's ({why})."


def _with_rows(results: list[ToolResult]) -> ToolResult | None:
    """The last table query of a tool loop when it returned rows."""
    queries = [r for r in results if r.name == "query_results" and r.ok and r.spec is not None
               and r.query_result is not None]
    return queries[-1] if queries and not queries[-1].query_result.empty else None


def _run(toolbox: Toolbox, spec: QuerySpec) -> ToolResult:
    return toolbox.call("query_results", {"spec": spec.model_dump(exclude_defaults=True)})


def _history(conversation: Any, budget: int) -> list[dict[str, str]]:
    return conversation.history(budget) if conversation is not None and budget > 0 else []
