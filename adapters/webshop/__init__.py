"""WebShop on its own three data files (being split into modules)."""

from adapters.webshop.adapter import DEFAULT_DATA_DIR, WebShopAdapter, iter_array, iter_object, price_ceiling, read_value_at, split_of

__all__ = ["DEFAULT_DATA_DIR", "WebShopAdapter", "iter_array", "iter_object", "price_ceiling", "read_value_at", "split_of"]
