"""The words around a value that change what it means, in plain English (host-agnostic): a
pointer to shared knowledge instead of a value, a subjective or comparative description, a
false premise and the fallback a customer settles for, a request, an aside.

Patterns run on folded text (:func:`miscue.language.text.fold`); each returns spans.
"""

from __future__ import annotations

import re


def _rx(pattern: str) -> re.Pattern[str]:
    """Compile with every apostrophe optional (people type "dont", "youre")."""
    return re.compile(pattern.replace("'", "'?"))

_OBJ = (r"(?:one|ones|card|address|size|color|colour|model|version|kind|type|option|setting|name|date|day|flight|"
        r"flights|seat|cabin|class|payment|method|account|order|reservation|booking|item|reason|amount|number|"
        r"spelling|time|style|variant|shade|length|capacity|storage)")

#: a pointer to shared knowledge standing in for a value ("the one I mentioned", "my usual card")
REFERRING = _rx(
    r"\b(?:(?:the|my|our) usual(?: " + _OBJ + r")?"
    r"|(?:the )?same (?:" + _OBJ + r" )?as "
    r"(?:before|last time|usual|always|(?:the |my )?(?:last|previous|other) (?:time|one|order|trip))"
    r"|the " + _OBJ + r" (?:that )?(?:i|we|you) (?:mentioned|told you(?: about)?|talked about|discussed|gave you|used|said|"
    r"picked|chose|agreed on|went with|had|spoke about|settled on|wrote down|noted)(?: (?:before|earlier|last time|previously|"
    r"already|on the phone|in my (?:last|previous) (?:message|email|call)|with your colleague))?"
    r"|(?:the|that|this|my|our)(?: other)?(?: \w+){0,2} (?:i|we|you)(?: \w+)? (?:mentioned|told you about|told you|"
    r"talked about|talked abou|discussed|spoke about|brought up|gave you|use|used|get|got|buy|bought|order|ordered|had|"
    r"have|like|liked|love|drink|wear|picked|chose|pick|prefer|booked|made|placed|reserved|paid with)"
    r"(?: (?:before|earlier|last (?:time|week|month|year)|previously|already|every time|each time|always|recently|"
    r"yesterday|the other day|a while (?:ago|back)))?(?=[.,;!?)]| -|$| (?:and|for|but|so|please|too|with|on|in)\b)"
    r"|(?:the )?same (?:\w+ ){0,2}as (?:the|my) (?:one|ones|last|previous|\w+)(?: (?:one|ones|time))?"
    r"(?: (?:i|we) (?:got|had|bought|ordered|used|picked|chose))?(?: (?:last time|before|previously|earlier))?"
    r"(?: (?:before|earlier|last time|previously|already|on the phone))?"
    r"|the one (?:from|on) (?:before|last time|file|the (?:last|previous) (?:call|chat|order|time))"
    r"|(?:that|this) (?:one|card|size|color|colour|model|version|option)(?= |\.|,|$)"
    r"|the (?:" + _OBJ + r") (?:on file|we (?:agreed|settled) on)"
    r"|you know (?:which|the) (?:one|card|size|model)"
    r"|(?:whatever|whichever) (?:i|we) (?:said|used|picked|chose|mentioned) (?:before|last time|earlier)"
    r"|(?:as|like) (?:before|last time|usual)"
    # a place money went before ("put the refund back wherever it went the last time")
    r"|(?:wherever|where|the (?:same )?place) (?:it|that|the money|the refund|the payment) went"
    r" (?:the )?(?:last time|before|previously)"
    r"|the same place as (?:before|last time)"
    # a thing named by an earlier exchange with the store ("the booking I was asking you about")
    r"|(?:the|that|this|my|our)(?: other)?(?: \w+){0,2} (?:i|we)(?: was| were)? (?:asking(?: you)?(?: guys)? about|"
    r"asked(?: you)?(?: guys)? about|went over|go over|flagged|emailed(?: you)?(?: about)?|sent(?: you)?|"
    r"wrote(?: to you)? about|looked at|showed you|pointed out|called about|chatted about|"
    r"(?:discussing|talking about|telling you about))"
    r"(?: (?:before|earlier|last (?:time|week|month|year)|previously|already|yesterday|the other day))?"
    # a habit standing in for the value ("what I usually get")
    r"|(?:what|whatever|whichever)(?: \w+)? (?:i|we) (?:usually|always|normally|typically|generally) "
    r"(?:get|buy|order|use|wear|take|have|pick|choose|book))\b"
)

_COMPARATIVE = (r"(?:a lot|a bit|much|way|far|a little|somewhat|even) "
                r"(?:more|less|bigger|smaller|cheaper|longer|shorter)(?: \w+)?|"
                r"more (?:zoom|storage|memory|space|power|battery|pieces|capacity|room|legroom|ram)|"
                r"bigger|larger|smaller|(?<!no )(?<!any )longer|shorter|wider|narrower|taller|higher|lower|"
                r"cheaper|pricier|lighter|"
                r"heavier|brighter|dimmer|faster|slower|newer|later|earlier|nicer|better|roomier|sturdier|stronger|"
                r"comfier|warmer|cooler|thicker|thinner|quieter|louder|sharper|beefier|fancier|"
                r"more (?:spacious|affordable|comfortable|powerful|storage|memory|space|room|legroom|capacity|"
                r"reasonable|premium|modest|compact|portable|bags?|luggage)|less (?:bright|expensive|pricey|bulky|heavy)")
_SUBJECTIVE = (r"good|decent|reasonable|nice|comfortable|convenient|suitable|sensible|affordable|cheap|cheapish|"
               r"budget|inexpensive|pricey|fancy|premium|generous|plenty of|enough|big|small|large|huge|tiny|compact|"
               r"roomy|spacious|fair|modest|proper|solid|shortish|longish|biggish|smallish|appropriate|right|"
               r"comfy|a couple of|couple of|a few|a bunch of|several|some extra|sometime|soonish|"
               r"(?:quite )?a lot of|lots of|loads of|tons of|a ton of|a fair (?:amount|bit) of|a good (?:amount|few) of|"
               r"a handful of|quite a few|a good few|"
               r"a size up|a size down|one size up|one size down|up a size|down a size|a step up|a step down|"
               r"an upgrade|a downgrade|top of the line|high end|low end|entry level|mid range|midrange|"
               r"not too (?:big|small|expensive|pricey|long|short|early|late|heavy)|nothing too (?:expensive|pricey|fancy)|"
               r"reasonably(?: priced)?|affordably(?: priced)?|moderately priced|budget[- ]friendly|low[- ]cost|"
               r"(?:won't|will not|doesn't|does not|not|wouldn't|without) break(?:ing)? the bank|easy on the wallet|"
               r"wallet[- ]friendly|"
               r"(?:on the )?(?:cheaper|pricier|bigger|smaller) side|bargain|"
               r"not (?:so|too|that) (?:many|much|big|small|long|short|hard|difficult|expensive)|fewer|not as many|"
               r"easier|simpler|harder|too (?:hard|difficult|easy|big|small|long|short|heavy|loud|bright|dim)")
#: a subjective or comparative description standing in for a value ("a bigger size", "something cheap")
VAGUE = _rx(r"\b(?:" + _COMPARATIVE + "|" + _SUBJECTIVE + r")\b(?! (?:things|questions|changes|requests|issues|problems|"
            r"days|weeks|months|years|times|hours|minutes|orders|items)\b)")
#: a comparative standing for a value even with nothing around it ("somewhere more comfortable")
COMPARATIVE = _rx(r"\b(?:" + _COMPARATIVE + r")\b")
#: vague words for a physical quality (size, weight, light, sound, warmth, strength): never a price
#: ("a tee in navy, size large, under $40": "large" is a size, not the budget)
PHYSICAL = _rx(r"\b(?:big|small|large|huge|tiny|compact|roomy|spacious|biggish|smallish|bigger|larger|smaller|wider|narrower|"
               r"taller|shorter|longer|lighter|heavier|brighter|dimmer|thicker|thinner|quieter|louder|warmer|cooler|"
               r"sturdier|stronger|beefier)\b")
#: vague words for money: they describe the price, wherever it is named
MONEY = _rx(r"\b(?:cheap|cheaper|cheapish|inexpensive|affordable|affordably|pricey|pricier|budget|bargain|low[- ]cost|"
            r"reasonably priced|moderately priced|break the bank|easy on the wallet|wallet[- ]friendly|expensive)\b")
#: words naming a price (a requirement named so is a price)
MONEY_NAMES = frozenset({"price", "budget", "cost", "priced", "spend", "afford", "dollars"})

_PREMISE_OPEN = (r"since|as|because|given(?: that)?|now that|seeing(?: that| as)?|i know|i heard|i was told|"
                 r"apparently|i understand|i see|i noticed|i realise|i realize|it seems|it looks like|"
                 r"your (?:site|website|app|store) says|they told me|i read")
_GONE = (r"full(?![ -]?sized?\b)|booked up|fully booked|shut down|closed|expired|frozen|blocked|deactivated|declined|cancelled|"
         r"canceled|discontinued|gone|unavailable|sold out|out of stock|not available|no longer available|taken|"
         r"dropped|retired|phased out|pulled|axed|scrapped")
_NOT_CAPABLE = (r"made|offered|sold|used|usable|go|going|come|exist|accepted|allowed|possible|available|"
                r"an option|in stock|carried|make|carry|sell|offer|have|get|be done|be had|be chosen|be picked|apply|"
                r"be applied|be refunded|refund")
_UNAVAILABLE = (r"sold out|out of stock|unavailable|not available|no longer (?:available|sold|made|offered|an option)|"
                r"(?:stopped|quit|ceased|no longer) (?:making|selling|carrying|stocking|offering|producing|doing)|"
                r"no longer (?:make|makes|sell|sells|carry|carries|stock|stocks|offer|offers|produce|produces)|"
                r"(?:you're|you are|they're|they are|we're|it's|it is) (?:all |completely |totally )?out of|"
                r"(?:is|are|was|were|got|has been|have been|has|have|had|'s|'re)(?: \w+)? (?:" + _GONE + r")|"
                r"(?:can't|cannot|can not|won't|will not|doesn't|don't|does not|do not|isn't|aren't|not)(?: be)?(?: \w+)? "
                r"(?:" + _NOT_CAPABLE + r")|out of production|"
                r"(?:can't|cannot|can not|won't|isn't|aren't|couldn't)(?: be| get| have)?(?: \w+){0,2} "
                r"(?:anymore|any more|any longer)|"
                r"not (?:a|an) \w+ (?:you|they|we) (?:accept|allow|take|offer|do)|"
                r"(?:never|rarely|hardly ever|almost never)(?: \w+){0,3} (?:in stock|available|there)|"
                r"(?<!not )(?<!nt )(?<!never )expired|maxed out|"
                r"(?:can't|cannot|can not)(?: \w+)? (?:pay|switch|use|move|put|upgrade|apply|change)|"
                r"used up|run out|ran out|all gone|no longer (?:possible|offered|there|an option)|sells? out|selling out|"
                r"(?:can|could) only (?:get|have|be|receive|choose|pick)|"
                r"only (?:come|comes|came|available|sold|made|offered|exists?|goes|go|issue|issues|sell|sells|make|makes|"
                r"carry|carries|stock|stocks|do|does|offer|offers)|"
                r"(?:nobody|no one|no-one|no store|no shop|none of them|no seller|no brand)(?: \w+)? "
                r"(?:carries|sells|makes|stocks|has|offers|does|carry|sell|make|stock|have|offer)|"
                r"(?:is|are) only (?:available|sold|made|offered)|"
                r"there(?:'s| is|'re| are)(?: no|n't| not)(?: (?:a|an|any))?(?: [\w-]+){0,3}? "
                r"(?:versions?|models?|options?|variants?|kinds?|ones?|sizes?|colou?rs?|flights?|seats?)\b|"
                r"already (?:been )?(?:done|taken care of|processed|applied|changed|fixed|cancelled|canceled|booked|"
                r"handled|sorted|updated|set)|(?:was|were|has been|have been) (?:taken care of|handled|done|sorted)")
#: a premise taken for granted about a requirement ("since the clicky ones are sold out"): the
#: clause that says a value cannot be had (or was already dealt with), from the clause's start
PREMISE = _rx(r"(?:^|(?<=[.;!?,:(])|(?<=\s-\s)|\b(?:so|but|and)\b)(?:(?!\s-\s)[^.;!?,:]){0,160}?\b(?:" + _UNAVAILABLE + r")\b")
PREMISE_OPENERS = _rx(r"\b(?:" + _PREMISE_OPEN + r")\b")
#: words of settling for a fallback ("I'll take", "go with", "any ... works")
SETTLE = _rx(r"\b(?:settle for|make do with|go with|going with|accept|just get|i'll take|i will take|i'd take|"
                    r"i can take|take|switch to|use|choose|pick|get|do|fine with|ok with|okay with|happy with|"
                    r"works|is fine|will do|would do|is ok|is okay)\b")

#: a need someone else says the customer has is hearsay, no request ("apparently I need ...",
#: "my stylist says I need ...")
_REPORTED = "".join(f"(?<!{w} )" for w in ("apparently", "apparently,", "says", "said", "thinks", "reckons"))

#: a request: an ask, a wish, a question, or an imperative at the start of a sentence (not a verb
#: whose subject is the customer: "I'll just book again on my own")
REQUEST = _rx(
    r"\b(?:" + _REPORTED + r"i (?:also |really |still |just )?(?:want|need)|i'd (?:also |really |still |just )?like|"
    r"i would (?:also |really |still |just )?like|id like|i wanna|"
    r"(?:i'll|i will|i'd|i can|i could) (?:just )?(?:settle for|make do with)|i'm looking for|im looking for|i am looking for|"
    r"i'm after|i am after|"
    r"looking for|please|pls|(?:can|could|would|will) (?:you|u|ya)|can i|could i|may i|help me|i wish to|let me|"
    r"i'd love|i would love|go ahead|i'd prefer|i would prefer|i'm trying to|im trying to|i am trying to|"
    r"need to|want to|have to|would like to|i'd appreciate|i would appreciate|kindly|do me a favou?r|"
    r"(?:i'm|i am|im) (?:only |just )?asking (?:for|you)|(?:i'm|i am|im) not asking for (?:much|a lot))\b"
    r"|(?:^|[.!;:]\s+)(?:(?:hey|hi|hello|ok|okay|so|well|yeah|um|right),?\s+)?"
    r"(?:need|want|looking for|searching for|seeking|in the market for|after|shopping for)\b"
    r"|\?"
    # a record put right ("the second passenger should be Mei Garcia, not Mei Lee") asks for the change
    r"|\bshould (?:be|read|say) [^.;!?]{1,80}?,? not\b"
    # an imperative: at a clause's start, after a joining word, or with "let's" ("let's exchange it", not "let's see")
    r"|(?:^|[.!;:,]\s+|\s-\s|\b(?<!i.ll )(?<!ill )(?<!i will )(?<!i )(?<!we.ll )(?<!we )(?:and|also|then|so|just|now|but)\s+|"
    r"\blet(?:'s| us)\s+(?:just\s+)?)"
    r"(?:cancel|exchange|return|change|switch|book|update|"
    r"modify|swap|send|refund|downgrade|upgrade|move|put|make|add|remove|replace|process|issue|give|find|get|buy|"
    r"charge|bill|pay|use|ship|set|reserve|rebook|fix|correct|show|pick|keep|credit|bump|push|drop|ditch|scrap|transfer|"
    r"grab)\b"
)

#: the verbs of the requests a customer makes (an imperative right after an id is a request:
#: "on order #W1 switch the camera to ...")
REQUEST_VERBS = ("cancel", "exchange", "return", "change", "switch", "update", "modify", "refund", "downgrade", "upgrade",
                 "replace", "rebook", "reserve", "correct", "swap", "book", "move", "ship", "keep", "put", "bump", "add",
                 "push")


#: "both", "each", "all of them": one value said once for several requirements
DISTRIBUTIVE = _rx(r"\b(?:both|each|all of them|all of those|for all|either|all)\b")

#: a word that separates two candidate attachment sites ("A and B", "A or B", "A with B")
COORDINATION = _rx(r"\b(?:and|or|plus|as well as|along with|with)\b")


_CLAUSE_END = _rx(r"[.;!?,:]|\s-\s|\s(?:so|but|and then)\s")


def spans(pattern: re.Pattern[str], folded: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(folded)]


def clause_spans(pattern: re.Pattern[str], folded: str) -> list[tuple[int, int]]:
    """Each match extended to the end of its clause (a premise names its value after the verb
    too: "you're out of that model in size 10, so ..."), and back over the wish it answers when
    it opens with "but" and speaks of that wish by a pronoun or as "a different/another" one ("I'd like a fifty-dollar
    certificate, but I read you only issue them in hundreds")."""
    out = []
    for a, b in spans(pattern, folded):
        end = _CLAUSE_END.search(folded, b)
        stop = end.start() if end else len(folded)
        if _BUT_POINTER.match(folded, a):
            a = max((m.end() for m in _WISH_START.finditer(folded, 0, a)), default=0)
        out.append((a, stop))
    return out


#: a premise clause that opens with "but" and points back with a pronoun ("but they only come ...")
_BUT_POINTER = re.compile(r"\s*but\b[^.;!?]*?\b(?:it|them|they|that|those|these|this|a different|another)\b")
#: where the wish a "but" premise answers begins: the sentence (or the part after a colon)
_WISH_START = re.compile(r"[.;:!?]\s*")


#: words that make a sentence a statement rather than a shorthand list: finite verbs and subjects
FINITE = {"i", "we", "he", "she", "they", "is", "are", "was", "were", "am", "be", "been", "isnt", "arent",
          "wasnt", "werent", "has", "have", "had", "hasnt", "havent", "do", "does", "did", "dont", "doesnt", "didnt",
          "will", "would", "should", "could", "can", "may", "might", "must", "shall", "wont", "wouldnt", "shouldnt",
          "couldnt", "cant", "got", "gets", "seems", "says", "said", "told", "im", "ive", "id", "ill", "its", "thats",
          "theres", "need", "needs", "want", "wants", "came", "arrived", "turned", "went", "broke",
          "swears", "swore", "recommends", "recommended", "loves", "bought", "owns",  # "a friend of mine swears by ..."
          # verbs of state and opinion: "the budget stays under $100", "the 16.9 oz bottles seem right"
          "stays", "remains", "goes", "seem", "feels", "feel", "sounds", "looks", "fits", "works", "matters"}
#: words a clause opens with when it is a statement about someone or something
SUBJECTS = {"i", "we", "you", "he", "she", "they", "it", "my", "our", "your", "his", "her", "their", "this", "that"}
#: words that set a thing beside another like it ("the old one", "the other cabin")
OTHERS = {"old", "other", "current", "original", "existing", "previous"}
ARTICLES = {"the", "a", "an", "my", "one"}
NEGATORS = {"no", "not", "without", "non", "never", "dont", "doesnt", "wont", "skip", "decline"}
#: words that make a clause speak against a thing it names ("I'd rather not deal with a box spring",
#: "the artificial flavoring half the group complained about", "we're all allergic to soy")
AVERSE = NEGATORS | {"didnt", "cant", "cannot", "avoid", "avoiding", "hate", "hated", "hates", "dislike", "disliked",
                     "complain", "complained", "complaining", "complaints", "allergic", "allergy", "allergies",
                     "sensitive", "nothing", "zero", "nix", "rid", "tired", "sick", "bothers", "bothered"}
COORDINATORS = {"and", "or", "nor", "plus"}
