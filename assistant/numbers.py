"""Numbers as people write them, read out of free text.

The wording checks (`assistant.checks`) compare what a model wrote with what our code
computed. That needs one reading of "1,136,100", "1 136 100,47", "1.136.100" and
"1136100.47" that agrees they are the same number, tells a stated quantity ("8 GPUs") from
digits inside a name ("H100", "70B", "v6.1"), and knows how precisely a number was written,
so that "1,136,100" counts as stating 1136100.47 rounded, and "1,136,101" does not.
"""

from __future__ import annotations

import re
from typing import Iterator

# A number as people write it: 1,136,100 / 1 136 100 / 1.136.100 / 1136100.47 / 12,5 (decimal comma).
# A thousands group is exactly three digits: "1,466.0077" is one number, not "1,466.007" and "7".
NUMBER = re.compile(r"\d{1,3}(?:(?:,|\.|\u00a0|\u202f| )\d{3}(?!\d))+(?:[.,]\d+)?|\d+(?:[.,]\d+)?")
_ANY_DIGITS = re.compile(r"\d+(?:\.\d+)?")

Reading = tuple[float, int]  # (value, decimals written)


def candidates(token: str) -> list[Reading]:
    """(value, decimals written) readings of one written number; several when separators are ambiguous."""
    out: list[Reading] = []
    plain = re.sub(r"[\u00a0\u202f ]", "", token)
    no_commas = plain.replace(",", "")
    try:
        decimals = len(no_commas.split(".", 1)[1]) if "." in no_commas else 0
        out.append((float(no_commas), decimals))
    except ValueError:
        pass
    if "," in plain and "." not in plain and plain.count(",") == 1:  # decimal comma reading
        try:
            out.append((float(plain.replace(",", ".")), len(plain.split(",", 1)[1])))
        except ValueError:
            pass
    if "." in plain and "," not in plain and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", plain):  # 1.136.100
        out.append((float(plain.replace(".", "")), 0))
    return out


def numbers_in(text: str) -> set[float]:
    """Every number a text contains, in every reading, including digits inside names (llama2-70b)."""
    found: set[float] = set()
    for match in NUMBER.finditer(text):
        found.update(value for value, _ in candidates(match.group(0)))
    for match in _ANY_DIGITS.finditer(text):
        found.add(float(match.group(0)))
    return found


def stated_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, token) of each number the text states as a quantity: not digits inside
    names such as H100, 70B or v6.1."""
    for match in NUMBER.finditer(text):
        token = match.group(0).rstrip(",. \u00a0\u202f")
        before = text[match.start() - 1] if match.start() else ""
        end = match.start() + len(token)
        after = text[end] if end < len(text) else ""
        if before.isalpha() or before == "_" or (before == "." and match.start() > 1
                                                    and text[match.start() - 2].isalnum()):
            continue
        if after.isalpha() and after not in "x×" or after == "_":
            continue
        yield match.start(), end, token


def stated_numbers(text: str) -> list[str]:
    """Numbers the text states as quantities, as written."""
    return [token for _, _, token in stated_spans(text)]


def readings(text: str) -> list[Reading]:
    """Every (value, decimals written) reading of the numbers `text` states."""
    return [reading for token in stated_numbers(text) for reading in candidates(token)]


def states(written: list[Reading], value: float) -> bool:
    """Whether one of the written numbers is `value`, exactly or rounded as written."""
    return any(abs(v - value) <= 0.5 * 10 ** (-decimals) + 1e-9 for v, decimals in written)


def supported(token: str, allowed: set[float]) -> bool:
    """Whether a written number is one of `allowed`, exactly or as a rounding of one."""
    for value, decimals in candidates(token):
        tolerance = 0.5 * 10 ** (-decimals) + 1e-9
        if any(abs(a - value) <= max(tolerance, abs(a) * 1e-9) for a in allowed):
            return True
    return False


def unsupported_numbers(text: str, allowed: set[float]) -> list[str]:
    """Numbers stated in `text` that no tool result supports (exactly or as a rounding of one)."""
    return [token for token in stated_numbers(text) if not supported(token, allowed)]
