"""Off-topic chatter: what a customer talks about before getting to the point (contextual
irrelevance). Topics differ in subject and length; a passage is built sentence by sentence from
one topic until it is long enough (at least 25 words and longer than the request it buries).

The sentences are plain statements: no requests, no pointers or vague words, no numbers, no
operations a store or an airline performs, so the passage says nothing about the request
(checked by a unit test against the grounding layer's cue words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from miscue.offline.writer.voice import Voice, words_of

TOPICS: dict[str, tuple[str, ...]] = {
    "wedding": (
        "My sister got married last weekend and the whole family is still recovering.",
        "The ceremony was in an old barn outside town, with fairy lights strung across the beams.",
        "My uncle gave a speech that went on for twenty minutes and made everyone cry, including him.",
        "The caterers misjudged the dessert, which caused a minor riot among the kids halfway through the evening.",
        "I danced until my feet hurt and then kept dancing anyway.",
        "We are still finding confetti in the car.",
    ),
    "marathon": (
        "I have been training for a half marathon for months now.",
        "Every morning I get up before sunrise and run along the river while the city is still asleep.",
        "My knees have started to complain, and my physio says I should stretch more.",
        "Last Sunday I ran the whole course for the first time and nearly cried at the finish.",
        "My running club meets on Thursday evenings, and we always end up at the bakery afterwards.",
        "The race itself is in the spring, so there is still time to fix my pacing.",
    ),
    "garden": (
        "This spring I finally started the vegetable garden I have been talking about for years.",
        "The tomatoes are doing well, but something keeps eating the lettuce at night.",
        "My neighbour thinks it is rabbits, while my son insists it is a hedgehog.",
        "I spend most evenings out there with a watering can and a podcast.",
        "The zucchini plants cover half the bed now, with no sign of stopping.",
        "Honestly, I had no idea how much I would enjoy getting my hands dirty.",
    ),
    "puppy": (
        "Our neighbours just adopted a puppy, and the whole street revolves around him now.",
        "He is a scruffy little terrier mix who barks at every leaf that moves.",
        "The kids on our block fight over who gets to walk him after school.",
        "Yesterday he escaped through the hedge and ended up asleep on our porch.",
        "I keep telling myself we are not getting a dog, and nobody in my house believes me.",
        "My daughter has already picked out a name for the dog we are apparently not getting.",
    ),
    "kitchen": (
        "We have been renovating the kitchen for what feels like forever.",
        "The contractor measured the wrong wall, so the countertop had to be cut again.",
        "For three weeks we have been cooking on a camping stove in the garage.",
        "My partner and I argued about tiles for a week and ended up with a pattern neither of us picked.",
        "The dust gets into everything, even the sock drawer upstairs.",
        "Still, when the light comes in through the new window in the morning, it almost feels worth it.",
    ),
    "reading group": (
        "My reading group just finished a novel about a lighthouse keeper, and the discussion got heated.",
        "Half of us loved the ending while the rest wanted to throw it across the room.",
        "We meet at a different house each month, and the host always tries to outdo the last snacks.",
        "This month someone brought homemade dumplings and nobody talked about the novel for an hour.",
        "I have been in the group for years, and those evenings are sacred to me.",
        "Next we are reading a history of tea, which I am oddly excited about.",
    ),
    "weather": (
        "The weather here has been completely unpredictable this week.",
        "On Monday it was warm and sunny, and by Tuesday afternoon it was hailing.",
        "My umbrella flipped inside out on the way to the bus stop and I gave up on it.",
        "The forecast keeps promising a dry weekend and then changing its mind.",
        "My tomatoes do not know whether to grow or give up.",
        "At least the sunsets have been spectacular after every storm.",
    ),
    "school play": (
        "My daughter had her school play last night and she was a singing tree.",
        "She practised her one line in the mirror every morning for a month.",
        "The stage lights went out in the middle of the second act and the kids just kept singing anyway.",
        "The teacher running it deserves a medal for keeping thirty children in costume at once.",
        "We recorded the whole thing, although most of the video is the back of someone's head.",
        "Afterwards the whole cast went out for ice cream in their costumes.",
    ),
    "camping": (
        "We went camping in the mountains over the holiday weekend.",
        "It rained the first night and we discovered that our tent leaks at every seam.",
        "The stars on the second night made up for it, though, because there was no moon at all.",
        "My son caught his first fish and insisted on letting it go with a little speech.",
        "We burned the pancakes every single morning and ate them anyway.",
        "I came home with mosquito bites in places I did not know mosquitoes could reach.",
    ),
    "bread": (
        "I have been learning to bake sourdough bread, and it has become a bit of an obsession.",
        "My starter lives on the kitchen counter and my family calls it the pet.",
        "The first loaves came out flat as pancakes, but the last one actually rose.",
        "I now know way too much about hydration and folding.",
        "The neighbours have started dropping by around baking time, which I suspect is not a coincidence.",
        "Flour has somehow ended up on every surface in the house.",
    ),
    "new job": (
        "I started a new job two weeks ago and my head is still spinning.",
        "The office is on the other side of the city, so I spend a lot of time on trains now.",
        "My new manager is kind but talks very fast, and I take notes on everything.",
        "Everyone there seems to know an acronym for everything, and I nod along.",
        "On Friday the team took me out for lunch, which helped a lot.",
        "I think it will be a fine place once I stop getting lost in the stairwells.",
    ),
    "football": (
        "My local football team has had the strangest season anyone can remember.",
        "They lost four games in a row and then beat the league leaders on a rainy Tuesday night.",
        "My dad calls me after every match to complain about the referee.",
        "We have had season tickets in the same corner of the stadium since I was a kid.",
        "The last game went to extra time and I lost my voice from shouting.",
        "Whatever happens in the final weeks, it has been a wild ride.",
    ),
    "grandmother": (
        "My grandmother turned ninety last month, and we threw her a surprise party.",
        "She pretended to be surprised, although we are fairly sure my cousin told her.",
        "She still does the crossword every morning in pen, and she still beats all of us.",
        "At the party she told stories about dancing in the village hall when she was young.",
        "Everyone brought a dish from her old recipe book, and somehow they all tasted like her kitchen.",
        "She went home with more flowers than she had vases for.",
    ),
    "pottery": (
        "I signed up for a pottery class on Wednesday evenings, mostly on a whim.",
        "My first bowl collapsed on the wheel and the teacher just laughed.",
        "There is something calming about spending two hours with muddy hands and no phone.",
        "The glazes never come out of the kiln the colour you expect, which is half the fun.",
        "I have made four lopsided mugs so far and given every one of them away.",
        "My friends now dread birthdays, because they know what they are getting.",
    ),
    "commute": (
        "My commute has been a nightmare lately because of the roadworks on the bridge.",
        "What used to take twenty minutes now takes the best part of an hour.",
        "I have started listening to audiobooks just to stay calm in the traffic.",
        "Yesterday a duck and her ducklings stopped the whole lane, and honestly nobody minded.",
        "The city says the work will be finished in the autumn, which nobody believes.",
        "At this point I know every billboard on the route by heart.",
    ),
    "documentary": (
        "Last night I watched a documentary about creatures of the ocean floor and could not sleep afterwards.",
        "There are fish down there that make their own light and look like something out of a dream.",
        "The crew spent years waiting to film a giant squid.",
        "I kept pausing it to read about the animals, so it took me all evening.",
        "Now my kids dream of becoming marine biologists, at least until the next documentary.",
        "It is amazing how little we know about what lives at the bottom of the ocean.",
    ),
}
#: how a customer comes back from the chatter to the point
RETURNS = ("Anyway, that's not why I'm writing.", "But I digress.", "Anyway, on to the reason for my message.",
           "Sorry, I'm rambling.", "Anyway.", "That's a story for another time, though.", "Okay, back to why I'm here.",
           "Sorry, I got carried away there.")


def _clean(sentence: str, avoid: Sequence[str]) -> bool:
    low = f" {sentence.lower()} "
    for a in avoid:
        a = a.strip().lower()
        if len(a) > 2 and re.search(rf"(?<![a-z0-9]){re.escape(a)}(?![a-z0-9])", low):
            return False
    return True


def topic_for(v: Voice, hint: str | None) -> str:
    """The topic of the passage: the planner's hint when it names one of ours, else a draw."""
    if hint:
        h = hint.lower()
        for name in TOPICS:
            if name in h or any(w in h for w in name.split() if len(w) > 4):
                return name
    return v.pick(sorted(TOPICS))


def passage(v: Voice, hint: str | None, rest_words: int, avoid: Sequence[str]) -> str:
    """An off-topic passage of at least 25 words and more than ``rest_words`` words, touching
    none of ``avoid`` (the request's values and words), ending with a return to the point."""
    back = v.pick(RETURNS)
    # longer than the rest of the message and the return to the point together: a reader weighing
    # the off-topic run against everything else must find it the larger part
    need = max(25, rest_words + words_of(back) + 1)
    name = topic_for(v, hint)
    chosen: list[str] = []
    # topic after topic, each told whole from its opening sentence: a long request gets a second
    # story, never sentences of several stories shuffled together
    for topic in [name, *v.shuffled([n for n in sorted(TOPICS) if n != name])]:
        pool = [s for s in TOPICS[topic] if _clean(s, avoid)]
        for s in pool[:1] + v.shuffled(pool[1:]):
            if words_of(" ".join(chosen)) >= need:
                break
            chosen.append(s)
        if words_of(" ".join(chosen)) >= need:
            break
    return " ".join(chosen + [back])
