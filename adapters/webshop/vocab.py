"""The words shoppers use for WebShop's values: the vocabulary behind :mod:`miscue.adapters.webshop.forms`.

Everything here is general English of shopping, written against the catalogue's own value and
attribute vocabulary (sizes, units, packs, colour families, "x-free" features, store operations).
A form two values share is deliberate: "blue" fits navy and royal blue, "bar counter" fits bar
height and counter height, so a text that says only that is lexically ambiguous.
"""

from __future__ import annotations

#: letter sizes: every way of saying one (the first is the catalogue's usual spelling); never glued
#: ("xlarge"): the grounder's typo tolerance would read "large" as it
SIZE_GROUPS: tuple[tuple[str, ...], ...] = (
    ("xs", "x-small", "extra small", "extra-small"),
    ("s", "small", "sm"),
    ("m", "medium", "med"),
    ("l", "large", "lg"),
    ("xl", "x-large", "extra large", "extra-large", "1xl"),
    ("xxl", "xx-large", "2xl", "extra extra large", "2x-large", "double xl"),
    ("xxxl", "3x-large", "3xl", "xxx-large", "triple xl"),
    ("1x", "1x plus", "plus size 1x", "1x plus size", "1xl"),  # "1xl": plus 1X, or XL, by brand (shared)
    ("2x", "2x plus", "plus size 2x", "2x plus size"),
    ("3x", "3x plus", "plus size 3x", "3x plus size"),
)
#: single-word sizes of furniture and bedding
WORD_SIZES = {"full": ("double", "double bed", "full bed", "full mattress"), "queen": ("queen bed", "queen mattress"),
              "king": ("king bed", "king mattress"), "twin": ("twin bed", "twin mattress")}

#: units, each with the ways it is said after a number
UNITS: dict[str, tuple[str, ...]] = {
    "fl oz": ("fl oz", "fluid ounce", "fluid ounces", "oz", "ounce", "ounces", "fl. oz"),
    "ounce": ("ounce", "ounces", "oz"),
    "oz": ("oz", "ounce", "ounces"),
    "pound": ("pound", "pounds", "lb", "lbs"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "ft": ("ft", "feet", "foot"),
    "inch": ("inch", "inches", "in"),
    "count": ("count", "ct", "pieces", "pcs", "pack"),
    "shades": ("shades", "shade", "colors", "colours", "pans"),
    "tier": ("tier", "tiers", "shelf", "shelves", "level"),
    "liter": ("liter", "liters", "litre", "litres", "l"),
    "ml": ("ml", "milliliters", "millilitres"),
    "g": ("g", "grams", "gram", "gr"),
    "w": ("w", "watt", "watts"),
    "mah": ("mah",),
}
#: what a size option's amounts come in: words naming the requirement, not a value
PACKAGE_NAMES = ("pack", "packs", "box", "bag", "bottle", "set", "count")
#: how the catalogue writes a pack size into an option string: "1 ounce (pack of 24)", "set of 6"
PACK_WORDS = ("pack", "set")
#: units the catalogue writes in two words ("8 fl oz"); one-word units are any word after the number
TWO_WORD_UNITS = ("fl oz",)
#: what the catalogue appends to an attribute that is otherwise a synonym's key ("batteries included")
ATTR_QUALIFIERS = ("required", "needed", "included")

#: option name -> the words that name it
OPTION_NAMES: dict[str, tuple[str, ...]] = {
    "size": ("size", "sizes", "sized"),
    "color": ("color", "colour", "colors", "colours", "colored", "coloured", "shade", "finish"),
    "flavor name": ("flavor", "flavour", "flavors", "flavours", "flavored", "flavoured", "taste", "variety"),
    "scent": ("scent", "scents", "scented", "fragrance", "smell"),
    "style": ("style", "styles", "type", "version"),
}
#: words of price: a vague word beside one ("something cheap", "nothing too pricey") is about the ceiling
PRICE_NAMES = ("price", "priced", "prices", "budget", "cost", "costs", "spend", "pay", "dollars", "bucks", "money",
               "cheap", "cheaper", "cheapest", "expensive", "pricey", "pricy", "affordable", "inexpensive", "costly",
               "spendy", "price range", "reasonably")

#: words for a kind of colour rather than one: any value of the kind may be meant
_PATTERNED = ("patterned", "pattern", "a pattern", "printed")
_NEUTRAL = ("neutral", "neutrals", "neutral tone", "neutral tones")
#: colour families: a colour value is also said by its family's word (shared on purpose)
COLOR_FAMILY: dict[str, tuple[str, ...]] = {
    "navy": ("blue", "dark blue"), "royal": ("blue",), "indigo": ("blue", "dark blue"), "teal": ("blue", "green"),
    "denim": ("blue",), "sapphire": ("blue",), "stonewash": ("blue",),
    "olive": ("green",), "forest": ("green", "dark green"), "emerald": ("green",), "mint": ("green", "light green"),
    "burgundy": ("red", "dark red", "wine"), "maroon": ("red", "dark red", "burgundy"), "wine": ("red", "burgundy"),
    "ruby": ("red",), "berry": ("red", "pink"), "cranberry": ("red",), "merlot": ("red",),
    "charcoal": ("grey", "gray", "dark grey", "dark gray"), "graphite": ("grey", "gray", "dark grey"),
    "heather": ("grey", "gray"), "slate": ("grey", "gray"), "silver": ("grey", "gray"), "ash": ("grey", "gray"),
    "espresso": ("brown", "dark brown"), "walnut": ("brown", "wood"), "oak": ("wood", "light brown", "natural"),
    "rustic": ("brown", "wood"), "chestnut": ("brown",), "mocha": ("brown",), "coffee": ("brown",), "camel": ("brown", "tan"),
    "sand": ("beige", "tan", *_NEUTRAL), "khaki": ("beige", "tan", *_NEUTRAL), "taupe": ("beige", "grey", *_NEUTRAL),
    "nude": ("beige", "pink", *_NEUTRAL), "beige": _NEUTRAL, "neutral": _NEUTRAL, "neutrals": _NEUTRAL,
    "dusty": ("pink",), "coral": ("pink", "orange"), "rose": ("pink",), "blush": ("pink",), "fuchsia": ("pink",),
    "mauve": ("purple", "pink"), "plum": ("purple",), "lavender": ("purple",), "lilac": ("purple",), "violet": ("purple",),
    "ivory": ("white", "off white"), "cream": ("white", "off white"), "clear": ("transparent", "see through"),
    "jewel": ("colorful",), "multicolor": ("colorful",), "floral": ("flowers", "flower print", *_PATTERNED),
    "leopard": ("animal print", "cheetah", *_PATTERNED), "camo": ("camouflage", *_PATTERNED), "marble": ("marbled",),
    "plaid": ("checked", "tartan", *_PATTERNED), "striped": ("stripes", *_PATTERNED), "paisley": _PATTERNED,
    "polka": ("dots", "spotted", *_PATTERNED),
}
SPELLINGS = {"grey": "gray", "gray": "grey", "color": "colour", "colour": "color", "flavor": "flavour",
             "flavour": "flavor", "flavors": "flavours", "flavours": "flavors", "colors": "colours", "colours": "colors",
             "fiber": "fibre", "fibre": "fiber", "aluminum": "aluminium", "aluminium": "aluminum"}

#: words that say nothing of a value alone (never a form by themselves)
GENERIC = {"all", "classic", "print", "original", "with", "without", "and", "or", "the", "a", "an", "of", "in", "for",
           "n", "no", "non", "not", "free", "plus", "size", "style", "color", "colour", "flavor", "flavour", "scent",
           "light", "dark", "medium", "cool", "warm", "hot", "sweet", "regular", "wash"}

#: (option value) -> more ways to say it; a form listed under two values is shared on purpose
VALUE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "counter height": ("counter-height", "counter stool", "counter stools", "kitchen counter", "counter level",
                       "bar counter", "kitchen bar", "breakfast bar"),
    "bar height": ("bar-height", "pub height", "pub stools", "pub style", "home bar", "bar level",
                   "bar counter", "kitchen bar", "breakfast bar"),
    "unscented": ("no scent", "scent free", "scent-free", "fragrance free", "fragrance-free", "without scent", "non scented",
                  "no fragrance", "without fragrance"),
    "decaf": ("decaffeinated", "caffeine free", "no caffeine"),
    "cookies and cream": ("cookies n cream", "cookies 'n cream", "cookies & cream", "cookie and cream"),
    "sweet and salty": ("sweet n salty", "sweet & salty", "sweet salty", "salty sweet", "sweet and savory"),
    "clear": ("transparent", "see through", "see-through"),
    "black | white": ("black and white", "black & white", "black with white", "white and black"),
    "all grey": ("all gray", "grey", "gray", "full grey"),
    "tea tree": ("tea tree oil",),
    "ginger lemon": ("lemon ginger", "ginger and lemon", "lemon and ginger"),
    "peppermint": ("mint",),
    "rooibos": ("red tea", "redbush", "red bush", "rooibos tea"), "hibiscus": ("red tea", "hibiscus tea"),
    "mint chocolate": ("chocolate mint", "mint chip"),
    "chocolate peanut butter": ("peanut butter chocolate", "peanut butter"),
    "honey roasted": ("honey roast", "honey"),
    "original": ("classic", "regular", "plain"),
    "tropical": ("tropical fruit", "fruit"),
}

#: attribute text -> more ways to say it (the catalogue's mined features, in shoppers' words)
ATTR_SYNONYMS: dict[str, tuple[str, ...]] = {
    "chest pocket": ("breast pocket", "pocket on the chest"),
    "tagless": ("tag free", "tag-free", "no tag", "no tags", "without tags", "without a tag", "no itchy tag",
                "no itchy tags", "no scratchy tag"),
    "heavyweight": ("heavy weight", "heavy-weight", "thick", "heavy"),
    "lightweight": ("light weight", "light-weight"),
    "machine wash": ("machine washable", "machine-washable", "washable", "machine wash safe", "washing machine safe"),
    "whole bean": ("whole beans", "beans not ground", "unground"),
    "fair trade": ("fairtrade", "fair trade certified", "fairly traded"),
    "long battery life": ("long lasting battery", "long-lasting battery", "battery lasts", "long battery", "battery life",
                          "great battery", "good battery life"),
    "multi device": ("multiple devices", "several devices", "multidevice", "switch between devices", "more than one device"),
    "right angle": ("90 degree", "90-degree", "l shaped", "l-shaped", "angled", "elbow"),
    "fast charging": ("fast charge", "quick charge", "quick charging", "rapid charging", "fast charger", "charges fast"),
    "squat proof": ("not see through", "not see-through", "opaque", "squat resistant"),
    "tummy control": ("tummy-control", "tummy shaping", "belly control", "tummy compression"),
    "fleece lined": ("fleece lining", "lined with fleece", "fleece inside", "fleece"),
    "kangaroo pocket": ("kangaroo pouch", "pouch pocket", "front pouch"),
    "drawstring hood": ("hood with a drawstring", "drawstring hoodie", "drawstrings", "hood drawstring"),
    "elastic waist": ("elastic waistband", "elasticated waist", "stretchy waist", "stretch waist"),
    "high waist": ("high rise", "high-rise"),
    "button closure": ("buttons", "button up", "button front", "button down", "buttoned", "button-up"),
    "pockets": ("with pockets",),
    "slim fit": ("slim", "slim cut", "skinny fit"),
    "regular fit": ("regular", "classic fit", "standard fit"),
    "relaxed fit": ("relaxed", "loose fit", "loose"),
    "straight leg": ("straight cut", "straight fit"),
    "wood slats": ("wooden slats", "slats", "slatted"),
    "metal frame": ("steel frame", "metal", "iron frame"),
    "solid wood": ("real wood", "all wood", "wooden", "hardwood"),
    "storage": ("storage space", "with storage", "storage shelves", "store things"),
    "under bed storage": ("underbed storage", "storage under the bed", "storage drawers", "drawers"),
    "open shelf": ("open shelves", "open shelving", "open-shelf"),
    "adjustable shelves": ("adjustable shelf", "adjustable shelving"),
    "backrest": ("back support", "with a back", "backs", "with back"),
    "metal legs": ("steel legs", "metal base", "metal frame legs"),
    "swivel": ("swivels", "swiveling", "swivelling", "rotating", "spins", "swivel seat"),
    "faux leather": ("pu leather", "vegan leather", "leatherette", "imitation leather", "fake leather"),
    "pu leather": ("faux leather", "vegan leather", "leatherette"),
    "360 swivel": ("360 degree swivel", "360-degree swivel", "swivels 360", "swivels 360 degrees", "full swivel",
                   "360 degrees", "spins all the way around"),
    "mesh back": ("mesh backrest", "mesh", "mesh seat back"),
    "digestion": ("digestive", "digestive health", "helps digestion", "for digestion", "helps with digestion"),
    "sleep": ("sleepy", "bedtime", "sleep aid", "for sleep", "sleeping", "help me sleep", "helps with sleep"),
    "natural ingredients": ("natural", "all natural", "all-natural", "natural ingredient"),
    "all natural": ("natural", "all-natural", "natural ingredients"),
    "color safe": ("safe for color treated hair", "safe for colored hair", "color treated hair", "colour treated hair",
                   "safe for dyed hair"),
    "crease resistant": ("creaseproof", "crease proof", "wont crease", "doesnt crease", "no creasing", "crease-free"),
    "low latency": ("low lag", "no lag", "minimal lag", "lag free"),
    "military grade": ("mil grade", "mil-spec", "military grade protection", "military drop tested"),
    "raised edges": ("raised lip", "raised bezel", "raised rim", "raised edge"),
    "ambidextrous": ("either hand", "left or right hand", "left handed", "left-handed", "for lefties"),
    "high protein": ("protein packed", "lots of protein", "protein rich", "packed with protein"),
    "low sugar": ("low in sugar", "less sugar", "little sugar", "not much sugar"),
    "keto friendly": ("keto", "ketogenic"),
    "arch support": ("arch supports", "supportive arch", "good arch support"),
    "breathable mesh": ("mesh", "mesh upper", "breathable"),
    "roasted nuts": ("roasted nut",),
    "cushioned": ("cushioning", "cushion", "padded"),
    "non slip": ("anti slip", "slip resistant", "nonslip", "grippy"),
    "wide toe box": ("wide toe", "roomy toe box", "wide fit"),
    "noise cancelling": ("noise canceling", "anc", "active noise cancellation", "noise cancellation"),
    "water resistant": ("waterproof", "water-resistant", "sweatproof", "sweat proof"),
    "waterproof": ("water proof", "water resistant"),
    "touch control": ("touch controls", "touch-control"),
    "ear hooks": ("ear hook", "earhooks", "over ear hooks"),
    "rechargeable": ("rechargeable battery", "recharge"),
    "rechargeable battery": ("rechargeable",),
    "silent click": ("silent clicks", "quiet click", "quiet clicks", "silent"),
    "adjustable dpi": ("dpi", "adjustable sensitivity"),
    "usb receiver": ("usb dongle", "dongle", "nano receiver"),
    "braided nylon": ("braided", "nylon braided"),
    "data transfer": ("data sync", "transfers data"),
    "lumbar support": ("lumbar", "lower back support"),
    "padded armrests": ("padded arms", "cushioned armrests"),
    "adjustable height": ("height adjustable", "adjustable seat height"),
    "easy assembly": ("easy to assemble", "easy to put together", "simple assembly"),
    "kitchen island": ("island",),
    "moisture wicking": ("sweat wicking", "wicking", "moisture-wicking", "quick dry"),
    "quick dry": ("fast drying", "dries fast", "quick drying"),
    "long lasting": ("long-lasting", "lasts all day", "long wear", "long wearing"),
    "highly pigmented": ("pigmented", "rich pigment"),
    "cruelty free": ("not tested on animals", "cruelty-free"),
    "high shine": ("glossy", "shiny", "high gloss"),
    "chip resistant": ("chip-resistant", "doesnt chip", "wont chip", "chip proof"),
    "sensitive skin": ("for sensitive skin",),
    "dry skin": ("for dry skin",),
    "dry hair": ("for dry hair",),
    "100% cotton": ("all cotton", "pure cotton", "100 percent cotton"),
    "v neck": ("v neckline",),
    "crew neck": ("crewneck", "round neck"),
}

#: store capabilities WebShop does not offer (intents.UNSUPPORTED_OPERATIONS), in shoppers' words
OPERATION_FORMS: dict[str, tuple[str, ...]] = {
    "price_alert": ("price alert", "set a price alert", "price drop alert", "price watch", "watch the price", "track the price",
                    "alert me when", "notify me when", "let me know when the price", "order them automatically",
                    "order it automatically", "buy it automatically", "automatically order", "auto buy", "auto-buy",
                    "once it drops", "when the price drops", "when it goes on sale", "once it's cheap enough"),
    "sort_by_price": ("sort by price", "sort the results by price", "sort by lowest price", "sort them by price", "sort by",
                      "sort the", "sort them", "sort it", "sorted by price", "lowest price first", "cheapest first",
                      "by lowest price", "price low to high", "low to high", "take the first one", "pick the first one"),
    "price_filter": ("price filter", "filter by price", "use the price filter", "filter the results", "use the filter",
                     "apply the filter", "apply a filter", "set the filter", "filter results", "price range filter",
                     "filter to", "filter for"),
    "store_pickup": ("in store pickup", "in-store pickup", "store pickup", "pick up in store", "pick it up in store",
                     "pickup in store", "curbside pickup", "curbside", "reserve them", "reserve it", "reserve one",
                     "hold it for me", "hold them for me", "click and collect", "collect in store", "store pick up"),
    "subscribe_and_save": ("subscribe and save", "subscribe & save", "subscribe-and-save", "subscription", "subscribe",
                           "recurring delivery", "repeat delivery", "auto delivery", "auto-ship", "autoship",
                           "each delivery", "every delivery", "monthly delivery", "deliver every month"),
    "ask_seller": ("ask the seller", "contact the seller", "message the seller", "check with the seller", "ask the vendor",
                   "email the seller", "confirm with the seller", "have the seller confirm", "ask the manufacturer",
                   "seller to confirm"),
    "price_match": ("price match", "price-match", "match the price", "match another site", "match their price",
                    "beat the price", "price guarantee"),
    "custom_order": ("made to order", "made-to-order", "custom order", "custom-made", "custom made", "build one for me",
                     "make one for me", "commission", "have it made"),
    "trade_in": ("trade in", "trade-in", "exchange the one i have", "exchange my", "exchange the", "swap the one i have",
                 "swap my old"),
    "layaway": ("layaway", "lay-away", "lay away", "hold it while i pay", "pay in installments"),
}
#: the true request: finding and buying a product
REQUEST_FORMS = ("find and buy", "buy", "find me", "looking for", "look for", "purchase", "order", "get me", "shopping for",
                 "shop for", "find", "i need", "i want", "id like")
