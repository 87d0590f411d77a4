"""Label tool for writers of verifier-set requests (tests/data/labelling_brief.md). Run from the repository root:

  PYTHONPATH=. .venv/bin/python scripts/label_tool.py show BENCH TASK
      the task's instructions, its true requirements (slot, what it is, the true value), every other legal value of
      each slot, and the details the truth already settles (an extra that agrees with one adds nothing)

  PYTHONPATH=. .venv/bin/python scripts/label_tool.py exec BENCH TASK [slot=JSONVALUE ...] [-slot ...]
      executes the intent with some slots set to another value (JSON, or a bare string) or
      dropped (-slot), and says whether the ground truth changes (hash, answer size) and whether
      the reading has no answer at all (EMPTY)

  PYTHONPATH=. .venv/bin/python scripts/label_tool.py values BENCH TASK SLOT
      the raw legal values of SLOT (the form exec takes) next to how customers say them
"""
import json
import sys

from miscue.flows.registry import adapter_for
from miscue.flows.stages.verify import task_intent
from miscue.planning import Planner


def load(bench, task):
    adapter = adapter_for(bench)
    intent, truth = task_intent(adapter, task)
    return adapter, intent, truth


def show(bench, task):
    adapter, intent, truth = load(bench, task)
    seeds = {s.task_id: s for s in adapter.load_seeds()}
    print("== instructions (the task as the host states it)")
    print(adapter.instructions(seeds[task]))
    print("\n== context:", adapter.context_line(intent))
    print("== request:", adapter.request_phrase(intent))
    print(f"== truth: {truth.kind} n={len(truth.value)} hash={truth.hash[:8]}")
    print("\n== requirements (slot | what it is | the true value) + the other legal values")
    for r in Planner(adapter).requirements(intent, options=True):
        print(f"- {r.slot} | {r.phrase} | {r.spoken!r}")
        if r.parts:
            print(f"    parts: {[p.say for p in r.parts]}")
        if r.options:
            print(f"    other legal values: {[o.say for o in r.options][:40]}")
        print(f"    ordered slot: {r.ordered}; raw true value: {json.dumps(intent.condition(r.slot).value)[:200]}")
    settled = Planner(adapter).reading_form(intent).settled
    if settled:  # an extra that agrees with one of these adds nothing: the truth already has it
        print("\n== already settled in the truth (not requirements; an 'extra' that agrees with one adds nothing)")
        for what, value in settled:
            print(f"- {what} = {value!r}")


def values(bench, task, slot):
    adapter, intent, _ = load(bench, task)
    for v in adapter.domain(intent, slot):
        print(json.dumps(v), "->", adapter.spoken_value(intent, slot, v))


def execute(bench, task, edits):
    adapter, intent, truth = load(bench, task)
    changed = intent
    for e in edits:
        if e.startswith("-"):
            changed = changed.without(e[1:])
            continue
        slot, _, raw = e.partition("=")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        cond = changed.condition(slot)
        if cond is None:
            sys.exit(f"no slot {slot!r}; slots: {intent.slots}")
        if isinstance(cond.value, str) and not isinstance(value, str):  # size=11 for the host's "11"
            value = raw
        changed = changed.replace([c if c.slot != slot else c.with_value(value) for c in changed.conditions])
    reason = adapter.invalid_reason(changed)
    if reason:
        print("invalid reading:", reason)
    try:
        gt = adapter.ground_truth(changed)
    except Exception as exc:  # NotExecutable and the like: the reading cannot be executed
        print(f"not executable: {type(exc).__name__}: {exc}")
        return
    print(f"truth   n={len(truth.value)} hash={truth.hash[:8]}")
    print(f"reading n={len(gt.value)} hash={gt.hash[:8]}")
    if not gt.value:
        print("EMPTY: the reading has no answer (nothing in the host matches it, or the host refuses it)")
    print("ground truth", "UNCHANGED" if gt.hash == truth.hash else "CHANGES",
          "(reading's answer set strictly wider)" if set(truth.value) < set(gt.value) else
          "(reading's answer set strictly narrower)" if set(gt.value) < set(truth.value) else "")


if __name__ == "__main__":
    cmd, bench, task, *rest = sys.argv[1:]
    {"show": lambda: show(bench, task), "values": lambda: values(bench, task, rest[0]),
     "exec": lambda: execute(bench, task, rest)}[cmd]()
