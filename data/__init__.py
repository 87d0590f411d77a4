"""Data shipped with miscue (``miscue.data``): the small WebShop catalogue in WebShop's three-file format."""
