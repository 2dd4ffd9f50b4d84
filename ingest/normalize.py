"""Normalisation rules for the results table, one small function per known mess.

MLCommons' summary files are written by many submitters over several rounds, so the same
thing is spelled several ways (`offline` vs `Offline`, `llama3_1-8b` vs `llama3.1-8b`,
`AMD Instinct MI355X 288GB HBM3e (x87)`). Questions filter on these columns, so each rule
maps the spellings onto one value; `ingest.tables` keeps the published value beside it in a
`*_raw` column so an answer can still quote what MLCommons printed.

Every function takes and returns plain Python values (no pandas) so each rule is testable
on its own and reusable by other modules (the catalog, the cards).
"""

from __future__ import annotations

import math
import re
from urllib.parse import quote

from ingest.schema import LATENCY_UNITS

# --- rounds and links -----------------------------------------------------------------

_ROUND = re.compile(r"^v?(\d+)\.(\d+)$")


def round_label(version: object) -> str:
    """`6.1` or `v6.1` -> `v6.1`: every file writes `version`, not all with the `v`."""
    text = str(version).strip()
    match = _ROUND.match(text)
    if not match:
        raise ValueError(f"not an MLPerf round: {text!r}")
    return f"v{int(match.group(1))}.{int(match.group(2))}"


def round_order(label: str) -> int:
    """`v6.1` -> 601, so rounds sort numerically (`v10.0` after `v9.1`)."""
    match = _ROUND.match(label)
    if not match:
        raise ValueError(f"not an MLPerf round: {label!r}")
    return int(match.group(1)) * 100 + int(match.group(2))


def result_path(location: str) -> str:
    """`./closed/AMD/results/...` -> `closed/AMD/results/...` (v6.x writes the `./`, v4.1/v5.1 don't)."""
    path = location.strip()
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def result_url(round_: str, path: str) -> str:
    """Public link to a result folder in the round's results repository.

    The summary files' own `Details` links point to a fork (v4.1) or a private repository
    (v6.0), so every citation is rebuilt against the public `mlcommons/inference_results_<round>`.
    Spaces in submitter folder names (`Naeem Khoshnevis`) are %-encoded, slashes kept.
    """
    return f"https://github.com/mlcommons/inference_results_{round_}/tree/main/{quote(path, safe='/')}"


# --- scenario -------------------------------------------------------------------------

SCENARIOS = {s.lower(): s for s in ("Offline", "Server", "Interactive", "SingleStream", "MultiStream")}


def scenario(raw: str) -> str:
    """Some v6.1 edge rows use the lower-case folder name (`singlestream`); map to the official casing.

    Unknown scenarios are kept as published rather than guessed.
    """
    text = raw.strip()
    return SCENARIOS.get(text.lower().replace("_", "").replace(" ", ""), text)


# --- benchmark ------------------------------------------------------------------------

_LETTER_UNDERSCORE = re.compile(r"[A-Za-z]_[A-Za-z]")
_DIGIT_UNDERSCORE = re.compile(r"(?<=\d)_(?=\d)")


def is_descriptive_label(label: str) -> bool:
    """True for v6.1 `MlperfModel` values that describe a task instead of naming a benchmark.

    Benchmark keys are lower-case words joined by `-`/`.` (`llama2-70b-99.9`); the descriptive
    labels have spaces (`agentic edge`, `end to end question-answering`), capitals (`VLM`) or
    underscores between words (`text_to_video`). An underscore between digits (`llama3_1-8b`)
    is a folder-style version number, not a description.
    """
    text = label.strip()
    return (not text or any(ch.isspace() for ch in text) or text != text.lower()
            or bool(_LETTER_UNDERSCORE.search(text)))


def benchmark_key(mlperf_model: str, model_used: str) -> str:
    """The benchmark a result belongs to: the official label, unless it is descriptive (then the
    model folder name), with folder-style versions normalised (`llama3_1-8b` -> `llama3.1-8b`)."""
    label = mlperf_model.strip()
    key = model_used.strip() if is_descriptive_label(label) and model_used.strip() else label
    return _DIGIT_UNDERSCORE.sub(".", key)


# --- units ----------------------------------------------------------------------------


def lower_is_better(units: str) -> bool:
    """Latencies and energy per query (`millijoules`) improve downwards; throughputs upwards.

    Any unit starting with `Latency` counts, so a new `Latency (us)` does not flip silently.
    """
    text = units.strip()
    return text in LATENCY_UNITS or text.lower().startswith("latency")


# --- host processor -------------------------------------------------------------------

_INT = re.compile(r"^\d+(?:\.0+)?$")
_PER_SOCKET = re.compile(r"(\d+)\s*cores?\s*per\s*socket", re.IGNORECASE)


def core_count(raw: object) -> int | None:
    """Cores per socket as an integer, from a number or the free text some submitters write.

    `64` and `64.0` -> 64; `64 cores per socket, 128 total cores, 256 threads` -> 64.
    Heterogeneous clusters (`64(AMD EPYC 9534) and 96(AMD EPYC 9655)`) have no single
    value and give None rather than a guess; the text stays in the `_raw` column.
    """
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return int(raw) if float(raw).is_integer() else None
    text = str(raw).strip()
    if _INT.match(text):
        return int(float(text))
    match = _PER_SOCKET.search(text)
    return int(match.group(1)) if match else None


# --- accelerators ---------------------------------------------------------------------

NO_ACCELERATOR = "N/A"
_DECORATION = re.compile(r"\s*\((?:x[\dx]+|power cap[^)]*)\)", re.IGNORECASE)
_VENDOR_CASE = [(re.compile(r"\bNvidia\b"), "NVIDIA"), (re.compile(r"\bHBM3E\b"), "HBM3e")]
_PARTS = re.compile(r"\s+(?:\+|and)\s+|,\s+(?=AMD|NVIDIA|Intel)")


def accelerator(raw: str) -> str:
    """The accelerator model without per-system decorations, `N/A` when none is named.

    v6.0 appends counts and settings to the model (`... HBM3e (x87)`, `(x2x8)`,
    `(Power Cap 1000 W)`), which would split one chip into many filter values. Vendor and
    memory casing (`Nvidia`, `HBM3E`) are unified for the same reason. Blank fields are
    CPU-only systems (the accelerator counts are 0 or empty there), like the explicit `N/A`.
    """
    text = raw.strip()
    if not text or text.upper() in {"N/A", "NA", "NONE", "-"}:
        return NO_ACCELERATOR
    text = _DECORATION.sub("", text)
    for pattern, repl in _VENDOR_CASE:
        text = pattern.sub(repl, text)
    return re.sub(r"\s{2,}", " ", text).strip()


def accelerator_parts(name: str) -> list[str]:
    """The chips of a heterogeneous system (`A + B`, `A and B`, `A, B`), else the one name."""
    return [part.strip() for part in _PARTS.split(name) if part.strip()]


# Keyword -> vendor, first match wins. Chip vendors only: the submitter is never the vendor.
VENDOR_KEYWORDS: list[tuple[str, str]] = [
    (r"nvidia|geforce|tesla|jetson|\brtx\b|\bgtx\b", "NVIDIA"),
    (r"\bamd\b|instinct|radeon", "AMD"),
    (r"intel|gaudi|\barc\b", "Intel"),
    (r"\btpu\b|google", "Google"),
    (r"qualcomm|cloud ai ?100", "Qualcomm"),
    (r"untether|speedai", "UntetherAI"),
    (r"furiosa|rngd", "FuriosaAI"),
    (r"rebellions", "Rebellions"),
    (r"apple", "Apple"),
]

# Regex -> family, first match wins: the more specific names (GB300, GH200) come before the
# names they contain (B300, H200). Built from the distinct accelerator values of v4.1-v6.1.
FAMILY_PATTERNS: list[tuple[str, str]] = [
    (r"vera\s*rubin|\bvr200\b", "VR200"),
    (r"\bgb300\b", "GB300"),
    (r"\bgb200\b", "GB200"),
    (r"\bgb10\b", "GB10"),
    (r"\bgh200\b", "GH200"),
    (r"\bb300\b", "B300"),
    (r"\bb200\b", "B200"),
    (r"\bh200\b", "H200"),
    (r"\bh100\b", "H100"),
    (r"\bl40s\b", "L40S"),
    (r"\bl40\b", "L40"),
    (r"\bl4\b", "L4"),
    (r"\ba100\b", "A100"),
    (r"\bt4\b", "T4"),
    (r"\bmi(\d{3}[a-z]?)\b", "MI{0}"),
    (r"gaudi\s*(\d)", "Gaudi {0}"),
    (r"\btpu[\s-]*(v\d+[a-z]*)", "TPU {0}"),
    (r"trillium", "TPU v6e"),
    (r"rtx\s*pro\s*(\d{4})", "RTX PRO {0}"),
    (r"rtx[\s-]*(\d{4}e?)[\s-]*ada", "RTX {0} Ada"),
    (r"rtx\s*(a\d{4})", "RTX {0}"),
    (r"rtx\s*(\d{4})", "RTX {0}"),
    (r"gtx\s*(\d{4}(?:\s*ti)?)", "GTX {0}"),
    (r"jetson\s*agx\s*(\w+)", "Jetson AGX {0}"),
    (r"arc(?:\(tm\))?\s*pro(?:\(r\))?\s*(b\d+)", "Arc Pro {0}"),
    (r"arc(?:\(tm\))?\s*(\d+[a-z])\b", "Arc {0}"),
    (r"radeon\s*(\d+\w*)", "Radeon {0}"),
    (r"speedai\s*(\d+)", "speedAI{0}"),
    (r"cloud\s*ai\s*100", "Cloud AI 100"),
]

_FAMILY_RE = [(re.compile(p, re.IGNORECASE), fmt) for p, fmt in FAMILY_PATTERNS]
_VENDOR_RE = [(re.compile(p, re.IGNORECASE), v) for p, v in VENDOR_KEYWORDS]


def _join_unique(values: list[str]) -> str:
    """Sorted, so the same mix of chips is one value however the submitter ordered it."""
    return "+".join(sorted(set(values)))


def accelerator_vendor(name: str) -> str:
    """Chip vendor of a (normalised) accelerator name; `none` for CPU-only, `other` if unknown.

    Heterogeneous systems name each vendor once, sorted: `AMD+NVIDIA`.
    """
    if accelerator(name) == NO_ACCELERATOR:
        return "none"
    vendors = []
    for part in accelerator_parts(accelerator(name)):
        vendors.append(next((v for rx, v in _VENDOR_RE if rx.search(part)), "other"))
    return _join_unique(vendors)


def _family_of_part(part: str) -> str:
    for rx, fmt in _FAMILY_RE:
        match = rx.search(part)
        if match:
            return fmt.format(*(g.upper() if fmt.startswith("MI") else g for g in match.groups()))
    return part  # unknown chips keep their full name rather than a made-up short one


def accelerator_family(name: str) -> str:
    """Short chip name (B200, GB300, MI355X, ...); heterogeneous systems join theirs, sorted: `H200+MI350X`."""
    normalised = accelerator(name)
    if normalised == NO_ACCELERATOR:
        return "none"
    return _join_unique([_family_of_part(part) for part in accelerator_parts(normalised)])


# Families -> the architecture / product names people use in questions. Cards carry these so
# retrieval resolves "Blackwell Ultra" or "Vera Rubin" to the families in the table.
FAMILY_COMMON_NAMES: dict[str, list[str]] = {
    "VR200": ["Vera Rubin", "Rubin", "VR200", "Vera Rubin NVL72"],
    "GB300": ["Blackwell Ultra", "Grace Blackwell Ultra", "GB300 NVL72"],
    "B300": ["Blackwell Ultra", "HGX B300"],
    "GB200": ["Blackwell", "Grace Blackwell", "GB200 NVL72"],
    "B200": ["Blackwell", "HGX B200"],
    "GB10": ["Blackwell", "Grace Blackwell", "DGX Spark"],
    "RTX PRO 6000": ["Blackwell", "RTX PRO Blackwell"],
    "RTX PRO 4500": ["Blackwell", "RTX PRO Blackwell"],
    "H100": ["Hopper"],
    "H200": ["Hopper"],
    "GH200": ["Hopper", "Grace Hopper"],
    "L40S": ["Ada Lovelace"],
    "L4": ["Ada Lovelace"],
    "MI300X": ["Instinct", "CDNA 3"],
    "MI325X": ["Instinct", "CDNA 3"],
    "MI350X": ["Instinct", "CDNA 4"],
    "MI355X": ["Instinct", "CDNA 4"],
    "MI350P": ["Instinct", "CDNA 4"],
    "TPU v6": ["Trillium", "TPU v6e"],
    "TPU v6e": ["Trillium"],
    "Gaudi 3": ["Gaudi"],
}


def common_names(family: str) -> list[str]:
    """Common names of a family; for heterogeneous families the union over their chips."""
    names: list[str] = []
    for part in family.split("+"):
        names.extend(FAMILY_COMMON_NAMES.get(part, []))
    return list(dict.fromkeys(names))


# --- booleans -------------------------------------------------------------------------

_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def parse_bool(raw: object) -> bool | None:
    """JSON booleans, checker strings (`True`/`False`) and 0/1 -> bool; blank -> None.

    Raises ValueError for anything else so a mangled column is reported, not read as False.
    """
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return None
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if not text:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def unify_submitters(table):
    """One spelling per submitter across rounds (the most used one), raw spelling kept.

    Rounds are separate files written by different people: v6.0 has `ORACLE`, v6.1 `Oracle`.
    Counting or diffing submitters across rounds must not see two organisations there.
    Runs on the concatenated table because no single file can know the other spellings.
    """
    key = table["submitter"].str.casefold().rename("key")
    counts = table.groupby([key, table["submitter"].rename("spelling")], dropna=True).size().rename("n").reset_index()
    best = counts.sort_values(["n", "spelling"], ascending=[False, True]).drop_duplicates("key")
    canonical = dict(zip(best["key"], best["spelling"]))
    out = table.copy()
    out["submitter"] = key.map(canonical).astype("string").where(table["submitter"].notna(), table["submitter"])
    return out
