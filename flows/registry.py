"""The adapter registry: which benchmark names exist and how to build their adapters.

The core never imports a concrete adapter; flows (the application layer) build this registry.
"""

from __future__ import annotations

from typing import Callable

from miscue.errors import UnknownBenchmark
from miscue.host import Adapter


def _tau2(domain: str) -> Callable[[], Adapter]:
    def make() -> Adapter:
        from adapters.tau2 import Tau2Adapter

        return Tau2Adapter(domain)

    return make


def _webshop() -> Adapter:
    from adapters.webshop import WebShopAdapter

    return WebShopAdapter()


ADAPTERS: dict[str, Callable[[], Adapter]] = {
    "tau2-retail": _tau2("retail"),
    "tau2-airline": _tau2("airline"),
    "webshop": _webshop,
}


def adapter_for(benchmark: str) -> Adapter:
    try:
        factory = ADAPTERS[benchmark]
    except KeyError:
        raise UnknownBenchmark(f"unknown benchmark {benchmark!r}; known: {', '.join(ADAPTERS)}") from None
    return factory()
