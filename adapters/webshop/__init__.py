"""WebShop (princeton-nlp/WebShop) on its own three data files, with its reward as the oracle.

- :mod:`~adapters.webshop.adapter`: :class:`WebShopAdapter` (seeds, lift, compile, execute);
- :mod:`~adapters.webshop.catalogue`: the three files streamed once into goals and a cluster
  index (:mod:`~adapters.webshop.stream`: the streaming JSON reader;
  :mod:`~adapters.webshop.records`: the record checks);
- :mod:`~adapters.webshop.goals`: human goals, splits, price ceilings;
  :mod:`~adapters.webshop.intents`: how a goal is written as an intent;
- :mod:`~adapters.webshop.reward`: WebShop's reward (:mod:`~adapters.webshop.matching`, fuzzy
  matching; :mod:`~adapters.webshop.nouns`, the type factor's nouns);
  :mod:`~adapters.webshop.oracle`: every purchase of a cluster the reward scores 1.0;
- :mod:`~adapters.webshop.speech`: how a shopper speaks, and the leak checks.
"""

from adapters.webshop.adapter import DEFAULT_DATA_DIR, WebShopAdapter
from adapters.webshop.goals import price_ceiling, split_of
from adapters.webshop.stream import iter_array, iter_object, read_value_at

__all__ = ["DEFAULT_DATA_DIR", "WebShopAdapter", "iter_array", "iter_object", "price_ceiling", "read_value_at", "split_of"]
