"""`miscue build` with no arguments is the whole mission: single faults and composites (k = 2..4);
--fault-type narrows it to single faults, --composite says otherwise explicitly."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from miscue.flows import prefect_flows
from miscue.flows.cli import app
from miscue.flows.cli.app import DEFAULT_KS, default_ks

runner = CliRunner()


class Started(Exception):
    """Raised in place of running the flow: the test only wants its parameters."""


def flow_parameters(monkeypatch, tmp_path, *args: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def run_flow(flow: Any, echo: Any, **kwargs: Any) -> dict[str, Any]:
        seen.update(kwargs)
        raise Started

    monkeypatch.setattr(prefect_flows, "run_flow", run_flow)
    res = runner.invoke(app, ["build", *args, "--artifacts", str(tmp_path)])
    assert isinstance(res.exception, Started), res.output
    return seen


def test_build_with_no_arguments_composes_faults(monkeypatch, tmp_path):
    assert flow_parameters(monkeypatch, tmp_path)["composite_ks"] == [2, 3, 4] == list(DEFAULT_KS)
    assert flow_parameters(monkeypatch, tmp_path, "-b", "tau2-airline")["composite_ks"] == [2, 3, 4]


def test_fault_type_narrows_to_single_faults_and_composite_says_otherwise(monkeypatch, tmp_path):
    assert flow_parameters(monkeypatch, tmp_path, "-t", "factual_error")["composite_ks"] is None
    assert flow_parameters(monkeypatch, tmp_path, "-t", "factual_error", "--composite", "2,4")["composite_ks"] == [2, 4]
    assert flow_parameters(monkeypatch, tmp_path, "--composite", "none")["composite_ks"] is None


@pytest.mark.parametrize("value", ["1", "5", "two", ""])
def test_a_bad_composite_value_is_bad_input(value, tmp_path):
    res = runner.invoke(app, ["build", "--composite", value, "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "--composite takes" in res.output


def test_default_ks():
    assert default_ks(None, None) == [2, 3, 4] and default_ks(None, []) == [2, 3, 4]
    assert default_ks(None, ["vagueness_subjectivity"]) is None
    assert default_ks(" None ", None) is None and default_ks("3,2", ["factual_error"]) == [2, 3]
