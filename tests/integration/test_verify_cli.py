"""`miscue verify` on requests written by hand (tau2-retail task 0), through the CLI."""

import json

import pytest
from typer.testing import CliRunner

from miscue.flows.cli import app

runner = CliRunner()
HEAD = "Hi, I want to exchange items from a delivered order, order #W2378156: the mechanical keyboard and the smart thermostat. "
KEYBOARD = ("The switch type of the new mechanical keyboard should be {switch}, "
            "the backlight of the new mechanical keyboard none, and the size of the new mechanical keyboard full size; ")
THERMOSTAT = "the compatibility of the new smart thermostat should be Google Assistant. "
PAYMENT = "The payment method is my Mastercard ending in 2478."
CORRECT = HEAD + KEYBOARD.format(switch="clicky") + THERMOSTAT + PAYMENT
WRONG_VALUE = HEAD + KEYBOARD.format(switch="linear") + THERMOSTAT + PAYMENT
WITHHELD = (HEAD + "The backlight of the new mechanical keyboard should be none "
            "and the size of the new mechanical keyboard full size; " + THERMOSTAT + PAYMENT)
POINTER = HEAD + KEYBOARD.format(switch="the usual one") + THERMOSTAT + PAYMENT
SWITCH = "exchange.item1.switch type"


def verify(tmp_path, text, *extra):
    res = runner.invoke(app, ["verify", text, "-b", "tau2-retail", "--task", "0", "--json", "--artifacts", str(tmp_path), *extra])
    assert res.exit_code in (0, 1), res.output
    out = json.loads(res.stdout)
    assert (res.exit_code == 0) == out["admitted"]
    return out


@pytest.mark.parametrize("text,fault", [(WRONG_VALUE, "factual_error"), (WITHHELD, "insufficient_information"),
                                        (POINTER, "referential_ambiguity")])
def test_correct_requests_are_admitted_with_executed_readings(tmp_path, text, fault):
    claimed = verify(tmp_path, text, "-t", fault, "--slot", SWITCH)
    assert claimed["admitted"], claimed["verdict"]
    admission = next(s for s in claimed["steps"] if s["name"] == "admission")
    assert admission["detail"]["readings"] and all(r["gt_hash"] for r in admission["detail"]["readings"])
    unclaimed = verify(tmp_path, text)  # the extractors alone find the same fault and slot
    assert unclaimed["admitted"] and unclaimed["fault_type"] == fault and unclaimed["slot"] == SWITCH


@pytest.mark.parametrize("text,fault", [(WRONG_VALUE, "factual_error"), (WITHHELD, "insufficient_information"),
                                        (POINTER, "referential_ambiguity")])
def test_a_type_claimed_without_its_slot_is_judged_on_the_slot_the_extractors_find(tmp_path, text, fault):
    """Only the type is claimed: the target is the requirement extractor A finds, so the other
    requirements are checked as conveyed and the target as its class demands."""
    out = verify(tmp_path, text, "-t", fault)
    assert out["admitted"], out["verdict"]
    assert out["fault_type"] == fault and out["slot"] == SWITCH


@pytest.mark.parametrize("text,fault", [(WRONG_VALUE, "factual_error"), (WITHHELD, "insufficient_information")])
def test_wrong_slot_claims_are_rejected(tmp_path, text, fault):
    out = verify(tmp_path, text, "-t", fault, "--slot", "exchange.item1.backlight")
    assert not out["admitted"]
    assert out["verdict"]["code"] in ("agree:slot_mismatch", "text:requirement_not_conveyed", "text:true_value_still_present")


def test_requests_without_a_fault_are_not_admitted(tmp_path):
    assert verify(tmp_path, CORRECT)["verdict"]["code"] == "extract:no_fault_found"
    claimed = verify(tmp_path, CORRECT, "-t", "factual_error", "--slot", SWITCH)
    assert not claimed["admitted"] and claimed["verdict"]["code"].startswith(("text:", "agree:"))


def test_bad_input_is_named(tmp_path):
    res = runner.invoke(app, ["verify", CORRECT, "-b", "tau2-retail", "--task", "9999", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "no task '9999'" in res.output
    res = runner.invoke(app, ["verify", CORRECT, "-b", "tau2-retail", "--task", "0", "--slot", "nope",
                              "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "slot 'nope' is not a requirement" in res.output


def _nothing_written(art) -> bool:
    return not art.exists() or not any(art.rglob("*"))


@pytest.mark.parametrize("args,named", [
    (["", "-b", "tau2-retail", "--task", "0"], "empty"),
    (["   ", "-b", "tau2-retail", "--task", "0"], "empty"),
    ([CORRECT, "-b", "tau2-retail", "--task", "9999"], "no task '9999'"),
    ([CORRECT, "-b", "tau2-retail", "--task", "0", "-t", "typo_error"], "typo_error"),
    ([CORRECT, "-b", "tau2-retail", "--task", "0", "-t", "factual_error", "--slot", "nope"], "slot 'nope'"),
    ([CORRECT, "-b", "tau2-nowhere", "--task", "0"], "tau2-nowhere"),
])
def test_verify_bad_input_exits_2_naming_it_and_writes_nothing(tmp_path, args, named):
    art = tmp_path / "art"
    res = runner.invoke(app, ["verify", *args, "--artifacts", str(art)])
    assert res.exit_code == 2, res.output
    assert named in res.output
    assert _nothing_written(art)


# The issue's own examples (hand-written, tau2), each with the right verdict: a clean exchange that
# paraphrases "no backlight" but leaves the thermostat's compatibility open; a wrong size said as a
# customer would; a wrong cancellation reason found without a plan; a pointer for a passenger's new
# last name, which cannot be enumerated, so dropping it cannot be shown to widen (rejected).
ISSUE_EXAMPLES = [
    ("tau2-retail", "0", "Hi, I'm Yusuf Rossi, zip 19122. I got order #W2378156 and want to exchange two items: the mechanical "
     "keyboard for the full-size one with clicky switches and no backlight, and the smart thermostat for a different model. "
     "Any difference can go on my Mastercard ending 2478.", ["-t", "insufficient_information", "--slot",
                                                              "exchange.item2.compatibility"], True),
    ("tau2-retail", "15", "Fatima Johnson, zip 78712. For my pending order #W5199551, switch the hiking boots to size 7. "
     "Use my PayPal for any difference.", ["-t", "factual_error", "--slot", "modify_items.item1.size"], True),
    ("tau2-retail", "38", "Hi, Daiki Sanchez here, zip 46236. Please cancel my pending order #W9348897; I ordered it by mistake.",
     [], True),
    ("tau2-airline", "40", "Hi, I'm Anya Garcia, user id anya_garcia_5901. On reservation 3RK2T9, please change Mei Lee's last "
     "name to the one we talked about.", ["-t", "referential_ambiguity", "--slot", "change_passengers.passengers"], False),
]


@pytest.mark.parametrize("benchmark,task,text,claim,admitted", ISSUE_EXAMPLES,
                         ids=["retail-0", "retail-15", "retail-38", "airline-40"])
def test_the_issue_examples_get_their_verdicts(tmp_path, benchmark, task, text, claim, admitted):
    res = runner.invoke(app, ["verify", text, "-b", benchmark, "--task", task, "--json", "--artifacts", str(tmp_path), *claim])
    out = json.loads(res.stdout)
    assert out["admitted"] is admitted, out["verdict"]
    if task == "38":  # plan-free: the wrong reason the text asserts is what the extractors find
        assert (out["fault_type"], out["slot"]) == ("factual_error", "cancel.reason")
    if not admitted:
        assert out["verdict"]["stage"] == "admit"  # read as a pointer; refused because the drop is not executable


def test_the_readings_do_not_depend_on_the_string_hash_seed(tmp_path):
    """The readings executed are the same in two processes with different string hash seeds, so a
    rebuild in another process publishes the same readings (the retired forms path once put the
    electric kettle first under seed 4, the pet bed under seeds 1-3)."""
    import os
    import subprocess
    import sys

    text = ("Hello, I'm Isabella Johansson and my zip code is 32286. Apparently the electric kettle isn't eligible "
            "anymore. I want to return the pet bed and the mechanical keyboard from one of my orders.")
    out = []
    for seed in ("1", "4"):
        proc = subprocess.run(
            [sys.executable, "-c", "from miscue.flows.cli import main; main()", "verify", "-b", "tau2-retail", "--task", "26",
             "-t", "false_presupposition", "--slot", "return.items", "--json", "--artifacts", str(tmp_path / seed), text],
            env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True, check=True)
        steps = json.loads(proc.stdout)["steps"]
        out.append([r["conditions"] for s in steps if s.get("name") == "admission" for r in s["detail"]["readings"]])
    assert len(out[0]) == 1 and out[0] == out[1]


def test_one_passenger_told_over_several_clauses_is_the_request_not_chatter(tmp_path):
    """Mei is named in four clauses in a row (her name, the wrong one, her birth date): one thing
    said over a few clauses is said, so extractor B must not take the stretch for off-topic
    chatter, and both extractors find the pointer at the booking."""
    text = ("anya_garcia_5901. On the booking I told you about earlier, Mei's last name is wrnog: it should read Mei Garcia, "
            "not Mei Lee, born 1989-12-13, travelling with me, Anya Garcia, 1992-11-12. Please fix the passenger list.")
    res = runner.invoke(app, ["verify", text, "-b", "tau2-airline", "--task", "40", "--json", "--artifacts", str(tmp_path),
                              "-t", "referential_ambiguity", "--slot", "change_passengers.reservation"])
    out = json.loads(res.stdout)
    assert out["admitted"], out["verdict"]
    assert {out["found"][who]["class"] for who in "ab"} == {"marked"}


@pytest.mark.parametrize("task,text,slot,admitted", [
    ("27", "ethan_martin_2396 here. My HAT039 flight from Atlanta to Seattle got delayed for hours; could you send me a "
     "travel certificate for the trouble?", "certificate.amount", True),  # $150 the truth, $100 and $200 other states
    ("19", "olivia_gonzalez_2305 - please cancel my reservation, thanks.", "cancel.reservation", False),  # one is cancellable
])
def test_the_one_requirement_withheld_is_read_as_every_value_it_leaves_open(tmp_path, task, text, slot, admitted):
    """An intent with one requirement: withholding it leaves every legal value open. A travel
    certificate of unsaid amount may be any amount (another state); "cancel my reservation" of a
    customer whose other reservations the policy does not let cancel still means the one: the
    form knows the rest of the request implies it (dropping it leaves the truth), so the reading
    that finds it not said departs in nothing and the claim finds no fault."""
    res = runner.invoke(app, ["verify", text, "-b", "tau2-airline", "--task", task, "--json", "--artifacts", str(tmp_path),
                              "-t", "insufficient_information", "--slot", slot])
    out = json.loads(res.stdout)
    assert out["admitted"] is admitted, out["verdict"]
    readings = [r for s in out["steps"] if s["name"] == "admission" for r in s["detail"]["readings"]]
    if admitted:
        assert len(readings) >= 2 and {r["name"] for r in readings} == {"value_left_open"}
    else:
        assert out["verdict"]["code"] == "agree:flaw_mismatch" and readings == []
        assert out["found"]["a"]["reading"]["requirements"][slot]["status"] == "not_said"
        assert out["found"]["a"]["class"] == "none"
