"""Commentary retrieval: store hits -> `Passage`s with their sources.

Retrieved text is data, never instructions: it is copied into `Passage.text` untouched and
nothing here parses, follows or executes anything inside it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterable

from assistant import glossary
from assistant.answer import Passage
from assistant.lexicon import BASE_LANGUAGE, undotted
from assistant.names import same_name


_ROUND = re.compile(r"v?\d+\.\d+")
_UNKNOWN = {"", "unknown", "none", "null", "n/a"}


def _rounds(meta: dict[str, Any]) -> list[str]:
    """Rounds a chunk is about, whatever shape the metadata kept ("v6.0,v5.1", "['v6.1']", a list)."""
    raw = meta.get("rounds") or meta.get("round") or ""
    text = ",".join(map(str, raw)) if isinstance(raw, (list, tuple)) else str(raw)
    found = []
    for r in _ROUND.findall(text):
        r = r if r.startswith("v") else "v" + r
        if r not in found:
            found.append(r)
    return found


def _known(value: Any) -> str | None:
    """Front matter says `unknown` for missing urls and dates: never cite that as a link."""
    text = "" if value is None else str(value).strip()
    return None if text.casefold() in _UNKNOWN else text


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value in (None, "") else int(value)
    except (TypeError, ValueError):
        return None


def to_passage(hit: dict[str, Any]) -> Passage:
    """One store hit (`{id, text, metadata, score}`) as a `Passage`."""
    meta = dict(hit.get("metadata") or {})
    score = hit.get("score")
    return Passage(
        id=str(hit.get("id", "")),
        text=str(hit.get("text") or ""),
        title=str(meta.get("title") or meta.get("doc_id") or ""),
        url=_known(meta.get("url")),
        source=str(meta.get("source") or meta.get("doc_id") or ""),
        published=_known(meta.get("published")),
        rounds=_rounds(meta),
        language=_known(meta.get("language")),
        page=_int_or_none(meta.get("page")),
        kind=str(meta.get("kind") or "doc"),
        doc_kind=str(meta.get("doc_kind") or ""),
        translation_of=_known(meta.get("translation_of")),
        score=None if score is None else float(score),
    )


def filter_rounds(passages: Iterable[Passage], rounds: list[str] | None, k: int) -> list[Passage]:
    """Passages about the asked rounds first (in store order), then round-less general ones;
    passages tagged only with other rounds are dropped."""
    passages = list(passages)
    if not rounds:
        return passages[:k]
    wanted = set(rounds)
    matching = [p for p in passages if wanted & set(p.rounds)]
    general = [p for p in passages if not p.rounds]
    return (matching + general)[:k]


@dataclass(frozen=True)
class Want:
    """What the question says about the passages it wants, beyond its words: the rounds named,
    the organisations and products named, and whether it asks what a term means (the guide)."""

    rounds: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    guide: bool = False
    language: str = "en"
    documents: tuple[str, ...] = ()  # ids of documents the question names by their publisher
    # submitters named: a document's section headed by one is that organisation's own statement
    organisations: tuple[str, ...] = ()
    # "what did X claim": what others wrote comes before our guide, which is nobody's claim
    claims: bool = False
    written: str = ""  # "the swedish article": the language of the document asked for


FETCH = 60  # candidates from the vector index before reranking
RRF_K = 20  # reciprocal-rank fusion constant: small, because the candidate lists are short
BOOST = 1.0 / (RRF_K + 1)  # a boost is worth a first place in one of the two rankings
_WORD = re.compile(r"[0-9a-zåäöéü][0-9a-zåäöéü.%]*", re.I)
_STOP = set("""the a an of in on for and or to is are was were what why how did does do which who with by about that
this it its from at as be has have had any all more most than then them they their there these those per vs
mlperf inference round rounds result results benchmark benchmarks according say says said article report
vad varför hur och i på för att det den som är var med om av till enligt vilken vilket vilka har hade""".split())


def _terms(text: str) -> set[str]:
    """The words that can tell passages apart: no stop words, none of two letters; an abbreviation
    without its dots ("Ph.D." is "phd", as a question types it)."""
    words = (w.rstrip(".") for w in _WORD.findall(undotted(text)))
    return {w.lower() for w in words if w.lower() not in _STOP and len(w) > 2}


@lru_cache(maxsize=4096)
def _passage_terms(text: str) -> frozenset[str]:
    """A passage's words, once: the same chunks come back question after question."""
    return frozenset(_terms(text))


def _doc_id(p: Passage) -> str:
    """The document a chunk id names (`doc:<file>:<chunk>`)."""
    parts = p.id.split(":")
    return parts[1] if len(parts) >= 3 else ""


def doc_parts(p: Passage) -> tuple[str, set[str]]:
    """The publisher and the type words of a chunk's document, from its file name
    (`v6.0_amd_vendor-blog.md` -> ("amd", {"vendor", "blog"})); ("", set()) for the guide."""
    fields = re.sub(r"\.\w+$", "", _doc_id(p)).split("_")
    if len(fields) < 3 or not fields[0].startswith("v"):
        return "", set()
    return fields[1].replace("-", " "), {w for w in fields[-1].split("-") if len(w) > 2}


def _publisher_words(documents: Iterable[str]) -> set[str]:
    """The publisher names in document file names (`v6.0_amd_vendor-blog.md` -> "amd")."""
    out = set()
    for doc in documents:
        parts = str(doc).split("_")
        if len(parts) >= 3:
            out |= {parts[1].replace("-", " "), parts[1].replace("-", "")}
    return out


def rerank(query: str, passages: list[Passage], want: Want) -> list[Passage]:
    """Vector order fused with a lexical order (the question's rare words, names and numbers in
    the text, title and source), plus boosts for the rounds, names, publisher, document type (from
    the file name: "blog", "news") and kind asked for, and a named document's section on the
    organisation asked."""
    terms = _terms(query) | {n.lower() for n in want.names}
    # a Swedish question's words in the English a document writes ("universitet": university)
    terms |= {e for t in terms for e in glossary.english(t, want.language)}
    texts = [(p.text + " " + p.title + " " + p.source).lower() for p in passages]
    words = [_passage_terms(t) for t in texts]
    df = {t: sum(t in ws or t in tx for ws, tx in zip(words, texts)) for t in terms}
    n = len(passages) or 1
    lexical = [math.fsum(math.log(1 + n / df[t]) for t in terms if df[t] and (t in ws or (" " in t and t in tx)))
               for ws, tx in zip(words, texts)]
    lex_rank = {i: r for r, i in enumerate(sorted(range(len(passages)), key=lambda i: -lexical[i]))}
    names = [nm.lower() for nm in want.names]
    subjects = [nm for nm in names if nm not in _publisher_words(want.documents)]
    scored = []
    for i, p in enumerate(passages):
        score = 1 / (RRF_K + i + 1) + (1 / (RRF_K + lex_rank[i] + 1) if lexical[i] else 0.0)
        if want.rounds and set(want.rounds) & set(p.rounds):
            score += BOOST
        head = (p.title + " " + p.source + " " + p.id.replace("-", " ").replace("_", " ")).lower()
        if any(nm in head for nm in names):
            score += BOOST  # the named organisation wrote or is the subject of the document
        publisher, kinds = doc_parts(p)
        if publisher and publisher in names:
            score += BOOST / 2  # ... and wrote it ("AMD's own blog", not a news piece about AMD)
        if kinds & terms:
            score += BOOST / 2  # the document type asked for ("blog", "news", "analysis")
        opening = p.text.strip().split("\n", 1)[0].lower()
        headed = len(opening.split()) <= 6 and any(nm in opening and nm not in head for nm in subjects)
        if _doc_id(p) in want.documents:
            score += 2 * BOOST  # the document the question names
            if headed:
                score += BOOST  # ... its section headed by the organisation asked (a submitter's statement)
        elif headed and any(o.lower() in opening or same_name(opening, o) for o in want.organisations):
            score += BOOST  # a section headed by the organisation asked: its own statement
        if want.written and p.language == want.written and p.doc_kind != "guide":
            score += 2 * BOOST  # the document named by its language ("den svenska artikeln")
        if want.guide and p.doc_kind == "guide":  # a definition: the guide, in the question's language first
            score += 2 * BOOST + (BOOST if p.language == want.language else 0.0)
        scored.append((score, i, p))
    return [p for _, _, p in sorted(scored, key=lambda t: (-t[0], t[1]))]


def dedupe(passages: Iterable[Passage]) -> list[Passage]:
    """One passage per distinct text: overlapping chunks and repeated boilerplate quote once."""
    seen: set[str] = set()
    out = []
    for p in passages:
        key = " ".join(p.text.lower().split())[:400]
        if key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out


def one_language(passages: Iterable[Passage], language: str) -> list[Passage]:
    """A guide chunk and its translation share one vector (ingest.twins), so both come back
    together: keep the one in the question's language. Translations into other languages go,
    and so does an original whose translation into the question's language came back too."""
    passages = list(passages)
    translated = {p.translation_of for p in passages if p.translation_of and p.language == language}
    return [p for p in passages
            if not (p.translation_of and p.language != language)
            and not (p.doc_kind == "guide" and not p.translation_of and _doc_id(p) in translated)]


def search(store: Any, query: str, k: int, rounds: list[str] | None = None, kind: str = "doc",
           want: Want | None = None, doc_kind: str | None = None) -> list[Passage]:
    """Top-k passages of `kind` ("doc" commentary and guide, or "verified" solved questions) for `query`:
    over-fetched from the vector index, deduplicated, reranked (`rerank`), and restricted to the
    rounds asked for (round-less passages, like the guide, stay)."""
    if store is None or not (query or "").strip() or k <= 0:
        return []
    want = replace(want or Want(), rounds=tuple(rounds or ()))  # the rounds filter and boost are one
    where = {"kind": kind} if kind else None
    if where and doc_kind:  # e.g. only the guide, for a definition
        where = {"$and": [where, {"doc_kind": doc_kind}]}
    if where and kind == "doc":  # the guide in the question's language and the original's, never a third
        languages = sorted({want.language, BASE_LANGUAGE})
        where = {"$and": [where, {"$or": [{"doc_kind": {"$ne": "guide"}}, {"language": {"$in": languages}}]}]}
    hits = store.search(query, max(FETCH, k * 4), where=where)
    hits += lexical_hits(store, query, want, where, hits)
    if want.organisations and not want.documents and where:  # "lambda in 5.1, according to them": its statement
        seen = {h.get("id") for h in hits}
        hits += [h for h in store.search(" ".join(want.organisations), 2 * k, where=where) if h.get("id") not in seen]
    if want.written and where:  # "den svenska artikeln": the documents in that language, even below the cut-off
        seen = {h.get("id") for h in hits}
        written = {"$and": [where, {"language": want.written}, {"doc_kind": {"$ne": "guide"}}]}
        hits += [h for h in store.search(query, 2 * k, where=written) if h.get("id") not in seen]
    if want.documents and where:  # a named publisher's document, even when it ranks below the cut-off
        named = {"$and": [where, {"doc_id": {"$in": list(want.documents)}}]}
        seen = {h.get("id") for h in hits}
        extra = store.search(query, 2 * k, where=named)
        subjects = [n for n in want.names if n.lower() not in _publisher_words(want.documents)]
        if subjects:  # ... and its part about the organisation asked ("Dell's statement in the discussion")
            extra += store.search(" ".join(dict.fromkeys(subjects)), 2 * k, where=named)
        for h in extra:
            if h.get("id") not in seen:
                seen.add(h.get("id"))
                hits.append(h)
    ranked = rerank(query, one_language(dedupe(to_passage(h) for h in hits), want.language), want)
    if want.claims and not want.guide:  # the documents first; the guide only fills what is left
        ranked = [p for p in ranked if p.doc_kind != "guide"] + [p for p in ranked if p.doc_kind == "guide"]
    return with_siblings(store, filter_rounds(ranked, rounds, k))


LEXICAL = 20  # candidates a word match over every chunk adds to the vector index's


def lexical_hits(store: Any, query: str, want: Want, where: dict[str, Any] | None,
                 hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chunks that share the question's rare words better than every one of the vector index's
    `hits`, over every chunk `where` selects (hybrid retrieval's first stage). A statement that
    names its subject in other words than the question ("Ph.D. student … Apple MacBook Pro" for "a
    phd student on a laptop") can rank below the vector cut-off; its rare words still find it, and
    `rerank` fuses the two orders. A chunk that matches no better than what the vectors found adds
    nothing but noise, so it is left out. [] for a store that cannot list its chunks."""
    if where is None or not hasattr(store, "chunks"):
        return []
    terms = _terms(query) | {n.lower() for n in want.names}
    terms |= {e for t in terms for e in glossary.english(t, want.language)}
    chunks = store.chunks(where)
    words = [_passage_terms((c.get("text") or "").lower()) for c in chunks]
    df = {t: sum(t in ws for ws in words) for t in terms}
    n = len(chunks) or 1

    def score(ws: frozenset[str]) -> float:
        return math.fsum(math.log(1 + n / df[t]) for t in terms if df[t] and t in ws)

    found = {h.get("id") for h in hits}
    bar = max((score(_passage_terms((h.get("text") or "").lower())) for h in hits), default=0.0)
    best = sorted(((s, i) for i, ws in enumerate(words) if (s := score(ws)) > bar), key=lambda s: (-s[0], s[1]))
    return [chunks[i] for _, i in best if chunks[i].get("id") not in found][:LEXICAL]


SIBLING_DOCS = 2  # the leading documents whose other chunks on the same page follow the top k


def with_siblings(store: Any, passages: list[Passage], docs: int = SIBLING_DOCS) -> list[Passage]:
    """The top passages, then the rest of the page of the leading documents (small-to-big
    retrieval). A submitter's statement in a Supplemental Discussion, or a short article, is cut
    into two chunks, and the sentence that states the figure asked ("nine OEMs submitted") is often
    in the half the question's words did not reach. The extra chunks come after the top k, so
    what ranks first, and recall@k, are unchanged."""
    get = getattr(store, "chunks", None)
    if get is None:
        return passages
    leading: list[tuple[str, int | None]] = []
    for p in passages:
        if p.kind == "doc" and p.doc_kind != "guide" and (key := (_doc_id(p), p.page)) not in leading and key[0]:
            leading.append(key)
        if len(leading) >= docs:
            break
    seen = {p.id for p in passages}
    out = list(passages)
    for doc, page in leading:
        where = {"doc_id": doc} if page is None else {"$and": [{"doc_id": doc}, {"page": page}]}
        try:
            found = get(where)
        except Exception:  # the siblings only add candidates; a failed fetch loses none
            continue
        for h in sorted(found, key=lambda h: int((h.get("metadata") or {}).get("chunk_index") or 0)):  # in page order
            if h.get("id") not in seen:
                seen.add(h.get("id"))
                out.append(to_passage(h))
    return out
