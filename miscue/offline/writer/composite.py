"""Composites (DESIGN section 7): k faults in one message, and the second pass.

``write_composite(briefs)`` realises k components in one message: each brief is one component
(its fault type, assigned target and materials; all share the request and the requirements),
set up on one :class:`~miscue.offline.writer.message.Message` by the single-fault operations.
``write_transform(text, briefs)`` is the second, transformation-only pass: it applies the
whole-message components (off-topic chatter in front, the requests recast as a situation) to an
already written message. Like a real model, the second pass sometimes slips: for about one text
in four it paraphrases the message from the requirements it was shown instead of keeping it
verbatim, which silently repairs the content faults (the composite verifier must catch that).
"""

from __future__ import annotations

import hashlib
import re

from miscue.briefs import WriterBrief
from miscue.errors import BadInput, UnknownFaultType
from miscue.offline.writer.chatter import passage
from miscue.offline.writer.message import Message
from miscue.offline.writer.says import Told
from miscue.offline.writer.single import OPERATIONS, apply, write_plain
from miscue.offline.writer.voice import Voice, cap, words_of

_CONTENT_ONLY = frozenset(OPERATIONS) - {"contextual_irrelevance", "indirect_intent"}


def _check(briefs: list[WriterBrief]) -> None:
    if not briefs:
        raise BadInput("a composite needs at least one component")
    for b in briefs:
        if b.fault_type not in OPERATIONS:
            raise UnknownFaultType(f"the offline writer has no card for fault type {b.fault_type!r}")


def _salt(briefs: list[WriterBrief]) -> str:
    return "|".join(f"{b.fault_type}:{b.target}:{b.materials.model_dump_json()}" for b in briefs)


def write_composite(briefs: list[WriterBrief]) -> str:
    """One message carrying every component of ``briefs`` (one brief per component)."""
    _check(briefs)
    base = briefs[0].model_copy(update={"target": None, "fault_type": "none"})
    v = Voice(base, salt=_salt(briefs))
    m = Message(base, v, Told(base, v))
    for b in briefs:
        apply(m, b)
    return m.text()


def slips(text: str, attempt: int) -> bool:
    """Whether this second pass paraphrases instead of transforming (deterministic, ~1 in 4)."""
    digest = hashlib.sha256(f"{attempt}|{text}".encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 4 == 0


def _mentions(text: str, needle: str) -> bool:
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text, re.IGNORECASE) is not None


def _restated(brief: WriterBrief, text: str) -> str:
    """The message paraphrased from the requirements it was shown: every one the text mentions,
    with its true value (mistakes, pointers, added details and premises are lost)."""
    shown = [r for r in brief.requirements if _mentions(text, r.spoken) or any(_mentions(text, s) for s in r.says[:6])
             or any(_mentions(text, p.say) for p in r.parts)]
    return write_plain(brief.model_copy(update={"requirements": shown, "fault_type": "none", "target": None}))


#: the request frames this writer uses, recast as what the customer has been meaning to do
_RECAST = (
    (re.compile(r"^(?:Hi|Hello|Hi there|Hey),\s+", re.I), ""),
    (re.compile(r"^(?:I'd|I would) (?:also )?like to (.+?)[.?!]$", re.I), r"I've been meaning to \1."),
    (re.compile(r"^(?:I|I also) (?:need|want) to (.+?)[.?!]$", re.I), r"I've been meaning to \1."),
    (re.compile(r"^(?:Could|Can|Would) you (?:please |also )?(.+?)(?: for me)?[.?!]$", re.I), r"I was told someone could \1."),
    (re.compile(r"^Can I (.+?)[.?!]$", re.I), r"I was told I could \1."),
    (re.compile(r"^(?:And |Separately, )?please (.+?)[.?!]$", re.I), r"The plan was to \1."),
    (re.compile(r"^On top of that, I want to (.+?)[.?!]$", re.I), r"On top of that, I've been meaning to \1."),
    (re.compile(r"^(.+?), please[.?!]$", re.I), lambda m: f"The idea was to {m[1][:1].lower()}{m[1][1:]}."),
    # (the verb kept: "Put the difference on my gift card." -> "The plan was to put the difference ...")
    (re.compile(r"^(Put|Use|Charge) (.+?)[.?!]$", re.I), lambda m: f"The plan was to {m[1].lower()} {m[2]}."),
    (re.compile(r"^(?:I'm|I am) looking for (.+?)[.?!]$", re.I), r"A friend of mine swears by \1."),
    (re.compile(r"^(?:Do you have|Can you find me) (.+?)[.?!]$", re.I), r"A friend of mine swears by \1."),
    (re.compile(r"^I need (.+?)[.?!]$", re.I), r"A friend of mine swears by \1."),
)


def _situation(text: str) -> str:
    """The message recast as a situation that asks for nothing: each request frame of this
    writer becomes what the customer meant to do; other sentences stay verbatim."""
    out = []
    for s in re.split(r"(?<=[.!?])\s+", text.strip()):
        for pattern, repl in _RECAST:
            if pattern.search(s):
                s = pattern.sub(repl, s)
                if pattern.pattern.startswith("^(?:Hi|"):
                    continue
                break
        s = re.sub(r"\bplease\b\s*", "", s, flags=re.I).strip()
        if s and s not in ("Thanks!", "Thank you.", "Thanks so much.", "Thanks in advance.", "Thank you!"):
            out.append(cap(s) if not s[0].isupper() else s)
    return " ".join(out)


def write_transform(text: str, briefs: list[WriterBrief], keep: list[str] | None = None) -> str:
    """The second pass: apply only the whole-message components of ``briefs`` to ``text``,
    keeping every value and every mistake verbatim (``keep`` lists them; this writer keeps the
    text's own words anyway, except when it slips)."""
    _check(briefs)
    types = {b.fault_type for b in briefs}
    if types & _CONTENT_ONLY:
        raise BadInput(f"the transformation pass applies whole-message faults only, got {sorted(types & _CONTENT_ONLY)}")
    base = briefs[0]
    v = Voice(base, salt=_salt(briefs) + "|" + text)
    out = text.strip()
    if slips(out, max(0, base.attempt)):
        out = _restated(base, out)
    if "indirect_intent" in types:
        out = _situation(out)
    noise = next((b for b in briefs if b.fault_type == "contextual_irrelevance"), None)
    if noise is not None:
        avoid = [r.spoken for r in base.requirements] + [s for r in base.requirements for s in r.says] + list(keep or [])
        out = passage(v, noise.materials.off_topic, words_of(out), avoid) + " " + out
    return out
