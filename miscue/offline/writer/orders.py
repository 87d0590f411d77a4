"""Sentence plans for an online store's orders: cancel, return, exchange, change the items,
the address or the payment of a pending order, update the default address.

Each plan says one act two ways: as a request (``ask``) and as a situation that asks for
nothing (``tell``, for indirect intent). Plans take the act's requirements from a
:class:`~miscue.offline.writer.says.Told` (so a left-out requirement simply is not said, a
replaced one is said in its place) and return sentences.
"""

from __future__ import annotations

import re

from miscue.briefs import Act, Requirement
from miscue.offline.writer.phrases import Mod, one
from miscue.offline.writer.says import Told
from miscue.offline.writer.voice import Voice, cap, join, low, sentence

#: how a request is framed around its verb phrase (the first act of a message)
ASK = ("I'd like to {vp}.", "Could you {vp}?", "Can you please {vp}?", "I need to {vp}.", "Please {vp}.", "I want to {vp}.",
       "Would you {vp} for me?", "{VP}, please.", "Can I {vp}?", "I would like to {vp}.")
#: how a further act is framed
ASK_MORE = ("I'd also like to {vp}.", "I also need to {vp}.", "And please {vp}.", "Could you also {vp}?",
            "On top of that, I want to {vp}.", "Separately, please {vp}.")


def frame(vp: str, v: Voice, first: bool = True) -> str:
    t = v.pick(ASK if first else ASK_MORE)
    return t.replace("{VP}", cap(vp)).replace("{vp}", vp)


def spec(told: Told, act: str, part: int) -> list[Mod]:
    """The wanted options of one item of an act, as modifiers ("size 8", "not waterproof")."""
    return [told.mod(r) for r in told.of(act, "option") if r.role.part == part and not told.dropped(r.slot)]


def _listed(mods: list[Mod]) -> str:
    return join([m.text for m in mods])


def _for(mods: list[Mod], v: Voice) -> str:
    """What an item is exchanged for: "for a full-size one with clicky switches"."""
    if not mods:
        return v.pick(("for a new one", "for a replacement", "for a different one"))
    if mods[0].role in ("post", "that"):  # never "for without a backlight, ...": the modifiers go after "one"
        return f"for {one(mods)}"
    return v.pick((f"for {one(mods)}", f"for {one(mods)}", f"for a new one: {_listed(mods)}", f"for {_listed(mods)}"))


def _to(mods: list[Mod], v: Voice) -> str:
    """What an item of a pending order is changed to: "to size 8, not waterproof"."""
    if not mods:
        return v.pick(("to a different version", "to another version"))
    if mods[0].role in ("post", "that"):
        return v.pick((f"to {one(mods)}", f"so it's {one(mods)}"))
    return v.pick((f"to {_listed(mods)}", f"to {one(mods)}", f"to {_listed(mods)} instead", f"so it's {one(mods)}"))


def _things(told: Told, act: str) -> tuple[Requirement | None, list[str]]:
    items = told.one(act, "items")
    if items is None:
        return None, []
    if told.dropped(items.slot):
        n = max(1, len(items.parts))
        return items, ["an item" if n == 1 else "a couple of items"]
    if told.how(items.slot) != "value":
        return items, [told.said(items) or "it"]
    return items, [f"the {told.item(items, i)}" for i in range(len(items.parts))]


def _pending(act: Act) -> str:
    """A pending order the customer does not name: the second of a kind is "my other" one
    ("cancel my pending order ... also cancel my other pending order")."""
    return "my other pending order" if "#" in act.label else "my pending order"


def _from(order: str | None, v: Voice) -> str:
    if not order:
        return v.pick(("from my recent order", "from one of my orders", "from an order that came last week", ""))
    return v.pick((f"from {order}", f"in {order}", f"from {order}"))


def _pay_line(kind: str, pay: str | None, v: Voice, tell: bool = False) -> str:
    if not pay:
        return ""
    if tell:
        t = {"return": ("The refund would go back to {p}.", "{P} is where the money came from.", "Any refund goes to {p}."),
             }.get(kind, ("{P} can cover any difference.", "Any difference would go on {p}.", "{P} is what I pay with."))
    else:
        t = {"return": ("Please refund it to {p}.", "The refund should go back to {p}.", "Refund to {p}, please.",
                        "I'd like the money back on {p}."),
             }.get(kind, ("Put any difference on {p}.", "Please charge or refund the difference to {p}.",
                          "Use {p} for the price difference.", "Any difference can go on {p}.",
                          "{P} for any difference, please."))
    return v.pick(t).replace("{P}", cap(pay)).replace("{p}", low(pay))


def items_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    """Return, exchange or change the items of an order."""
    a = act.label
    order = told.said(told.one(a, "order"))
    pay = told.said(told.one(a, "payment"))
    items, names = _things(told, a)
    new = act.kind in ("exchange", "modify_items")
    n = len(items.parts) if items is not None and items.parts else 1
    specs = [spec(told, a, i) for i in range(n)] if new else []
    wants = [(_for(m, v) if act.kind == "exchange" else _to(m, v)) for m in specs]
    if verb is not None:  # the operation the customer asks for instead, naming the order and items it lacks
        missing = [n for n in names if n.lower() not in verb.lower()]
        vp = verb if not missing else f"{verb} - {join(missing)}"
        ids = [w for w in re.findall(r"#?\w+", order or "") if any(c.isdigit() for c in w)]
        if order and not any(i in verb for i in ids):
            vp = f"{vp} {_from(order, v)}".strip()
    elif act.kind == "return":
        vp = f"{v.pick(('return', 'return', 'send back'))} {join(names) or 'some items'} {_from(order, v)}".strip()
    elif act.kind == "exchange":
        vp = f"{v.pick(('exchange', 'exchange', 'swap'))} {join(names) or 'an item'} {_from(order, v)}".strip()
    else:
        place = (f"in my pending {order[3:] if order.lower().startswith('my ') else order}" if order
                 else f"in {_pending(act)}")
        vp = f"{v.pick(('change', 'change', 'switch'))} {join(names) or 'an item'} {place}"
    out = []
    if new and n == 1 and wants and verb is None:
        out.append(frame(f"{vp} {wants[0]}", v, first))
    else:
        out.append(frame(vp, v, first))
        if new and wants:
            lines = [f"{name} {want}" for name, want, m in zip(names, wants, specs) if m] if len(names) == n else wants
            if lines:
                out.append(sentence(v.pick(("Specifically, ", "That is, ", "To be exact, ")) + join(lines, oxford=True)))
    if line := _pay_line(act.kind, pay, v):
        out.append(line)
    return out


def items_tell(act: Act, told: Told, v: Voice) -> list[str]:
    a = act.label
    order = told.said(told.one(a, "order"))
    pay = told.said(told.one(a, "payment"))
    items, names = _things(told, a)
    what = join(names) or "something"
    where = f" from {order}" if order else ""
    out = []
    if act.kind == "return":
        is_, it = ("are", "them") if len(names) > 1 or what.startswith("a couple of") else ("is", "it")
        out.append(v.pick((f"{cap(what)}{where} just didn't work out for me.",
                           f"I've decided {what}{where} {is_}n't for me after all.",
                           f"Honestly, {what}{where} turned out to be a disappointment, so I'm done with {it}.")))
    else:
        n = len(items.parts) if items is not None and items.parts else 1
        specs = [spec(told, a, i) for i in range(n)]
        if n == 1:
            thing = what[4:] if what.startswith("the ") else what
            out.append(v.pick((f"The {thing}{where} isn't the version I meant to get.",
                               f"I ended up with the wrong version of {what}{where}.")))
            if specs[0]:
                out.append(v.pick((f"The one I had in mind is {one(specs[0])}.", f"What I really wanted was {one(specs[0])}.",
                                   f"It was supposed to be {_listed(specs[0])}.")))
        else:
            out.append(f"A couple of things{where} aren't what I meant to get.")
            for name, mods in zip(names, specs):
                if mods:
                    out.append(sentence(f"For {name}, I really wanted {one(mods)}"))
    if line := _pay_line(act.kind, pay, v, tell=True):
        out.append(line)
    return out


def cancel_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    order = told.said(told.one(act.label, "order"))
    reason = told.said(told.one(act.label, "reason"))
    vp = verb or f"cancel {order or _pending(act)}"
    text = frame(vp, v, first)
    if reason:
        style = v.pick(("comma", "because", "sentence"))
        if style == "comma":
            text = text[:-1] + f" - {reason}" + text[-1]
        elif style == "because":
            text = text[:-1] + f" because {reason}" + text[-1]
        else:
            text += " " + sentence(v.pick((f"{reason}", f"Honestly, {reason}", f"The thing is, {reason}")))
    return [text]


def cancel_tell(act: Act, told: Told, v: Voice) -> list[str]:
    named = told.said(told.one(act.label, "order"))
    order = named or _pending(act)
    reason = told.said(told.one(act.label, "reason"))
    still = [f"{cap(order)} is still pending."] if named else []  # never "my pending order is still pending"
    out = [v.pick((f"{cap(order)} hasn't shipped yet.", *still, f"I placed {order} a few days ago."))]
    if reason:
        out.append(sentence(v.pick((f"{reason}", f"The thing is, {reason}", f"Since then, {reason}"))))
    return out


def address_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    address = told.said(told.one(act.label, "address"))
    if act.kind == "update_address":
        if verb:
            return [frame(verb, v, first)]
        if not address:
            return [frame("update my address", v, first)]
        moved = v.pick((f"I've moved to {address}", f"I moved to {address}", f"I recently moved to {address}"))
        return [sentence(moved), frame(v.pick(("update my account", "update the address on my account", "update it")), v, first)]
    order = told.said(told.one(act.label, "order"))
    target = order or _pending(act)
    if verb:
        vp = verb
    elif address:
        vp = v.pick((f"ship {target} to {address} instead", f"send {target} to {address}", f"ship {target} to {address}"))
    else:
        vp = f"change the shipping address of {target}"
    return [frame(vp, v, first)]


def address_tell(act: Act, told: Told, v: Voice) -> list[str]:
    address = told.said(told.one(act.label, "address"))
    if act.kind == "update_address":
        return [v.pick((f"My address on file is out of date; these days I'm at {address}.",
                        f"I don't live at the old place anymore, my home is {address} now."))] if address else []
    order = told.said(told.one(act.label, "order")) or _pending(act)
    return [v.pick((f"{cap(order)} is set to go to my old place, but I'm at {address} now." if address else
                    f"{cap(order)} is set to go to my old place.",
                    f"{cap(order)} should really be going to {address}." if address
                    else f"{cap(order)} is going to the wrong place."))]


def payment_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    order = told.said(told.one(act.label, "order")) or _pending(act)
    pay = told.said(told.one(act.label, "payment"))
    vp = verb or (v.pick((f"switch the payment on {order} to {pay}", f"pay for {order} with {pay} instead",
                          f"change the payment method of {order} to {pay}")) if pay else f"change the payment method of {order}")
    return [frame(vp, v, first)]


def payment_tell(act: Act, told: Told, v: Voice) -> list[str]:
    order = told.said(told.one(act.label, "order")) or _pending(act)
    pay = told.said(told.one(act.label, "payment"))
    return [f"{cap(pay)} is what I'd rather have {order} charged to." if pay
            else f"The payment on {order} is not the one I meant."]


ORDER_PLANS = {
    "cancel": (cancel_ask, cancel_tell), "return": (items_ask, items_tell), "exchange": (items_ask, items_tell),
    "modify_items": (items_ask, items_tell), "modify_address": (address_ask, address_tell),
    "update_address": (address_ask, address_tell), "modify_payment": (payment_ask, payment_tell),
}
