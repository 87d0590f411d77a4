"""The single-fault stage on the reading path (DESIGN section 6, ``GenerateConfig.reading``): one
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
    stage = SingleFaultStage(retail, offline_gateway(tmp_path_factory.mktemp("store")), GenerateConfig(reading=True))
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
    assert len(result.calls) / len(written) <= 3.0  # the forms path makes up to five per attempt


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
    config = GenerateConfig(reading=True, attempts=1, fault_types=["factual_error", "insufficient_information"])
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
    """``miscue verify --reading``: the same path as a reading-path attempt, plan-free or with a claim."""
    from miscue.flows.stages.verify import verify_sync

    claimed_type, slot = claim or (None, None)
    v = verify_sync(retail, offline_gateway(tmp_path), "7", text, claimed_type, slot, reading=True)
    assert (v.admitted, v.fault_type, v.as_dict()["verdict"]["code"]) == (admitted, fault, code), v.as_dict()["verdict"]
    assert v.found["a"]["reading"] is not None and "blind" not in str(v.found)
