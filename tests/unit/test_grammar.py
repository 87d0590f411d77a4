"""The rule grammar reaches the kernel only through the entry point group ``miscue.grammars``
(miscue.grammar; issue 38 item 6): the installed distribution declares the offline room's, and a
missing or doubled declaration is a clear configuration error, not an ImportError deep in a build."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from miscue import grammar as grammar_module
from miscue.errors import ConfigError


@pytest.fixture
def fresh(monkeypatch):
    grammar_module.grammar.cache_clear()
    yield monkeypatch
    grammar_module.grammar.cache_clear()


def test_the_installed_grammar_is_the_offline_rooms_and_reads():
    g = grammar_module.grammar()
    assert type(g).__module__ == "miscue.offline.language"
    assert g.reads_as_pointer("the card I used last time") and not g.reads_as_pointer("the visa ending in 1234")
    assert g.reads_as_vague("a reasonable price") and not g.reads_as_vague("under $250")
    assert g.negator("no checked bags") == "no" and g.negator("nothing else") == ""


def _points(*values: str) -> list[EntryPoint]:
    return [EntryPoint(f"g{i}", v, grammar_module.GROUP) for i, v in enumerate(values)]


def test_no_grammar_installed_is_a_configuration_error(fresh):
    fresh.setattr(grammar_module, "entry_points", lambda group: [])
    with pytest.raises(ConfigError, match="no rule grammar is installed"):
        grammar_module.grammar()


def test_two_grammars_installed_is_a_configuration_error(fresh):
    fresh.setattr(grammar_module, "entry_points", lambda group: _points("a:B", "c:D"))
    with pytest.raises(ConfigError, match="more than one rule grammar"):
        grammar_module.grammar()


def test_a_grammar_that_cannot_be_loaded_is_named(fresh):
    fresh.setattr(grammar_module, "entry_points", lambda group: _points("miscue.no_such_room:GRAMMAR"))
    with pytest.raises(ConfigError, match="miscue.no_such_room:GRAMMAR"):
        grammar_module.grammar()
