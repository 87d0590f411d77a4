"""Sentence plans for a shopper looking for a product: the product described the way people
type it into a store's chat ("squat proof leggings in XL, under $60"), said as a request
(``ask``) or as a situation (``tell``); see :mod:`miscue.offline.writer.orders`. An act of no
known kind is said by its request phrase with its requirements listed (:func:`plain_ask`)."""

from __future__ import annotations

from miscue.briefs import Act
from miscue.offline.writer.orders import frame
from miscue.offline.writer.phrases import COUNTED, features
from miscue.offline.writer.says import Told
from miscue.offline.writer.voice import Voice, article, join, low, sentence

_SIZE = ("size",)


def describe(act: Act, told: Told, v: Voice, single: bool = True) -> tuple[str, list[str], str | None]:
    """The product as a noun phrase with its features and options ("a squat proof ... in XL"),
    the wanted options said after it, and the price limit."""
    feats = [s for r in told.of(act.label, "feature") if (s := told.said(r))]
    adjs, withs, fors = features(feats, v)
    options = []
    for r in told.of(act.label, "option"):
        said = told.said(r)
        if not said:
            continue
        name = r.role.noun.lower()
        if told.how(r.slot) == "stand_in":
            options.append(f"in {said}" if name in ("color", "size") else f"with {said}")
        elif name == "color":
            options.append(said if said.lower().startswith("in ") else f"in {said}")
        elif name in _SIZE and not said.lower().startswith(("size", "in size")) and v.chance(0.6):
            options.append(f"size {said}")
        else:
            options.append(said)
    price = None
    for r in told.of(act.label, "price"):
        price = told.said(r)
    obj = act.object or "it"
    one = act.single or (article(obj) if obj.split()[-1:] and obj.split()[-1] in COUNTED else "")  # "a wireless mouse"
    noun = one if one and (single or one.endswith(f" {obj}")) else obj  # a category named in the singular: always "a ..."
    if adjs:
        if noun.startswith(("a ", "an ")):
            noun = article(f"{' '.join(adjs)} {noun.split(' ', 1)[1]}")
        else:
            noun = f"{' '.join(adjs)} {noun}"
    tail = [f"for {join(fors)}"] if fors else []  # "for sensitive skin with ceramides", not "with ceramides for ..."
    if withs:
        tail.append("with " + join(withs))
    return noun + ("" if not tail else " " + " ".join(tail)), options, price


def buy_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    thing, options, price = describe(act, told, v, single=v.chance(0.6))
    opts = ", ".join(options)
    desc = thing + (f", {opts}" if opts else "")
    if verb:  # a store capability asked for instead of buying
        return [frame(verb, v, first),
                sentence(v.pick(("It's for ", "I'm after ", "The item: ")) + desc + (f", {price}" if price else ""))]
    style = v.pick(("looking", "short", "find", "need", "have"))
    money = f", {price}" if price else ""
    if style == "looking":
        return [sentence(f"{v.pick(('I am', 'I am'))} looking for {desc}{money}").replace("I am", v.pick(("I'm", "I am")))]
    if style == "short":
        return [sentence(v.pick(("", "Looking for ")) + desc + money + ", please.")]
    if style == "find":
        return [f"Can you find me {desc}{money}?"]
    if style == "need":
        return [sentence(f"I need {desc}{money}")]
    return [f"Do you have {desc}{money}?"]


def buy_tell(act: Act, told: Told, v: Voice) -> list[str]:
    thing, options, price = describe(act, told, v, single=True)
    opts = ", ".join(options)
    desc = thing + (f", {opts}" if opts else "")
    out = [v.pick((f"My old one finally gave out, and what I have in mind is {desc}.",
                   f"A friend of mine swears by {desc}.", f"I've been reading reviews of {desc} all week."))]
    if price:
        out.append(v.pick((f"Anything {price} fits my budget.", f"My budget is {price}.",
                           f"Whatever I get has to be {price}.")))
    return out


def plain_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    """An act of no known kind: its request phrase, then its requirements by their values."""
    said = [s for r in told.of(act.label) if (s := told.said(r))]
    vp = verb or low(act.say) or "sort something out"
    out = [frame(vp, v, first)]
    if said:
        out.append(sentence(v.pick(("It's about ", "Details: ", "That's ")) + join(said)))
    return out


def plain_tell(act: Act, told: Told, v: Voice) -> list[str]:
    said = [s for r in told.of(act.label) if (s := told.said(r))]
    return [sentence("What matters to me here is " + join(said))] if said else []


SHOP_PLANS = {"buy": (buy_ask, buy_tell)}
