"""The run configuration of the models: which model answers each role, and the run's limits
(DESIGN sections 8 and 9).

:class:`ModelOptions` is what a command or a flow is given: the path of a JSON
:class:`~miscue.llm.LLMConfig` (default: the embedded offline models), a budget cap, a flat
per-token price and replay-only. Only the *path* travels -- as a Prefect flow parameter, say --
never the file's contents, so a key written in it stays out of Prefect's database.
:meth:`ModelOptions.resolve` turns it into the :class:`LLMConfig` the gateway runs with.

:func:`recorded_llm` is the part of a resolved configuration that determines a corpus's content
and goes (hashed) into its manifest: no transport parameters (keys, endpoints) and no run
controls (the budget cap, replay-only), which decide whether a run finishes, not what it writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from miscue.llm import ROLES, TRANSPORT_PARAMS, LLMConfig, RoleConfig

#: The embedded offline baselines (registered with litellm as provider ``offline``).
OFFLINE_MODELS = {"writer": "offline/writer", "extractor_a": "offline/lexical", "extractor_b": "offline/parse"}

#: LLMConfig fields that control a run but not its output (left out of the recorded config).
RUN_CONTROLS = ("max_cost", "replay_only")


def offline_llm_config(**overrides: Any) -> LLMConfig:
    """The embedded offline baselines: the default, so the pipeline runs with no keys."""
    roles = {role: RoleConfig(model=model) for role, model in OFFLINE_MODELS.items()}
    return LLMConfig(**roles, **{"max_concurrency": 16, **overrides})


class ModelOptions(BaseModel):
    """How a run reaches its models (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    llm_config: str | None = None  # path of a JSON LLMConfig; None = the offline models
    max_cost: float | None = Field(None, ge=0)  # USD this run may spend on model calls
    price: float | None = Field(None, ge=0)  # USD per token (prompt and completion), every role
    replay_only: bool = False  # answer every call from the exchange store; a miss is an error

    def resolve(self) -> LLMConfig:
        """The :class:`LLMConfig` to run with. Raises ValueError naming the file and the problem;
        registers the offline provider when a role uses it."""
        config = offline_llm_config() if self.llm_config is None else load_llm_file(Path(self.llm_config))
        update: dict[str, Any] = {}
        if self.max_cost is not None:
            update["max_cost"] = self.max_cost
        if self.price is not None:
            update["prices"] = {**config.prices, **{config.role(r).model: (self.price, self.price) for r in ROLES}}
        if self.replay_only:
            update["replay_only"] = True
        if update:
            config = LLMConfig.model_validate({**config.model_dump(), **update})
        if any(config.role(r).provider == "offline" for r in ROLES):
            from miscue.offline.provider import register

            register()
        return config


def model_options(llm_config: str | Path | None = None, max_cost: float | None = None, price: float | None = None,
                  replay_only: bool = False) -> ModelOptions:
    """:class:`ModelOptions` from command-line values; ValueError with a readable message."""
    for flag, value in (("--max-cost", max_cost), ("--price", price)):
        if value is not None and value < 0:
            raise ValueError(f"{flag} must be >= 0, got {value}")
    return ModelOptions(llm_config=None if llm_config is None else str(Path(llm_config).resolve()), max_cost=max_cost,
                        price=price, replay_only=replay_only)


def load_llm_file(path: Path) -> LLMConfig:
    """A JSON :class:`LLMConfig` file; ValueError naming the file and what is wrong with it."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"model configuration {path} does not exist") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"model configuration {path} is not valid JSON: {exc}") from None
    try:
        return LLMConfig.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
                             for e in exc.errors())
        raise ValueError(f"model configuration {path} is invalid: {problems}") from None


def recorded_llm(config: LLMConfig) -> dict[str, Any]:
    """The model configuration as a manifest records it: no secrets, no run controls."""
    llm = config.model_dump(mode="json", exclude=set(RUN_CONTROLS))
    for role in ROLES:
        llm[role]["params"] = {k: v for k, v in llm[role]["params"].items() if k not in TRANSPORT_PARAMS}
    return llm


def role_models(config: LLMConfig) -> dict[str, str]:
    """role -> model string."""
    return {role: config.role(role).model for role in ROLES}
