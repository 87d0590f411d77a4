"""How one value is put in English by the offline writer: an item's option as a modifier ("size 8",
"clicky switches", "not waterproof") placed around "one" ("a full-size one in black with clicky
switches"), a product's features before or after it ("squat proof leggings for running"), a
cancellation reason as the clause a customer gives it in ("I ordered it by mistake")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from miscue.offline.writer.voice import Voice, join


#: option names said after their value ("clicky switches", "16GB RAM"); colours and the like
#: are said alone ("black"), sizes before it ("size 8")
_BARE = {"color", "colour", "material", "style", "type", "brand", "features", "design", "theme", "flavor", "flavor name",
         "scent", "finish", "pattern"}
_HEADS = {"switch type": "switches", "lens type": "lenses", "power source": "power", "filter type": "filter",
          "difficulty level": "difficulty", "scent family": "scent", "battery type": "batteries", "piece count": "",
          "ram": "RAM", "compatibility": "compatibility", "strap material": "strap", "dial color": "dial",
          "deck material": "deck", "bagged/bagless": "", "backrest height": "backrest", "cover type": "cover"}
_FOR_WORDS = {"hair", "skin", "room", "sleep", "kids", "men", "women", "travel", "gaming", "office", "outdoor", "outdoors",
              "digestion", "energy", "acne", "relaxation", "immunity", "running", "workout", "hiking", "baby"}
_ADJ_ENDINGS = ("free", "proof", "lined", "resistant", "fit", "friendly", "weight", "less", "ed", "ic", "able", "ible", "al",
                "lasting", "dry", "waist", "sleeve", "grade", "gmo", "duty", "soft", "wide", "long", "izing", "ising")
_ADJECTIVES = {"vegan", "kosher", "organic", "pullover", "ergonomic", "industrial", "cordless", "portable", "foldable",
               "whole bean", "loose leaf", "fair trade", "non-gmo", "non gmo", "unscented", "natural", "wireless", "bluetooth",
               "mild", "spicy", "sleepy", "soothing", "calming"}

@dataclass(frozen=True)
class Mod:
    """An item's wanted option as a modifier, by where it goes in "a full-size one in black with
    clicky switches that's not waterproof": ``adj`` before "one", ``in`` / ``with`` after it,
    ``that`` in a closing clause, ``post`` right after ("without a backlight")."""

    text: str
    role: str


IN_NAMES = {"color", "colour", "size", "material", "finish", "shade", "pattern"}


def option_mod(name: str, form: str, v: Voice) -> Mod:
    """An option value as a modifier of its item (see :class:`Mod`)."""
    f = form.strip()
    low = f.lower()
    if low.startswith("no "):
        return Mod(f, "with")
    if low.startswith("without "):
        return Mod(f, "post")
    if low.startswith(("not ", "non ", "non-")):
        return Mod(f, "that")
    text = option_phrase(name, f, v)
    if text.lower().startswith("size "):
        return Mod(text, "in")
    if name in IN_NAMES and text == f:
        return Mod(text, v.pick(("in", "adj")) if name != "size" else "adj")
    if text != f or name.split()[-1] in low.split()[-1:] and len(low.split()) > 1:
        return Mod(text, "with")  # a noun phrase: "clicky switches", "RGB backlight", "16GB RAM"
    return Mod(text, "adj")


def one(mods: Sequence[Mod], article_: bool = True) -> str:
    """An item described by its modifiers: "a full-size one with clicky switches and no backlight"."""
    adjs = [m.text for m in mods if m.role == "adj"]
    ins = [m.text for m in mods if m.role == "in"]
    withs = [m.text for m in mods if m.role == "with"]
    posts = [m.text for m in mods if m.role == "post"]
    thats = [m.text for m in mods if m.role == "that"]
    if adjs:
        head = ", ".join(adjs) + " one"
        head = (("an " if head[:1].lower() in "aeio" else "a ") + head) if article_ else head
    else:
        head = "one"
    if ins:
        head += " in " + join(ins)
    if withs:
        head += " with " + join(withs)
    if posts:
        head += " " + join(posts)
    if thats:
        head += " that's " + join(thats)
    return head


def option_phrase(name: str, form: str, v: Voice) -> str:
    """An option value said as a modifier that reads alone in a list: "size 8", "not waterproof",
    "clicky switches", "16GB RAM", "black"."""
    name_l = name.lower()
    f = form.strip()
    fw = set(re.findall(r"[a-z0-9]+", f.lower()))
    nw = set(re.findall(r"[a-z0-9]+", name_l))
    if fw & nw or any(w.startswith(n) for w in fw for n in nw if len(n) > 3) or name_l in _BARE \
            or f.lower().startswith(("no ", "not ", "non ", "without ", "with ")):
        return f
    if name_l == "size" or name_l.endswith(" size") and re.match(r"^\d", f):
        return f"size {f}" if name_l == "size" else f
    head = _HEADS.get(name_l, name_l)
    return f"{f} {head}".strip() if head else f


def feature_role(text: str) -> str:
    """How a product feature is said: "adj" (before the product: "squat proof leggings"), "for"
    ("for dry hair"), "that" ("that won't chip") or "with" ("with storage")."""
    t = text.lower().strip()
    last = t.split()[-1] if t.split() else t
    if t.split()[:1] and t.split()[0] in ("wont", "won't", "will", "doesnt", "doesn't", "does", "can", "cant", "can't"):
        return "that"
    if last in _FOR_WORDS:
        return "for"
    if t in _ADJECTIVES or last.endswith(_ADJ_ENDINGS) and not t.startswith(("with ", "no ")):
        return "adj"
    return "with"


def feature_forms(forms: Sequence[str]) -> list[str]:
    """The forms a feature may be said in: a plural only of a feature that is a thing ("with side
    pockets"), never of one said as an adjective or a purpose ("koshers", "for sensitive skins")."""
    head, _, last = forms[0].lower().rpartition(" ")
    if feature_role(forms[0]) == "with" or last.endswith("s"):
        return list(forms)

    def plural(form: str) -> bool:  # "koshers" of "kosher", "quick dries" of "quick dry"
        h, _, w = form.lower().rpartition(" ")
        return h == head and w.endswith("s") and w[:len(last) - 1] == last[:-1]
    return [f for f in forms if not plural(f)]


def features(items: Sequence[str], v: Voice) -> tuple[list[str], list[str], list[str]]:
    """Product features split into (adjectives, with-phrases, for-phrases)."""
    adj: list[str] = []
    with_: list[str] = []
    for_: list[str] = []
    for f in items:
        role = feature_role(f)
        if role == "adj" and len(adj) < 2:
            adj.append(f)
        elif role == "that":
            with_.append(f)
        elif role == "for":  # said after the one "for" of the list: "for dry hair", never "for for dry hair"
            for_.append(f[4:] if f.lower().startswith("for ") else f)
        else:
            with_.append(f[5:] if f.lower().startswith("with ") else f)
    return adj, with_, for_


#: heads of nouns that are counted, not measured, though named in the singular ("eyeshadow
#: palette", "wireless mouse": "I need a wireless mouse", never "I need wireless mouse")
COUNTED = {"palette", "mouse", "keyboard", "case", "stool", "chair", "lamp", "frame", "speaker", "cable", "bottle", "backpack",
           "jacket", "dress", "shirt", "hoodie", "mirror", "pillow", "monitor", "camera", "watch", "mattress", "kettle",
           "blender", "toaster", "rug", "tent", "umbrella", "wallet", "belt", "hat", "helmet", "bag", "desk", "table"}

_REASONS = (
    (("no longer need", "dont need", "don't need", "do not need"), ("I {f} it", "I {f} it anymore", "I {f} it any more")),
    (("changed my mind",), ("I {f}", "I've {f}")),
    (("ordered by mistake", "ordered it wrong"), ("I {f}", "I {f}, honestly")),
    (("by mistake", "by accident", "accidentally", "mistakenly", "in error"), ("I ordered it {f}", "it was ordered {f}",
                                                                               "I placed it {f}")),
    (("no longer needed", "not needed", "no longer necessary", "not necessary", "not needed anymore"), ("it's {f}",)),
    (("didnt mean to", "didn't mean to", "did not mean to"), ("I {f} order it", "I {f} place that order")),
    (("no use for",), ("I have {f} it",)),
    (("no need",), ("I have {f} for it",)),
    (("no longer want", "dont want", "don't want"), ("I {f} it", "I {f} it anymore")),
)


def reason_clause(form: str, v: Voice) -> str:
    """A cancellation reason as the clause a customer gives it in ("I ordered it by mistake")."""
    f = form.strip()
    low = f.lower()
    for starts, templates in _REASONS:
        if any(low.startswith(s) or low == s for s in starts):
            if low.startswith("ordered by mistake") and "it" not in low:
                return v.pick(("I ordered it by mistake", "I placed it by mistake"))
            return v.pick(templates).format(f=f)
    return f"it's {f}"
