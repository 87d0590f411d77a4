"""litellm, imported offline: the environment it must see before its import, and the import.

With these settings litellm reads its bundled cost map and makes no network call at import or
on use; the Hugging Face hub is not asked either. :func:`load_litellm` sets them (unless the
caller set them already) right before the first import; importing :mod:`miscue.llm` sets them
too, so a litellm imported directly afterwards (tests, tools) sees them as well.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

#: Set (unless already set) before litellm is imported: no network at import or on use.
OFFLINE_ENVIRONMENT = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "HF_HUB_OFFLINE": "1",
}


def set_offline_environment() -> None:
    """Set every variable of :data:`OFFLINE_ENVIRONMENT` the environment does not set yet."""
    for name, value in OFFLINE_ENVIRONMENT.items():
        os.environ.setdefault(name, value)


class _DropLoopChangeNotice(logging.Filter):
    """litellm warns whenever a new event loop appears (each asyncio.run); it is noise here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("LoggingWorker: event loop changed")


@functools.cache
def load_litellm() -> Any:
    """The litellm module, imported once, after :func:`set_offline_environment`."""
    set_offline_environment()
    import litellm

    litellm.suppress_debug_info = True
    logging.getLogger("LiteLLM").addFilter(_DropLoopChangeNotice())
    return litellm
