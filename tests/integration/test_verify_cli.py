"""`miscue verify` on requests written by hand (tau2-retail task 0), through the CLI."""

import json

import pytest
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()
HEAD = "Hi, I want to exchange items from a delivered order, order #W2378156: the mechanical keyboard and the smart thermostat. "
KEYBOARD = "The switch type of the new mechanical keyboard should be {switch}, the backlight of the new mechanical keyboard none, and the size of the new mechanical keyboard full size; "
THERMOSTAT = "the compatibility of the new smart thermostat should be Google Assistant. "
PAYMENT = "The payment method is my Mastercard ending in 2478."
CORRECT = HEAD + KEYBOARD.format(switch="clicky") + THERMOSTAT + PAYMENT
WRONG_VALUE = HEAD + KEYBOARD.format(switch="linear") + THERMOSTAT + PAYMENT
WITHHELD = HEAD + "The backlight of the new mechanical keyboard should be none and the size of the new mechanical keyboard full size; " + THERMOSTAT + PAYMENT
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
    res = runner.invoke(app, ["verify", CORRECT, "-b", "tau2-retail", "--task", "0", "--slot", "nope", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "slot 'nope' is not a requirement" in res.output
