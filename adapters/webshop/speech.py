"""How a WebShop shopper speaks, as the adapter's side of the writer's cards: the context line,
the request, each requirement's name and spoken value, the extra details a shopper volunteers,
the store capabilities a shopper may wrongly ask for, and the checks that no text names the
target product.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from miscue.adapters.webshop.catalogue import Catalogue
from miscue.adapters.webshop.forms import webshop_domains
from miscue.adapters.webshop.intents import ATTR, OPTION, PRICE, UNSUPPORTED_OPERATIONS, option_name
from miscue.adapters.webshop.matching import fuzz_process
from miscue.briefs import Act, Role
from miscue.host import Extra, Limit, Mismatch, NotExecutable
from miscue.language import Domains
from miscue.schema import Condition, Intent


#: plural nouns a shopper buys one of as "a pair" or by the plural (never "a jean")
_PAIRS = ("jeans", "leggings", "earbuds", "shoes", "beans")


def _single(cluster: str) -> str:
    """One product of a cluster as a shopper says it ("bar stools" -> "a bar stool"), or "" when
    the category is a mass noun or bought by the plural ("trail mix", "men's jeans")."""
    words = cluster.split()
    if not words or not words[-1].endswith("s") or words[-1].endswith("ss") or words[-1] in _PAIRS:
        return ""
    last = words[-1]
    if last.endswith("ves"):
        last = last[:-3] + "f"
    elif last.endswith(("sses", "ches", "shes", "xes")):
        last = last[:-2]
    else:
        last = last[:-1]
    one = " ".join([*words[:-1], last])
    return ("an " if one[0] in "aeio" else "a ") + one


class WebShopSpeech:
    """The domain's words of :class:`miscue.adapters.webshop.adapter.WebShopAdapter` (a mixin).

    Besides the two attributes below it uses the adapter's ``ground_truth`` and
    ``_answer_properties`` (the answer's purchases as flat properties).
    """

    catalogue: Catalogue
    _targets: dict[str, str]  # target reference -> asin

    def context_line(self, intent: Intent) -> str:
        return f"You are shopping in the {intent.base.get('cluster', '')} section of an online store."

    def request_phrase(self, intent: Intent) -> str:
        return f"find and buy a product from the {intent.base.get('cluster', '')} section"

    def acts(self, intent: Intent) -> list[Act]:
        cluster = str(intent.base.get("cluster", ""))
        return [Act(label="", kind="buy", say=self.request_phrase(intent), object=cluster, single=_single(cluster))]

    def role(self, intent: Intent, slot: str) -> Role:
        if slot.startswith(ATTR):
            return Role(kind="feature", noun="feature")
        if slot.startswith(OPTION):
            return Role(kind="option", noun=option_name(slot))
        if slot == PRICE:
            return Role(kind="price", noun="price")
        return super().role(intent, slot)  # type: ignore[misc]

    def slot_phrase(self, intent: Intent, slot: str) -> str:
        if slot.startswith(ATTR):
            return "a feature the product must have"
        if slot.startswith(OPTION):
            return f"the {option_name(slot)}"
        if slot == PRICE:
            return "the price limit (the most the user will pay)"
        return super().slot_phrase(intent, slot)

    def spoken_value(self, intent: Intent, slot: str, value: Any) -> str:
        if slot == PRICE and isinstance(value, (int, float)):
            return f"${value:g}" if float(value).is_integer() else f"${value:.2f}"
        if isinstance(value, str):
            return value.replace(" | ", "/")
        return super().spoken_value(intent, slot, value)

    def value_domains(self, intent: Intent) -> Domains:
        """Every requirement's legal values with the ways shoppers say them, the store capabilities
        a shopper may wrongly ask for and the extra details they may add (DESIGN 6a;
        :mod:`miscue.adapters.webshop.forms`)."""
        return webshop_domains(self, intent)

    def _phrase(self, slot: str, value: str) -> str:
        spoken = value.replace(" | ", "/")
        if slot.startswith(ATTR):
            return spoken
        name = option_name(slot)
        if name == "color":
            return f"in {spoken}"
        if name == "size":
            return f"in size {spoken}"
        return f"with {name} {spoken}"

    def extras(self, intent: Intent) -> list[Extra]:
        """Extra concrete details (an attribute some answers carry, an option value some choose)
        whose literal reading (truth plus the detail) strictly narrows a non-empty answer."""
        truth = self.ground_truth(intent)
        if len(truth.value) < 2:
            return []
        props = self._answer_properties(intent, truth)
        held = Counter((s, v) for w in props for s, v in w.items())
        present = set(intent.slots)
        out: list[Extra] = []
        for (slot, value), n in sorted(held.items(), key=lambda kv: (-kv[1], kv[0])):
            if slot in present or n >= len(props):
                continue
            reading = intent.with_condition(Condition(slot=slot, value=value))
            try:
                narrowed = self.ground_truth(reading)
            except NotExecutable:
                continue
            if not narrowed.empty and narrowed.issubset(truth) and narrowed.hash != truth.hash:
                out.append(Extra(self._phrase(slot, value), reading))
        return out

    def limits(self, intent: Intent) -> list[Limit]:
        """A feature the shopper holds the product to in their own words ("it has to be solid
        wood"): read literally, an attribute the reward's own matching checks (no product has it:
        nothing is bought)."""
        return [Limit("a feature the product must have", ATTR, words=True)]

    def mismatches(self, intent: Intent) -> list[Mismatch]:
        """Store capabilities the site does not offer; each reading is refused when executed."""
        return [
            Mismatch(phrase, intent.replace(base={**intent.base, "operation": op}))
            for op, phrase in UNSUPPORTED_OPERATIONS.items()
            if op not in ("price_alert", "price_filter") or intent.condition(PRICE) is not None
        ]

    def answer_identifiers(self, intent: Intent) -> list[str]:
        """The target's hidden reference, asin and product name: no request may contain them."""
        ref = intent.base.get("target")
        asin = self._targets.get(ref) if isinstance(ref, str) else None
        out = [ref] if isinstance(ref, str) else []
        if asin is not None:
            out += [asin, self.catalogue.goal_products[asin].name]
        return out

    def leaks(self, intent: Intent, text: str, withheld: Sequence[Any] | None = None) -> list[str]:
        """Reasons a text must not be shown: it names the target (asin or product name) or a
        withheld value."""
        reasons = []
        ref = intent.base.get("target")
        asin = self._targets.get(ref) if isinstance(ref, str) else None
        lowered = text.lower()
        processed = f" {fuzz_process(text)} "
        if isinstance(ref, str) and ref.lower() in lowered:
            reasons.append("leak:target_reference")
        if asin is not None:
            if asin.lower() in lowered:
                reasons.append(f"leak:asin {asin}")
            name = fuzz_process(self.catalogue.goal_products[asin].name)
            if name and f" {name} " in processed:
                reasons.append("leak:product_name")
        for value in withheld or ():
            forms = {str(value)}
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                forms |= {f"{value:g}", f"{float(value):.2f}"}
            for form in sorted(forms):
                needle = fuzz_process(form)
                if needle and f" {needle} " in processed:
                    reasons.append(f"leak:withheld {value!r}")
                    break
        return reasons
