"""Write miscue's own small WebShop catalogue, in WebShop's three-file format, deterministically.

    python scripts/make_webshop_catalogue.py [--out data/webshop] [--check]

Writes ``items_shuffle_miscue.json`` (a list of scraped-product records), ``items_ins_v2_miscue.json``
(asin -> mined attributes) and ``items_human_ins.json`` (asin -> AMT-style human instructions with
``instruction_attributes`` and ``instruction_options``). Everything is drawn from seeded
generators over the hand-written cluster specifications below: same code, same bytes.

The catalogue is the default source of the WebShop adapter, so the build and the tests run on a
fresh machine (WebShop's own data is a Google-Drive download that is not available here). It is
made to exercise the graph operators: every cluster (scrape query) has ~17 products sharing a
feature pool and option vocabulary, so goals match several products (refinement has witnesses
to split), option values and price steps have reward-distinguishable alternatives (and some
that are not: small/x-small, pack of 2/pack of 3, chocolate flavours that all normalise to
"chocolate"), and every cluster has about ten goals over six annotated products (pivots are
retrieved, and some instructions of one product relax or refine each other). A few goals are
deliberately flawed, as AMT data is: an attribute the product does not have, an option it does
not offer, no attributes at all (WebShop skips those).

``--check`` loads the written files with the adapter and validates every goal.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 20240607
PRODUCTS_PER_CLUSTER = 17
TARGETS_PER_CLUSTER = 6
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Cluster:
    query: str
    category: str
    breadcrumb: str
    noun: str  # how a shopper names the product in an instruction
    styles: tuple[str, ...]  # product-type phrases for names
    brands: tuple[str, ...]
    features: dict[str, str]  # attribute -> a bullet sentence that states it
    options: dict[str, tuple[str, ...]]  # option name (as scraped) -> the cluster's values
    price: tuple[int, int]
    prefix: str = ""  # name prefix like "Women's"
    generic: tuple[str, ...] = ()  # generic mined attributes


F = dict  # readability below

CLUSTERS: tuple[Cluster, ...] = (
    # ----------------------------------------------------------------------------- fashion
    Cluster(
        "women's dresses", "fashion", "Clothing, Shoes & Jewelry › Women › Clothing › Dresses", "dress",
        ("Wrap Midi Dress", "Maxi Dress", "Swing Dress", "A-Line Dress", "Shirt Dress", "Bodycon Dress"),
        ("Grace Karin", "Lark & Ro", "ZESICA", "PRETTYGARDEN", "Amoretu", "BTFBM", "Merokeety"),
        F({
            "machine wash": "Machine wash cold with like colors and tumble dry low.",
            "short sleeve": "Short sleeve cut that keeps you cool on warm afternoons.",
            "long sleeve": "Long sleeve design for cooler evenings and the office.",
            "v neck": "Flattering v neck neckline that pairs well with a necklace.",
            "pockets": "Two hidden side pockets hold your phone and keys.",
            "high waist": "High waist seam defines the silhouette.",
            "button closure": "Front button closure from neckline to hem.",
            "polyester spandex": "Soft polyester spandex blend with a little stretch.",
            "elastic waist": "Smocked elastic waist for an easy fit.",
            "tie belt": "Removable tie belt to cinch the waist.",
        }),
        F({"Color": ("Black", "Navy Blue", "Wine Red", "Emerald Green", "Dusty Pink", "Floral Print", "Leopard", "White"),
           "Size": ("X-Small", "Small", "Medium", "Large", "X-Large", "XX-Large")}),
        (24, 68), "Women's", ("casual dress", "summer"),
    ),
    Cluster(
        "men's t-shirts", "fashion", "Clothing, Shoes & Jewelry › Men › Clothing › Shirts › T-Shirts", "t-shirt",
        ("Crew T-Shirt", "Pocket T-Shirt", "Athletic T-Shirt", "Henley T-Shirt", "Graphic T-Shirt"),
        ("Gildan", "Hanes", "Fruit of the Loom", "Goodthreads", "Champion", "Comfort Colors", "Under Armour"),
        F({
            "cotton": "Made of 100% ring-spun cotton.",
            "crew neck": "Classic crew neck with ribbed collar.",
            "short sleeve": "Short sleeve fit for everyday wear.",
            "slim fit": "Slim fit through the chest and waist.",
            "moisture wicking": "Moisture wicking fabric keeps you dry during workouts.",
            "tagless": "Tagless neck label for all-day comfort.",
            "machine wash": "Machine wash warm, tumble dry medium.",
            "chest pocket": "Chest pocket on the left side.",
            "v neck": "V neck collar for a modern look.",
            "long sleeve": "Long sleeve version for layering.",
        }),
        F({"Color": ("Black", "White", "Heather Grey", "Navy", "Olive Green", "Burgundy", "Royal Blue"),
           "Size": ("Small", "Medium", "Large", "X-Large", "XX-Large", "3X-Large")}),
        (9, 32), "Men's", ("basic tee",),
    ),
    Cluster(
        "women's running shoes", "fashion", "Clothing, Shoes & Jewelry › Women › Shoes › Athletic › Running", "running shoes",
        ("Running Shoe", "Road Running Shoe", "Trail Running Shoe", "Walking Sneaker", "Training Shoe"),
        ("Brooks", "ASICS", "Skechers", "New Balance", "Saucony", "Ryka", "Feethit"),
        F({
            "memory foam": "Memory foam insole molds to your foot.",
            "non slip": "Non slip rubber outsole grips wet pavement.",
            "lightweight": "Lightweight build of just 7.5 ounces.",
            "breathable mesh": "Breathable mesh upper keeps feet cool.",
            "arch support": "Contoured arch support for long runs.",
            "rubber sole": "Durable rubber sole.",
            "slip on": "Slip on design with a stretch collar.",
            "lace up": "Classic lace up closure.",
            "wide toe box": "Wide toe box gives toes room to spread.",
            "cushioned": "Cushioned midsole absorbs impact.",
        }),
        F({"Color": ("Black | White", "All Grey", "Pink", "Navy", "White", "Purple", "Coral"),
           "Size": ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "11")}),
        (35, 120), "Women's", ("running shoe",),
    ),
    Cluster(
        "men's jeans", "fashion", "Clothing, Shoes & Jewelry › Men › Clothing › Jeans", "jeans",
        ("Straight Jean", "Athletic Jean", "Bootcut Jean", "Carpenter Jean", "Tapered Jean"),
        ("Levi's", "Wrangler", "Lee", "Amazon Essentials", "Signature by Levi Strauss", "Lucky Brand"),
        F({
            "straight leg": "Straight leg from hip to hem.",
            "slim fit": "Slim fit through the seat and thigh.",
            "relaxed fit": "Relaxed fit with extra room in the seat.",
            "stretch denim": "Stretch denim moves with you.",
            "button fly": "Button fly closure.",
            "zip fly": "Zip fly with button closure.",
            "five pocket": "Classic five pocket styling.",
            "machine wash": "Machine wash cold inside out.",
            "100% cotton": "Made of 100% cotton rigid denim.",
            "regular fit": "Regular fit sits at the waist.",
        }),
        F({"Color": ("Dark Wash", "Light Wash", "Black", "Medium Indigo", "Stonewash Blue", "Grey"),
           "Size": ("30W x 30L", "32W x 30L", "32W x 32L", "34W x 32L", "36W x 32L", "38W x 34L")}),
        (25, 80), "Men's", ("denim jean",),
    ),
    Cluster(
        "women's leggings", "fashion", "Clothing, Shoes & Jewelry › Women › Clothing › Leggings", "leggings",
        ("Yoga Leggings", "Workout Leggings", "Capri Leggings", "Running Tights", "Fleece Lined Leggings"),
        ("CRZ YOGA", "BALEAF", "Colorfulkoala", "IUGA", "Sunzel", "90 Degree By Reflex", "ODODOS"),
        F({
            "high waist": "High waist band smooths and supports.",
            "tummy control": "Tummy control panel holds you in.",
            "squat proof": "Squat proof, opaque fabric.",
            "side pockets": "Deep side pockets fit a phone.",
            "buttery soft": "Buttery soft brushed fabric.",
            "moisture wicking": "Moisture wicking for hot yoga.",
            "4 way stretch": "4 way stretch for full range of motion.",
            "full length": "Full length reaches the ankle.",
            "capri length": "Capri length ends mid-calf.",
            "fleece lined": "Fleece lined for winter runs.",
        }),
        F({"Color": ("Black", "Charcoal", "Navy", "Olive", "Burgundy", "Dusty Rose", "Marble Print"),
           "Size": ("XS", "S", "M", "L", "XL", "1X", "2X")}),
        (15, 48), "Women's", ("yoga pants",),
    ),
    Cluster(
        "men's hoodies", "fashion", "Clothing, Shoes & Jewelry › Men › Clothing › Fashion Hoodies & Sweatshirts", "hoodie",
        ("Pullover Hoodie", "Full Zip Hoodie", "Fleece Hoodie", "Heavyweight Hoodie", "Tech Hoodie"),
        ("Hanes", "Champion", "Carhartt", "Gildan", "Russell Athletic", "Jerzees", "COOFANDY"),
        F({
            "fleece lined": "Fleece lined interior for warmth.",
            "kangaroo pocket": "Front kangaroo pocket.",
            "drawstring hood": "Adjustable drawstring hood.",
            "full zip": "Full zip front with metal zipper.",
            "pullover": "Pullover style with no zipper.",
            "cotton blend": "Soft cotton blend fleece.",
            "machine wash": "Machine wash cold, tumble dry low.",
            "ribbed cuffs": "Ribbed cuffs and waistband.",
            "heavyweight": "Heavyweight 10 ounce fabric.",
            "thumb holes": "Thumb holes keep sleeves in place.",
        }),
        F({"Color": ("Black", "Heather Grey", "Navy", "Forest Green", "Maroon", "Sand"),
           "Size": ("Small", "Medium", "Large", "X-Large", "XX-Large")}),
        (18, 65), "Men's", ("sweatshirt",),
    ),
    # ------------------------------------------------------------------------------ beauty
    Cluster(
        "face moisturizer", "beauty", "Beauty & Personal Care › Skin Care › Face › Creams & Moisturizers", "face moisturizer",
        ("Daily Face Moisturizer", "Hydrating Gel Cream", "Night Cream", "Face Lotion", "Water Cream"),
        ("CeraVe", "Neutrogena", "La Roche-Posay", "Cetaphil", "Olay", "First Aid Beauty", "Vanicream"),
        F({
            "hyaluronic acid": "With hyaluronic acid to hold moisture.",
            "fragrance free": "Fragrance free formula.",
            "non comedogenic": "Non comedogenic: will not clog pores.",
            "spf 30": "Broad spectrum spf 30 sun protection.",
            "oil free": "Oil free, lightweight texture.",
            "sensitive skin": "Gentle enough for sensitive skin.",
            "vitamin c": "Brightening vitamin c.",
            "dermatologist tested": "Dermatologist tested and recommended.",
            "dry skin": "Rich enough for very dry skin.",
            "ceramides": "Three essential ceramides restore the barrier.",
        }),
        F({"Size": ("1.7 Fl Oz", "2.5 Fl Oz", "3.4 Fl Oz", "1.7 Fl Oz (Pack of 2)")}),
        (9, 45), "", ("face cream",),
    ),
    Cluster(
        "lipstick", "beauty", "Beauty & Personal Care › Makeup › Lips › Lipstick", "lipstick",
        ("Matte Liquid Lipstick", "Satin Lipstick", "Lip Stain", "Cream Lipstick", "Lip Crayon"),
        ("Maybelline", "L'Oreal Paris", "Revlon", "NYX Professional Makeup", "e.l.f.", "Milani", "Rimmel"),
        F({
            "long lasting": "Long lasting color for up to 16 hours.",
            "matte finish": "Velvety matte finish.",
            "cruelty free": "Cruelty free, never tested on animals.",
            "waterproof": "Waterproof and smudge resistant.",
            "moisturizing": "Moisturizing shea butter formula.",
            "vegan": "Vegan formula with no animal ingredients.",
            "transfer proof": "Transfer proof once set.",
            "satin finish": "Creamy satin finish.",
            "paraben free": "Paraben free.",
            "highly pigmented": "Highly pigmented in a single swipe.",
        }),
        F({"Color": ("Ruby Red", "Nude Pink", "Berry", "Coral", "Mauve", "Plum", "Classic Red", "Rose"),
           "Size": ("Pack of 1", "Pack of 2", "Pack of 3")}),
        (5, 24), "", ("lip color",),
    ),
    Cluster(
        "shampoo", "beauty", "Beauty & Personal Care › Hair Care › Shampoo & Conditioner › Shampoos", "shampoo",
        ("Daily Shampoo", "Clarifying Shampoo", "Moisture Shampoo", "Volumizing Shampoo", "Shampoo Bar"),
        ("OGX", "Pantene", "Maple Holistics", "Head & Shoulders", "SheaMoisture", "Aveeno", "Paul Mitchell"),
        F({
            "sulfate free": "Sulfate free cleansers.",
            "color safe": "Color safe for dyed hair.",
            "paraben free": "Paraben free formula.",
            "dry hair": "Made for dry hair and split ends.",
            "dandruff": "Fights dandruff and itchy scalp.",
            "natural ingredients": "Made with natural ingredients.",
            "curly hair": "Defines curly hair without frizz.",
            "volumizing": "Volumizing lift from the roots.",
            "cruelty free": "Cruelty free and vegan.",
            "fine hair": "Light enough for fine hair.",
        }),
        F({"Size": ("12 Fl Oz", "16.9 Fl Oz", "33.8 Fl Oz", "12 Fl Oz (Pack of 2)"),
           "Scent": ("Coconut", "Tea Tree", "Argan Oil", "Lavender", "Unscented", "Citrus")}),
        (6, 36), "", ("hair wash",),
    ),
    Cluster(
        "nail polish", "beauty", "Beauty & Personal Care › Foot, Hand & Nail Care › Nail Art & Polish › Nail Polish",
        "nail polish",
        ("Nail Polish", "Gel Nail Polish", "Nail Lacquer", "Nail Color", "Nail Enamel"),
        ("OPI", "Essie", "Sally Hansen", "Revlon", "Zoya", "Olive & June", "Orly"),
        F({
            "quick dry": "Quick dry in 60 seconds.",
            "long lasting": "Long lasting wear up to 10 days.",
            "chip resistant": "Chip resistant formula.",
            "gel effect": "Gel effect shine without a lamp.",
            "non toxic": "Non toxic, 10-free formula.",
            "vegan": "Vegan and cruelty free.",
            "high shine": "High shine glossy finish.",
            "easy application": "Wide brush for easy application.",
            "breathable": "Breathable formula lets nails breathe.",
        }),
        F({"Color": ("Classic Red", "Nude", "Black", "Hot Pink", "Lavender", "Navy", "Glitter Gold", "White"),
           "Size": ("0.5 Fl Oz", "0.5 Fl Oz (Pack of 2)", "Set of 6")}),
        (4, 28), "", ("nail color",),
    ),
    Cluster(
        "eyeshadow palette", "beauty", "Beauty & Personal Care › Makeup › Eyes › Eyeshadow", "eyeshadow palette",
        ("Eyeshadow Palette", "Eye Shadow Palette", "Mini Eyeshadow Palette", "Pro Palette"),
        ("Morphe", "Urban Decay", "Too Faced", "e.l.f.", "Huda Beauty", "ColourPop", "BH Cosmetics"),
        F({
            "highly pigmented": "Highly pigmented pressed powders.",
            "long lasting": "Long lasting wear with primer.",
            "blendable": "Buttery, blendable shades.",
            "matte and shimmer": "Mix of matte and shimmer finishes.",
            "cruelty free": "Cruelty free.",
            "vegan": "Vegan formula.",
            "talc free": "Talc free powders.",
            "with mirror": "Palette comes with mirror.",
            "crease resistant": "Crease resistant all day.",
        }),
        F({"Color": ("Warm Neutrals", "Cool Smoky", "Rose Gold", "Sunset", "Nude Matte", "Jewel Tones"),
           "Size": ("12 Shades", "18 Shades", "35 Shades")}),
        (8, 55), "", ("eye makeup",),
    ),
    # ------------------------------------------------------------------------- electronics
    Cluster(
        "wireless earbuds", "electronics", "Electronics › Headphones, Earbuds & Accessories › Earbuds", "wireless earbuds",
        ("Wireless Earbuds", "True Wireless Earbuds", "Sport Earbuds", "Bluetooth Earbuds", "Open-Ear Earbuds"),
        ("Soundcore", "JLab", "TOZO", "Skullcandy", "Jabra", "EarFun", "Beats"),
        F({
            "noise cancelling": "Active noise cancelling blocks traffic and engine noise.",
            "bluetooth 5.3": "Bluetooth 5.3 for a stable connection.",
            "wireless charging": "Case supports wireless charging.",
            "water resistant": "IPX5 water resistant for the gym.",
            "long battery life": "Long battery life: 40 hours with the case.",
            "touch control": "Touch control for music and calls.",
            "built-in microphone": "Built-in microphone for clear calls.",
            "low latency": "Low latency gaming mode.",
            "ear hooks": "Secure ear hooks for running.",
            "app support": "App support with custom EQ.",
        }),
        F({"Color": ("Black", "White", "Navy Blue", "Rose Gold", "Graphite", "Mint Green")}),
        (19, 150), "", ("headphones",),
    ),
    Cluster(
        "phone cases", "electronics", "Cell Phones & Accessories › Cases, Holsters & Sleeves › Basic Cases", "phone case",
        ("Phone Case", "Clear Case", "Wallet Case", "Rugged Case", "Silicone Case"),
        ("OtterBox", "Spigen", "ESR", "Casetify", "Smartish", "TORRAS", "Supcase"),
        F({
            "shockproof": "Shockproof corners absorb drops.",
            "slim fit": "Slim fit adds almost no bulk.",
            "wireless charging compatible": "Wireless charging compatible.",
            "kickstand": "Built-in kickstand for videos.",
            "military grade": "Military grade drop protection.",
            "raised edges": "Raised edges protect screen and camera.",
            "card holder": "Card holder slot on the back.",
            "magsafe compatible": "MagSafe compatible magnets.",
            "anti yellowing": "Anti yellowing clear back.",
            "screen protector": "Comes with a screen protector.",
        }),
        F({"Color": ("Clear", "Black", "Blue", "Purple", "Green", "Pink", "Red"),
           "Size": ("iPhone 14", "iPhone 14 Pro", "iPhone 14 Pro Max", "iPhone 15", "iPhone 15 Pro", "Samsung Galaxy S23")}),
        (8, 60), "", ("phone cover",),
    ),
    Cluster(
        "usb c cables", "electronics", "Electronics › Computers & Accessories › Cables › USB Cables", "usb c cable",
        ("USB C Cable", "USB C to USB C Cable", "USB A to USB C Cable", "Charging Cable", "Right Angle USB C Cable"),
        ("Anker", "Amazon Basics", "Belkin", "UGREEN", "Syncwire", "Baseus", "JSAUX"),
        F({
            "fast charging": "Fast charging for phones, tablets and laptops.",
            "braided nylon": "Braided nylon jacket survives 25,000 bends.",
            "60w": "Carries 60w power delivery.",
            "100w": "Carries 100w power delivery for laptops.",
            "data transfer": "Data transfer at 480 Mbps.",
            "usb 3.1": "USB 3.1 Gen 2 speeds.",
            "tangle free": "Tangle free flat design.",
            "aluminum connector": "Aluminum connector housings.",
            "right angle": "Right angle plug for gaming.",
        }),
        F({"Color": ("Black", "White", "Grey", "Red", "Blue"),
           "Size": ("3 ft", "6 ft", "10 ft", "3 ft (Pack of 2)", "6 ft (Pack of 3)")}),
        (6, 30), "", ("charger cord",),
    ),
    Cluster(
        "bluetooth speakers", "electronics",
        "Electronics › Portable Audio & Video › Portable Speakers & Docks › Portable Bluetooth Speakers", "bluetooth speaker",
        ("Portable Bluetooth Speaker", "Waterproof Speaker", "Party Speaker", "Mini Speaker", "Outdoor Speaker"),
        ("JBL", "Bose", "Anker Soundcore", "Tribit", "Ultimate Ears", "DOSS", "Sony"),
        F({
            "waterproof": "IPX7 waterproof: it floats.",
            "portable": "Portable with a carry strap.",
            "loud sound": "Loud sound fills a backyard.",
            "deep bass": "Deep bass from dual passive radiators.",
            "20 hour playtime": "20 hour playtime on one charge.",
            "stereo pairing": "Stereo pairing with a second speaker.",
            "built-in microphone": "Built-in microphone for calls.",
            "rechargeable battery": "Rechargeable battery via USB-C.",
            "rgb lights": "RGB lights pulse to the beat.",
            "dustproof": "Dustproof for the beach.",
        }),
        F({"Color": ("Black", "Blue", "Red", "Teal", "Camo", "Grey")}),
        (20, 180), "", ("speaker",),
    ),
    Cluster(
        "wireless mouse", "electronics",
        "Electronics › Computers & Accessories › Computer Accessories & Peripherals › Keyboards, Mice & Accessories › Mice",
        "wireless mouse",
        ("Wireless Mouse", "Ergonomic Mouse", "Silent Mouse", "Travel Mouse", "Vertical Mouse"),
        ("Logitech", "Microsoft", "Amazon Basics", "TECKNET", "Jelly Comb", "Anker", "Razer"),
        F({
            "ergonomic": "Ergonomic shape supports your palm.",
            "silent click": "Silent click buttons for quiet offices.",
            "rechargeable": "Rechargeable battery, no AA needed.",
            "usb receiver": "Plug-and-play USB receiver.",
            "bluetooth": "Bluetooth connects without a dongle.",
            "adjustable dpi": "Adjustable DPI from 800 to 2400.",
            "ambidextrous": "Ambidextrous design for either hand.",
            "long battery life": "Long battery life of 18 months.",
            "multi device": "Multi device switching between three computers.",
        }),
        F({"Color": ("Black", "White", "Pink", "Grey", "Blue")}),
        (9, 80), "", ("computer mouse",),
    ),
    # --------------------------------------------------------------------------- furniture
    Cluster(
        "office chairs", "furniture", "Home & Kitchen › Furniture › Home Office Furniture › Home Office Chairs › Desk Chairs",
        "office chair",
        ("Office Chair", "Desk Chair", "Mesh Office Chair", "Task Chair", "Executive Chair"),
        ("SIHOO", "Hbada", "Amazon Basics", "Serta", "HON", "Flash Furniture", "Marsail"),
        F({
            "ergonomic": "Ergonomic S-shaped backrest.",
            "lumbar support": "Adjustable lumbar support.",
            "adjustable height": "Adjustable height by gas lift.",
            "mesh back": "Breathable mesh back.",
            "360 swivel": "360 swivel seat.",
            "padded armrests": "Padded armrests flip up.",
            "headrest": "Adjustable headrest.",
            "high back": "High back supports shoulders.",
            "pu leather": "Bonded pu leather upholstery.",
            "easy assembly": "Easy assembly in 15 minutes.",
        }),
        F({"Color": ("Black", "Grey", "White", "Blue", "Pink", "Brown"),
           "Style": ("With Footrest", "Without Footrest")}),
        (60, 320), "", ("computer chair",),
    ),
    Cluster(
        "bookshelves", "furniture", "Home & Kitchen › Furniture › Living Room Furniture › Bookcases", "bookshelf",
        ("Bookshelf", "Ladder Bookshelf", "Corner Bookshelf", "Cube Bookcase", "Etagere Bookcase"),
        ("VASAGLE", "Sauder", "Nathan James", "HOOBRO", "Furinno", "Walker Edison", "Bestier"),
        F({
            "easy assembly": "Easy assembly with numbered parts.",
            "industrial": "Industrial look of wood and steel.",
            "metal frame": "Sturdy metal frame.",
            "adjustable shelves": "Adjustable shelves move in 1 inch steps.",
            "solid wood": "Solid wood shelves.",
            "storage": "Plenty of storage for books and plants.",
            "wall anchor": "Wall anchor kit included.",
            "open shelf": "Open shelf design.",
            "living room": "Fits a living room or study.",
        }),
        F({"Color": ("White", "Black", "Espresso", "Walnut", "Rustic Brown", "Oak"),
           "Size": ("3-Tier", "4-Tier", "5-Tier")}),
        (35, 190), "", ("bookcase",),
    ),
    Cluster(
        "bar stools", "furniture",
        "Home & Kitchen › Furniture › Game & Recreation Room Furniture › Home Bar Furniture › Barstools", "bar stools",
        ("Bar Stools Set of 2", "Swivel Bar Stools", "Counter Stools", "Saddle Bar Stools", "Backless Bar Stools"),
        ("Amazon Basics", "Yaheetech", "VECELO", "Flash Furniture", "Christopher Knight Home", "HOMCOM", "Winsome"),
        F({
            "swivel": "Full swivel seats.",
            "upholstered": "Upholstered cushion seats.",
            "backrest": "Curved backrest for support.",
            "footrest": "Built-in footrest ring.",
            "faux leather": "Faux leather that wipes clean.",
            "adjustable height": "Adjustable height with a gas lift.",
            "metal legs": "Powder-coated metal legs.",
            "kitchen island": "Sized for a kitchen island.",
            "armless": "Armless to slide under counters.",
        }),
        F({"Color": ("Black", "Grey", "White", "Brown", "Navy"),
           "Style": ("Counter Height", "Bar Height")}),
        (50, 260), "", ("stool",),
    ),
    Cluster(
        "bed frames", "furniture", "Home & Kitchen › Furniture › Bedroom Furniture › Beds, Frames & Bases › Beds", "bed frame",
        ("Platform Bed Frame", "Metal Bed Frame", "Upholstered Bed Frame", "Wood Bed Frame", "Storage Bed Frame"),
        ("Zinus", "Novilla", "Amazon Basics", "DHP", "Allewie", "Linenspa", "IKIFLY"),
        F({
            "platform": "Low platform profile.",
            "no box spring needed": "No box spring needed.",
            "headboard": "Comes with a headboard.",
            "under bed storage": "13 inches of under bed storage.",
            "wood slats": "Wood slats support the mattress.",
            "metal frame": "Steel metal frame.",
            "upholstered": "Upholstered in linen-look fabric.",
            "noise free": "Noise free joints.",
            "easy assembly": "Easy assembly without tools.",
        }),
        F({"Size": ("Twin", "Full", "Queen", "King"),
           "Color": ("Black", "White", "Grey", "Brown")}),
        (90, 420), "", ("bed",),
    ),
    # -------------------------------------------------------------------------------- food
    Cluster(
        "coffee beans", "food", "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Coffee › Whole Coffee Beans",
        "coffee",
        ("Whole Bean Coffee", "Coffee Beans", "Ground Coffee", "Espresso Beans", "Coffee Blend"),
        ("Lavazza", "Kicking Horse", "Peet's", "Death Wish", "Stumptown", "Lifeboost", "Intelligentsia"),
        F({
            "whole bean": "Whole bean for the freshest grind.",
            "organic": "USDA organic.",
            "fair trade": "Fair trade certified.",
            "single origin": "Single origin from Colombia.",
            "arabica": "100% arabica beans.",
            "low acid": "Low acid, gentle on the stomach.",
            "kosher": "Certified kosher.",
            "non gmo": "Non gmo project verified.",
            "ground coffee": "Pre-ground coffee for drip machines.",
        }),
        F({"Flavor Name": ("Medium Roast", "Dark Roast", "Light Roast", "Espresso Roast", "Decaf", "French Roast"),
           "Size": ("12 Ounce", "2 Pound", "5 Pound", "12 Ounce (Pack of 2)")}),
        (9, 65), "", ("coffee bean",),
    ),
    Cluster(
        "protein bars", "food", "Grocery & Gourmet Food › Snack Foods › Bars › Protein Bars", "protein bars",
        ("Protein Bars", "Protein Bar", "Snack Bars", "Keto Bars", "Energy Bars"),
        ("Quest", "RXBAR", "ONE", "Pure Protein", "Built", "No Cow", "Barebells"),
        F({
            "gluten free": "Gluten free.",
            "high protein": "High protein snack.",
            "low sugar": "Low sugar: 1 gram per bar.",
            "keto friendly": "Keto friendly.",
            "non gmo": "Non gmo ingredients.",
            "20g protein": "20g protein per bar.",
            "plant based": "Plant based protein.",
            "soy free": "Soy free.",
            "no artificial sweeteners": "No artificial sweeteners.",
        }),
        F({"Flavor Name": ("Chocolate Peanut Butter", "Cookies and Cream", "Chocolate Chip Cookie Dough", "Birthday Cake",
                           "Salted Caramel", "Mint Chocolate"),
           "Size": ("12 Count", "12 Count (Pack of 2)", "24 Count")}),
        (14, 48), "", ("nutrition bar",),
    ),
    Cluster(
        "herbal tea", "food", "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Tea › Herbal", "herbal tea",
        ("Herbal Tea", "Tea Bags", "Wellness Tea", "Loose Leaf Tea", "Sleep Tea"),
        ("Traditional Medicinals", "Yogi", "Celestial Seasonings", "Twinings", "Pukka", "Bigelow", "Harney & Sons"),
        F({
            "caffeine free": "Naturally caffeine free.",
            "organic": "Certified organic herbs.",
            "tea bags": "Individually wrapped tea bags.",
            "loose leaf": "Loose leaf in a tin.",
            "non gmo": "Non gmo verified.",
            "kosher": "Kosher certified.",
            "sleep": "Evening blend to help you sleep.",
            "digestion": "Supports digestion after meals.",
            "gluten free": "Gluten free.",
        }),
        F({"Flavor Name": ("Chamomile", "Peppermint", "Ginger Lemon", "Hibiscus", "Rooibos", "Lavender"),
           "Size": ("20 Count", "20 Count (Pack of 6)", "40 Count")}),
        (4, 32), "", ("tea",),
    ),
    Cluster(
        "hot sauce", "food", "Grocery & Gourmet Food › Condiments & Salad Dressings › Sauces › Hot Sauce", "hot sauce",
        ("Hot Sauce", "Pepper Sauce", "Chili Sauce", "Hot Sauce Variety Pack", "Sriracha Sauce"),
        ("Cholula", "Tabasco", "Secret Aardvark", "Yellowbird", "Truff", "El Yucateco", "Melinda's"),
        F({
            "gluten free": "Gluten free.",
            "vegan": "Vegan.",
            "no sugar added": "No sugar added.",
            "small batch": "Made in small batch runs.",
            "extra hot": "Extra hot: 50,000 Scoville units.",
            "mild": "Mild heat for the whole family.",
            "keto friendly": "Keto friendly.",
            "all natural": "All natural ingredients.",
            "kosher": "Kosher.",
        }),
        F({"Flavor Name": ("Original", "Habanero", "Chipotle", "Garlic", "Ghost Pepper", "Mango Habanero"),
           "Size": ("5 Fl Oz", "10 Fl Oz", "5 Fl Oz (Pack of 3)")}),
        (4, 30), "", ("hot sauce",),
    ),
    Cluster(
        "trail mix", "food", "Grocery & Gourmet Food › Snack Foods › Trail Mix", "trail mix",
        ("Trail Mix", "Snack Mix", "Nut Mix", "Trail Mix Packs", "Mixed Nuts"),
        ("Planters", "Kirkland Signature", "Amazon Brand - Happy Belly", "Sahale Snacks", "Second Nature", "Wonderful", "Kar's"),
        F({
            "gluten free": "Gluten free.",
            "non gmo": "Non gmo.",
            "individually wrapped": "Individually wrapped snack packs.",
            "high protein": "High protein from almonds and peanuts.",
            "no artificial flavors": "No artificial flavors.",
            "resealable bag": "Resealable bag keeps it fresh.",
            "kosher": "Kosher.",
            "vegan": "Vegan.",
            "roasted nuts": "Dry roasted nuts.",
        }),
        F({"Flavor Name": ("Classic", "Sweet and Salty", "Dark Chocolate", "Tropical", "Honey Roasted"),
           "Size": ("1 Ounce (Pack of 24)", "26 Ounce", "2 Pound")}),
        (6, 35), "", ("snack",),
    ),
)

#: instruction-attribute spellings that differ from the mined attribute but still match it
#: under thefuzz token_set_ratio (> 85): hyphens, word order, a stray "to"
FUZZY_VARIANTS = {
    "long lasting": "long-lasting", "non slip": "non-slip", "gluten free": "gluten-free",
    "sulfate free": "sulfate-free", "caffeine free": "caffeine-free", "non gmo": "non-gmo",
    "cruelty free": "cruelty-free", "fragrance free": "fragrance-free", "quick dry": "quick-dry",
    "fair trade": "fair trade certified", "easy assembly": "easy assembly required",
}

#: option values no product of a cluster offers, for the flawed "option not offered" goals
NOT_OFFERED = {"Color": "Chartreuse", "Size": "Travel Size 0.1", "Flavor Name": "Pumpkin Spice",
               "Scent": "Sandalwood", "Style": "Wall Mounted"}

OPENERS = ("i am looking for", "i need", "i want", "i'm looking for", "find me", "i would like",
           "please get me", "can you find me", "i'd like to buy", "looking for")


def option_phrase(name: str, value: str) -> str:
    v = value.lower()
    name = name.lower()
    if name == "color":
        return f"in {v} color" if len(v.split()) < 3 else f"in the {v} color"
    if name == "size":
        return f"in size {v}" if any(ch.isdigit() for ch in v) and "pack" not in v and "count" not in v else f"in {v}"
    if name == "flavor name":
        return f"in {v} flavor"
    if name == "scent":
        return f"with {v} scent"
    return f"in {v} style" if "height" not in v else f"at {v}"


def article(noun: str) -> str:
    if noun.endswith("s") and not noun.endswith(("ss", "us")):
        return ""
    if noun in ("coffee", "trail mix", "herbal tea", "hot sauce", "lipstick", "nail polish", "shampoo"):
        return "some "
    return "an " if noun[0] in "aeiou" else "a "


def instruction_text(rng: random.Random, noun: str, attrs: list[str], options: list[tuple[str, str]]) -> str:
    opener = rng.choice(OPENERS)
    a = attrs
    if len(a) == 1:
        feats = a[0]
    elif len(a) == 2:
        feats = f"{a[0]} and {a[1]}"
    else:
        feats = ", ".join(a[:-1]) + f" and {a[-1]}"
    opts = " ".join(option_phrase(n, v) for n, v in options)
    form = rng.randrange(4)
    if form == 0:
        text = f"{opener} {article(noun)}{feats} {noun} {opts}"
    elif form == 1:
        text = f"{opener} {article(noun)}{noun} that is {feats}, {opts}"
    elif form == 2:
        text = f"{opener} {article(noun)}{noun} {opts}. it should be {feats}"
    else:
        text = f"{opener} {feats} {noun} {opts}"
    return " ".join(text.split()).replace(" ,", ",")


def make_asin(rng: random.Random, taken: set[str]) -> str:
    while True:
        asin = "B0" + "".join(rng.choice(ALNUM) for _ in range(8))
        if asin not in taken:
            taken.add(asin)
            return asin


def price_text(rng: random.Random, lo: int, hi: int) -> tuple[str, float]:
    base = rng.randint(lo, hi)
    cents = rng.choice((0.99, 0.99, 0.95, 0.49, 0.0))
    price = round(base + cents, 2)
    if rng.random() < 0.06:
        top = round(price + rng.choice((3, 5, 8)), 2)
        return f"${price:.2f} - ${top:.2f}", price
    return f"${price:.2f}", price


def make_product(rng: random.Random, c: Cluster, k: int, asin: str) -> tuple[dict, dict, list[str], dict, float]:
    """The ``k``-th product of cluster ``c``: (scraped record, items_ins_v2 entry, its features,
    its customization options, its price), drawn from ``rng``."""
    feats = rng.sample(list(c.features), rng.choice((3, 4, 4, 5)))
    brand = c.brands[k % len(c.brands)]
    style = rng.choice(c.styles)
    shown = [f.title() if not f[0].isdigit() else f.upper() for f in feats[:rng.choice((1, 2))]]
    name = " ".join(x for x in (brand, c.prefix, " ".join(shown), style) if x)
    options = {}
    for opt_name, values in c.options.items():
        n = min(len(values), rng.choice((3, 4, 4, 5, 6)))
        if opt_name.lower() == "size" and c.category == "fashion":
            start = rng.randrange(0, len(values) - n + 1)
            chosen = list(values[start:start + n])
        else:
            sample = set(rng.sample(list(values), n))
            chosen = [v for v in values if v in sample]
        options[opt_name] = [{"value": v, "image": None} for v in chosen]
    pricing, price = price_text(rng, *c.price)
    bullets = [c.features[f] for f in feats] + [
        rng.choice((f"Backed by {brand}'s 1-year warranty.", "Ships in recyclable packaging.",
                    f"A customer favourite from {brand}.", "Satisfaction guaranteed or your money back."))
    ]
    opening = rng.choice(('Designed for everyday use.', 'Built to last.', 'A staple you will reach for again and again.',
                          'Thoughtfully made and carefully tested.'))
    description = (
        f"{name}. {opening} "
        f"{c.features[feats[-1]]}"
    )
    raw = {
        "asin": asin,
        "name": name,
        "category": c.category,
        "query": c.query,
        "product_category": c.breadcrumb,
        "full_description": description,
        "small_description": bullets,
        "pricing": pricing,
        "customization_options": options,
        "images": [f"https://m.media-amazon.com/images/I/{asin}.jpg"],
        "brand": brand,
        "average_rating": round(rng.uniform(3.6, 4.9), 1),
        "total_reviews": rng.randint(12, 48000),
    }
    mined = list(feats) + [rng.choice(c.generic)] if c.generic else list(feats)
    entry = {
        "attributes": mined,
        "instruction": f"Find me {c.query} with {', '.join(feats[:2])}",
        "instruction_attributes": feats[:2],
    }
    return raw, entry, feats, options, price


def goal_rows(rng: random.Random, worker: random.Random, c: Cluster, raw: dict, entry: dict, feats: list[str],
              options: dict, n_goals: int) -> list[dict]:
    """``n_goals`` human instructions for one annotated product: the first a fresh wish, each
    later one either the same wish with one more requirement or a different wish."""
    asin = raw["asin"]
    rows = []
    first_attrs: list[str] = []
    first_opts: list[tuple[str, str]] = []
    for g in range(n_goals):
        if g == 0:
            attrs = rng.sample(feats, rng.choice((1, 2, 2)))
            names = list(options)
            picked = rng.sample(names, 1 if len(names) == 1 or rng.random() < 0.7 else 2)
            opts = [(n, rng.choice(options[n])["value"]) for n in names if n in picked]
            first_attrs, first_opts = attrs, opts
        elif rng.random() < 0.5:  # the same wish with one more requirement (a real refinement)
            extra = [f for f in feats if f not in first_attrs]
            attrs = first_attrs + extra[:1]
            opts = first_opts
        else:  # a different wish for the same product
            attrs = rng.sample(feats, rng.choice((1, 2)))
            name = rng.choice(list(options))
            opts = [(name, rng.choice(options[name])["value"])]
        spelled = [FUZZY_VARIANTS.get(a, a) if rng.random() < 0.35 else a for a in attrs]
        text = instruction_text(rng, c.noun, spelled, opts)
        rows.append({
            "asin": asin,
            "instruction": text,
            "instruction_attributes": spelled,
            "instruction_options": [v.lower() for _, v in opts],
            "attributes": mined_attrs(entry),
            "options": [f"{n.lower()}: {v.lower()}" for n, v in opts],
            "worker_id": f"A{worker.randrange(10**12):012d}",
            "assignment_id": "".join(worker.choice(ALNUM) for _ in range(30)),
        })
    return rows


def flawed_rows(rng: random.Random, worker: random.Random, c: Cluster, flaw: int, raw: dict, feats: list[str],
                options: dict) -> list[dict] | None:
    """Flawed AMT data, as the real file has (None for the flaw numbers that add nothing)."""
    if flaw in (0, 3):  # no attributes: WebShop skips the instruction
        opts = [(n, options[n][0]["value"]) for n in list(options)[:1]]
        text = f"{rng.choice(OPENERS)} {article(c.noun)}{c.noun} " + " ".join(option_phrase(n, v) for n, v in opts)
        return [_row(raw["asin"], text, [], [v.lower() for _, v in opts], worker)]
    if flaw == 1:  # an attribute the annotated product does not have
        missing = next(f for f in c.features if f not in feats and not any(_overlaps(f, x) for x in feats))
        opts = [(n, options[n][0]["value"]) for n in list(options)[:1]]
        text = instruction_text(rng, c.noun, [feats[0], missing], opts)
        return [_row(raw["asin"], text, [feats[0], missing], [v.lower() for _, v in opts], worker)]
    if flaw == 4:  # an option value the annotated product does not offer
        name = list(options)[0]
        offered = {o["value"] for o in options[name]}
        absent = next((v for v in c.options[name] if v not in offered and all(_clearly_other(v, o) for o in offered)),
                      NOT_OFFERED[name])
        text = instruction_text(rng, c.noun, [feats[0]], [(name, absent)])
        return [_row(raw["asin"], text, [feats[0]], [absent.lower()], worker)]
    return None


def build() -> tuple[list[dict], dict[str, dict], dict[str, list[dict]]]:
    products: list[dict] = []
    attributes: dict[str, dict] = {}
    human: dict[str, list[dict]] = {}
    taken: set[str] = set()
    worker = random.Random(SEED)
    for ci, c in enumerate(CLUSTERS):
        rng = random.Random(f"{SEED}:{c.query}")
        cluster_products = []
        for k in range(PRODUCTS_PER_CLUSTER):
            asin = make_asin(rng, taken)
            raw, entry, feats, options, price = make_product(rng, c, k, asin)
            products.append(raw)
            attributes[asin] = entry
            cluster_products.append((raw, feats, options, price))

        # human goals: six annotated products per cluster, one to three instructions each
        for t, (raw, feats, options, price) in enumerate(cluster_products[:TARGETS_PER_CLUSTER]):
            human[raw["asin"]] = goal_rows(rng, worker, c, raw, attributes[raw["asin"]], feats, options, (2, 2, 2, 2, 1, 1)[t])

        # flawed AMT data, as the real file has: one instruction per kind in some clusters
        raw, feats, options, price = cluster_products[TARGETS_PER_CLUSTER]
        rows = flawed_rows(rng, worker, c, ci % 6, raw, feats, options)
        if rows is not None:
            human[raw["asin"]] = rows
    return products, attributes, human


def mined_attrs(entry: dict) -> list[str]:
    return list(entry["attributes"])


def _row(asin: str, text: str, attrs: list[str], opts: list[str], worker: random.Random) -> dict:
    return {
        "asin": asin, "instruction": text, "instruction_attributes": attrs, "instruction_options": opts,
        "attributes": [], "options": [], "worker_id": f"A{worker.randrange(10**12):012d}",
        "assignment_id": "".join(worker.choice(ALNUM) for _ in range(30)),
    }


def _overlaps(a: str, b: str) -> bool:
    return bool(set(a.split()) & set(b.split()))


def _clearly_other(a: str, b: str) -> bool:
    return not (set(a.lower().split()) & set(b.lower().split()))


def write(out: Path) -> dict[str, int]:
    products, attributes, human = build()
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "items_shuffle_miscue.json": products,
        "items_ins_v2_miscue.json": attributes,
        "items_human_ins.json": human,
    }
    sizes = {}
    for name, data in files.items():
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n"
        (out / name).write_text(text, encoding="utf-8")
        sizes[name] = len(text)
    return sizes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "webshop")
    ap.add_argument("--check", action="store_true", help="validate every goal with the adapter after writing")
    args = ap.parse_args(argv)
    sizes = write(args.out)
    for name, n in sizes.items():
        print(f"{name:32s} {n / 1024:8.1f} KiB")
    print(f"{'total':32s} {sum(sizes.values()) / 1024:8.1f} KiB")
    if args.check:
        sys.path.insert(0, str(ROOT))
        from collections import Counter

        from miscue.adapters.webshop import WebShopAdapter

        adapter = WebShopAdapter(args.out)
        checks = [adapter.validate(s) for s in adapter.load_seeds()]
        print(f"products {adapter.catalogue.products_loaded}, clusters {len(adapter.catalogue.clusters)}, "
              f"goals {len(adapter.catalogue.goals)} (skipped without attributes: {adapter.catalogue.skipped_instructions})")
        print("validation:", dict(Counter(c.code for c in checks)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
