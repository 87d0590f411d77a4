"""The single-fault stage on the reading path (DESIGN section 6), the only one there is: one
reading per extractor, checked by code, the class derived from it and held to the plan and the
other reading, the reading executed in the real tau2 environment -- with the embedded offline
models in process, and through litellm against a local OpenAI-compatible server that is sent
the task's reply schema."""

from __future__ import annotations

import asyncio
import json

import pytest

from miscue import writing
from miscue.config import GenerateConfig
from miscue.flows.stages.benchmark import offline_gateway
from miscue.flows.stages.single import SingleFaultStage
from miscue.reading import Departure, Reading, single_class
from miscue.taxonomy import SLOT_TARGETS, fault_type

TASKS = ("0", "1", "2", "3", "7")
#: the codes a reading-path attempt can end with: the mechanical text checks, a reading's checks,
#: agreement on readings and the admission of a reading -- never a grounded text check
MECHANICAL = {"text:empty", "text:internal_syntax", "text:meta_commentary", "text:too_long", "text:answer_identifier_leaked"}


@pytest.fixture(scope="module")
def reading_run(retail, retail_build, tmp_path_factory):
    graphs = [g for g in retail_build.graphs if g.task_id in TASKS]
    stage = SingleFaultStage(retail, offline_gateway(tmp_path_factory.mktemp("store")), GenerateConfig())
    return stage, {g.graph_id: g for g in graphs}, asyncio.run(stage.run(graphs))


def test_each_extractor_reads_once_and_code_derives_the_class(reading_run):
    stage, graphs, result = reading_run
    written = [a for a in result.attempts if a.query]
    assert written and result.samples
    read_form = writing.prompts().version(writing.READ_FORM)
    assert {c.card_version.split("+")[0] for c in result.calls if c.role.startswith("extractor")} == {read_form}
    assert all(a.blind_a is None and a.targeted_a is None for a in result.attempts)  # no blind or targeted form
    for a in written:
        assert len(a.call_ids) <= 3  # the writer, reader A and (when A matches the plan) reader B
        assert a.code in MECHANICAL or a.code == "admitted" or a.code.split(":")[0] in ("read", "agree", "admit"), a.code
    for a in (a for a in written if a.admitted):
        assert len(a.call_ids) == 3
        t = fault_type(a.fault_types[0])
        planned = Departure(t.extraction, a.targets[0] if t.target in SLOT_TARGETS else None)
        form = stage.planner.reading_form(graphs[a.graph_id].root.intent)
        for who in (a.reading_a, a.reading_b):
            assert single_class(Reading.model_validate_json(who), form) == planned  # derived, never asked
        executed = json.loads(a.readings_json)
        assert executed and all(r["source"] == "reading" and r["gt_hash"] for r in executed)
    assert len(result.calls) / len(written) <= 3.0  # the retired forms path made up to five per attempt


def test_the_offline_baseline_admits_most_cells_on_the_reading_path(reading_run):
    """The key-free baseline keeps working on the reading path (figures per host: the closing
    note of issue 38 and perf/results/reading_path.txt)."""
    _, _, result = reading_run
    by_type: dict[str, list[bool]] = {}
    for c in result.cells:
        if c.status in ("admitted", "rejected"):
            by_type.setdefault(c.fault_types[0], []).append(c.status == "admitted")
    assert len(by_type) >= 9
    assert sum(map(sum, by_type.values())) / sum(map(len, by_type.values())) >= 0.8


def test_over_http_each_reader_is_sent_the_tasks_reply_schema(retail, retail_build, tmp_path):
    """Through litellm against the loopback server (answering as the offline models would): each
    extractor request carries the task's reading schema as its structured-output response_format
    (the roles are configured as taking one), the writer's none; a rerun is answered from the store."""
    from miscue.llm import Gateway, LLMConfig, RoleConfig
    from miscue.offline.provider import answer
    from support.openai_stub import StubServer, reply

    offline = {"stub-writer": "writer", "lexical-extractor": "lexical", "parse-extractor": "parse"}

    class ModelServer(StubServer):
        def _next(self, body):
            action = super()._next(body)
            return reply(answer(offline[body["model"]], body["messages"])) if action is self.default else action

    graphs = [g for g in retail_build.graphs if g.task_id == "7"]
    config = GenerateConfig(attempts=1, fault_types=["factual_error", "insufficient_information"])
    with ModelServer(default=reply("unused")) as server:
        params = {"api_base": server.base_url, "api_key": "sk-local"}
        llm = LLMConfig(writer=RoleConfig(model="openai/stub-writer", params=params),
                        extractor_a=RoleConfig(model="openai/lexical-extractor", params=params, structured_output=True),
                        extractor_b=RoleConfig(model="openai/parse-extractor", params=params, structured_output=True),
                        timeout_s=5.0, max_retries=0)
        result = asyncio.run(SingleFaultStage(retail, Gateway(llm, tmp_path / "store"), config).run(graphs))
        assert [c.status for c in result.cells] == ["admitted", "admitted"]
        form = SingleFaultStage(retail, Gateway(llm, tmp_path / "store"), config).planner.reading_form(graphs[0].root.intent)
        readers = [b for b in server.requests if b["model"] != "stub-writer"]
        assert len(readers) == 4 and len(server.requests) == 6
        assert all(b["response_format"]["json_schema"]["schema"] == form.schema() for b in readers)
        assert all("response_format" not in b for b in server.requests if b["model"] == "stub-writer")
        seen = server.request_count
        asyncio.run(SingleFaultStage(retail, Gateway(llm, tmp_path / "store"), config).run(graphs))
        assert server.request_count == seen


@pytest.mark.parametrize("text, claim, admitted, fault, code", [
    # plan-free: the class is derived from extractor A's reading, the type from its status
    ("Hi, I'd like to exchange the desk lamp from my last order for one with high brightness and an AC adapter.",
     None, True, "factual_error", "admitted"),
    ("Hi, I'd like to exchange the desk lamp from my last order for one with an AC adapter.",
     None, True, "insufficient_information", "admitted"),
    # a claim the readings do not bear out is the plan they fail
    ("Hi, I'd like to exchange the desk lamp from my last order for one with an AC adapter.",
     ("factual_error", "exchange.item1.brightness"), False, "factual_error", "agree:flaw_mismatch"),
    # the whole request stated: nothing to admit
    ("Hi, I'd like to exchange the desk lamp from my last order for one with low brightness and an AC adapter.",
     None, False, None, "extract:no_fault_found"),
])
def test_verify_runs_the_reading_path(retail, tmp_path, text, claim, admitted, fault, code):
    """``miscue verify``: the same path as a generated attempt, plan-free or with a claim."""
    from miscue.flows.stages.verify import verify_sync

    claimed_type, slot = claim or (None, None)
    v = verify_sync(retail, offline_gateway(tmp_path), "7", text, claimed_type, slot)
    assert (v.admitted, v.fault_type, v.as_dict()["verdict"]["code"]) == (admitted, fault, code), v.as_dict()["verdict"]
    assert v.found["a"]["reading"] is not None and "blind" not in str(v.found)


def test_the_form_lists_the_true_outcomes_settled_details(retail):
    """Retail task 5 (return the water bottle): the order and the refund card are no requirement
    (there is one way to do them), so the form tells readers them as settled -- "refund it to my
    PayPal" then agrees with the truth instead of reading as an extra -- and the prompt says them."""
    from miscue.flows.stages.verify import task_intent
    from miscue.planning import Planner
    from miscue.reading import ReadingForm

    intent, _ = task_intent(retail, "5")
    form = Planner(retail).reading_form(intent)
    assert [r.slot for r in form.requirements] == ["return.items"]
    assert sorted(value for _, value in form.settled) == ["my PayPal account", "order #W6390527"]
    assert ReadingForm.from_dict(form.as_dict()).settled == form.settled
    inp = writing.ExtractionInput(context="", request=form.operation, requirements=[], text="Return the water bottle.")
    prompt = writing.render_read(inp, form)[0][1]["content"]
    assert all(f'= "{value}"' in prompt.split("The customer's message")[0] for _, value in form.settled)


def test_the_form_marks_the_requirements_the_rest_of_the_request_implies(retail):
    """Retail task 78 (a makeup kit changed, with an address and a cancel): dropping the kit size alone leaves the
    answer as it is (the rest of the request fixes it), dropping the skin tone changes it; so a
    text that never says the kit size departs in nothing there, and one that never says the tone does."""
    from miscue.flows.stages.verify import task_intent
    from miscue.planning import Planner

    intent, _ = task_intent(retail, "78")
    form = Planner(retail).reading_form(intent)
    implied = {r.slot: r.implied for r in form.requirements}
    assert implied["modify_items.item1.kit size"] and not implied["modify_items.item1.skin tone"]
    truth = retail.ground_truth(intent)
    for slot, fixed in implied.items():
        assert (retail.ground_truth(intent.without(slot)).hash == truth.hash) == fixed, slot


def test_a_vague_value_whose_candidates_do_not_execute_widens_by_the_slot_dropped(airline):
    """Airline task 11, "put all of us in a cheaper cabin" (from business): the other candidate,
    economy, executes to nothing, and dropping the cabin widens the answer (DESIGN 6, step 6: the
    slot dropped), so the vague cabin is admitted."""
    from miscue.flows.stages.verify import task_intent
    from miscue.planning import Planner
    from miscue.verifiers.admission import admit_reading

    intent, _ = task_intent(airline, "11")
    form = Planner(airline).reading_form(intent)
    plain = {r.slot: {"status": "stated", "value": r.truth, "candidates": [], "quote": ""} for r in form.requirements}
    plain["change_flights.cabin"] = {"status": "vague", "value": "(no value)", "candidates": ["basic economy", "economy"],
                                     "quote": "a cheaper cabin"}
    reading = form.parse({"requirements": plain, "operation": form.operation, "asks": True, "extras": [], "off_topic": ""})
    found = single_class(reading, form)
    assert found == Departure(fault_type("vagueness_subjectivity").extraction, "change_flights.cabin")
    admission = admit_reading(airline, intent, airline.ground_truth(intent), form, reading, found)
    assert admission.verdict is None, admission.verdict
    assert [r.name for r in admission.readings] == ["candidate", "slot_dropped"]
    assert admission.readings[0].truth.empty and not admission.readings[1].truth.empty
