"""What the writer's prompt shows of a brief (DESIGN section 6, step 1): the request and the
requirements in words a customer could use, and the length rule the text checks apply.

An adapter names requirements uniquely for the extractors, with labels a person would not say:
"cancel a pending order (2 times)", "the reservation to cancel a reservation (second)". The
writer reads them in plain words ("cancel two pending orders", "the reservation to cancel the
second reservation"); the brief itself (what the offline writer and the extractors read) keeps
the adapter's phrases. Nothing here names a host: the labels are the ones the adapter protocol
documents for repeated operations.
"""

from __future__ import annotations

import re

from miscue.briefs import Requirement, WriterBrief
from miscue.taxonomy import ExtractionClass, fault_type

MAX_WORDS = 130
MAX_WORDS_NOISE = 220  # the off-topic passage needs room
WORDS_PER_EXTRA_REQUIREMENT = 18  # beyond the fourth: long intents need more words (reference: tau2)
FEW_REQUIREMENTS = 4  # up to this many, one or two sentences suffice

NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}

#: "(2 times)" after a repeated operation; "(second)", "(number 4)" after a repeated requirement
TIMES = re.compile(r"\s*\((\d+) times\)")
COUNTED = re.compile(r"\b(?:a|an) ((?:[a-z]+ )?[a-z]+)\s*\((\d+) times\)")
ORDINAL = re.compile(r"\s*\((first|second|third|number (\d+))\)\s*$")
ARTICLE = re.compile(r" (?:a|an) (?=[a-z])")
#: a way of saying a value that is an internal identifier, not a customer's words
INTERNAL = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
#: every label this view removes (the card test checks none reaches a prompt)
LABELS = re.compile(r"\((?:\d+ times|first|second|third|number \d+)\)")


def word_budget(brief: WriterBrief) -> int:
    """The length rule: the writer's prompt states it, the text checks apply it."""
    ft = fault_type(brief.fault_type)
    return ((MAX_WORDS_NOISE if ft.extraction == ExtractionClass.noise else MAX_WORDS)
            + WORDS_PER_EXTRA_REQUIREMENT * max(0, len(brief.requirements) - FEW_REQUIREMENTS)
            + len((brief.materials.extra or "").split()))


def sentences(brief: WriterBrief) -> str:
    """The sentence guidance that fits the requirement count (the word budget is the rule)."""
    if len(brief.requirements) <= FEW_REQUIREMENTS:
        return "One or two sentences"
    return "As few sentences as the requirements need (about one per thing you want done)"


def _plural(noun_phrase: str) -> str:
    head = noun_phrase.rsplit(" ", 1)[-1]
    return noun_phrase + ("es" if head.endswith(("s", "x", "ch", "sh")) else "s")


def plain_request(request: str) -> str:
    """``cancel a pending order (2 times)`` -> ``cancel two pending orders``."""
    def counted(m: re.Match[str]) -> str:
        n = int(m.group(2))
        return f"{NUMBER_WORDS.get(n, str(n))} {_plural(m.group(1))}"

    out = COUNTED.sub(counted, request)
    return TIMES.sub(lambda m: " twice" if m.group(1) == "2" else f" {NUMBER_WORDS.get(int(m.group(1)), m.group(1))} times", out)


def _ordinal_phrase(base: str, ordinal: str) -> str:
    """``the cabin class to book a flight`` + second -> ``the cabin class to book the second flight``."""
    _, to, rest = base.partition(" to ")
    found = list(ARTICLE.finditer(rest)) if to else []
    if found:
        m = found[-1]
        head = base[: len(base) - len(rest)]
        return f"{head}{rest[: m.start()]} the {ordinal} {rest[m.end():]}"
    return f"{base}, the {ordinal} one"


def plain_phrase(phrase: str, phrases: list[str]) -> str:
    """A requirement's name without the adapter's ordinal label; ``phrases``: all of the intent's
    (a phrase whose twin carries "(second)" is the first)."""
    m = ORDINAL.search(phrase)
    if m is not None:
        n = int(m.group(2)) if m.group(2) else {"first": 1, "second": 2, "third": 3}[m.group(1)]
        return _ordinal_phrase(phrase[: m.start()], ORDINAL_WORDS.get(n, f"number {n}"))
    if any(ORDINAL.search(p) and p[: ORDINAL.search(p).start()] == phrase for p in phrases):  # type: ignore[union-attr]
        return _ordinal_phrase(phrase, "first")
    return phrase


def _hidden(phrase: str, target: Requirement) -> str:
    """Another requirement's name with the target's value replaced by a plain pointer ("the
    cabin class for reservation ABC123" -> "... for that reservation") when the card hides it."""
    value = re.compile(rf"(?<![\w#]){re.escape(target.spoken)}(?!\w)")
    if not target.spoken or not value.search(phrase):
        return phrase
    head = []
    for word in target.spoken.split():
        if any(ch.isdigit() for ch in word):
            break
        head.append(word)
    return value.sub(("that " + " ".join(head)) if head else "it", phrase)


#: the classes whose target's true value must not appear in the text
HIDES_TARGET = (ExtractionClass.substituted, ExtractionClass.withheld, ExtractionClass.marked)


def writer_view(brief: WriterBrief, hide: bool = True) -> WriterBrief:
    """The brief as the writer's prompt shows it: plain request, plain requirement names,
    customer's ways of saying values only (no internal ids); with ``hide``, other requirements'
    names point at a target whose value the card hides instead of stating it."""
    phrases = [r.phrase for r in brief.requirements]
    target = brief.requirement(brief.target)
    cls = fault_type(brief.fault_type).extraction
    hides = hide and target is not None and (cls in HIDES_TARGET or brief.fault_type == "lexical_ambiguity")
    reqs = []
    for r in brief.requirements:
        phrase = plain_phrase(r.phrase, phrases)
        if hides and r.slot != brief.target:
            phrase = _hidden(phrase, target)  # type: ignore[arg-type]
        says = [s for s in r.says if not INTERNAL.search(s)]
        reqs.append(r.model_copy(update={"phrase": phrase, "says": says}))
    materials = brief.materials
    if materials.companion and LABELS.search(materials.companion):  # "the other (second)": a name's label, not a thing
        companion = LABELS.sub("", materials.companion).strip()
        materials = materials.model_copy(update={"companion": companion + " one" if companion.endswith("other") else companion})
    return brief.model_copy(update={"request": plain_request(brief.request), "requirements": reqs, "materials": materials})


def shared_value(brief: WriterBrief) -> list[Requirement]:
    """The other requirements that have the target's value (one value, two requirements)."""
    target = brief.requirement(brief.target)
    if target is None:
        return []
    return [r for r in brief.requirements if r.slot != target.slot and r.spoken.lower() == target.spoken.lower()]
