"""The run configuration (DESIGN sections 8 and 9): every setting that decides what a run writes.

:class:`RunConfig` holds the four parts (graphs, generate, composite, llm); its canonical dump
(:meth:`RunConfig.record`) *is* the manifest's ``config`` and its hash the manifest's
``config_hash``. The parts: :class:`GraphConfig` (graph-relevant settings; their hash is part of
every graph id), :class:`GenerateConfig` (single-fault cells), :class:`CompositeConfig`
(composite draws) and the models (:class:`~miscue.llm.LLMConfig`, reached through
:class:`ModelOptions`).

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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from miscue.canonical import content_hash
from miscue.errors import BadInput, ConfigError
from miscue.llm import ROLES, TRANSPORT_PARAMS, LLMConfig, RoleConfig
from miscue.llm.plugins import install_for
from miscue.schema import Operator
from miscue.taxonomy import FAULT_TYPES, fault_type

#: The embedded offline baselines (registered with litellm as provider ``offline``).
OFFLINE_MODELS = {"writer": "offline/writer", "extractor_a": "offline/lexical", "extractor_b": "offline/parse"}

#: LLMConfig fields that control a run but not its output (left out of the recorded config).
RUN_CONTROLS = ("max_cost", "replay_only")


MAX_K = 4


class GraphConfig(BaseModel):
    """Graph-relevant settings; their hash is part of every graph id."""

    quota: dict[Operator, int] = Field(default_factory=lambda: {op: 2 for op in Operator})
    require_full_quota: bool = False
    min_moved_edges: int = 1
    max_synthetic_per_operator: int = 24
    #: the task slice a run is restricted to (``--task``); None (every task) is left out of the record
    tasks: list[str] | None = None

    def record(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"tasks"} if self.tasks is None else set())

    def config_hash(self, adapter_id: str) -> str:
        return content_hash(adapter_id, self.record())


class GenerateConfig(BaseModel):
    """Single-fault cells: which fault types, how many attempts per cell, how many cells at once."""

    attempts: int = Field(4, ge=1)
    attempts_per_type: dict[str, int] = Field(default_factory=dict)
    fault_types: list[str] = Field(default_factory=lambda: list(FAULT_TYPES))
    max_concurrent_cells: int = Field(16, ge=1)
    # the customer says who they are in the request, the way the host's users identify themselves
    # to its agent (name and zip or email on retail, user id on airline); hosts without one ignore it
    identity: bool = True

    @field_validator("fault_types")
    @classmethod
    def _types(cls, types: list[str]) -> list[str]:
        for t in types:
            fault_type(t)
        return list(dict.fromkeys(types))

    def attempts_for(self, fault: str) -> int:
        return self.attempts_per_type.get(fault, self.attempts)


class CompositeConfig(BaseModel):
    """What a composite run targets, per benchmark (DESIGN section 7)."""

    ks: list[int] = Field(default_factory=lambda: [2, 4])
    per_k: int = Field(25, ge=1)  # admitted samples targeted per benchmark and k
    attempts: int = Field(3, ge=1)  # attempts per draw
    max_draws: int = Field(300, ge=1)  # draws per benchmark and k (the budget)
    max_draws_per_graph: int = Field(8, ge=1)
    wave: int = Field(12, ge=1)  # draws run together between two coverage updates
    candidates: int = Field(8, ge=1)  # valid draws compared per draw index (1: no coverage control)
    scan_factor: int = Field(4, ge=1)  # graphs proposing per wave, as a multiple of the wave
    # a proposal that would put one type into more than this share of the admitted samples is
    # held back (once ``cap_after`` samples are admitted); None: no cap
    max_type_share: float | None = Field(0.6, gt=0, le=1)
    cap_after: int = Field(12, ge=1)
    fault_types: list[str] = Field(default_factory=lambda: list(FAULT_TYPES))
    max_concurrent: int = Field(16, ge=1)

    @field_validator("ks")
    @classmethod
    def _ks(cls, ks: list[int]) -> list[int]:
        bad = [k for k in ks if not 2 <= k <= MAX_K]
        if bad or not ks:
            raise ValueError(f"composite k must be in 2..{MAX_K}, got {ks}")
        return sorted(set(ks))

    @field_validator("fault_types")
    @classmethod
    def _types(cls, types: list[str]) -> list[str]:
        for t in types:
            fault_type(t)
        return list(types)


def parse_ks(value: str) -> list[int]:
    """``--composite 2,4`` -> [2, 4] (raises BadInput with a readable message)."""
    try:
        ks = [int(x) for x in value.replace(" ", "").split(",") if x]
        return CompositeConfig(ks=ks).ks
    except ValueError:
        raise BadInput(f"--composite takes comma-separated k values in 2..{MAX_K}, got {value!r}") from None


class RunConfig(BaseModel):
    """Everything that decides what a build writes (no secrets, no run controls in its record)."""

    model_config = ConfigDict(frozen=True)

    benchmarks: list[str]
    adapters: dict[str, str]  # benchmark -> adapter name@version
    graphs: dict[str, GraphConfig]  # benchmark -> its graph settings (host settings applied)
    generate: GenerateConfig
    composite: CompositeConfig | None = None
    llm: LLMConfig

    def record(self) -> dict[str, Any]:
        """The canonical dump: the manifest's ``config``."""
        graphs = {b: {"adapter": self.adapters[b], **self.graphs[b].record()} for b in self.benchmarks}
        return {"benchmarks": list(self.benchmarks), "graphs": graphs, "generate": self.generate.model_dump(mode="json"),
                "composite": self.composite.model_dump(mode="json") if self.composite else None,
                "llm": recorded_llm(self.llm)}

    @property
    def hash(self) -> str:
        return content_hash(self.record(), length=64)


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
    # --prompts-out FILE: a request the store cannot answer is written there (OpenAI batch JSONL)
    # instead of sent; the run stops before publishing (exit 5) and resumes once replies are imported
    prompts_out: str | None = None

    def resolve(self) -> LLMConfig:
        """The :class:`LLMConfig` to run with. Raises ValueError naming the file and the problem;
        registers the provider plugin (:mod:`miscue.llm.plugins`) of every role that uses one."""
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
        install_for(config)
        return config


def model_options(llm_config: str | Path | None = None, max_cost: float | None = None, price: float | None = None,
                  replay_only: bool = False, prompts_out: str | Path | None = None) -> ModelOptions:
    """:class:`ModelOptions` from command-line values; ValueError with a readable message."""
    for flag, value in (("--max-cost", max_cost), ("--price", price)):
        if value is not None and value < 0:
            raise BadInput(f"{flag} must be >= 0, got {value}")
    return ModelOptions(llm_config=None if llm_config is None else str(Path(llm_config).resolve()), max_cost=max_cost,
                        price=price, replay_only=replay_only,
                        prompts_out=None if prompts_out is None else str(Path(prompts_out).resolve()))


def load_llm_file(path: Path) -> LLMConfig:
    """A JSON :class:`LLMConfig` file; ValueError naming the file and what is wrong with it."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"model configuration {path} does not exist") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"model configuration {path} is not valid JSON: {exc}") from None
    try:
        return LLMConfig.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
                             for e in exc.errors())
        raise ConfigError(f"model configuration {path} is invalid: {problems}") from None


def recorded_llm(config: LLMConfig) -> dict[str, Any]:
    """The model configuration as a manifest records it: no secrets, no run controls."""
    llm = config.model_dump(mode="json", exclude=set(RUN_CONTROLS))
    for role in ROLES:
        llm[role]["params"] = {k: v for k, v in llm[role]["params"].items() if k not in TRANSPORT_PARAMS}
    return llm


def role_models(config: LLMConfig) -> dict[str, str]:
    """role -> model string."""
    return {role: config.role(role).model for role in ROLES}
