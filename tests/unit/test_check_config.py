"""``miscue check-config`` and the example configurations in configs/: validated offline (no network
is reachable here), the same check build, estimate and generate run before they start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from miscue.flows.cli import app
from miscue.config import load_llm_file, model_options
from miscue.llm import model_family
from miscue.model_check import check_llm_config

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.json"))
#: the providers the brief asks for, each as the writer of one example
PROVIDERS = {"openai", "anthropic", "gemini", "hosted_vllm", "ollama_chat", "offline"}


def flat(text: str) -> str:
    return " ".join(text.split())


def variant(tmp_path: Path, name: str, source: str, change) -> Path:
    raw = json.loads((ROOT / "configs" / source).read_text())
    change(raw)
    path = tmp_path / name
    path.write_text(json.dumps(raw))
    return path


def test_the_examples_cover_every_provider_and_keep_keys_out_of_the_files():
    assert {load_llm_file(p).writer.provider for p in CONFIGS} == PROVIDERS
    for path in CONFIGS:
        text = path.read_text()
        assert "api_key" not in text and "sk-" not in text, path.name
        config = load_llm_file(path)
        assert model_family(config.extractor_a.model) != model_family(config.extractor_b.model), path.name


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_example_passes_check_config(path, monkeypatch):
    secret = "sk-test-value-never-printed"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    res = runner.invoke(app, ["check-config", str(path), "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["ok"] is True and got["problems"] == []
    assert secret not in res.output
    for role in got["roles"]:
        assert role["provider"] and role["price_from"] in ("litellm", "prices"), role
        if role["provider"] == "openai":
            assert role["env"] == {"OPENAI_API_KEY": True}  # named, and set: the value is never shown
        if role["provider"] == "anthropic":
            assert role["env"] == {"ANTHROPIC_API_KEY": False}
        if role["provider"] == "gemini":
            assert "GEMINI_API_KEY" in role["env"]
    res = runner.invoke(app, ["check-config", str(path)])  # the table form
    assert res.exit_code == 0 and "ok" in res.output and secret not in res.output


def test_a_typo_in_a_model_string_exits_2_naming_the_field(tmp_path):
    path = variant(tmp_path, "typo.json", "openai.json", lambda c: c["writer"].update(model="opneai/gpt-5.4"))
    res = runner.invoke(app, ["check-config", str(path)])
    assert res.exit_code == 2, res.output
    text = flat(res.output)
    assert "writer.model: 'opneai/gpt-5.4' does not resolve to a litellm provider" in text and "'openai'" in text
    got = json.loads(runner.invoke(app, ["check-config", str(path), "--json"]).stdout)
    assert got["ok"] is False and [r["provider"] for r in got["roles"]] == [None, "openai", "anthropic"]


def test_same_family_extractors_exit_2_naming_both_fields(tmp_path):
    path = variant(tmp_path, "same.json", "openai.json", lambda c: c["extractor_b"].update(model="openai/gpt-5.4", params={}))
    res = runner.invoke(app, ["check-config", str(path)])
    assert res.exit_code == 2, res.output
    text = flat(res.output)
    assert "extractor_a 'openai/gpt-5.4-mini' and extractor_b 'openai/gpt-5.4'" in text and "different families" in text


def test_a_missing_price_exits_2_naming_prices_and_the_role(tmp_path):
    llama = "hosted_vllm/meta-llama/Llama-3.1-8B-Instruct"
    path = variant(tmp_path, "noprice.json", "vllm.json", lambda c: c["prices"].pop(llama))
    res = runner.invoke(app, ["check-config", str(path)])
    assert res.exit_code == 2, res.output
    text = flat(res.output)
    assert "prices: extractor_b.model 'hosted_vllm/meta-llama/Llama-3.1-8B-Instruct' has no price" in text
    assert "writer.model" not in text  # the two priced roles pass
    # --price gives every role a price, as it does for a build
    assert runner.invoke(app, ["check-config", str(path), "--price", "0"]).exit_code == 0


def test_build_estimate_and_generate_run_the_same_check_first(tmp_path):
    typo = variant(tmp_path, "typo.json", "anthropic.json", lambda c: c["extractor_b"].update(model="opnai/gpt-5.4-mini"))
    noprice = variant(tmp_path, "noprice.json", "ollama.json", lambda c: c.pop("prices"))
    art = tmp_path / "artifacts"
    for command in (["build", "-b", "tau2-airline"], ["estimate", "-b", "tau2-airline"], ["generate", "-b", "tau2-airline"]):
        for path, field in ((typo, "extractor_b.model"), (noprice, "prices: writer.model")):
            res = runner.invoke(app, [*command, "--llm-config", str(path), "--artifacts", str(art)])
            assert res.exit_code == 2, (command, res.output)
            assert field in flat(res.output) and "does not pass check-config" in flat(res.output), (command, res.output)
    assert not art.exists()  # refused before anything ran


def test_the_check_never_reads_a_value_and_names_secrets_in_the_file(monkeypatch, tmp_path):
    path = variant(tmp_path, "keyed.json", "openai.json", lambda c: c["writer"].update(params={"api_key": "sk-in-the-file"}))
    check = check_llm_config(model_options(path).resolve())
    assert check.ok and check.roles[0].env == {}  # the key is given: no variable needed
    assert any("writer.params gives api_key" in n for n in check.notes)
    assert "sk-in-the-file" not in json.dumps(check.as_dict())
