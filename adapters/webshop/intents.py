"""How a WebShop goal is written as an intent: its base, its slots and its target reference.

An intent is ``base = {"cluster": <scrape query>, "target": <opaque reference>}`` plus
conditions ``attr:<text> = <text>`` (goal attributes; the slot name states its value),
``option:<name> = <value>`` (goal options, named after the target's option that offers them)
and ``price <= <ceiling>``. The target reference is a hash of the annotated product's asin: the
goal's type factor compares product names with the target's name, so the target belongs to the
frame, but neither its asin nor its name is ever put into words a writer sees. A base may also
name an ``operation``: a store capability the site does not offer (the wrong instrument).
"""

from __future__ import annotations

from miscue.canonical import content_hash

ATTR, OPTION, PRICE = "attr:", "option:", "price"

#: what a WebShop session can do: search[...] and click[...] on results, options, the item's
#: tabs (description, features, reviews), pagination, "Buy Now". Operations a shopper may ask
#: for that are none of these (the wrong instrument for a purchase the site can make).
UNSUPPORTED_OPERATIONS: dict[str, str] = {
    "price_alert": "set a price alert so it gets ordered automatically once it is cheap enough",
    "sort_by_price": "sort the search results by lowest price and take the first one",
    "price_filter": "use the store's price filter to show only items under my budget",
    "store_pickup": "reserve it for in-store pickup",
    "subscribe_and_save": "set it up as a subscribe-and-save delivery",
    "ask_seller": "ask the seller to confirm it before ordering",
    "price_match": "price-match another site's price",
    "custom_order": "have it made to order",
    "trade_in": "exchange one I already have for it",
    "layaway": "put it on layaway",
}


def target_ref(asin: str) -> str:
    return "t" + content_hash("webshop-target", asin, length=12)


def option_name(slot: str) -> str:
    """The option an ``option:`` slot names (``option:size#2`` -> ``size``)."""
    return slot[len(OPTION):].split("#", 1)[0]
