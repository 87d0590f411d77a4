"""The adapter registry: which benchmark names exist and how to build their adapters.

The core never imports a concrete adapter; flows (the application layer) build this registry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from miscue import resources
from miscue.errors import UnknownBenchmark
from miscue.host import Adapter


@dataclass(frozen=True)
class HostOptions:
    """What a command may tell the hosts it builds (a host ignores what does not concern it)."""

    #: WebShop's data directory (default: $MISCUE_WEBSHOP_DATA, else the shipped catalogue)
    webshop_data: Path | None = None
    #: told (done, total) while a host streams its data (WebShop: bytes of its files)
    progress: Callable[[int, int], None] | None = None


def _tau2(domain: str) -> Callable[[HostOptions], Adapter]:
    def make(options: HostOptions) -> Adapter:
        from miscue.adapters.tau2 import Tau2Adapter

        return Tau2Adapter(domain)

    return make


def _webshop(options: HostOptions) -> Adapter:
    from miscue.adapters.webshop import WebShopAdapter

    return WebShopAdapter(options.webshop_data, progress=options.progress)


ADAPTERS: dict[str, Callable[[HostOptions], Adapter]] = {
    "tau2-retail": _tau2("retail"),
    "tau2-airline": _tau2("airline"),
    "webshop": _webshop,
}


def check_installed(benchmarks: list[str], options: HostOptions | None = None) -> None:
    """The files miscue ships that these hosts will read are installed (:class:`MissingResource`
    naming the first that is not), checked before anything heavy starts."""
    if "webshop" in benchmarks and (options is None or options.webshop_data is None):
        from miscue.adapters.webshop.adapter import DATA_DIR_VARIABLE, DEFAULT_DATA_DIR

        if not os.environ.get(DATA_DIR_VARIABLE):
            resources.require(DEFAULT_DATA_DIR, "the shipped WebShop catalogue")


def adapter_for(benchmark: str, options: HostOptions | None = None, tasks: Sequence[str] | None = None) -> Adapter:
    """The benchmark's adapter; restricted to ``tasks`` when given (``--task``: a small build)."""
    try:
        factory = ADAPTERS[benchmark]
    except KeyError:
        raise UnknownBenchmark(f"unknown benchmark {benchmark!r}; known: {', '.join(ADAPTERS)}") from None
    adapter = factory(options or HostOptions())
    if tasks:
        adapter.restrict(tasks)
    return adapter
