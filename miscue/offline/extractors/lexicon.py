"""The lexical extractor's lexicons: general English cues, written here (nothing is imported
from the offline writer)."""

from __future__ import annotations

import re

from miscue.offline.extractors.text import BIRTH_DATE, BOOKING_NOUN

#: the kinds of operation a customer asks a service for, by the verbs that name them; verbs that
#: fit several kinds ("change", "switch", "swap", "update") name none
OPERATION_CLASSES: dict[str, re.Pattern[str]] = {
    "cancel": re.compile(r"\b(?:cancel|cancell?ing|cancell?ation|call off)\b"),
    # "the return (flight)" is a leg of a trip, not the operation
    "return": re.compile(r"(?<!the )(?<!my )(?<!a )(?<!our )\b(?:return|returning|send (?:it |them |this |these )?back)\b"
                         r"(?! (?:flight|leg|trip|date|journey)s?\b| (?:on|from|home)\b| [a-z]{2,3}\d)"),
    "exchange": re.compile(r"\b(?:exchange|exchanging|trade in)\b"),
    "modify": re.compile(r"\b(?:modify|modifying|edit the (?:items|order))\b"),
    # "the booking" is a thing, not the operation
    "book": re.compile(r"\b(?:book|" + BOOKING_NOUN + r")\b"
                       r"(?! (?:reference|code|number|id|[a-z]*\d[a-z\d]*\b))"),
}
#: store capabilities a shopper may ask for instead of finding and buying the product
STORE_OPERATIONS = re.compile(
    r"\b(?:(?:set|create|put)(?: up)?(?: me up with)? (?:a |an )?(?:price )?(?:alert|watch|notification)|price alert|"
    r"notify me|sort (?:[\w-]+ ){0,6}?by|(?:use|apply) the (?:\w+ )?filter|filter (?:the )?results|"
    r"(?:in-store|in store|curbside) pick ?up|reserve (?:it|them|one) for|subscribe(?:-and-| and )save|"
    r"subscri\w*\W*(?:and|&|n)\W*save|subscription|ask the seller|contact the seller|message the seller|"
    r"add (?:it|them) to (?:my |a )?(?:wishlist|cart)|"
    r"compare (?:the )?prices|track the price)\b")

_REQUEST_KINDS = (
    ("cancel", re.compile(r"\bcancel")),
    ("return", re.compile(r"\breturn")),
    ("exchange", re.compile(r"\bexchange")),
    ("modify", re.compile(r"\bchange (?:the )?items\b|\bmodify\b")),
    ("book", re.compile(r"\bbook\b")),
    ("change_flights", re.compile(r"\bchange the flights\b|\bcabin\b")),
    ("buy", re.compile(r"\bbuy\b|\bfind\b")),
)


def operation_classes(request: str) -> set[str]:
    """The kinds of operation the true request asks for."""
    low = request.lower()
    return {kind for kind, pattern in _REQUEST_KINDS if pattern.search(low)}


#: words that open an aside: what follows is an added detail, not the request
ASIDE = re.compile(r"\b(?:by the way|btw|fyi|side note|for the record|oh and|oh,? and|incidentally|also,|just so you know|"
                   r"in case (?:that|it) matters|for what it's worth|ps|p\.s\.)\b|^\W*(?:also|plus|oh)\W*$")
#: how customers identify themselves (not a detail of the request): emails, user ids, zip codes
IDENTITY = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\b[a-z]+_[a-z]+_\d{3,}\b|\b(?:zip(?: code)?\s*)?\d{5}\b|"
                      r"\buser(?: id)?\b|\b[a-z]+ [a-z]+,? here\b|\bhere\b|" + BIRTH_DATE)

#: a value kept as it is ("same size and v-neck"): no new detail
KEPT = re.compile(r"\b(?:the )?same \w+(?:(?:,| and) [\w-]+)*|\b\w+ (?:stays|stay) the same\b|"
                  r"\b(?:everything|all|anything) else (?:the same|unchanged|as is|as it is)\b|\botherwise the same\b")

#: the customer saying where they live now
_HOME = r"i(?:'ve| have)? moved|i (?:now )?live at|my (?:new )?address"

#: a concrete, checkable detail: a street address, a count of things
CONCRETE = re.compile(r"\b\d+ [a-z]+ (?:street|st|avenue|ave|lane|ln|drive|dr|road|rd|boulevard|blvd|way|court|ct|place|pl|"
                      r"circle|terrace|parkway)\b|\b(?:\d+|one|two|three|four|five|a couple of) (?:checked )?"
                      r"(?:bags?|suitcases?|pieces of luggage)\b|"
                      r"\b(?:" + _HOME + r")\b")

#: the customer's own home, said in an aside: a detail about them, whatever address it names ("oh, and I now
#: live at 555 Highland Drive" when an order ships there too)
MOVED = re.compile(r"\b(?:" + _HOME + r")\b")

#: a detail added on top of the request: "too", "as well" closing it, or a reason or a condition
#: following it ("fleece lined, since I run outside", "the 5-tier one if they make it")
ADDED = re.compile(r"\b(?:too|as well|also)\W*$|\b(?:i'?d prefer|i would prefer|i'?d like it|make sure|ideally|preferably|"
                   r"if possible|would be (?:great|nice|good|ideal|a plus|a bonus)|"
                   r"(?:should|must|needs? to|has to|could) also|(?<!\bi )(?<!\bwe )also (?:be|have|has|needs?|comes?)|"
                   r"(?:like|as) (?:my|the|our) (?:old|last|previous|current) \w+ (?:had|has|did|does)|"
                   r"(?:has|have|needs?) to (?:still )?(?:be|have)|must (?:still )?(?:be|have)|"
                   r"as long as|so long as|provided (?:that )?it|only if it|on condition that)\b")
JUSTIFIED = re.compile(r"^\W*(?:since|because|cause|so|if (?:they|you) (?:make|have|carry|sell|do)|i look better|"
                       r"my \w+ (?:is|has|are))\b")


def masked(low: str, phrases: list[str]) -> str:
    """``low`` with every requirement's own phrase (and value) blanked ("the order to cancel a pending
    order" names a requirement; it asks for nothing)."""
    for phrase in sorted({p.lower() for p in phrases if p}, key=len, reverse=True):  # whole words: "M" is a size
        low = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", lambda m: " " * len(m.group(0)), low)
    return low


#: a statement, not a wished-for detail: a finite verb or a subject ("XEHM4B is stuck in basic economy")
STATEMENT = re.compile(r"\b(?:i|we|he|she|they|is|are|was|were|am|has|have|had|do|does|did|will|would|can|could|"
                       r"should|must|i'm|i've|it's|isn't|aren't|wasn't|don't|doesn't|didn't|got|gets|"
                       r"says|said|told|thinks|reckons|swears|recommends|suggests)\b")

#: where one item of a shorthand list ends and the next begins
ITEM_BREAK = re.compile(r"[.;!?()]|,\s*|\s[-–—]\s|\b(?:and|with|that|which|plus|if|because|since|so)\b|"
                        r"\b(?:it )?(?:has|needs?|have) to (?:have|be)\b|\bmust (?:have|be)\b|\bwould be (?:great|nice|good)\b")
#: the close of a message, not a detail ("thanks", "cheers", "asap")
SIGN_OFF = re.compile(r"\b(?:thanks?|thank you|cheers|regards|best|asap|urgent|appreciated|ty|thx|bye|ta|"
                      r"merci(?: beaucoup)?|gracias|danke(?: schoen| schön)?|grazie|obrigad[oa])\b")
#: a verb in the past: a sentence that tells what happened
PAST = re.compile(r"\b(?:\w{3,}ed|came|went|broke|got|sent|bought|paid|told|said|gave|took|made|arrived)\b")
#: the frames of a wish, which are not statements ("I'd like ...", "it has to have ...")
WISH_FRAME = re.compile(r"\b(?:i'?d (?:like|love|prefer)|i would (?:like|love|prefer)|i (?:want|need)|i'?m (?:looking|after)|"
                        r"(?:it )?(?:has|needs?) to (?:have|be)|must (?:have|be)|would be (?:great|nice|good))\b")
