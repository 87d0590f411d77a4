"""The run's model configuration (miscue.config): options, resolution, what a manifest records,
and the checks that keep a corpus's manifest true of its rows."""

from __future__ import annotations

import json

import pytest

from miscue.config import ModelOptions, model_options, offline_llm_config, recorded_llm, role_models


def _file(tmp_path, **extra):
    params = {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-secret-value", "temperature": 0.0}
    roles = {"writer": {"model": "openai/gpt-4o", "params": params},
             "extractor_a": {"model": "anthropic/claude-3-haiku", "params": params},
             "extractor_b": {"model": "openai/gpt-4o-mini", "params": params}}
    path = tmp_path / "llm.json"
    path.write_text(json.dumps({**roles, **extra}))
    return path


def test_default_is_the_offline_models_and_caps_apply():
    config = model_options(max_cost=0.5, price=1e-6, replay_only=True).resolve()
    assert role_models(config) == role_models(offline_llm_config())
    assert config.max_cost == 0.5 and config.replay_only
    assert config.prices == {m: (1e-6, 1e-6) for m in role_models(config).values()}


def test_only_the_path_travels_and_it_is_absolute(tmp_path, monkeypatch):
    path = _file(tmp_path)
    monkeypatch.chdir(tmp_path)
    options = model_options("llm.json", max_cost=1.0)
    assert options.llm_config == str(path) and "sk-secret-value" not in options.model_dump_json()
    assert ModelOptions.model_validate(options.model_dump()) == options  # a Prefect parameter round trip
    assert options.resolve().writer.model == "openai/gpt-4o"


def test_recorded_config_has_no_secrets_and_no_run_controls(tmp_path):
    config = model_options(_file(tmp_path), max_cost=2.0).resolve()
    recorded = recorded_llm(config)
    text = json.dumps(recorded)
    assert "sk-secret-value" not in text and "127.0.0.1:9" not in text
    assert "max_cost" not in recorded and "replay_only" not in recorded
    assert recorded["writer"]["params"] == {"temperature": 0.0}


@pytest.mark.parametrize("kwargs, message", [
    ({"max_cost": -1.0}, "--max-cost must be >= 0"),
    ({"price": -0.1}, "--price must be >= 0"),
])
def test_negative_limits_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        model_options(**kwargs)


def test_regenerate_refuses_other_models_than_the_parent(tmp_path):
    from miscue.flows.stages.regenerate import RegenerationPlan, check_parent_models
    from miscue.config import GenerateConfig

    parent = {"config": {"llm": recorded_llm(offline_llm_config())}}
    plan = RegenerationPlan("v0001", "factual_error", ["tau2-airline"], GenerateConfig(), "salt", parent)
    check_parent_models(plan, offline_llm_config(max_cost=3.0))  # run controls may differ
    with pytest.raises(ValueError, match="regenerate must use the models of version v0001") as info:
        check_parent_models(plan, model_options(_file(tmp_path)).resolve())
    assert "openai/gpt-4o" in str(info.value) and "sk-secret-value" not in str(info.value)


def test_the_offline_models_are_a_plugin_found_through_the_installed_metadata():
    """The kernel reaches the embedded models only through the entry point ``miscue.providers``."""
    from miscue.llm import plugins

    assert plugins.plugins()["offline"].value == "miscue.offline.provider:register"
    assert plugins.install_for(offline_llm_config()) == ["offline"]
    assert plugins.install("openai") is False  # litellm's own providers need no plugin


def test_a_provider_plugin_that_cannot_be_loaded_is_a_clear_error(monkeypatch):
    from importlib.metadata import EntryPoint

    from miscue.errors import ConfigError
    from miscue.llm import plugins

    broken = EntryPoint(name="broken", value="miscue.no_such_module:register", group=plugins.GROUP)
    monkeypatch.setattr(plugins, "plugins", lambda: {"broken": broken})
    with pytest.raises(ConfigError, match="'broken' is declared by 'miscue.no_such_module:register' but cannot be loaded"):
        plugins.install("broken")


@pytest.mark.parametrize("generate, cards, path", [
    ({"attempts": 4}, {"extract_blind": "x", "read": "y"}, "forms"),  # before the reading path existed
    ({"attempts": 4, "reading": False}, {"extract_blind": "x"}, "forms"),  # built with --forms
    ({"attempts": 4, "reading": True}, {"extract_blind": "x"}, "reading"),  # the reading path, before the forms retired
    ({"attempts": 4}, {"read": "y"}, "reading"),  # built after the forms path retired
])
def test_a_parent_built_on_the_forms_path_is_regenerated_on_the_reading_path(generate, cards, path):
    """The forms path is retired: a regeneration from a version it built runs on the reading path,
    and says so (the CLI's note, the child manifest's ``regeneration.note`` and the datasheet)."""
    from miscue.config import GenerateConfig
    from miscue.corpus.datasheet import datasheet
    from miscue.flows.stages.regenerate import RegenerationPlan, built_on

    parent = {"config": {"generate": generate, "llm": recorded_llm(offline_llm_config())}, "card_versions": cards}
    assert built_on(parent) == path
    plan = RegenerationPlan("v0001", "factual_error", ["tau2-airline"], GenerateConfig(), "salt", parent)
    assert plan.parent_path == path
    assert (plan.note is not None) == (path == "forms")
    if plan.note:
        assert "retired forms path" in plan.note and "reading path" in plan.note
        man = {"version": "v0002", "created_at": "now", "code_version": "c", "config_hash": "0" * 64,
               "config": {"generate": {}}, "regeneration": {"note": plan.note}}
        assert plan.note in datasheet(man)
