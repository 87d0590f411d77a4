"""tau2-bench retail and airline (being split into modules)."""

from adapters.tau2.retail import Tau2Adapter, _alternatives

__all__ = ["Tau2Adapter", "_alternatives"]
