"""One rule for whether two spellings name one organisation."""

from __future__ import annotations

import pytest

from assistant.names import same_name


@pytest.mark.parametrize("who, name, same", [
    ("TheStage AI", "The_Stage", True),
    ("thestage ai", "The_Stage", True),
    ("University of Florida", "University-of-Florida", True),
    ("Dell Technologies", "Dell", True),
    ("Dell", "Dell_MangoBoost", True),
    ("IT Brief", "itbrief", True),
    ("KRAI", "The_Stage", False),
    ("Dell", "Delta", False),
    ("", "Dell", False),
])
def test_two_spellings_of_one_organisation(who, name, same):
    assert same_name(who, name) is same
