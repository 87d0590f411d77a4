"""One message, assembled: who the customer is, each act said by its sentence plan (as a
request, or as a situation for indirect intent), a premise, an added detail, a closing line,
and off-topic chatter in front when the fault asks for it.

:class:`Message` is what the fault operations (:mod:`miscue.offline.writer.single`,
:mod:`miscue.offline.writer.composite`) set up; :meth:`Message.text` says it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from miscue.briefs import Act, WriterBrief
from miscue.offline.writer.chatter import passage
from miscue.offline.writer.orders import ORDER_PLANS
from miscue.offline.writer.says import Told
from miscue.offline.writer.shop import SHOP_PLANS, plain_ask, plain_tell
from miscue.offline.writer.trips import TRIP_PLANS
from miscue.offline.writer.identity import identify
from miscue.offline.writer.voice import Voice, cap, sentence, words_of

PLANS = {**ORDER_PLANS, **TRIP_PLANS, **SHOP_PLANS}
GREETINGS = ("Hi,", "Hello,", "Hi there,", "Hey,", "", "", "")
CLOSERS = ("Thanks!", "Thank you.", "Many thanks.", "Thanks in advance.", "Appreciate it.", "Thank you!", "", "", "", "", "", "")


def greeted(greeting: str, first: str) -> str:
    """``first`` sentence opened by ``greeting`` ("Hi, can you ..."; "I" and names keep their case)."""
    keep = first.startswith(("I ", "I'")) or (len(first) > 1 and first[1].isupper())
    return f"{greeting} {first if keep else first[0].lower() + first[1:]}"


def acts_of(brief: WriterBrief) -> list[Act]:
    """The brief's acts; a brief without them has one act of no known kind (its request)."""
    return list(brief.acts) or [Act(label="", kind="", say=brief.request)]


@dataclass
class Message:
    """The parts of one message before it is said."""

    brief: WriterBrief
    v: Voice
    told: Told
    tell: bool = False  # every act as a situation (indirect intent)
    verbs: dict[str, str] = field(default_factory=dict)  # act label -> the operation asked for instead
    premise: str | None = None  # a premise taken for granted, said before the requests
    extra: str | None = None  # an added detail, as its own sentence
    extra_inline: bool = False  # the added detail closes the request sentence instead
    chatter: str | None = None  # off-topic chatter in front (its topic hint)
    before: list[str] = field(default_factory=list)  # sentences said right before the requests
    after: list[str] = field(default_factory=list)  # sentences said right after them

    def acts(self) -> list[str]:
        out: list[str] = []
        for i, act in enumerate(acts_of(self.brief)):
            ask, tell = PLANS.get(act.kind, (plain_ask, plain_tell))
            if self.tell:
                out += tell(act, self.told, self.v)
            else:
                out += ask(act, self.told, self.v, i == 0, self.verbs.get(act.label))
        for r in self.told.unsaid():  # a requirement no plan has words for: its phrase and its value
            said = self.told.said(r)
            if said:
                out.append(sentence(self.v.pick((f"For {r.phrase}, {said}", f"As for {r.phrase}, {said}",
                                                  f"{cap(r.phrase)}: {said}"))))
        return [s for s in out if s]

    def text(self) -> str:
        v = self.v
        avoid = [r.spoken for r in self.brief.requirements] + [s for r in self.brief.requirements for s in r.says]
        avoid += [p.say for r in self.brief.requirements for p in r.parts]
        who = identify(v, self.brief.identity, avoid)
        late = bool(who) and v.chance(0.2)
        if late:
            who = identify(v, self.brief.identity, avoid, late=True)
        body = list(self.before)
        if self.premise:
            body.append(sentence(self.premise))
        body += self.acts()
        body += self.after
        if self.extra:
            if self.extra_inline and body:
                last = body[-1]
                body[-1] = last[:-1].rstrip() + f", {self.extra}" + last[-1]
            else:
                body.insert(v.pick((len(body), len(body), max(1, len(body) - 1))) if body else 0, sentence(self.extra))
        closer = v.pick(CLOSERS)
        head = []
        greeting = ""
        if who and not late:
            head.append(who)
        elif not who:
            greeting = v.pick(GREETINGS)
            if greeting and body and self.chatter is None:
                body[0] = greeted(greeting, body[0])
        tail = [who] if late else []
        if closer:
            tail.append(closer)
        if self.chatter is not None:
            rest = " ".join(head + body + tail)
            chat = passage(v, self.chatter, words_of(rest), avoid + [w for r in self.brief.requirements for w in (r.role.of,)])
            # the greeting opens the message, before the off-topic passage ("Hi, my commute ..."), not
            # after it ("... on to the reason for my message. Hi there, can you ...")
            return " ".join(head + [greeted(greeting, chat) if greeting else chat] + body + tail)
        return " ".join(head + body + tail)
