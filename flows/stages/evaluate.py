"""``miscue eval-verifier``: the verifier measured on a labelled set of requests.

Each line of the set is a request with its label (JSON Lines)::

    {"text": "...", "benchmark": "tau2-retail", "task_id": "0", "claimed_type": null, "slot": null,
     "expected": "admit", "carries": [{"fault_type": "factual_error", "slot": "..."}], "split": "tune"}

``claimed_type``/``slot`` (optional) are passed to the verifier as a claim; without them it is
plan-free. ``expected`` says whether the request should be admitted; ``carries`` (optional) says
which fault it really carries, so a plan-free admission counts only when the verifier found that
type. A wrong-type admission is both a false positive and a false negative. Precision, recall
and F1 are reported overall, per fault type, per benchmark and per ``split`` (a held-back part is
reported apart), with the confusion of verdict codes and the extractors' agreement per type.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from miscue.flows.registry import adapter_for
from miscue.flows.stages.verify import Verification, check_claim, task_intent, verify
from miscue.errors import BadInput, MiscueError
from miscue.host import Adapter
from miscue.llm import Deferred, Gateway, PromptsExported
from miscue.schema import Intent


class Carried(BaseModel):
    model_config = ConfigDict(extra="ignore")

    fault_type: str
    slot: str | None = None


class LabelledRequest(BaseModel):
    """One line of a labelled set."""

    model_config = ConfigDict(extra="ignore")

    id: str = ""
    text: str = Field(min_length=1)
    benchmark: str
    task_id: str
    claimed_type: str | None = None
    slot: str | None = None
    expected: Literal["admit", "reject"]
    carries: list[Carried] | None = None
    split: str = "all"

    @property
    def true_type(self) -> str:
        """The fault type the request really carries ("none" when clean, "several" for two)."""
        if self.carries is not None:
            return self.carries[0].fault_type if len(self.carries) == 1 else ("none" if not self.carries else "several")
        return self.claimed_type or "unlabelled"


def load_set(path: Path) -> list[LabelledRequest]:
    """Parse and check a labelled set; BadInput naming the line and the field."""
    items: list[LabelledRequest] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BadInput(f"cannot read the labelled set {path}: {exc.strerror or exc}") from None
    adapters: dict[str, Adapter] = {}
    intents: dict[tuple[str, str], Intent] = {}  # a task's intent is lifted once, however many lines use it
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}, line {n}"
        try:
            item = LabelledRequest.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise BadInput(f"{where}: not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(line)'}: {e['msg']}" for e in exc.errors())
            raise BadInput(f"{where}: {problems}") from None
        try:
            adapter = adapters.get(item.benchmark) or adapters.setdefault(item.benchmark, adapter_for(item.benchmark))
            key = (item.benchmark, item.task_id)
            intent = intents[key] if key in intents else intents.setdefault(key, task_intent(adapter, item.task_id)[0])
            check_claim(intent, item.task_id, item.claimed_type, item.slot)
        except MiscueError as exc:
            raise BadInput(f"{where}: {exc}") from None
        items.append(item)
    if not items:
        raise BadInput(f"{path} holds no labelled request")
    return items


@dataclass
class Outcome:
    item: LabelledRequest
    admitted: bool
    found_type: str | None
    code: str
    agree_class: bool
    agree_slot: bool

    @property
    def right_type(self) -> bool:
        return self.item.carries is None or self.item.true_type in ("none", "several") or self.found_type == self.item.true_type

    @property
    def tp(self) -> bool:
        return self.item.expected == "admit" and self.admitted and self.right_type

    @property
    def fp(self) -> bool:
        return self.admitted and (self.item.expected == "reject" or not self.right_type)

    @property
    def fn(self) -> bool:
        return self.item.expected == "admit" and not self.tp


@dataclass
class Scores:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    n: int = 0
    admit_labels: int = 0

    def add(self, o: Outcome) -> None:
        self.n += 1
        self.admit_labels += o.item.expected == "admit"
        self.tp += o.tp
        self.fp += o.fp
        self.fn += o.fn

    def as_dict(self) -> dict[str, Any]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        f1 = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
        def rnd(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"n": self.n, "admit_labels": self.admit_labels, "tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": rnd(p), "recall": rnd(r), "f1": rnd(f1)}


@dataclass
class Evaluation:
    outcomes: list[Outcome] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        def scores(key: Callable[[Outcome], str]) -> dict[str, Any]:
            groups: dict[str, Scores] = defaultdict(Scores)
            for o in self.outcomes:
                groups[key(o)].add(o)
            return {k: v.as_dict() for k, v in sorted(groups.items())}

        overall = Scores()
        for o in self.outcomes:
            overall.add(o)
        agreement: dict[str, dict[str, Any]] = {}
        for t, group in sorted(_group(self.outcomes, lambda o: o.item.true_type).items()):
            agreement[t] = {"class": round(sum(o.agree_class for o in group) / len(group), 4),
                            "slot": round(sum(o.agree_slot for o in group) / len(group), 4), "n": len(group)}
        confusion = Counter(f"{o.item.expected} -> {o.code}" for o in self.outcomes)
        by_split = {s: _scores_of(g) for s, g in sorted(_group(self.outcomes, lambda o: o.item.split).items())}
        return {"overall": overall.as_dict(), "by_split": by_split,
                "per_type": scores(lambda o: o.item.true_type), "per_benchmark": scores(lambda o: o.item.benchmark),
                "per_type_by_split": {s: _per_type(g) for s, g in sorted(_group(self.outcomes, lambda o: o.item.split).items())},
                "verdict_codes": dict(confusion.most_common()), "extractor_agreement": agreement,
                "errors": [{"id": o.item.id, "split": o.item.split, "expected": o.item.expected, "true_type": o.item.true_type,
                            "found_type": o.found_type, "code": o.code} for o in self.outcomes if o.fp or o.fn]}


def _group(outcomes: list[Outcome], key: Callable[[Outcome], str]) -> dict[str, list[Outcome]]:
    out: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        out[key(o)].append(o)
    return out


def _scores_of(group: list[Outcome]) -> dict[str, Any]:
    s = Scores()
    for o in group:
        s.add(o)
    return s.as_dict()


def _per_type(group: list[Outcome]) -> dict[str, Any]:
    return {t: _scores_of(g) for t, g in sorted(_group(group, lambda o: o.item.true_type).items())}


def _outcome(item: LabelledRequest, v: Verification) -> Outcome:
    a, b = v.found.get("a") or {}, v.found.get("b") or {}
    return Outcome(item, v.admitted, v.fault_type, "admitted" if v.admitted else v.verdict.code,  # type: ignore[union-attr]
                   a.get("class") == b.get("class"), a.get("slot") == b.get("slot"))


async def evaluate(items: list[LabelledRequest], gateway: Gateway, concurrency: int = 8,
                   progress: Callable[[int, int], None] | None = None,
                   adapters: dict[str, Adapter] | None = None) -> Evaluation:
    """Verify every labelled request (bounded concurrency) and
    score the verdicts. Under --prompts-out (the gateway has an outbox) every request goes as far as
    the store answers, and :class:`~miscue.llm.PromptsExported` ends a round in which some wait.
    ``adapters``: hosts already built (their tasks' intents lifted once), shared across runs."""
    adapters = {} if adapters is None else adapters
    sem = asyncio.Semaphore(concurrency)
    done = 0
    result = Evaluation()

    async def one(item: LabelledRequest) -> Outcome | None:
        nonlocal done
        adapter = adapters.get(item.benchmark) or adapters.setdefault(item.benchmark, adapter_for(item.benchmark))
        async with sem:
            try:
                v = await verify(adapter, gateway, item.task_id, item.text, item.claimed_type, item.slot)
            except Deferred:  # --prompts-out: this request waits for a reply the store does not hold yet
                return None
        done += 1
        if progress:
            progress(done, len(items))
        return _outcome(item, v)

    outcomes = list(await asyncio.gather(*(one(i) for i in items)))
    if (waiting := sum(1 for o in outcomes if o is None)):
        raise PromptsExported(waiting)
    result.outcomes = outcomes  # type: ignore[assignment]
    return result
