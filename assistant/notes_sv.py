"""Swedish wording of the caveats the executor and semantics write in English.

Why a table of patterns and not Swedish at the source: the executor's notes are also read by
models (tool results) and by API clients in the JSON, where one language keeps them stable;
only the reader of a Swedish answer needs them in Swedish. Each pattern matches one English
note template whole and rewrites it, keeping the data values (rounds, benchmarks, counts)
as they are. A note no pattern matches stays in English rather than being dropped: a caveat
in the wrong language is better than a missing one. A test runs every gold question and
checks that each note it produces has a pattern.
"""

from __future__ import annotations

import re

_NODE = re.compile(r"\((\d+) nodes?, ")

# (English template as a full-match regex, Swedish replacement). Order matters only where
# one template is a prefix of another (the longer one comes first).
PATTERNS: list[tuple[re.Pattern[str], str]] = [(re.compile(p + r"\Z", re.DOTALL), r) for p, r in [
    (r"(\w+) division assumed \(no division named\)", r"\1-divisionen används (ingen division angiven)"),
    (r"no (\w+)-division results match; showing (.+) division results",
     r"inga resultat i \1-divisionen matchar; visar resultat i divisionen \2"),
    (r"latency results left out of the per-accelerator figure \(it only applies to throughput\)",
     "latensresultat är utelämnade ur siffran per accelerator (den gäller bara genomströmning)"),
    (r"per-accelerator figures are derived \(result ÷ total accelerators\), not an official MLPerf metric",
     "siffror per accelerator är härledda (resultat ÷ totalt antal acceleratorer), inte ett officiellt MLPerf-mått"),
    (r"efficiency figures are derived \(result ÷ system power\), not an official MLPerf metric",
     "effektivitetssiffror är härledda (resultat ÷ systemets effekt), inte ett officiellt MLPerf-mått"),
    (r"power: lower is better for the same work \(only v4\.1 and v5\.1 have power results\)",
     "effekt: lägre är bättre för samma arbete (bara v4.1 och v5.1 har effektresultat)"),
    (r"latency: lower is better", "latens: lägre är bättre"),
    (r"nothing with (\w+) (.+) under the other filters; they match \1 (.+)",
     r"inget med \1 \2 under de övriga filtren; de matchar \1 \3"),
    (r"nothing with (\w+) (.+) under the other filters; they have no \1 at all",
     r"inget med \1 \2 under de övriga filtren; de har inget \1 alls"),
    (r"nothing with (\w+) (.+) under the other filters", r"inget med \1 \2 under de övriga filtren"),
    (r"no rows match these filters", "inga rader matchar dessa filter"),
    (r"mixed units: ranked only the (\d+) rows in (.+); left out (.+) — name a benchmark and scenario "
     r"\(or a unit\) to choose",
     r"blandade enheter: bara de \1 raderna i \2 rangordnades; utelämnade \3 — ange benchmark och scenario "
     r"(eller en enhet) för att välja"),
    (r"mixed units: split by unit \((.+)\)", r"blandade enheter: uppdelat per enhet (\1)"),
    (r"(\w+) of results across systems of different sizes; read with care",
     r"\1 av resultat från system av olika storlek; läs med försiktighet"),
    (r"showing (\d+) of (\d+) groups", r"visar \1 av \2 grupper"),
    (r"no (\w+) is present in the first set and absent from the other",
     r"inget värde i \1 finns i den första mängden men saknas i den andra"),
    (r"side (\d+): no rows match", r"sida \1: inga rader matchar"),
    (r"side (\d+): (.+)", r"sida \1: \2"),
    (r"the sides' best rows are on different benchmarks or scenarios",
     "sidornas bästa rader gäller olika benchmarks eller scenarier"),
    (r"best row per round across (\d+) benchmark/scenario pairs; name one benchmark and scenario for a "
     r"like-for-like trend",
     r"bästa rad per runda över \1 par av benchmark och scenario; ange ett benchmark och ett scenario för en "
     r"jämförbar trend"),
    (r"no matching rows in (.+)", r"inga matchande rader i \1"),
    (r"rows span several rounds: (.+)", r"raderna spänner över flera rundor: \1"),
    (r"rows mix divisions: (.+)", r"raderna blandar divisioner: \1"),
    (r"(\w+) division results \(not directly comparable with closed\)",
     r"resultat i \1-divisionen (inte direkt jämförbara med closed)"),
    (r"these rows include preview systems \(not yet available\)",
     "raderna innehåller preview-system (ännu inte tillgängliga)"),
    (r"these rows include rdi systems \(research, development or internal\)",
     "raderna innehåller rdi-system (forskning, utveckling eller internt)"),
    (r"rows span (\d+) benchmarks \((.+)\); results of different benchmarks are not comparable",
     r"raderna spänner över \1 benchmarks (\2); resultat från olika benchmarks är inte jämförbara"),
    (r"rows mix scenarios: (.+)", r"raderna blandar scenarier: \1"),
    (r"includes multi-node systems \(up to (\d+) nodes\); compare per node or per accelerator with care",
     r"inkluderar system med flera noder (upp till \1 noder); jämför per nod eller per accelerator med försiktighet"),
    (r"accelerator counts differ \((\d+)–(\d+) per system\)", r"antalet acceleratorer skiljer sig (\1–\2 per system)"),
    (r"the change in percent is derived from the two cited results; systems may differ between rounds",
     "förändringen i procent är härledd ur de två citerade resultaten; systemen kan skilja sig mellan rundorna"),
]]


def _nodes(match: re.Match[str]) -> str:
    count = int(match.group(1))
    return f"({count} {'nod' if count == 1 else 'noder'}, "


def translate(note: str) -> str | None:
    """The Swedish wording of one English note, or None when no pattern matches it."""
    for pattern, swedish in PATTERNS:
        if pattern.match(note):
            return _NODE.sub(_nodes, pattern.sub(swedish, note, count=1))
    return None


def in_swedish(notes: list[str]) -> list[str]:
    """Notes for a Swedish reader: each translated where a pattern knows it, else unchanged."""
    return [translate(n) or n for n in notes]
