"""Small text utilities the two offline extractors share (no fault knowledge)."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9][a-z0-9'#-]*")


def fold(text: str) -> str:
    """Lower-case without changing length, so spans found in the fold index the original."""
    out = []
    for ch in text:
        if ch in "\u2018\u2019\u02bc":
            out.append("'")
        elif ch in "\u201c\u201d":
            out.append('"')
        elif ch in "\u2013\u2014":
            out.append("-")
        else:
            low = ch.lower()
            out.append(low if len(low) == 1 else ch)
    return "".join(out)


def spans(hay: str, needle: str) -> list[tuple[int, int]]:
    needle = fold(needle.strip())
    if not needle:
        return []
    pattern = rf"(?<![\w]){re.escape(needle)}(?![\w])"
    return [m.span() for m in re.finditer(pattern, hay)]


def overlaps(a: tuple[int, int], among: list[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in among)


def blank(low: str, spans: list[tuple[int, int]]) -> str:
    """``low`` with every span blanked (same length, so positions still index the text)."""
    for a, b in spans:
        low = low[:a] + " " * (b - a) + low[b:]
    return low


def tokens(text: str) -> list[str]:
    return WORD.findall(fold(text))


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ,;:-")


# Function words and conversational glue: never "content" on their own.
STOP = frozenset("""
a an the this that these those it its it's i i'd i'm i'll i've me my mine we our us you your
he she they them their his her is are was were be been being am do does did done have has had
will would should could can may might must shall to of in on at for from with by about as into
onto over under and or but so if then than also plus too just only very really please kindly
hi hello hey thanks thank ok okay well anyway yes no not like love want need help wish hope
let get got make one ones same there here what which who whom whose when where why how all any some
each both either neither other another such same own per via up down out off again still even
first firstly secondly next finally lastly starting beginning start begin afterwards
""".split())


#: a traveller's date of birth, which identifies them ("born 04/12/2001", "DOB April 12, 2001"): no added detail
BIRTH_DATE = (r"\b(?:born(?: on)?|dob|d\.o\.b\.?|date of birth|birth ?date|birthday)[:\s,]*(?:is\s+)?"
              r"(?:\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|[a-z]+\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|"
              r"\d{1,2}(?:st|nd|rd|th)? [a-z]+,? \d{4})")
#: "return" as a leg of a trip, not the operation: a determiner and a few describing words before it
#: ("the May 27 return", "my Sunday evening return"), no verb or object between or after
RETURN_LEG = re.compile(r"\b(?:the|my|our|your|that)\s+(?:(?!(?:to|and|or|will|would|can|could|should|must|please|then)\b)"
                        r"[a-z0-9/-]+\s+){1,3}return\b(?!\s+(?:it|them|this|these|those|the|my|our|all|both|everything)\b)")
#: "booking" as a thing, not the operation: after a determiner, "same" or a preposition
BOOKING_NOUN = "".join(f"(?<!{w} )" for w in ("the", "my", "this", "that", "our", "your", "same", "on", "of",
                                               "for", "in", "to", "from")) + "booking"


def split_spans(pattern: re.Pattern[str], low: str) -> list[tuple[int, int]]:
    """The non-blank pieces of ``low`` between the matches of ``pattern``, as character spans."""
    out, start = [], 0
    for m in pattern.finditer(low):
        if low[start:m.start()].strip():
            out.append((start, m.start()))
        start = m.end()
    if low[start:].strip():
        out.append((start, len(low)))
    return out


#: a way of paying, named with what it pays for ("PayPal for any difference", "charge my
#: Mastercard", "credit_card_3677959 (my mastercard)"): part of the request even when the form
#: lists no payment requirement (the customer's only card is no requirement, yet they name it)
INSTRUMENT = re.compile(
    r"\b(?:credit_card|gift_card|paypal|certificate)_\d+\b|"
    r"\b(?:(?:my|the|a|your|on|to|with|via|using|use)\s+)?(?:pay ?pal|visa|master ?card|amex|american express|discover|"
    r"gift ?card|credit ?card|debit ?card|travel certificate|certificate)(?:\s+(?:account|card))?"
    r"(?:\s+(?:ending(?: in)?|that ends in|x+)\s*\d{4})?\b"
    r"(?:\s*\(\s*(?:my\s+)?[a-z ]+\))?"
    r"(?:\s+(?:for|on|to cover)\s+(?:any|the)\s+(?:price\s+)?(?:difference|extra charge|charge|refund|balance))?")

