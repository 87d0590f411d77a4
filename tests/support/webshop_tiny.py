"""The tiny hand-made WebShop catalogue the adapter's tests use: four products in two clusters,
in WebShop's three-file layout (items_shuffle_tiny.json, items_ins_v2_tiny.json,
items_human_ins.json), and helpers to validate its goals."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from miscue.adapters.webshop import WebShopAdapter

SHOES = "women's running shoes"
P1, P2, P3, P4 = "B000000001", "B000000002", "B000000003", "B000000004"


def _product(asin, name, query, pricing, options, description="", bullets=(), breadcrumb="Shoes › Women › Running"):
    return {
        "asin": asin, "name": name, "category": "fashion", "query": query, "product_category": breadcrumb,
        "full_description": description, "small_description": list(bullets), "pricing": pricing,
        "customization_options": {k: [{"value": v, "image": None} for v in vals] for k, vals in options.items()},
        "images": [], "brand": name.split()[0],
    }


def tiny_files():
    products = [
        _product(P1, "Acme Women's Lightweight Running Shoe", "Women's Running Shoes ", "$45.99",
                 {"Color": ["Navy Blue", "Black/White"], "Size": ["7", "8"]},
                 description="A light shoe with a breathable mesh upper.", bullets=["Memory foam insole"]),
        _product(P2, "Zoom Women's Trail Running Shoe", "women's running shoes", "$52.00",
                 {"Color": ["Dark Red", "Dark Green"], "Size": ["7", "8.5"]},
                 description="Grippy trail shoe.", bullets=["Lightweight trail shoe", "Rubber sole"]),
        _product(P4, "Acme Women's Road Running Shoe", "women's running shoes", "$58.00 - $62.00",
                 {"Color": ["Navy Blue", "White"], "Size": ["8"]},
                 description="Road shoe with a breathable mesh upper.", bullets=["Non-slip outsole"]),
        _product(P3, "Bean Co Dark Roast Coffee", "coffee beans", "$12.99", {"Size": ["12 Ounce"]},
                 breadcrumb="Grocery › Coffee"),
        _product("nan", "a record WebShop skips", "coffee beans", "$1.00", {}),
    ]
    attrs = {
        P1: {"attributes": ["lightweight", "non slip", "memory foam"], "instruction": "", "instruction_attributes": []},
        P2: {"attributes": ["waterproof", "rubber sole"]},
        P4: {"attributes": ["lightweight", "non slip"]},
        P3: {"attributes": ["whole bean"]},
    }
    human = {
        P1: [
            {"asin": P1, "instruction": "i need lightweight non-slip running shoes with breathable mesh in royal blue, size 8.",
             "instruction_attributes": ["lightweight", "non-slip", "breathable mesh"],
             "instruction_options": ["royal blue", "8"]},
            {"asin": P1, "instruction": "i want running shoes in size 8", "instruction_attributes": [],
             "instruction_options": ["8"]},
        ],
        P2: [{"asin": P2, "instruction": "i need waterproof running shoes in dark red",
              "instruction_attributes": ["waterproof"], "instruction_options": ["dark red"]}],
        P4: [{"asin": P4, "instruction": "i want lightweight running shoes",
              "instruction_attributes": ["lightweight"], "instruction_options": []}],
        P3: [{"asin": P3, "instruction": "i want whole bean coffee", "instruction_attributes": ["whole bean"],
              "instruction_options": ["12 ounce"]}],
    }
    return products, attrs, human


def write_files(directory: Path, products, attrs, human, suffix="_tiny") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"items_shuffle{suffix}.json").write_text(json.dumps(products))
    (directory / f"items_ins_v2{suffix}.json").write_text(json.dumps(attrs, indent=1))
    (directory / "items_human_ins.json").write_text(json.dumps(human))
    return directory


def tiny_adapter(directory: Path) -> WebShopAdapter:
    """The tiny catalogue, all its goals as seeds, full quota not required."""
    return WebShopAdapter(write_files(directory, *tiny_files()), splits=("test", "eval", "train"), require_full_quota=False)


def seed_for(adapter: WebShopAdapter, asin: str, instruction_start: str):
    return next(s for s in adapter.load_seeds()
                if s.payload["asin"] == asin and s.payload["instruction"].startswith(instruction_start))


def root_intent(adapter: WebShopAdapter, asin=P1, start="i need lightweight"):
    check = adapter.validate(seed_for(adapter, asin, start))
    assert check.ok, check
    return check.intent


def every_choice(product):
    """Every full option choice of a product, enumerated independently of the oracle."""
    names = list(product.options)
    for combo in itertools.product(*(product.options[n] for n in names)):
        yield dict(zip(names, combo))
