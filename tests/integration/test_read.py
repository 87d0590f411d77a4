"""One extractor reads a text through the real gateway against the loopback OpenAI stub: the
reading form for a real tau2 task, the reply schema sent where the model takes one, replies
parsed tolerantly, validated against the task's enums and held to the text by code."""

from __future__ import annotations

import asyncio
import json

import pytest

from miscue.briefs import ExtractionInput
from miscue.flows.registry import adapter_for
from miscue.flows.stages.attempt import Caller
from miscue.flows.stages.read import read
from miscue.flows.stages.verify import task_intent
from miscue.llm import Gateway, LLMConfig, RoleConfig
from miscue.planning import Planner
from miscue.reading import ReadingForm, single_class
from miscue.taxonomy import ExtractionClass

from support.openai_stub import StubServer, reply

TEXT = "Hi, I'd like to swap the desk lamp from my last order for one with high brightness that plugs into the wall."


@pytest.fixture(scope="module")
def task():
    adapter = adapter_for("tau2-retail", tasks=["7"])
    intent, _ = task_intent(adapter, "7")
    reqs = Planner(adapter).requirements(intent, options=True)
    request = adapter.request_phrase(intent)
    inp = ExtractionInput(context=adapter.context_line(intent), request=request, requirements=reqs, text=TEXT)
    return inp, ReadingForm.of(reqs, request, ["return items from a delivered order"])


def answer(form: ReadingForm, **slots) -> dict:
    plain = {r.slot: {"status": "stated", "value": r.truth, "candidates": [], "quote": ""} for r in form.requirements}
    for slot, fields in slots.items():
        plain[slot] = {**plain[slot], **fields}
    return {"requirements": plain, "operation": form.operation, "extras": [], "off_topic": "", "asks": True}


def run(stub: StubServer, task, *replies: str, tmp_path) -> list:
    inp, form = task
    params = {"api_base": stub.base_url, "api_key": "sk-local", "temperature": 0.0}
    config = LLMConfig(writer=RoleConfig(model="openai/stub-writer", params=params),
                       extractor_a=RoleConfig(model="openai/gpt-4o-mini", params=params),
                       extractor_b=RoleConfig(model="openai/llama-3-stub", params=params),
                       timeout_s=5.0, max_retries=0)
    caller = Caller(Gateway(config, tmp_path), "tau2-retail")
    stub.enqueue(*(reply(r) for r in replies))

    async def all_reads():
        return [await read(caller, "extractor_a", inp.model_copy(update={"text": TEXT + " " * i}), form, [])
                for i in range(len(replies))]  # a different text each: no store hit

    return asyncio.run(all_reads())


def test_readings_are_parsed_validated_and_held_to_the_text(task, tmp_path):
    inp, form = task
    slot = {r.slot: r for r in form.requirements}
    brightness = next(s for s in slot if s.endswith("brightness"))
    power = next(s for s in slot if s.endswith("power source"))
    items = next(s for s in slot if s.endswith("items"))
    good = answer(form, **{brightness: {"status": "stated_other", "value": "high", "quote": "high brightness"},
                           power: {"quote": "plugs into the wall"}, items: {"quote": "the desk lamp"}})
    misquoted = answer(form, **{brightness: {"status": "stated_other", "value": "high", "quote": "medium brightness"}})
    illegal = answer(form, **{brightness: {"status": "stated_other", "value": "dazzling"}})
    contradicted = answer(form, **{items: {"status": "not_said", "value": "(no value)"}})
    with StubServer() as stub:
        reads = run(stub, task, json.dumps(good), "```json\n" + json.dumps(good) + "\n```", "I think it is fine.",
                    json.dumps(misquoted), json.dumps(illegal), json.dumps(contradicted), tmp_path=tmp_path)
        assert all(body["response_format"]["json_schema"]["schema"] == form.schema() for body in stub.requests)
    plain, fenced, prose, wrong_quote, wrong_value, not_said = reads
    assert plain.holds and fenced.holds and plain.reading == fenced.reading
    found = single_class(plain.reading, form)
    assert (found.cls, found.target) == (ExtractionClass.substituted, brightness)  # derived, never asked
    assert [v.code for v in prose.verdicts] == ["read:malformed"] and prose.reading is None
    assert [v.code for v in wrong_quote.verdicts] == ["read:quote_absent"]
    assert [v.code for v in wrong_value.verdicts] == ["read:value_illegal"] and "dazzling" in wrong_value.verdicts[0].detail
    assert [v.code for v in not_said.verdicts] == ["read:not_said_contradicted"]


def test_the_offline_readers_answer_the_reading_form_through_the_gateway(task, tmp_path):
    """The offline models, served through litellm like any provider, answer the rendered reading
    form with readings that parse against the task's enums and hold to the text."""
    from miscue.flows.stages.benchmark import offline_gateway

    inp, form = task
    caller = Caller(offline_gateway(tmp_path), "tau2-retail")

    async def both():
        return [await read(caller, role, inp, form, []) for role in ("extractor_a", "extractor_b")]

    a, b = asyncio.run(both())
    assert a.holds and b.holds, (a.verdicts, b.verdicts)
    slot = next(r.slot for r in form.requirements if r.slot.endswith("brightness"))
    assert {x.reading.requirements[slot].status for x in (a, b)} == {"stated_other"}  # "high brightness", truth low
    assert {x.reading.requirements[slot].value for x in (a, b)} == {"high"}
    assert {c.model for c in caller.calls} == {"offline/lexical", "offline/parse"}
