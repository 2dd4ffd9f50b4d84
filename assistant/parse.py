"""Deterministic question -> intent + QuerySpec, in English and Swedish, with no model.

The offline answerer must get the common questions right on its own, and the agent reuses
the same hints, so the wording rules live here once. Entity words are resolved by the
catalog; this module only reads the *shape* of the question (best, top-N, how many, new in,
compared with, changed over rounds, per accelerator, why) and fills in the defaults an
honest MLPerf answer needs: one round, one scenario and one unit at a time, the closed
division unless another is named, and each default stated in `notes`.

A round that does not exist in the data, or an entity that never submitted, yields status
`no_data` instead of a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field
from typing import Any

from assistant.catalog import Catalog, Match
from assistant.spec import Filters, QuerySpec, Range
from assistant.semantics import SIZE_METRICS

INTENTS = ("best", "worst", "top", "lookup", "compare", "count", "list", "difference", "trend", "commentary",
           "field", "unknown")


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.IGNORECASE)


_SV_WORDS = re.compile(
    r"\b(vilket|vilken|vilka|hur|många|bäst|bästa|högsta|lägst|lägsta|senaste|rundan|runda|nya|och|jämför|"
    r"jämfört|mellan|hade|har|resultat|varför|vad|står|inskickare|systemet|förändrats|ändrades|utvecklats|"
    r"scenariot|per|snabbast|sämst|i|på|för|med)\b", re.IGNORECASE)
_SV_STRONG = re.compile(r"[åäö]|\b(vilket|vilken|vilka|hur|och|varför|vad|jämför|senaste|rundan|hade)\b", re.I)

# Questions only documents can answer ("why ...") vs. questions that cite a document about a
# figure the table can check ("NVIDIA claims X on DLRMv3 Offline; does the table agree?").
_WHY = _rx(r"\bwhy\b", r"\bvarför\b", r"\bexplain", r"\bförklara", r"\bwhat does\b.{1,60}\bmean\b")
_SOURCE_STRONG = _rx(r"\baccording to\b", r"\benligt\b", r"\bpress release\b", r"\bpressmeddelande",
                     r"\bblog", r"\barticle\b", r"\bartikel", r"\bwhat did .{1,60}\b(say|write|announce)\b",
                     r"\bvad (sa|säger|skrev|skriver)\b", r"\bper [A-Z][\w]+['’]s\b", r"\bwho (is|was) quoted\b")
_TABLE_CUE = _rx(r"\btable\b", r"\btabell", r"\bofficial (results?|data)\b", r"\bofficiella\b",
                 r"\b(does|do) the (table|data|results) agree\b", r"\bstämmer\b", r"\bis it true\b", r"\bstämmer det\b")
_SOURCE_WEAK = _rx(r"\breport(s|ed)?\b", r"\buppg(av|er)\b", r"\bdescrib(e|es|ed)\b", r"\bbeskr(ev|iver)\b",
                   r"\bmention", r"\bnämn", r"\bquoted\b", r"\bciter", r"\bgive[s]?\b.{0,30}\bfor\b", r"\bsays?\b",
                   r"\bsäger\b", r"\bskriver\b", r"\bwrites?\b", r"\blists\b")
_COMMENTARY = _rx(r"\bwhy\b", r"\bvarför\b", r"\bwhat did .{1,60}\b(say|claim|write|report|announce)",
                  r"according to", r"\benligt\b", r"\bclaims?\b", r"\bclaimed\b", r"\bpåst[åo]", r"\bhävd",
                  r"\bvad (sa|säger|skrev|skriver|menar)\b", r"\bcommentary\b", r"\banalysts?\b",
                  r"press release", r"\bexplain", r"\bförklara", r"\bwhat is\b.{0,40}\b(benchmark|mlperf|round)\b\??$",
                  r"\bwhat does\b.{1,60}\bmean\b", r"\bhighlights?\b", r"\btakeaways?\b", r"\bsummar(y|ise|ize)\b",
                  r"\bsammanfatt", r"\bnyheter\b", r"\bnews\b", r"\bannounce", r"\bblog", r"\bartic",
                  r"\bartikel", r"\bdigest\b", r"\bper [A-Z][\w]+'s\b")
_DIFF_NEW = _rx(r"\bnew\b", r"\bnya?\b", r"\bnytt\b", r"\bintroduced\b", r"\badded\b", r"\bdebut", r"\bfirst time\b",
                r"\btillkom", r"\binförd")
_DIFF_GONE = _rx(r"\bdropped\b", r"\bremoved\b", r"\b(did not|didn't|not) (come back|return)", r"\bkom inte tillbaka",
                 r"\bdropped out\b", r"\bretired\b", r"\bno longer\b", r"\bdiscontinued\b",
                 r"\bförsvann\b", r"\btogs bort\b", r"\bslutade\b", r"\bborttagna\b")
_COUNT = _rx(r"\bhow many\b", r"\bnumber of\b", r"\bhur många\b", r"\bantal(et)?\b", r"\bcount\b")
_LIST = _rx(r"^\s*(which|what|list|show|name|vilka|vilket|lista|visa)\b.{0,40}\b(benchmarks?|submitters?|systems|"
            r"accelerators|gpus|chips|rounds|scenarios|organi[sz]ations?|compan(y|ies)|vendors|inskickare|företag|"
            r"acceleratorer|rundor|scenarier|företag|organisationer|tillverkare)\b",
            r"^\s*(list|lista)\b", r"^\s*(who|vem|vilka)\b.{0,20}\b(submitted|ran|entered|skickade|körde)\b")
_WHO = _rx(r"^\s*(who|vem|vilka)\b.{0,20}\b(submitted|ran|entered|skickade|körde)\b")
_TREND = _rx(r"\bchang(e|ed|es)\b", r"\bover (the )?rounds\b", r"\bacross rounds\b", r"\bround over round\b",
             r"\btrend\b", r"\bevolv", r"\bimprov", r"\bprogress", r"\bförändr", r"\bändra(t|ts|des)\b",
             r"\butveckl", r"\bförbättr", r"\bmellan rundorna\b", r"\böver rundorna\b", r"\bfrom v?\d+\.\d+ to\b",
             r"\bfrån v?\d+\.\d+ till\b")
_COMPARE = _rx(r"\bvs\.?\b", r"\bversus\b", r"\bcompar", r"\bjämför", r"\bagainst\b", r"\bmot\b",
               r"\bhead[- ]to[- ]head\b")
_TOP_N = re.compile(r"\b(?:top|topp|bästa|best|the|de)\s*(\d{1,3}|three|five|ten|tre|fem|tio)\b"
                    r"|\b(\d{1,3}|three|five|ten|tre|fem|tio)\s+(?:best|bästa|top|fastest|snabbaste|highest|högsta)\b",
                    re.IGNORECASE)
_NUMBER_WORDS = {"three": 3, "five": 5, "ten": 10, "tre": 3, "fem": 5, "tio": 10}
_LATENCY = _rx(r"\blatency\b", r"\blatens(en)?\b", r"\bresponse time\b", r"\bsvarstid")
_BEST = _rx(r"\bbest\b", r"\btop\b", r"\bhighest\b", r"\bfastest\b", r"\bleader", r"\bleading\b", r"\bwon\b",
            r"\bwins?\b", r"\bmost\b", r"\bmax", r"\bbäst", r"\bhögst", r"\bsnabbast", r"\btopp", r"\bledde\b",
            r"\bvann\b", r"\blowest latency\b", r"\blägst(a)? latens")
_WORST = _rx(r"\bworst\b", r"\bslowest\b", r"\blowest\b", r"\bweakest\b", r"\bsvagast", r"\bsämst", r"\blångsammast", r"\blägst")
_PER_ACC = _rx(r"\bper[- ](accelerator|gpu|chip|card|device)\b", r"\bper-accelerator\b", r"\bnormali[sz]ed\b",
               r"\bper accelerator\b", r"\bper acceleratorkort\b", r"\bper kort\b")
_SUBMITTER_CTX = _rx(r"\b(by|from|submitted|submitter|submission|av|inskickat|inskickade)\s+$", r"^'s\b", r"^’s\b")
_SUBMIT_WORDS = _rx(r"\bsubmi(t|ts|tted|tting|ssions?|tter)\b", r"\bskicka(de|t)?\b", r"\binskick")
_VENDOR_CTX = _rx(r"^\s*(gpus?|chips?|accelerators?|hardware|silicon|acceleratorer|kort|processors?)\b")
_FOLLOW = _rx(r"^\s*(and|what about|how about|same|now|then|och|hur är det med|vad sägs om|samma|men|only|just|"
              r"bara|endast|enbart)\b",
              r"^\s*(in|for|on|i|för|på)\b.{0,40}\?\s*$")
_PRONOUN = _rx(r"\b(it|its|that system|the system|this system|they|that one|the winner|den|det|systemet|"
               r"vinnaren|dess)\b", r"^\W*\w+(\W+\w+){0,6}\W+that\b[^\w]*(\w+\W*){0,2}$")
# Follow-up questions about a field of the previous answer's rows.
FIELDS: dict[str, re.Pattern[str]] = {
    "number_of_nodes": _rx(r"\bnodes?\b", r"\bnod(er|erna)?\b"),
    "total_accelerators": _rx(r"\b(gpus?|accelerators?|chips?|acceleratorer|grafikkort)\b"),
    "host_processor": _rx(r"\b(cpus?|processors?|host|processor(er)?)\b"),
    "framework": _rx(r"\b(framework|software|stack|mjukvara|ramverk)\b"),
    "precision": _rx(r"\b(precision|data ?types?|precision|fp\d|precisionen)\b"),
    "availability": _rx(r"\b(available|availability|tillgänglig)\b"),
    "system_name": _rx(r"\b(which system|what system|system name|vilket system|systemnamn)\b"),
    "accelerator": _rx(r"\b(hardware|hårdvara|which chip|what chip|vilket chip)\b"),
}
_COUNT_TARGETS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"\bsubmitters?\b", r"\borgani[sz]ations?\b", r"\bcompan(y|ies)\b", r"\binskickare\b", r"\bföretag\b",
         r"\borganisationer\b", r"\bparticipants\b", r"\bdeltagare\b"), "submitter"),
    (_rx(r"\bbenchmarks?\b", r"\btests\b", r"\btester\b"), "benchmark"),
    (_rx(r"\bsystems\b", r"\bsystem\b"), "platform"),
    (_rx(r"\baccelerator models?\b", r"\bgpu models?\b", r"\bacceleratormodeller\b"), "accelerator"),
    (_rx(r"\baccelerator types\b", r"\bchips\b", r"\baccelerators\b", r"\bacceleratorer\b", r"\bgpus\b"),
     "accelerator_family"),
    (_rx(r"\bvendors\b", r"\btillverkare\b"), "accelerator_vendor"),
    (_rx(r"\bscenarios\b", r"\bscenarier\b"), "scenario"),
    (_rx(r"\brounds\b", r"\brundor\b"), "round"),
]
_POWER_FILTER = _rx(r"\bpower (results?|measurements?|submissions?|runs?|data)\b", r"\bwith power\b",
                   r"\beffektmätning", r"\beffektresultat", r"\bpower-?(results|submitters)\b")
_POWER_METRIC = _rx(r"\bwatts?\b", r"\bpower draw", r"\bdrew\b.{0,20}\bpower\b", r"\bpower consumption\b",
                    r"\bsystem power\b", r"\benergy per\b", r"\beffekt\b", r"\bförbrukning", r"\bdrog\b.{0,20}\beffekt",
                    r"\bpower\b.{0,30}\b(draw|used|use|consum)", r"\b(most|least|lowest|highest) power\b")
_EFFICIENCY = _rx(r"\bper watt\b", r"\bperf(ormance)?[- ]per[- ]watt\b", r"\befficien", r"\beffektivitet",
                  r"\bper W\b")
_MULTI_NODE = _rx(r"\bmulti[- ]?node\b", r"\bflernods", r"\bflera noder\b")
_SINGLE_NODE = _rx(r"\bsingle[- ]node\b", r"\bon a single node\b", r"\bone node\b", r"\ben nod\b", r"\benkelnod")
_PER_ROUND = _rx(r"\beach round\b", r"\bper round\b", r"\bevery round\b", r"\bvarje runda\b", r"\bper runda\b",
                 r"\bi varje runda\b")
_NEGATION = re.compile(r"\b(not|excluding|except|without|inte|utom|ej|exkl\.?)\s*$", re.IGNORECASE)
_DIFF_NOT = _rx(r"\bhad(n't| not)\b", r"\bdid(n't| not)\b", r"\bnot in v", r"\binte (hade|var|fanns)\b",
                r"\bfor the first time\b", r"\bförsta gången\b")
_REPLACES = [("accelerator_family", "accelerator_vendor", "accelerator"), ("submitter", "system_name", "platform")]
SCENARIO_PREFERENCE = ["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
_ENTITY_COLUMNS = ("benchmark", "accelerator_family", "accelerator", "accelerator_vendor", "submitter",
                   "system_name", "platform", "scenario", "division", "availability", "system_type")


@dataclass
class Parsed:
    """What the question asks, as a runnable spec plus everything needed to explain it."""

    intent: str
    spec: QuerySpec | None
    entities: list[Match] = dc_field(default_factory=list)
    language: str = "en"
    needs_commentary: bool = False
    status: str = "ok"  # ok | no_data
    message: str = ""
    notes: list[str] = dc_field(default_factory=list)
    field: str | None = None  # for follow-ups about the previous rows ("how many nodes did it have?")
    followup: bool = False
    explicit: dict[str, list[str]] = dc_field(default_factory=dict)  # filters the user named (for follow-ups)
    side_column: str | None = None  # compare: the column whose values are the sides
    count_column: str | None = None
    round_defaulted: bool = False  # no round named: the latest round with the benchmark was assumed
    ranges: dict[str, dict[str, float]] = dc_field(default_factory=dict)  # e.g. number_of_nodes {"min": 2}
    has_power: bool | None = None
    claimed: list[float] = dc_field(default_factory=list)  # figures quoted in the question ("claims 104,637")
    checked: dict[str, list[str]] = dc_field(default_factory=dict)  # "is it true that <these> had the top result"

    def state(self) -> dict[str, Any]:
        """What a follow-up needs from this turn (stored inside Answer.query["parsed"])."""
        return {"intent": self.intent, "explicit": self.explicit, "language": self.language,
                "metric": self.spec.metric if self.spec else "result",
                "limit": self.spec.limit if self.spec else None, "side_column": self.side_column,
                "count_column": self.count_column, "ranges": self.ranges, "has_power": self.has_power}


def detect_language(text: str) -> str:
    """"sv" when the question reads Swedish (å/ä/ö or Swedish function words), else "en"."""
    strong = len(_SV_STRONG.findall(text))
    words = len(_SV_WORDS.findall(text))
    english = len(re.findall(r"\b(the|which|what|how|did|does|and|in the|best|many|of)\b", text, re.I))
    return "sv" if strong >= 1 and (strong + words) > english else "en"


# --- entity selection ----------------------------------------------------------------------

def _choose(matches: list[Match], text: str) -> list[Match]:
    """One column per span: "NVIDIA" is a submitter after "by"/before "'s", a chip vendor before
    "GPUs", and dropped when a family of the same vendor is also named ("NVIDIA GB200")."""
    by_span: dict[tuple[int, int], list[Match]] = {}
    for m in matches:
        by_span.setdefault(m.span, []).append(m)
    families = [m for m in matches if m.column == "accelerator_family"]
    chosen: list[Match] = []
    for span, group in by_span.items():
        if _NEGATION.search(text[: span[0]].rstrip("( ")):
            continue  # "B200, not GB200"
        if len(group) == 1:
            chosen.append(group[0])
            continue
        cols = {m.column: m for m in group}
        before, after = text[: span[0]], text[span[1]:]
        if "submitter" in cols and "accelerator_vendor" in cols:
            if _SUBMITTER_CTX.search(before[-20:]) or re.match(r"^['’]s\b", after) or _SUBMIT_WORDS.search(text):
                chosen.append(cols["submitter"])
            elif _VENDOR_CTX.search(after):
                chosen.append(cols["accelerator_vendor"])
            elif families:
                continue  # "NVIDIA GB200": the family already says it
            else:
                chosen.append(cols["accelerator_vendor"])
            continue
        chosen.append(group[0])
    return sorted(chosen, key=lambda m: m.span)


def _explicit_filters(matches: list[Match]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in matches:
        if m.column == "round":
            continue
        out.setdefault(m.column, [])
        out[m.column].extend(v for v in m.values if v not in out[m.column])
    return out


# --- the parser ---------------------------------------------------------------------------

def parse(question: str, catalog: Catalog, *, previous: dict[str, Any] | None = None) -> Parsed:
    """Question -> Parsed. `previous` is the `Parsed.state()` of the last turn, for follow-ups."""
    text = question.strip()
    lang = detect_language(text)
    known_rounds, unknown_rounds = catalog.round_mentions(text)
    matches = catalog.resolve(text)
    for m in matches:
        if m.column == "round":
            known_rounds.extend(v for v in m.values if v not in known_rounds)
    known_rounds = [r for r in catalog.rounds if r in known_rounds]  # oldest first
    entities = _choose(matches, text)
    explicit = _explicit_filters(entities)
    needs_commentary = bool(_COMMENTARY.search(text) or _SOURCE_WEAK.search(text))

    parsed = Parsed(intent="unknown", spec=None, entities=entities, language=lang,
                    needs_commentary=needs_commentary, explicit=explicit, ranges=_ranges(text),
                    has_power=True if _POWER_FILTER.search(text) else None, claimed=claimed_numbers(text))
    if unknown_rounds:
        parsed.status = "no_data"
        parsed.intent = "unknown"
        have = ", ".join(catalog.rounds)
        parsed.message = (f"Det finns ingen MLPerf Inference-runda {', '.join(unknown_rounds)} i datan "
                          f"(inlästa rundor: {have})." if lang == "sv" else
                          f"There is no MLPerf Inference round {', '.join(unknown_rounds)} in the data "
                          f"(rounds ingested: {have}).")
        return parsed

    chips, orgs = catalog.unknown_entities(text, matches), _unknown_submitters(text, matches)
    if (chips or orgs) and not parsed.needs_commentary:
        parsed.status = "no_data"
        column = "accelerator_family" if chips else "submitter"
        near = catalog.suggest(column, (chips or orgs)[0], 5, cutoff=60)
        kind_en = "accelerator families" if chips else "submitters"
        kind_sv = "acceleratorfamiljer" if chips else "inskickare"
        parsed.message = _say(parsed, f"The data has no results for {', '.join(chips + orgs)}"
                              + (f" (closest {kind_en} in the data: {', '.join(near)})." if near else "."),
                              f"Datan har inga resultat för {', '.join(chips + orgs)}"
                              + (f" (närmaste {kind_sv} i datan: {', '.join(near)})." if near else "."))
        return parsed

    # Follow-ups: a question about the previous rows, or the previous question with a changed filter.
    if previous:
        field_name = _field_question(text, explicit)
        if field_name:
            parsed.intent, parsed.field, parsed.followup = "field", field_name, True
            return parsed
        if _is_followup(text, explicit, known_rounds):
            merged = dict(previous.get("explicit") or {})
            for col, vals in explicit.items():
                # "And for AMD?" after "...on MI355X": one hardware filter replaces the other.
                for group in _REPLACES:
                    if col in group:
                        for other in group:
                            merged.pop(other, None)
                merged[col] = vals
            if known_rounds:
                merged["round"] = known_rounds
            parsed.explicit = merged
            parsed.followup = True
            parsed.ranges = {**(previous.get("ranges") or {}), **parsed.ranges}
            parsed.has_power = parsed.has_power or previous.get("has_power")
            rounds = merged.pop("round", None) or []
            return _build(parsed, text, catalog, previous.get("intent") or "best", merged, rounds,
                          metric=previous.get("metric") or "result",
                          limit=previous.get("limit"), side_column=previous.get("side_column"),
                          count_column=previous.get("count_column"))

    intent = _intent(text, explicit, known_rounds, needs_commentary, _two_mentions(parsed))
    if known_rounds:
        parsed.explicit = dict(explicit, round=known_rounds)
    metric = _metric(text)
    size = _size_metric(text)
    if size and intent not in ("commentary", "compare", "trend"):
        metric, intent = size, ("top" if intent == "top" else "best")
    return _build(parsed, text, catalog, intent, explicit, known_rounds, metric=metric)


_BY_NAME = re.compile(r"\b(?:by|from|submitted by|av|från)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?)")
_NOT_NAMES = {"the", "a", "an", "den", "det", "de", "round", "rundan", "v", "mlperf", "mlcommons"}


def _unknown_submitters(text: str, matches: list[Match]) -> list[str]:
    """"Best result by Cerebras": a capitalised name after by/from/av that the catalog does not
    know is an organisation with no results here — answering with everyone's best would be a guess."""
    out = []
    for m in _BY_NAME.finditer(text):
        start, end = m.span(1)
        if m.group(1).split()[0].lower() in _NOT_NAMES:
            continue
        if any(s < end and start < e for s, e in (x.span for x in matches)):
            continue
        out.append(m.group(1))
    return out


def _field_question(text: str, explicit: dict[str, list[str]]) -> str | None:
    if explicit.get("benchmark") or not _PRONOUN.search(text):
        return None
    for name, rx in FIELDS.items():
        if rx.search(text):
            return name
    return None


def _is_followup(text: str, explicit: dict[str, list[str]], rounds: list[str]) -> bool:
    has_shape = bool(_COUNT.search(text) or _DIFF_NEW.search(text) or _LIST.search(text)
                     or _TREND.search(text) or _COMPARE.search(text))
    short = len(text.split()) <= 9
    return bool(_FOLLOW.search(text)) and short and not has_shape and bool(explicit or rounds)


def _intent(text: str, explicit: dict[str, list[str]], rounds: list[str], commentary: bool,
            two_sides: bool = False) -> str:
    counting = _is_count(text, explicit)
    if _WHY.search(text) or (_SOURCE_STRONG.search(text) and not _TABLE_CUE.search(text)):
        return "commentary"
    if commentary and not counting and not explicit.get("benchmark"):
        return "commentary"
    if _DIFF_GONE.search(text) and not explicit.get("benchmark"):
        return "difference_gone"
    if (_DIFF_NEW.search(text) or (_DIFF_NOT.search(text) and len(rounds) >= 2)) and not explicit.get("benchmark"):
        return "difference"
    if counting:
        return "count"
    if _LIST.search(text) and not (_BEST.search(text) or _WORST.search(text)):
        return "list"
    if _TREND.search(text) or (len(rounds) >= 2 and not _COMPARE.search(text)):
        return "trend"
    if _COMPARE.search(text) or (two_sides and (_BEST.search(text) or _WORST.search(text))):
        return "compare"
    if _TOP_N.search(text) and _top_n(text) > 1:
        return "top"
    if _LATENCY.search(text) and re.search(r"\b(lowest|best|lägst|bäst|minimal|shortest|kortast)", text, re.I):
        return "best"
    if _WORST.search(text):
        return "worst"
    if _BEST.search(text):
        return "best"
    if explicit.get("submitter") or explicit.get("system_name") or explicit.get("platform"):
        return "lookup"
    if explicit.get("benchmark"):
        return "best"
    return "unknown"


def _top_n(text: str) -> int:
    m = _TOP_N.search(text)
    if not m:
        return 1
    raw = (m.group(1) or m.group(2)).lower()
    return int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw, 1)


_UNIT_WORDS = re.compile(r"^(tokens?|tokens/s|samples?|queries|watts?|ms|milliseconds?|seconds?|sekunder|times|gånger|"
                         r"joules?|millijoules?|tasks?)\b", re.I)
_FIELD_WORDS = re.compile(r"^(nodes?|noder|gpus?|gpu:er|accelerators?|acceleratorer|cpus?|chips?|cores?|kärnor)\b", re.I)
_ADJECTIVES = {"different", "distinct", "unique", "separate", "individual", "olika", "unika", "skilda"}


_CLAIMED = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{4,}(?:\.\d+)?)(?![\w,]|\.\d)")


def claimed_numbers(text: str) -> list[float]:
    """Result-sized figures quoted in a question ("1,046,150 tokens/s"): thousands-grouped or 4+ digits,
    so model sizes (70B), rounds (6.1) and GPU counts (512) are not mistaken for claims."""
    return [float(m.group(1).replace(",", "")) for m in _CLAIMED.finditer(text)]


def _counted_words(text: str) -> list[str]:
    m = _COUNTED.search(text)
    if not m:
        return []
    return [w for w in m.group(1).split() if w.lower() not in _ADJECTIVES]


def _is_count(text: str, explicit: dict[str, list[str]]) -> bool:
    """"How many submitters/results ..." counts; "how many tokens/s per GPU" and "how many nodes did
    the best system use" ask for a value of a row."""
    if not _COUNT.search(text) or _PER_ACC.search(text):
        return False
    words = _counted_words(text)
    if words and _UNIT_WORDS.match(words[0]):
        return False
    if words and _FIELD_WORDS.match(words[0]) and (explicit.get("benchmark") or _BEST.search(text)):
        return False
    if (_BEST.search(text) or _WORST.search(text) or _TOP_N.search(text)) and re.search(
            r"\b(did|does|it|its|used?|det|den|använde)\b", text, re.I):
        return False
    return True


def _metric(text: str) -> str:
    if _PER_ACC.search(text):
        return "result_per_accelerator"
    if _EFFICIENCY.search(text):
        return "efficiency"
    if _POWER_METRIC.search(text):
        return "power"
    return "result"


def _ranges(text: str) -> dict[str, dict[str, float]]:
    if _MULTI_NODE.search(text):
        return {"number_of_nodes": {"min": 2}}
    if _SINGLE_NODE.search(text):
        return {"number_of_nodes": {"max": 1}}
    return {}


def _round_span(catalog: Catalog, rounds: list[str]) -> list[str]:
    """"From v4.1 to v6.1" means every round in between, not just the two named."""
    if len(rounds) < 2:
        return rounds
    i, j = catalog.rounds.index(rounds[0]), catalog.rounds.index(rounds[-1])
    return catalog.rounds[i:j + 1]


def _say(parsed: Parsed, en: str, sv: str) -> str:
    return sv if parsed.language == "sv" else en


# "The largest system", "most GPUs", "största systemet": rank systems by size, not results.
_SIZE = _rx(r"\b(largest|biggest|största)\s+(?:[\w+-]+\s+){0,2}(systems?|clusters?|configurations?|systemet|"
            r"systemen|konfiguration(en)?)\b", r"\bstörsta\s+(?:[\w+-]+\s+){0,2}system", r"\bstörsta\s+[\w+]+-system",
            r"\b(most|flest)\s+(gpus?|accelerators?|acceleratorer|nodes?|noder|chips?)\b",
            r"\b(largest|biggest|highest|most)\s+(number|count)\s+of\s+(gpus?|accelerators?|nodes?|chips?)\b",
            r"\b(largest|biggest)\s+(gpu|accelerator|node)\s+count\b")


# "Which system with the most GPUs had the best result?" asks for a result, not a size.
_RESULT_WORDS = _rx(r"\bresults?\b", r"\bthroughput\b", r"\bscores?\b", r"\blatency\b", r"\btokens?\b",
                    r"\bsamples?\b", r"\bqueries\b", r"\bresultat", r"\bgenomströmning", r"\bperformance\b")


def _size_metric(text: str) -> str | None:
    """"total_accelerators" or "number_of_nodes" when the question ranks systems by size."""
    if not _SIZE.search(text) or _RESULT_WORDS.search(text):
        return None
    nodes = FIELDS["number_of_nodes"].search(text) and not FIELDS["total_accelerators"].search(text)
    return "number_of_nodes" if nodes else "total_accelerators"


# "The highest token throughput of any v6.1 result": no benchmark, but a unit and "any/all".
# Results of different benchmarks are not comparable, so this ranks within the named unit only
# and says so; power is ranked in Watts (v4.1/v5.1 datacenter power runs).
_ACROSS = _rx(r"\bany\b", r"\bof all\b", r"\bacross\b", r"\boverall\b", r"\bsingle\b", r"\bnågot\b",
              r"\bnågon\b", r"\bav alla\b", r"\balla\b")
_UNIT_NAMES = [(_rx(r"\btokens?\b"), "Tokens/s"), (_rx(r"\bsamples?\b"), "Samples/s"),
               (_rx(r"\bquer(y|ies)\b"), "Queries/s")]
# "Is it true that Crusoe had the highest ...?": the ranking is checked against everyone, so the
# named submitter or hardware must not filter it (it is what is being checked).
_NOT_ONE_CLAIM = _rx(r"\bbeat\b", r"\boutperform", r"\bslog\b", r"\bamong\b", r"\bbland\b", r"(?<!of )\ball\b",
                     r"(?<!av )\balla\b", r"\bevery\b", r"\btop\s*\d", r"\btopp\s*\d", r"\bvs\.?\b", r"\bthan\b", r"\bän\b")
_IS_IT_TRUE = _rx(r"\bis it true\b", r"\btrue that\b", r"\bstämmer det\b", r"\bär det sant\b", r"\bdid .{1,60} really\b")
ATTRIBUTION = ("submitter", "accelerator_vendor", "accelerator_family", "accelerator", "system_name", "platform")


def _across_benchmarks(parsed: Parsed, text: str, catalog: Catalog, intent: str, explicit: dict[str, list[str]],
                       rounds: list[str], metric: str) -> Parsed | None:
    """A ranking over every benchmark of one unit, when the question names a unit (or power) and
    asks across all results; None when it does not (then the caller asks which benchmark)."""
    if intent not in ("best", "worst", "top"):
        return None
    unit = next((u for rx, u in _UNIT_NAMES if rx.search(text)), None)
    if metric == "power":
        wanted = {"power_units": ["Watts"]}
    elif metric == "result" and unit and _ACROSS.search(text):
        wanted = {"units": [unit]}
    else:
        return None
    use_rounds = rounds[-1:] or ([catalog.latest_round] if catalog.latest_round else [])
    filters = {**explicit, **wanted}
    parsed.notes.append(_say(parsed, f"No benchmark named: ranked across every benchmark in {next(iter(wanted.values()))[0]}; "
                             "results of different benchmarks are not comparable.",
                             f"Inget benchmark angivet: rangordnat över alla benchmarks i {next(iter(wanted.values()))[0]}; "
                             "resultat från olika benchmarks är inte jämförbara."))
    order = "worst" if intent == "worst" else "best"
    if metric == "power" and re.search(r"\b(most|highest|largest|mest|högst|max)", text, re.I):
        order = "worst"  # the most power drawn is the "worst" power figure
    n = _top_n(text) if intent == "top" else 5
    parsed.spec = QuerySpec(op="rows", filters=_filters(filters, use_rounds, parsed), metric=metric, order=order,
                            limit=max(1, min(n, 100)))
    return parsed


def _build(parsed: Parsed, text: str, catalog: Catalog, intent: str, explicit: dict[str, list[str]],
           rounds: list[str], *, metric: str = "result", limit: int | None = None,
           side_column: str | None = None, count_column: str | None = None) -> Parsed:
    parsed.intent = intent
    explicit = {k: list(v) for k, v in explicit.items() if k != "round"}
    if intent == "commentary":
        parsed.needs_commentary = True
        return parsed
    if intent == "unknown":
        if parsed.needs_commentary or not explicit:
            parsed.intent, parsed.needs_commentary = "commentary", True
            return parsed
        intent = parsed.intent = "best"

    if intent in {"difference", "difference_gone"}:
        return _difference(parsed, text, catalog, explicit, rounds, gone=intent == "difference_gone")
    if intent == "count":
        return _count(parsed, text, catalog, explicit, rounds, count_column)
    if intent == "list":
        return _list(parsed, text, catalog, explicit, rounds, count_column)

    # Ranking-shaped intents: best / worst / top / lookup / compare / trend.
    if intent in ("best", "worst") and _IS_IT_TRUE.search(text) and not _NOT_ONE_CLAIM.search(text):
        # "Is it true that Crusoe had the highest ...?": rank everyone; whether the top row is
        # Crusoe's is then computed (compose), so who and which hardware must not filter. Only
        # for one named party: "AMD beat NVIDIA", "among B200 systems", "the top 3 all used
        # B300" are other questions, answered as the ranking they filter.
        checked = {k: v for k, v in explicit.items() if k in ATTRIBUTION and v}
        named = [m for m in parsed.entities if m.column in ATTRIBUTION]  # one party: each column named once
        if checked and len(named) <= 2 and len({m.column for m in named}) == len(named):
            parsed.checked = checked
            explicit = {k: v for k, v in explicit.items() if k not in ATTRIBUTION}
    benchmarks = explicit.get("benchmark") or []
    if not benchmarks and intent == "lookup":
        # "What did Crusoe submit in v6.1?": the benchmarks it has results on, with row counts.
        parsed.intent = "list"
        return _list(parsed, text, catalog, explicit, rounds, "benchmark")
    if not benchmarks and metric in SIZE_METRICS and intent in ("best", "top", "worst"):
        # A system's size is the same on every benchmark: no benchmark is needed to rank it.
        use_rounds = rounds[-1:] or ([catalog.latest_round] if catalog.latest_round else [])
        n = _top_n(text) if intent == "top" else 5
        parsed.spec = QuerySpec(op="rows", filters=_filters(explicit, use_rounds, parsed), metric=metric,
                                order="worst" if intent == "worst" else "best", limit=max(1, min(n, 100)))
        return parsed
    if not benchmarks and _across_benchmarks(parsed, text, catalog, intent, explicit, rounds, metric):
        return parsed
    if not benchmarks:
        parsed.status = "no_data"
        parsed.message = _say(parsed, "Which benchmark? Results are only comparable within one benchmark, "
                              "scenario and unit; for example: " + ", ".join(catalog.benchmarks_in(
                                  catalog.latest_round or "") and sorted(catalog.benchmarks_in(
                                      catalog.latest_round or ""))[:8]) + ".",
                              "Vilket benchmark? Resultat går bara att jämföra inom ett benchmark, scenario och "
                              "en enhet; till exempel: " + ", ".join(sorted(catalog.benchmarks_in(
                                  catalog.latest_round or ""))[:8]) + ".")
        return parsed

    # Rounds: trend spans rounds; everything else is one round (latest that has the benchmark).
    if intent == "trend":
        use_rounds = _round_span(catalog, rounds) or catalog.rounds_with(benchmarks)
    elif rounds:
        use_rounds = rounds if (intent == "compare" and len(rounds) > 1) else rounds[-1:]
        if intent == "compare" and len(rounds) > 1:
            side_column = side_column or "round"
    else:
        having = catalog.rounds_with(benchmarks)
        if not having:
            parsed.status = "no_data"
            parsed.message = _say(parsed, "That benchmark has no results in the data.",
                                  "Det benchmarket har inga resultat i datan.")
            return parsed
        use_rounds = having[-1:]
        parsed.round_defaulted = True
        parsed.notes.append(_say(parsed, f"No round named: using the latest round with this benchmark, "
                                 f"{use_rounds[0]}.", f"Ingen runda angiven: senaste rundan med detta "
                                 f"benchmark används, {use_rounds[0]}."))

    # "Whisper vs Llama 2 70B": each named benchmark is a side (the executor refuses mixed units).
    bench_mentions = [m for m in parsed.entities if m.column == "benchmark"]
    if intent == "compare" and len(bench_mentions) >= 2 and side_column in (None, "benchmark"):
        picked = _distinct([_pick_variant(parsed, catalog, list(m.values), use_rounds) for m in bench_mentions])
        if all(picked) and len(picked) >= 2:  # the same benchmark named twice is not a comparison
            base = {k: v for k, v in explicit.items() if k != "benchmark"}
            if not base.get("scenario"):
                scen = _default_scenario(catalog, [p[0] for p in picked], use_rounds, latency=False)
                if scen:
                    base["scenario"] = [scen]
            parsed.side_column = "benchmark"
            parsed.spec = QuerySpec(op="compare", filters=_filters(base, use_rounds, parsed), metric=metric,
                                    sides=[Filters(benchmark=p[:1]) for p in picked])
            return parsed
    # Accuracy variants (llama2-70b-99 / -99.9): keep those run in these rounds, prefer one.
    benchmarks = _pick_variant(parsed, catalog, benchmarks, use_rounds)
    if not benchmarks:
        parsed.status = "no_data"
        parsed.message = _say(
            parsed, f"{', '.join(explicit['benchmark'])} has no results in {', '.join(use_rounds)}; "
            f"it was run in: {', '.join(catalog.rounds_with(explicit['benchmark'])) or 'no round'}.",
            f"{', '.join(explicit['benchmark'])} har inga resultat i {', '.join(use_rounds)}; "
            f"det kördes i: {', '.join(catalog.rounds_with(explicit['benchmark'])) or 'ingen runda'}.")
        return parsed
    explicit["benchmark"] = benchmarks

    # Scenario: one scenario (one unit) at a time.
    if not explicit.get("scenario"):
        scen = _default_scenario(catalog, benchmarks, use_rounds, latency=bool(_LATENCY.search(text)))
        if scen:
            explicit["scenario"] = [scen]
            others = sorted(set(catalog.scenarios_for(benchmarks, use_rounds)) - {scen})
            parsed.notes.append(_say(
                parsed, f"No scenario named: using {scen}" + (f" (also run: {', '.join(others)})." if others else "."),
                f"Inget scenario angivet: {scen} används" + (f" (finns även: {', '.join(others)})." if others
                                                              else ".")))
    # The default division (closed) is applied, and stated, by the executor: it also knows when
    # a named system only exists in another division.

    filters = _filters(explicit, use_rounds, parsed)
    order = "worst" if intent == "worst" else "best"
    if metric == "power" and re.search(r"\b(most|highest|largest|mest|högst|max)", text, re.I):
        order = "worst"  # the most power drawn is the "worst" power figure
    if intent == "compare":
        sides, side_column = _sides(parsed, explicit, use_rounds, side_column)
        if sides:
            base = {k: v for k, v in explicit.items() if k != side_column}
            base_rounds = use_rounds if side_column != "round" else []
            parsed.side_column = side_column
            parsed.spec = QuerySpec(op="compare", filters=_filters(base, base_rounds, parsed), metric=metric,
                                    sides=sides)
            return parsed
        intent = parsed.intent = "best"
    if intent == "trend":
        parsed.spec = QuerySpec(op="trend", filters=filters, metric=metric, order="best")
        return parsed
    n = limit or (_top_n(text) if intent == "top" else 5)
    if intent == "lookup":
        n = limit or 10
    parsed.spec = QuerySpec(op="rows", filters=filters, metric=metric, order=order, limit=max(1, min(n, 100)))
    return parsed


def _filters(explicit: dict[str, list[str]], rounds: list[str], parsed: Parsed | None = None) -> Filters:
    data: dict[str, Any] = {k: v for k, v in explicit.items() if k in Filters.model_fields and v}
    if rounds:
        data["round"] = list(rounds)
    if parsed is not None:
        for col, bounds in parsed.ranges.items():
            data[col] = Range(**bounds)
        if parsed.has_power:
            data["has_power"] = True
    return Filters(**data)


def _pick_variant(parsed: Parsed, catalog: Catalog, benchmarks: list[str], rounds: list[str]) -> list[str]:
    present = [b for b in benchmarks if catalog.rounds_with([b]) and set(catalog.rounds_with([b])) & set(rounds)]
    bases: dict[str, list[str]] = {}
    for b in present:
        bases.setdefault(re.sub(r"-99(?:\.9)?$", "", b), []).append(b)
    out: list[str] = []
    for base, variants in bases.items():
        if len(variants) == 1:
            out.extend(variants)
            continue
        # Prefer the variant present in the most of these rounds, then the stricter (-99.9) one.
        best = max(variants, key=lambda b: (len(set(catalog.rounds_with([b])) & set(rounds)), b.endswith("99.9")))
        others = [v for v in variants if v != best]
        parsed.notes.append(_say(parsed, f"{base} has accuracy variants {', '.join(variants)}; using {best} "
                                 f"(ask for {', '.join(others)} to see the other).",
                                 f"{base} har noggrannhetsvarianterna {', '.join(variants)}; {best} används "
                                 f"(fråga efter {', '.join(others)} för den andra)."))
        out.append(best)
    # Several distinct benchmarks (e.g. RAG: e2e-rag-db + e2e-rag-qna) mix units: keep the first.
    if len(out) > 1:
        parsed.notes.append(_say(parsed, f"Several benchmarks match ({', '.join(out)}); showing {out[0]}.",
                                 f"Flera benchmark matchar ({', '.join(out)}); {out[0]} visas."))
        out = out[:1]
    return out


def _default_scenario(catalog: Catalog, benchmarks: list[str], rounds: list[str], *, latency: bool) -> str | None:
    from assistant.semantics import is_latency

    scen_units = catalog.scenarios_for(benchmarks, rounds)
    if not scen_units:
        return None
    ordered = sorted(scen_units, key=lambda s: SCENARIO_PREFERENCE.index(s) if s in SCENARIO_PREFERENCE else 99)
    if latency:
        lat = [s for s in ordered if any(is_latency(u) for u in scen_units[s])]
        if lat:
            return lat[0]
    return ordered[0]


def _sides(parsed: Parsed, explicit: dict[str, list[str]], rounds: list[str],
           side_column: str | None) -> tuple[list[Filters] | None, str | None]:
    """The sides of "A vs B": the column named by two separate mentions (or two rounds)."""
    if side_column == "round" or (side_column is None and len(rounds) > 1 and not _two_mentions(parsed)):
        return [Filters(round=[r]) for r in rounds], "round"
    per_col: dict[str, list[Match]] = {}
    for m in parsed.entities:
        if m.column not in {"round", "scenario", "division", "benchmark"}:
            per_col.setdefault(m.column, []).append(m)
    col = side_column if side_column in per_col else next(
        (c for c, ms in per_col.items() if len(ms) >= 2), None)
    if col is None:
        # One mention with several values ("Hopper" -> H100/H200/GH200) compares those values.
        col = next((c for c, vals in explicit.items() if len(vals) >= 2 and c not in {"benchmark", "division"}), None)
        if col is None:
            return None, None
        return [Filters(**{col: [v]}) for v in explicit[col]], col
    values = _distinct([list(m.values) for m in per_col[col]])
    if len(values) < 2:  # one entity named twice ("GB300 … the GB300 system") is not "A vs B"
        return None, None
    return [Filters(**{col: v}) for v in values], col


def _distinct(groups: list) -> list:
    """Value lists with repeats merged, in first-mention order.

    A list that contains another names the same thing more broadly ("Blackwell Ultra" ->
    B300, GB300 and later "GB300"): the narrower one is kept, once.
    """
    kept: list = []
    for group in groups:
        if not group:
            kept.append(group)
            continue
        wide = next((i for i, k in enumerate(kept) if k and set(group) <= set(k)), None)
        if wide is not None:
            kept[wide] = group
        elif not any(k and set(k) <= set(group) for k in kept):
            kept.append(group)
    return kept


def _two_mentions(parsed: Parsed) -> bool:
    cols = [m.column for m in parsed.entities if m.column not in {"round", "scenario", "division", "benchmark"}]
    return any(cols.count(c) >= 2 for c in cols)


def _count(parsed: Parsed, text: str, catalog: Catalog, explicit: dict[str, list[str]], rounds: list[str],
           count_column: str | None) -> Parsed:
    target = count_column or _count_target(text)
    parsed.count_column = target
    per_round = not rounds or len(rounds) >= 2 or bool(_PER_ROUND.search(text))
    rounds = _round_span(catalog, rounds)
    group = ["round"] if per_round else None
    filters = _filters(explicit, rounds, parsed)
    if target in {None, "round"} or (target == "platform" and re.search(r"\bresults?\b|\bresultat\b", text, re.I)):
        target = None if target != "round" else "round"
    if target and target != "round":
        parsed.spec = QuerySpec(op="aggregate", filters=filters, aggregate="nunique", column=target,
                                group_by=group)
    else:
        parsed.spec = QuerySpec(op="aggregate", filters=filters, aggregate="count", group_by=group)
    if not rounds:
        parsed.notes.append(_say(parsed, "No round named: counted per round.",
                                 "Ingen runda angiven: räknat per runda."))
    return parsed


_COUNTED = re.compile(r"\b(?:how many|hur många|number of|antal(?:et)?(?: av)?)\s+((?:\S+\s+){0,2}\S+)", re.I)


def _count_target(text: str) -> str | None:
    """What "how many X" counts: the words right after "how many" decide ("how many results are
    on NVIDIA GPUs" counts results), then the rest of the question."""
    words = _counted_words(text)
    if words:
        first_hit = next((col for rx, col in _COUNT_TARGETS if rx.search(" ".join(words[:2]))), None)
        if first_hit and not re.match(r"(results?|resultat)\b", words[0], re.I):
            return first_hit
        head = " ".join(words)
        if re.search(r"\b(results?|resultat|rows|rader|submissions?)\b", head, re.I):
            return None
        hit = next((col for rx, col in _COUNT_TARGETS if rx.search(head)), None)
        if hit:
            return hit
    return next((col for rx, col in _COUNT_TARGETS if rx.search(text)), None)


def _list(parsed: Parsed, text: str, catalog: Catalog, explicit: dict[str, list[str]], rounds: list[str],
          count_column: str | None) -> Parsed:
    target = count_column or ("submitter" if _WHO.search(text) else
                              next((col for rx, col in _COUNT_TARGETS if rx.search(text)), "benchmark"))
    parsed.count_column = target
    if not rounds and target != "round":
        rounds = [catalog.latest_round] if catalog.latest_round else []
        parsed.notes.append(_say(parsed, f"No round named: using the latest round, {rounds[0]}.",
                                 f"Ingen runda angiven: senaste rundan används, {rounds[0]}."))
    if target == "platform":
        target = "system_name"  # people read system names, not folder ids
    parsed.spec = QuerySpec(op="aggregate", filters=_filters(explicit, rounds, parsed), aggregate="count",
                            group_by=[target], limit=1000)
    return parsed


def _difference(parsed: Parsed, text: str, catalog: Catalog, explicit: dict[str, list[str]], rounds: list[str], *,
                gone: bool) -> Parsed:
    target = rounds[-1] if rounds else catalog.latest_round
    before = rounds[0] if len(rounds) >= 2 else catalog.previous_round(target or "")
    if not target or not before:
        parsed.status = "no_data"
        parsed.message = _say(parsed, f"There is no earlier round than {target} in the data to compare with.",
                              f"Det finns ingen tidigare runda än {target} i datan att jämföra med.")
        return parsed
    if not rounds:
        parsed.notes.append(_say(parsed, f"No round named: using the latest round, {target}.",
                                 f"Ingen runda angiven: senaste rundan används, {target}."))
    first, second = (before, target) if gone else (target, before)
    column = next((col for rx, col in _COUNT_TARGETS if rx.search(text) and col != "round"), "benchmark")
    if column == "platform":
        column = "system_name"
    parsed.count_column = column
    parsed.spec = QuerySpec(op="difference", column=column, filters=_filters(explicit, [first], parsed),
                            other=Filters(round=[second]), limit=1000)
    parsed.intent = "difference"
    parsed.explicit = {"round": [target], "_before": [before]}
    return parsed


def with_scope(spec: QuerySpec, scope: dict[str, list[str]] | None) -> QuerySpec:
    """Merge UI sidebar scope filters into a spec; the question's own filters win."""
    if not scope:
        return spec
    data = spec.filters.model_dump()
    for key, vals in scope.items():
        if key in Filters.model_fields and vals and not data.get(key):
            data[key] = list(vals)
    filters = Filters(**{k: v for k, v in data.items() if v is not None})
    update: dict[str, Any] = {"filters": filters}
    if spec.other is not None and scope.get("round") is None:
        update["other"] = spec.other
    return spec.model_copy(update=update)


__all__ = ["Parsed", "parse", "detect_language", "with_scope", "FIELDS", "Range"]
