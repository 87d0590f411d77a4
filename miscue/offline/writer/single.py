"""The eleven operations: how the offline writer realises one fault type in one message.

``write(brief)`` says the request the way the host's customers do (:mod:`.message`) and makes
the card's flaw the way people make it: a wrong value in the value's own place, a requirement
simply not said, a pointer to something the agent never heard ("the card I used last time"), a
comparative instead of the value ("a size up"), a word the host's data make fit two values, a
modifier that can attach to two things, chatter in front, a situation described instead of a
request, a detail nobody needed, a false premise with a fallback, the wrong operation asked for.
Every choice is seeded by the brief and its attempt (:class:`~.voice.Voice`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from miscue.briefs import Materials, Requirement, WriterBrief
from miscue.errors import UnknownFaultType
from miscue.offline.writer.message import Message, acts_of
from miscue.offline.writer.phrases import option_phrase
from miscue.offline.writer.says import Told, bag_counts
from miscue.offline.writer.syntax import attach
from miscue.offline.writer.voice import Voice, cap, low

DEFAULT_POINTER = "the usual one"
DEFAULT_VAGUE = "a reasonable one"

#: a premise that a value cannot be had (or was already dealt with), by the requirement's kind
_GONE = ("I know {x} is sold out", "I saw that {x} is out of stock", "apparently {x} isn't available anymore",
         "I know you're out of {x}", "it looks like {x} is sold out")
_PREMISES = {
    "payment": ("I know {x} has expired", "{x} was declined last time", "I know {x} is frozen at the moment",
                "apparently {x} can't be used anymore"),
    "order": ("I know {x} has already been processed", "apparently {x} was already handled"),
    "reservation": ("I know {x} was already cancelled", "apparently {x} has already been changed"),
    "address": ("I know {x} isn't accepted anymore", "apparently you can't deliver to {x}"),
    "reason": ("I know \"{x}\" isn't accepted as a reason", "apparently \"{x}\" isn't an option anymore"),
    "items": ("I know {x} can't be sent back anymore", "apparently {x} isn't eligible anymore"),
    "flights": ("I know {x} are fully booked", "apparently {x} are full"),
    "passengers": ("I know {x} can't be added anymore",),
    "price": ("I know there is nothing available {x}", "apparently {x} isn't an option anymore"),
    "amount": ("I know {x} certificates aren't offered anymore",),
    "cabin": ("I know {x} is fully booked on those flights", "apparently {x} is full", "I saw that {x} is sold out"),
    "bags": ("I know {x} isn't allowed on my fare", "apparently {x} isn't possible on this fare",
             "I was told {x} isn't allowed anymore"),
}


def premise(r: Requirement, v: Voice, fallback: str | None = None) -> str:
    """A clause taking for granted that the requirement's true value cannot be had, naming that
    value in a form without commas (a premise ends at its clause)."""
    kind = r.role.kind
    forms = [f for f in [r.spoken, *r.says] if "," not in f and "_" not in f and not f.strip().isdigit()] or [r.spoken]
    x = v.pick(forms[:4])
    if kind == "option":
        x = option_phrase(r.role.noun, x, v)
        low_x = x.lower()
        if low_x.startswith("no "):
            x = f"the ones with {x}"
        elif low_x.startswith(("without ", "with ", "in ")):  # "the ones in white" (was "in white is sold out")
            x = f"the ones {x}"
        elif low_x.startswith(("not ", "non ")):
            x = f"the {x} ones"
    elif kind == "bags":  # "taking 2 checked bags", "travelling with no bags" (never "without checked bags isn't")
        x = v.pick(bag_counts(r, [r.spoken, *r.says]) or [x])
        x = f"travelling with {x}" if x.startswith("no ") else f"taking {x}"
    elif kind in ("items", "flights", "passengers") and r.parts:
        gone = [p for p in r.parts if fallback is None or p.say.lower() not in fallback.lower()] or r.parts
        x = " and ".join(f"the {p.say}" if kind == "items" else p.say for p in gone)
    said = v.pick(_PREMISES.get(kind, _GONE)).format(x=x)
    if kind == "flights" and " and " not in x:  # one flight: "I know HAT080 is fully booked"
        said = re.sub(r"\bare\b", "is", said, count=1)
    if x.startswith("the ") and x.endswith(" ones") or x.startswith("the ones "):  # "the ones with no backlight are"
        said = re.sub(r"\b(is|isn't|was)\b", lambda m: {"is": "are", "isn't": "aren't", "was": "were"}[m.group(1)], said, count=1)
    return said


def _told(brief: WriterBrief, v: Voice) -> Told:
    return Told(brief, v)


def write_plain(brief: WriterBrief) -> str:
    """The request and every requirement, stated accurately (no fault)."""
    v = Voice(brief)
    return Message(brief, v, _told(brief, v)).text()


def stand_in(fault_type: str, materials: Materials) -> tuple[str, str] | None:
    """How the four faults that replace the target's value say it: ("as", a value said as one:
    the wrong value, the word with two senses) or ("stand_in", a phrase standing for it: the
    pointer, the vague description); None when the fault replaces no value or lacks its material."""
    if fault_type == "factual_error":
        return ("as", materials.wrong_value) if materials.wrong_value else None
    if fault_type == "lexical_ambiguity":
        return ("as", materials.ambiguous_word) if materials.ambiguous_word else None
    if fault_type == "referential_ambiguity":
        return "stand_in", materials.pointer or DEFAULT_POINTER
    if fault_type == "vagueness_subjectivity":
        return "stand_in", materials.vague_word or DEFAULT_VAGUE
    return None


def apply(m: Message, brief: WriterBrief) -> None:
    """Set up one component of ``brief`` (its fault type, target and materials) on a message."""
    t, mat, ft, v = brief.requirement(brief.target), brief.materials, brief.fault_type, m.v
    replaced = stand_in(ft, mat)
    if replaced is not None and t is not None:
        how, words = replaced
        (m.told.say_as if how == "as" else m.told.stand_in)(t.slot, words)
    elif ft == "insufficient_information" and t is not None:
        m.told.drop(t.slot)
    elif ft == "false_presupposition" and t is not None and mat.fallback:
        m.premise = premise(t, v, mat.fallback)
        m.told.say_as(t.slot, mat.fallback)
    elif ft == "syntactic_ambiguity" and t is not None:
        attach(m, t, mat.companion, mat.modifier)
    elif ft == "irrelevant_information" and mat.extra:
        m.extra, m.extra_inline = added(mat.extra, v)
    elif ft == "tool_capability_mismatch" and mat.mismatch:
        op = re.sub(r"^\W+|[.!?]+$", "", mat.mismatch.strip())
        m.verbs[mismatched_act(brief, op)] = operation(low(op), v)
    elif ft == "indirect_intent":
        m.tell = True
    elif ft == "contextual_irrelevance":
        m.chatter = mat.off_topic or ""


def added(extra: str, v: Voice) -> tuple[str, bool]:
    """An unneeded detail as a customer adds it: an aside ("By the way, I now live at ...") or,
    for a product's feature, one more thing the product must have, closing the request ("and it
    has to have an open shelf") -- never hedged ("ideally", "if possible"), as the card says: a
    wish the agent may ignore is no detail whose reading narrows the answer."""
    e = re.sub(r"^(?:by the way|btw|also|oh)[,:]?\s+", "", extra.strip().rstrip("."), flags=re.IGNORECASE)
    words = e.split()
    if len(words) > 4 or (words and words[0].lower() in ("i", "i'm", "i'll", "my", "we")):  # a statement of its own
        return v.pick((f"By the way, {low(e)}", f"Just so you know, {low(e)}", f"Oh, and {low(e)}", f"{cap(e)}, by the way",
                       f"For what it's worth, {low(e)}")), False
    if words and words[0].lower() == "in":
        return v.pick((e, f"and {e}", f"and it has to be {e}")), True
    if words and words[0].lower() in ("with", "without"):
        return v.pick((e, f"and {e}", f"and it has to come {e}")), True
    return v.pick((f"with {e}", f"and with {e}", f"and it has to have {e}")), True


def operation(op: str, v: Voice) -> str:
    """The wrong operation in a customer's words: changing a delivered order's items is asked as
    modifying it ("modify the items of order #W1")."""
    m = re.match(r"change the items of (.+)$", op)
    if m:
        return v.pick((f"modify the items of {m.group(1)}", f"modify {m.group(1)}", f"modify the items in {m.group(1)}"))
    return op


def mismatched_act(brief: WriterBrief, operation: str) -> str:
    """The act a wrong operation replaces: the one whose order or reservation it names, else the first."""
    acts = acts_of(brief)
    for act in acts:
        for r in brief.requirements:
            if r.role.act == act.label and r.role.kind in ("order", "reservation"):
                ids = [w for w in re.findall(r"#?\w+", r.spoken) if any(c.isdigit() for c in w)]
                if any(i in operation for i in ids):
                    return act.label
    return acts[0].label


_OPS: dict[str, Callable[[Message, WriterBrief], None]] = {t: apply for t in (
    "indirect_intent", "contextual_irrelevance", "factual_error", "false_presupposition", "tool_capability_mismatch",
    "insufficient_information", "irrelevant_information", "lexical_ambiguity", "syntactic_ambiguity",
    "referential_ambiguity", "vagueness_subjectivity")}

OPERATIONS = tuple(_OPS)  # the fault types this writer realises


def write(brief: WriterBrief) -> str:
    """The opening message carrying the brief's planned fault (``"none"``: no fault)."""
    if brief.fault_type in ("none", ""):
        return write_plain(brief)
    op = _OPS.get(brief.fault_type)
    if op is None:
        raise UnknownFaultType(f"the offline writer has no card for fault type {brief.fault_type!r}")
    v = Voice(brief)
    m = Message(brief, v, _told(brief, v))
    op(m, brief)
    return m.text()
