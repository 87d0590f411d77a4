"""WebShop (princeton-nlp/WebShop) on its own three data files, with its reward as the oracle.

- :mod:`~miscue.adapters.webshop.adapter`: :class:`WebShopAdapter` (seeds, lift, compile, execute);
- :mod:`~miscue.adapters.webshop.catalogue`: the three files streamed once into goals and cluster
  indexes (:mod:`~miscue.adapters.webshop.stream`: the streaming JSON reader;
  :mod:`~miscue.adapters.webshop.records`: the record checks; :mod:`~miscue.adapters.webshop.index`: what a
  cluster's scans read);
- :mod:`~miscue.adapters.webshop.goals`: human goals, splits, price ceilings;
  :mod:`~miscue.adapters.webshop.intents`: how a goal is written as an intent;
- :mod:`~miscue.adapters.webshop.reward`: WebShop's reward (:mod:`~miscue.adapters.webshop.matching`, fuzzy
  matching; :mod:`~miscue.adapters.webshop.nouns`, the type factor's nouns);
  :mod:`~miscue.adapters.webshop.oracle`: every purchase of a cluster the reward scores 1.0;
- :mod:`~miscue.adapters.webshop.speech`: how a shopper speaks, and the leak checks.
"""

from miscue.adapters.webshop.adapter import DEFAULT_DATA_DIR, WebShopAdapter
from miscue.adapters.webshop.goals import price_ceiling, split_of
from miscue.adapters.webshop.stream import iter_array, iter_object, read_value_at

__all__ = ["DEFAULT_DATA_DIR", "WebShopAdapter", "iter_array", "iter_object", "price_ceiling", "read_value_at", "split_of"]
