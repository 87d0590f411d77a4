"""A hand-made reading form (a keyboard exchange) and replies to it, for the reading tests."""

from __future__ import annotations

from miscue.reading import FormRequirement, ReadingForm

TEXT = ("Hi, I'm Yusuf Rossi, zip 19122. Please exchange the keyboard in order #W2378156 for one with "
        "clicky switches, and put the difference on my gift card ending 4171.")
FORM = ReadingForm(
    requirements=(
        FormRequirement(slot="order", phrase="the order", truth="#W2378156", values=("#W2378156", "#W4776164")),
        FormRequirement(slot="switch", phrase="the new switch type", truth="clicky", values=("clicky", "linear", "tactile"),
                        says=("blue switches",)),
        FormRequirement(slot="payment", phrase="the payment method", truth="gift card ending 4171",
                        values=("gift card ending 4171", "credit card ending 7901"),
                        ids=(("gift_card_4171", "gift card ending 4171"),)),
    ),
    operation="exchange", operations=("exchange", "return", "cancel", "modify"))


def reply(**changes) -> dict:
    base = {"requirements": {
        "order": {"status": "stated", "value": "#W2378156", "candidates": [], "quote": "order #W2378156"},
        "switch": {"status": "stated", "value": "clicky", "candidates": [], "quote": "clicky switches"},
        "payment": {"status": "stated", "value": "gift card ending 4171", "candidates": [], "quote": "my gift card ending 4171"},
    }, "operation": "exchange", "extras": [], "off_topic": "", "asks": True}
    for slot, fields in changes.pop("requirements", {}).items():
        base["requirements"][slot] = {**base["requirements"][slot], **fields}
    return {**base, **changes}
