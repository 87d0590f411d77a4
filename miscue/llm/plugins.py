"""Model providers that plug into litellm from outside the kernel (DESIGN sections 2 and 8).

A provider that is not litellm's own -- the embedded offline models are the one this project ships
-- is declared as an entry point of the group ``miscue.providers``: its name is the provider part of
a model string (``offline`` in ``offline/writer``), its object a function with no arguments that
registers the provider with litellm (idempotent). The kernel finds it through the installed
distribution's metadata, so it never imports the provider's code (an import-linter contract keeps
it so); another distribution can plug its own provider in the same way.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from miscue.errors import ConfigError
from miscue.llm.config import ROLES, LLMConfig

GROUP = "miscue.providers"


@cache
def plugins() -> dict[str, EntryPoint]:
    """The installed provider plugins by provider name."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def install(provider: str) -> bool:
    """Register ``provider`` with litellm when a plugin declares it; False when none does (litellm's
    own providers need no plugin). A plugin that cannot be loaded raises :class:`ConfigError`."""
    plugin = plugins().get(provider)
    if plugin is None:
        return False
    try:
        register = plugin.load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"the model provider {provider!r} is declared by {plugin.value!r} but cannot be loaded: {exc}") from exc
    register()
    return True


def install_for(config: LLMConfig) -> list[str]:
    """Register the plugin of every provider a role of ``config`` uses; the names installed."""
    return [p for p in dict.fromkeys(config.role(r).provider for r in ROLES) if install(p)]
