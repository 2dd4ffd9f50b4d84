"""Independent check of every gold answer in a question file, straight from the official files.

Why a separate reader: if the gold values came from the product's own ingest or engine, a
bug there would be copied into the gold set and the eval would grade the bug as correct.
So this module deliberately imports nothing from `ingest` or `assistant`; it reads
`raw/*/summary_results.json` (MLCommons' final-report view) and `raw/v6.1/summary.csv` (the
submission checker's CSV) with json/csv, the commentary Markdown as plain text, and MLCommons'
Supplemental Discussion PDFs (`commentary/official/*.pdf`) with its own standard-library text reader.

Each question carries a `check` recipe in terms of the raw fields (see docs/eval.md):
  {"op": "max"|"min", "filters": {...}, "field": "Result"}      -> number (+ the row, for names)
  {"op": "count", "filters": {...}}                              -> number of result rows
  {"op": "nunique"|"values", "filters": {...}, "field": F}       -> distinct count / distinct values
  {"op": "setdiff", "filters": {...}, "minus": {...}, "field": F} -> values under filters not under minus
  {"op": "ratio", "num": CHECK, "den": CHECK}                    -> num / den
  {"op": "absent", "filters": {...}}                             -> asserts no row matches (refusals)
  {"op": "doc", "file": NAME, "contains": [str], "number": "1,136,100"} -> text present in a commentary file
      ("number" is read from the text itself; "value" states a figure the text writes in words or
      with a decimal comma, and "contains" must then hold that wording). NAME is relative to
      commentary/, so "official/v6.0_mlcommons_supplemental-discussion.pdf" reads a PDF's text.
  {"op": "guide", "terms": [[str, ...], ...], "file": NAME or [NAME]}  -> a definition a source states
      (guide questions): each group needs one term that some source document contains (only the
      `file`s if given; otherwise every commentary file and official PDF). The gold's must_include /
      any_of key words are then looked for in the passages around those terms (GUIDE_WINDOW chars).
  Any recipe may carry "unsourced": [str] - key words of the gold that no local source can confirm
      (a definition MLCommons publishes elsewhere); they are not looked for, and the question must
      have a `note` saying so.
Phrases are matched case-insensitively with whitespace collapsed and curly quotes straightened.
A list of recipes means: `numbers` -> one recipe per value, in order; other kinds -> all must hold.

Filters: {"Field": "x"} equal (case-insensitive), {"Field": ["x", "y"]} any of,
{"Field~": "sub"} contains, {"Field!~": "sub"} does not contain, {"Field>=": n} / {"Field<=": n} numeric bounds.
Unified raw fields: version, ID, Submitter, Availability, Division, Suite, System, Platform, Model
(the official benchmark: `Model` in the JSON, `MlperfModel` in the CSV), UsedModel, Scenario, Result,
Units, Nodes, Accelerator, a#, TotalAccelerators, Power_Result, Power_Units, has_power, Location, and the
derived PerAccelerator = Result / TotalAccelerators.

Run: python -m eval.check_gold [QUESTIONS] [--data DIR] [--show]
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re
import sys
import zlib
from pathlib import Path

from eval.gold_compare import (check_questions, cli, compare, number as _num, read_questions,
                               recipes_of, select)
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("RESULTSQA_DATA", HERE.parent.parent / "shared" / "data"))
DEFAULT_QUESTIONS = HERE / "questions" / "mlperf.jsonl"
JSON_ROUNDS = ("v4.1", "v5.1", "v6.0")


def load_raw(data: Path = DEFAULT_DATA) -> list[dict[str, Any]]:
    """All four rounds as dicts with one set of field names (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    raw = Path(data) / "mlperf" / "raw"
    for round_name in JSON_ROUNDS:
        for rec in json.loads((raw / round_name / "summary_results.json").read_text(encoding="utf-8")):
            nodes, per_node = _num(rec.get("Nodes")), _num(rec.get("a#"))
            total = _num(rec.get("Total Accelerators"))
            if total is None and nodes is not None and per_node is not None:
                total = nodes * per_node
            rows.append({
                "version": rec["version"], "ID": rec.get("ID"), "Submitter": rec.get("Submitter"),
                "Availability": rec.get("Availability"), "Division": rec.get("Category"), "Suite": rec.get("Suite"),
                "System": rec.get("System"), "Platform": rec.get("Platform"), "Model": rec.get("Model"),
                "UsedModel": rec.get("UsedModel"), "Scenario": rec.get("Scenario"),
                "Result": _num(rec.get("Performance_Result")), "Units": rec.get("Performance_Units"),
                "Nodes": nodes, "Accelerator": rec.get("Accelerator"), "a#": per_node, "TotalAccelerators": total,
                "Power_Result": _num(rec.get("Power_Result")), "Power_Units": rec.get("Power_Units"),
                "has_power": bool(rec.get("has_power")), "Location": rec.get("Location"),
            })
    with (raw / "v6.1" / "summary.csv").open(encoding="utf-8", newline="") as fh:
        for n, rec in enumerate(csv.DictReader(fh), start=1):
            rows.append({
                "version": rec["version"], "ID": f"v6.1-csvrow-{n:04d}", "Submitter": rec["Organization"],
                "Availability": rec["Availability"], "Division": rec["Division"], "Suite": rec["SystemType"],
                "System": rec["SystemName"], "Platform": rec["Platform"], "Model": rec["MlperfModel"],
                "UsedModel": rec["Model"], "Scenario": rec["Scenario"], "Result": _num(rec["Result"]),
                "Units": rec["Units"], "Nodes": _num(rec["number_of_nodes"]),
                "Accelerator": rec["accelerator_model_name"], "a#": _num(rec["accelerators_per_node"]),
                "TotalAccelerators": _num(rec["total_accelerators"]), "Power_Result": None, "Power_Units": None,
                "has_power": rec["has_power"].strip().lower() == "true", "Location": rec["Location"],
            })
    for row in rows:  # derived, not an official metric: result per accelerator
        total = row["TotalAccelerators"]
        row["PerAccelerator"] = row["Result"] / total if row["Result"] is not None and total else None
    return rows


# --- The official PDFs, read with the standard library only -------------------------------------
# MLCommons' Supplemental Discussion PDFs (Skia/Google Docs output: plain object syntax, Flate
# streams, Type0 fonts with ToUnicode maps). Just enough of PDF to get their text back in reading
# order: objects, fonts (code -> text, glyph advances), and the text operators of each page.
# Spaces are the space glyphs the PDF draws, or gaps between words where it draws none (v4.1).

_PDF_OBJ = re.compile(rb"(\d+)\s+\d+\s+obj\b")
_PDF_REF = rb"(\d+)\s+\d+\s+R"
_PDF_TOKEN = re.compile(rb"""
    (?P<hex><[0-9A-Fa-f\s]*>) | (?P<lit>\() | (?P<open>\[) | (?P<close>\]) | (?P<dict><<|>>)
  | (?P<name>/[^\s/\[\]()<>{}%]*) | (?P<num>[+-]?(?:\d+\.?\d*|\.\d+)) | (?P<op>[A-Za-z'"*]+)
  | (?P<skip>%[^\r\n]*|\s+|.)
""", re.X | re.S)
_PDF_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\u00a0": " "}


def _pdf_objects(data: bytes) -> dict[int, tuple[bytes, bytes | None]]:
    """Every `N 0 obj`: (dictionary text, decompressed stream or None). Enough for uncompressed xref PDFs."""
    objs: dict[int, tuple[bytes, bytes | None]] = {}
    pos = 0
    while (m := _PDF_OBJ.search(data, pos)):
        start = m.end()
        s, e = data.find(b"stream", start), data.find(b"endobj", start)
        if e < 0:
            break
        stream = None
        if 0 <= s < e:
            head, body = data[start:s], s + len(b"stream")
            body += 2 if data[body:body + 2] == b"\r\n" else 1
            length = re.search(rb"/Length\s+(\d+)(\s+\d+\s+R)?", head)
            end = body + int(length.group(1)) if length and not length.group(2) else data.find(b"endstream", body)
            stream = data[body:end]
            if b"/FlateDecode" in head:
                try:
                    stream = zlib.decompressobj().decompress(stream)
                except zlib.error:
                    stream = b""
            e = data.find(b"endobj", end)
        else:
            head = data[start:e]
        objs[int(m.group(1))] = (head, stream)
        pos = e + len(b"endobj")
    return objs


def _cmap(stream: bytes) -> tuple[dict[int, str], int]:
    """A ToUnicode CMap: code -> text, and the code width in bytes."""
    table: dict[int, str] = {}
    width = 1

    def text(hexstr: bytes) -> str:
        raw = bytes.fromhex(hexstr.decode())
        return raw.decode("utf-16-be", errors="ignore")

    for block in re.findall(rb"beginbfchar(.*?)endbfchar", stream, re.S):
        for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            width = max(width, len(src) // 2)
            table[int(src, 16)] = text(dst)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", stream, re.S):
        for lo, hi, rest in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block):
            width = max(width, len(lo) // 2)
            lo_i, hi_i = int(lo, 16), int(hi, 16)
            if rest.startswith(b"["):
                for i, dst in enumerate(re.findall(rb"<([0-9A-Fa-f]*)>", rest)):
                    table[lo_i + i] = text(dst)
            else:
                base = bytes.fromhex(rest[1:-1].decode())
                for i in range(hi_i - lo_i + 1):
                    last = int.from_bytes(base[-2:] or b"\0", "big") + i
                    table[lo_i + i] = (base[:-2] + last.to_bytes(2, "big")).decode("utf-16-be", errors="ignore")
    return table, width


class _Font:
    """What text extraction needs of a font: code width in bytes, code -> text, code -> advance (1/1000 em)."""

    def __init__(self, table=None, width=1, widths=None, default=1000.0):
        self.table, self.width, self.widths, self.default = table or {}, width, widths or {}, default

    def text(self, code: int) -> str:
        if code in self.table:
            return self.table[code]
        return chr(code) if self.width == 1 else ""

    def advance(self, code: int) -> float:
        return self.widths.get(code, self.default) / 1000


def _widths(head: bytes, objs) -> tuple[dict[int, float], float]:
    """Glyph advances from a CIDFont's /W and /DW, or a simple font's /FirstChar + /Widths."""
    def resolve(value: bytes) -> bytes:
        m = re.fullmatch(rb"\s*" + _PDF_REF + rb"\s*", value)
        return objs.get(int(m.group(1)), (b"", None))[0] if m else value

    def array(key: bytes) -> bytes | None:
        m = re.search(rb"/" + key + rb"\s*(\[|" + _PDF_REF + rb")", head)
        if not m:
            return None
        if m.group(1) != b"[":
            return resolve(m.group(1))
        depth, i = 0, m.start(1)
        for j in range(i, len(head)):
            depth += {0x5B: 1, 0x5D: -1}.get(head[j], 0)
            if depth == 0:
                return head[i:j + 1]
        return None

    widths: dict[int, float] = {}
    dw = re.search(rb"/DW\s+([\d.]+)", head)
    default = float(dw.group(1)) if dw else 1000.0
    w = array(b"W")
    if w is not None:
        items = re.findall(rb"\[[^\]]*\]|[\d.]+", w[1:-1])
        k = 0
        while k + 1 < len(items):
            first = int(float(items[k]))
            if items[k + 1].startswith(b"["):
                for n, val in enumerate(re.findall(rb"[\d.]+", items[k + 1])):
                    widths[first + n] = float(val)
                k += 2
            elif k + 2 < len(items):
                for c in range(first, int(float(items[k + 1])) + 1):
                    widths[c] = float(items[k + 2])
                k += 3
            else:
                break
    simple = array(b"Widths")
    first = re.search(rb"/FirstChar\s+(\d+)", head)
    if simple is not None and first:
        for n, val in enumerate(re.findall(rb"[\d.]+", simple)):
            widths[int(first.group(1)) + n] = float(val)
        default = 0.0 if w is None else default
    return widths, default


def _literal(data: bytes, i: int) -> tuple[bytes, int]:
    """The PDF literal string starting after the `(` at i-1; returns (bytes, index after `)`)."""
    out, depth = bytearray(), 1
    escapes = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
    while i < len(data):
        c = data[i]
        if c == 0x5C:  # backslash
            nxt = data[i + 1:i + 2]
            if nxt and nxt[0] in escapes:
                out += escapes[nxt[0]]
                i += 2
            elif nxt and nxt in b"01234567":
                octal = re.match(rb"[0-7]{1,3}", data[i + 1:i + 4]).group()
                out.append(int(octal, 8) & 0xFF)
                i += 1 + len(octal)
            elif nxt in (b"\n", b"\r"):
                i += 2
            else:
                out += nxt
                i += 2
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
        out.append(c)
        i += 1
    return bytes(out), i


def _mul(a, b):
    """Affine matrices [a b c d e f]: a then b."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def _page_text(content: bytes, fonts: dict[bytes, _Font]) -> str:
    """The text one page's content stream draws: a new line where the baseline moves, a space where
    the pen jumps forward past the last glyph drawn."""
    out: list[str] = []
    stack: list = []
    ctm, gstack = [1, 0, 0, 1, 0, 0], []
    tm = tlm = [1, 0, 0, 1, 0, 0]
    font, size, leading = _Font(), 1.0, 0.0
    last = None  # (x, y, height) in device space where the previous shown text ended

    def show(raw: bytes) -> None:
        nonlocal last, tm
        w = font.width
        codes = [int.from_bytes(raw[k:k + w], "big") for k in range(0, len(raw) - w + 1, w)]
        m = _mul(tm, ctm)
        x, y, h = m[4], m[5], abs(size * (m[3] or m[0])) or 1.0
        if last is not None and out:
            lx, ly, lh = last
            if abs(y - ly) > 0.5 * max(h, lh) or x < lx - 0.5 * h:
                out.append("\n")
            elif x - lx > 0.15 * max(h, lh) and not out[-1].endswith(" "):
                out.append(" ")  # a gap between words that the PDF leaves as space, not a glyph
        out.append("".join(font.text(c) for c in codes))
        tm = _mul([1, 0, 0, 1, sum(font.advance(c) for c in codes) * size, 0], tm)
        m = _mul(tm, ctm)
        last = (m[4], m[5], h)

    i = 0
    while i < len(content):
        m = _PDF_TOKEN.match(content, i)
        i = m.end()
        kind = m.lastgroup
        tok = m.group()
        if kind == "skip" or kind == "dict":
            continue
        if kind == "hex":
            digits = re.sub(rb"\s", b"", tok[1:-1]).decode()
            stack.append(bytes.fromhex(digits + "0" * (len(digits) % 2)))
        elif kind == "lit":
            s, i = _literal(content, i)
            stack.append(s)
        elif kind == "open":
            stack.append("[")
        elif kind == "close":
            k = len(stack) - 1 - stack[::-1].index("[") if "[" in stack else 0
            arr, stack = stack[k + 1:], stack[:k]
            stack.append(arr)
        elif kind == "name":
            stack.append(tok)
        elif kind == "num":
            stack.append(float(tok))
        else:
            op, args, stack = tok, stack, []
            nums = [a for a in args if isinstance(a, float)]
            if op == b"q":
                gstack.append(ctm)
            elif op == b"Q":
                ctm = gstack.pop() if gstack else ctm
            elif op == b"cm" and len(nums) >= 6:
                ctm = _mul(nums[-6:], ctm)
            elif op == b"BT":
                tm = tlm = [1, 0, 0, 1, 0, 0]
            elif op == b"Tf" and args:
                names = [a for a in args if isinstance(a, bytes) and a.startswith(b"/")]
                font = fonts.get(names[-1][1:], _Font()) if names else font
                size = nums[-1] if nums else size
            elif op == b"TL" and nums:
                leading = nums[-1]
            elif op in (b"Td", b"TD") and len(nums) >= 2:
                if op == b"TD":
                    leading = -nums[-1]
                tm = tlm = _mul([1, 0, 0, 1, nums[-2], nums[-1]], tlm)
            elif op == b"Tm" and len(nums) >= 6:
                tm = tlm = nums[-6:]
            elif op in (b"T*", b"'", b'"'):
                tm = tlm = _mul([1, 0, 0, 1, 0, -leading], tlm)
                if op != b"T*" and args and isinstance(args[-1], bytes):
                    show(args[-1])
            elif op == b"Tj" and args and isinstance(args[-1], bytes):
                show(args[-1])
            elif op == b"TJ" and args and isinstance(args[-1], list):
                for part in args[-1]:
                    if isinstance(part, bytes):
                        show(part)
                    elif isinstance(part, float):
                        tm = _mul([1, 0, 0, 1, -part / 1000 * size, 0], tm)
    text = "".join(out)
    for k, v in _PDF_LIGATURES.items():
        text = text.replace(k, v)
    return text


def _pdf_text(path: Path) -> str:
    """The text of a PDF with plain (uncompressed) object syntax, Flate streams and ToUnicode fonts,
    read with the standard library only; pages in document order, one line per text line."""
    objs = _pdf_objects(Path(path).read_bytes())

    def ref(head: bytes, key: bytes):
        m = re.search(rb"/" + key + rb"\s+" + _PDF_REF, head)
        return int(m.group(1)) if m else None

    def pages(num: int, seen: set[int]) -> list[int]:
        if num in seen or num not in objs:
            return []
        seen.add(num)
        head = objs[num][0]
        if re.search(rb"/Type\s*/Pages\b", head):
            kids = re.search(rb"/Kids\s*\[([^\]]*)\]", head)
            return [p for k in re.findall(_PDF_REF, kids.group(1) if kids else b"") for p in pages(int(k), seen)]
        return [num] if re.search(rb"/Type\s*/Page\b", head) else []

    root = next((n for n, (h, _) in objs.items() if re.search(rb"/Type\s*/Catalog\b", h)), None)
    order = pages(ref(objs[root][0], b"Pages"), set()) if root is not None else []
    if not order:
        order = sorted(n for n, (h, _) in objs.items() if re.search(rb"/Type\s*/Page\b", h))
    loaded: dict[int, _Font] = {}
    texts = []
    for num in order:
        head = objs[num][0]
        res = head
        r = ref(head, b"Resources")
        if r is not None:
            res = objs.get(r, (b"", None))[0]
        fontdict = re.search(rb"/Font\s*<<(.*?)>>", res, re.S)
        if not fontdict and (fr := ref(res, b"Font")) is not None:
            fontdict_text = objs.get(fr, (b"", None))[0]
        else:
            fontdict_text = fontdict.group(1) if fontdict else b""
        fonts = {}
        for name, fnum in re.findall(rb"/([^\s/<>\[\]()]+)\s+" + _PDF_REF, fontdict_text):
            if int(fnum) not in loaded:
                fhead = objs.get(int(fnum), (b"", None))[0]
                tu = ref(fhead, b"ToUnicode")
                table, width = _cmap(objs.get(tu, (b"", b""))[1] or b"") if tu is not None else ({}, 1)
                if re.search(rb"/Subtype\s*/Type0", fhead):
                    width = 2 if re.search(rb"/Identity-[HV]", fhead) else width
                    desc = re.search(rb"/DescendantFonts\s*\[\s*" + _PDF_REF, fhead)
                    whead = objs.get(int(desc.group(1)), (b"", None))[0] if desc else b""
                else:
                    whead = fhead
                loaded[int(fnum)] = _Font(table, width, *_widths(whead, objs))
            fonts[name] = loaded[int(fnum)]
        contents = re.search(rb"/Contents\s*(\[[^\]]*\]|" + _PDF_REF + rb")", head)
        streams = [int(c) for c in re.findall(_PDF_REF, contents.group(1))] if contents else []
        content = b"\n".join(objs.get(c, (b"", b""))[1] or b"" for c in streams)
        texts.append(_page_text(content, fonts))
    return "\n".join(texts)


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _norm(text: str) -> str:
    """One space between words and straight quotes, so a phrase matches however the source wraps it."""
    return " ".join(text.translate(_QUOTES).split())


@functools.lru_cache(maxsize=None)
def _doc_text_cached(path: str) -> str:
    if path.lower().endswith(".pdf"):
        return _norm(_pdf_text(Path(path)))
    return _norm(Path(path).read_text(encoding="utf-8"))


def _doc_text(data: Path, name: str) -> str:
    """A commentary document as plain text: Markdown as written, `official/*.pdf` via _pdf_text."""
    return _doc_text_cached(str(Path(data) / "commentary" / name))


def guide_sources(data: Path = DEFAULT_DATA) -> list[str]:
    """Every document a `guide` recipe may cite: the commentary files (not the corpus README) and
    MLCommons' official PDFs, as names relative to commentary/."""
    root = Path(data) / "commentary"
    return sorted(p.name for p in root.glob("*.md") if p.name != "README.md") + \
        sorted(f"official/{p.name}" for p in (root / "official").glob("*.pdf"))


GUIDE_WINDOW = 250  # characters kept either side of a defining term; the gold's key words must lie inside


def _guide(check: dict[str, Any], data: Path) -> dict[str, Any]:
    """Each group of `terms` needs one term that some source document states (all of `file` if given).
    Returns the passages around every hit, so the gold's key words are checked against the definition."""
    files = check.get("file") or guide_sources(data)
    files = [files] if isinstance(files, str) else list(files)
    texts: list[str] = []
    for group in check["terms"]:
        found = False
        for name in files:
            text = _doc_text(data, name)
            lower = text.lower()
            for term in group:
                needle = _norm(term).lower()
                start = lower.find(needle)
                while start >= 0:
                    found = True
                    texts.append(text[max(0, start - GUIDE_WINDOW):start + len(needle) + GUIDE_WINDOW])
                    start = lower.find(needle, start + 1)
        if not found:
            raise AssertionError(f"no source document states any of {group}")
    return {"value": None, "texts": texts, "rows": len(texts)}


def compute(check: dict[str, Any], rows: list[dict[str, Any]], data: Path = DEFAULT_DATA) -> dict[str, Any]:
    """Run one recipe: {"value": number or None, "texts": [str], "rows": n}."""
    op = check["op"]
    field = check.get("field", "Result")
    if op in ("max", "min"):
        chosen = [r for r in select(rows, check.get("filters", {})) if _num(r.get(field)) is not None]
        if not chosen:
            raise AssertionError(f"no rows for {check}")
        best = (max if op == "max" else min)(chosen, key=lambda r: r[field])
        return {"value": best[field], "texts": [str(v) for v in best.values() if v is not None], "rows": len(chosen)}
    if op == "count":
        n = len(select(rows, check.get("filters", {})))
        return {"value": float(n), "texts": [], "rows": n}
    if op in ("nunique", "values"):
        # case-insensitive, like setdiff: `Nvidia B300-SXM-270GB` and `NVIDIA B300-SXM-270GB` are one name
        seen = {str(r.get(field)).lower(): str(r.get(field)) for r in select(rows, check.get("filters", {}))}
        values = sorted(seen.values())
        return {"value": float(len(values)), "texts": values, "rows": len(values)}
    if op == "setdiff":
        # case-insensitive: `ORACLE` (v6.0) and `Oracle` (v6.1) are the same submitter
        left = {str(r.get(field)).lower(): str(r.get(field)) for r in select(rows, check.get("filters", {}))}
        right = {str(r.get(field)).lower() for r in select(rows, check.get("minus", {}))}
        diff = sorted(left[k] for k in left if k not in right)
        return {"value": float(len(diff)), "texts": diff, "rows": len(diff)}
    if op == "ratio":
        num, den = compute(check["num"], rows, data)["value"], compute(check["den"], rows, data)["value"]
        return {"value": num / den, "texts": [], "rows": 2}
    if op == "absent":
        n = len(select(rows, check.get("filters", {})))
        if n:
            raise AssertionError(f"refusal question but {n} rows match {check['filters']}")
        return {"value": None, "texts": [], "rows": 0}
    if op == "doc":
        text = _doc_text(data, check["file"])
        lower = text.lower()
        missing = [s for s in check.get("contains", []) + ([check["number"]] if "number" in check else [])
                   if _norm(s).lower() not in lower]
        if missing:
            raise AssertionError(f"{check['file']} does not say {missing}")
        value = check.get("value")  # a figure the text writes its own way (`3,7 gånger`, `eight`)
        if "number" in check:
            value = float(check["number"].replace(",", "").replace("\u202f", "").replace(" ", ""))
        return {"value": value, "texts": [text], "rows": 1}
    if op == "guide":
        return _guide(check, data)
    raise ValueError(f"unknown check op {op!r}")


def verify(question: dict[str, Any], rows: list[dict[str, Any]], data: Path = DEFAULT_DATA) -> list[str]:
    """Problems with one question's gold answer (empty = verified)."""
    if question.get("check") is None:
        return ["no check recipe"]
    recipes = recipes_of(question)
    try:
        results = [compute(r, rows, data) for r in recipes]
    except (AssertionError, KeyError, ValueError, OSError) as exc:
        return [f"check failed: {exc}"]
    problems: list[str] = []
    # Key words no local source can confirm (a definition MLCommons publishes elsewhere): allowed only
    # when the question's `note` says so, and then not looked for.
    unsourced = {s.lower() for r in recipes for s in r.get("unsourced", [])}
    if unsourced and not question.get("note"):
        problems.append("'unsourced' key words need a 'note' saying why no local source has them")
    return problems + compare(question["expected"], recipes, results, unsourced)


def check_file(path: Path = DEFAULT_QUESTIONS, data: Path = DEFAULT_DATA) -> dict[str, list[str]]:
    return check_questions(read_questions(path), load_raw(data), lambda q, rows: verify(q, rows, data))


def main(argv: list[str] | None = None) -> int:
    return cli(argv, description=__doc__.splitlines()[0], default_questions=DEFAULT_QUESTIONS,
               default_data=DEFAULT_DATA, load=load_raw, compute=compute, verify=verify,
               source="the raw files")


if __name__ == "__main__":
    sys.exit(main())
