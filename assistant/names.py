"""Whether two spellings name one organisation: a document's author or a statement's heading
against a submitter name of the table ("TheStage AI" and "The_Stage", "University of Florida" and
"University-of-Florida", "Dell" and the joint "Dell_MangoBoost"). One rule, for quoting (who wrote
a passage) and for retrieval (which section is an organisation's own statement)."""

from __future__ import annotations

import re

_JOINT = re.compile(r"[_+&]")  # between the parties of a joint submitter's name


def _name_words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def same_name(who: str, name: str) -> bool:
    """Whether a document's author is the name asked, in any case, spaced or hyphenated or not ("IT
    Brief", "itbrief"; "University-of-Florida"), or with more words after it ("Dell Technologies" is
    Dell, "TheStage AI" is The_Stage). A joint submitter named "A_B" or "A+B" is each of its
    parties, and the whole name too (an underscore may also stand for a space)."""
    who = _name_words(who)
    if not who:
        return False
    heads = {"".join(who.split()[:n]) for n in range(1, len(who.split()) + 1)}  # "thestage", "thestageai"
    if _name_words(name).replace(" ", "") in heads:
        return True
    return any(who.replace(" ", "") == party.replace(" ", "") or who.startswith(party + " ")
               or party.startswith(who + " ") for party in map(_name_words, _JOINT.split(name)) if party)
