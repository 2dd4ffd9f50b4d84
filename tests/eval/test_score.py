"""The scorer reads numbers the way people write them and judges each expected kind."""

from __future__ import annotations

import pytest

from eval.questions import Expected
from eval.score import find_numbers, is_refusal, score


def values(text: str) -> set[float]:
    return {r.value for r in find_numbers(text)}


@pytest.mark.parametrize("text, wanted", [
    ("1,136,100 Tokens/s", 1136100),
    ("1 136 100 tokens/s", 1136100),
    ("1\u00a0136\u00a0100", 1136100),
    ("1\u202f136\u202f100", 1136100),
    ("about 1.14 million", 1140000),
    ("5.7M tokens/s", 5700000),
    ("5,7 miljoner token/s", 5700000),
    ("1 136 100,5 token/s", 1136100.5),
    ("3062.72 Tokens/s", 3062.72),
    ("3062,72", 3062.72),
    ("12k", 12000),
    ("1.136.100", 1136100),
    ("tre system", 3),
    ("6,280.214 Watts", 6280.214),  # three decimals after a thousands group
    ("1.466,0077 ms", 1466.0077),
])
def test_reads_numbers_as_written(text, wanted):
    assert wanted in values(text)


def test_ambiguous_comma_keeps_both_readings():
    assert {1136.0, 1.136} <= values("1,136")


def test_grouping_does_not_glue_unrelated_numbers_beyond_three_digits():
    assert 11361000 not in values("1,136,100 0")
    assert 33.0 in values("v6.1 had 33 submitters")


def answer(text: str, status: str = "answered") -> dict:
    return {"answer": text, "status": status}


def test_number_within_tolerance_passes_and_outside_fails():
    exp = Expected(kind="number", value=1136100, rel_tol=0.01)
    assert score(exp, answer("It reached 1.14 million tokens/s."))["pass"]
    assert not score(exp, answer("It reached 1.2 million tokens/s."))["pass"]
    assert not score(Expected(kind="number", value=1136100, rel_tol=0.001), answer("1.14 million"))["pass"]


def test_numbers_needs_all_and_count_is_exact():
    exp = Expected(kind="numbers", values=[1136100, 5749440])
    assert score(exp, answer("1,136,100 and 5,749,440"))["pass"]
    result = score(exp, answer("1,136,100 only"))
    assert not result["pass"] and "5.74944e+06" in result["why"]
    assert score(Expected(kind="count", value=33), answer("33 organisations submitted"))["pass"]
    assert not score(Expected(kind="count", value=33), answer("33.2 organisations"))["pass"]


def test_substring_rules_are_case_insensitive():
    exp = Expected(kind="entity", must_include=["CoreWeave"], any_of=[["GB300", "Grace Blackwell"]],
                   must_not_include=["Crusoe"])
    assert score(exp, answer("COREWEAVE with its grace blackwell rack"))["pass"]
    assert not score(exp, answer("CoreWeave B200"))["pass"]
    assert not score(exp, answer("CoreWeave GB300, ahead of Crusoe"))["pass"]


def test_refusal_by_status_or_words_in_english_and_swedish():
    exp = Expected(kind="refusal")
    assert score(exp, answer("", status="no_data"))["pass"]
    assert score(exp, answer("There is no v3.5 round in the data."))["pass"]
    assert score(exp, answer("Det finns inga resultat för v3.5."))["pass"]
    assert score(exp, answer("Whisper is in Samples/s and Llama in Tokens/s: different units, so not comparable."))["pass"]
    assert not score(exp, answer("The best v3.5 result was 1,000 tokens/s."))["pass"]


def test_non_answered_status_fails_a_number_question():
    result = score(Expected(kind="number", value=5), answer("5", status="error"))
    assert not result["pass"] and "error" in result["why"]
    assert not is_refusal(answer("5 systems"))
