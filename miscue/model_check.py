"""Checking a model configuration before any call, without any network (``miscue check-config``;
DESIGN section 10). ``build``, ``estimate``, ``generate``, ``regenerate`` and ``serve`` run the same
check on the configuration they are given before anything starts.

A resolved :class:`~miscue.llm.LLMConfig` (loading it already refused malformed files, unknown
fields, reserved parameters and two extractors of one model family) passes when, for every role:

- its model string resolves to a litellm provider (``litellm.get_llm_provider``, offline): a
  typo'd route such as ``opneai/gpt-4o`` is refused, with the nearest provider names;
- its price is known: given in the file's ``prices`` (or by ``--price``), or found in litellm's
  bundled cost map (:func:`~miscue.llm.prices.litellm_price`, the gateway's own lookup), so the
  budget cap and the estimate mean something.

It also names, per role, the environment variables litellm reads for that provider
(``litellm.validate_environment`` asked with the variables hidden, so every name it needs is
listed) and whether each is set -- never a value -- and notes a secret written in the file and a
model whose deprecation date (in the cost map) has passed.
Problems name the field (``writer.model``, ``prices``) and raise :class:`ConfigError` (exit 2).
"""

from __future__ import annotations

import datetime
import difflib
import os
from dataclasses import asdict, dataclass, field
from typing import Any
from unittest import mock

from miscue.errors import ConfigError
from miscue.llm import ROLES, LLMConfig
from miscue.llm.config import SECRET_PARAMS, model_family, split_model
from miscue.llm.env import load_litellm
from miscue.llm.plugins import install_for
from miscue.llm.prices import litellm_entry, litellm_price


@dataclass
class RoleCheck:
    """What the check found for one role."""

    role: str
    model: str
    family: str
    provider: str | None = None  # None: litellm does not resolve the model string
    price: tuple[float, float] | None = None  # USD per prompt token, per completion token
    price_from: str | None = None  # "prices" (the file or --price) | "litellm" (its bundled cost map)
    env: dict[str, bool] = field(default_factory=dict)  # variable litellm reads -> whether it is set


@dataclass
class ConfigCheck:
    """The check of one configuration: per role, and the problems (each naming its field)."""

    roles: list[RoleCheck]
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "roles": [asdict(r) for r in self.roles], "problems": list(self.problems),
                "notes": list(self.notes)}

    def raise_problems(self, source: str = "the model configuration") -> None:
        """Raise :class:`ConfigError` naming every problem (nothing when the check passed)."""
        if self.problems:
            raise ConfigError(f"{source} does not pass check-config: " + "; ".join(self.problems))


def _providers(litellm: Any) -> list[str]:
    names = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    return sorted(names | {str(e.get("provider")) for e in litellm.custom_provider_map})


def _resolve_provider(litellm: Any, model: str, field_name: str) -> tuple[str | None, str | None]:
    """(provider, None) or (None, the problem)."""
    try:
        return str(litellm.get_llm_provider(model=model)[1]), None
    except Exception:  # noqa: BLE001 - litellm raises its BadRequestError (and others) for an unknown route
        route = split_model(model)[0]
        near = difflib.get_close_matches(route, _providers(litellm), n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
        return None, (f"{field_name}: {model!r} does not resolve to a litellm provider: {route!r} is not a provider "
                      f"litellm knows{hint}")


def _env(litellm: Any, model: str, params: dict[str, Any]) -> dict[str, bool]:
    """The environment variables litellm reads for ``model`` (those the role's parameters do not
    replace), each with whether it is set. Asked with the environment hidden, so that litellm
    lists every variable it needs, not only the missing ones."""
    given = {k: params[k] for k in ("api_key", "api_base") if params.get(k)}
    try:
        with mock.patch.dict(os.environ, clear=True):
            needed = litellm.validate_environment(model=model, **given).get("missing_keys", [])
    except Exception:  # noqa: BLE001 - no answer is no named variable
        needed = []
    return {name: name in os.environ for name in dict.fromkeys(needed)}


def check_llm_config(config: LLMConfig) -> ConfigCheck:
    """Check a resolved configuration offline (see the module docstring). Registers the provider
    plugin of every role that uses one, as resolving a configuration does."""
    litellm = load_litellm()
    install_for(config)
    roles, problems, notes = [], [], []
    for role in ROLES:
        rc = config.role(role)
        check = RoleCheck(role=role, model=rc.model, family=model_family(rc.model))
        check.provider, problem = _resolve_provider(litellm, rc.model, f"{role}.model")
        if problem:
            problems.append(problem)
        if rc.model in config.prices:
            check.price, check.price_from = tuple(config.prices[rc.model]), "prices"  # type: ignore[assignment]
        elif (known := litellm_price(rc.model)) is not None:
            check.price, check.price_from = known, "litellm"
        else:
            problems.append(f"prices: {role}.model {rc.model!r} has no price in litellm's bundled cost map; give one as "
                            f'"prices": {{"{rc.model}": [USD per prompt token, USD per completion token]}} '
                            "(0 for a free local model) or pass --price")
        if check.provider is not None:
            check.env = _env(litellm, rc.model, rc.params)
        retired = str((litellm_entry(rc.model) or {}).get("deprecation_date") or "")
        if retired and retired <= datetime.date.today().isoformat():
            notes.append(f"{role}.model {rc.model!r}: litellm's cost map gives it a deprecation date of {retired}")
        secrets = sorted(k for k in rc.params if k in SECRET_PARAMS)
        if secrets:
            notes.append(f"{role}.params gives {', '.join(secrets)} in the file; prefer the environment variable "
                         "litellm reads (the value never reaches a manifest or Prefect, but it is in the file)")
        roles.append(check)
    return ConfigCheck(roles, problems, notes)
