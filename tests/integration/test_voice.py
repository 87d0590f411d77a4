"""The offline writer on real tau2 briefs (planner over the real retail and airline hosts): no
request reads as a form, the customer says who they are the way the host's users do (unless the
configuration turns it off), and one (cell, attempt) always reads the same."""

from __future__ import annotations

import re

import pytest

from miscue.config import GenerateConfig
from miscue.offline import writer
from miscue.planning import Planner
from miscue.reports.style import FORM_PHRASES, IDENTITY
from miscue.taxonomy import FAULT_TYPES


def _briefs(adapter, build, identity=True, graphs=12):
    planner = Planner(adapter, identity=identity)
    out = []
    for g in build.graphs[:graphs]:
        for cell in planner.cells(g, list(FAULT_TYPES)):
            if cell.status == "planned":
                out.append(planner.attempt(cell, g, 0).brief)
    return out


@pytest.fixture(scope="module")
def tau2_briefs(retail, retail_build, airline, airline_build):
    return _briefs(retail, retail_build) + _briefs(airline, airline_build)


def test_no_request_reads_as_a_form(tau2_briefs):
    assert len(tau2_briefs) > 100
    for brief in tau2_briefs:
        text = writer.write(brief)
        assert not FORM_PHRASES.search(text), text
        assert not any(re.search(rf"(?<!\w){re.escape(r.slot)}(?!\w)", text) for r in brief.requirements), text
        assert not any(r.phrase and r.phrase.lower() in text.lower() for r in brief.requirements
                       if r.phrase.lower().startswith(("the most", "a feature"))), text


def test_the_customer_says_who_they_are(tau2_briefs):
    said = [bool(IDENTITY.search(writer.write(b))) for b in tau2_briefs]
    assert all(b.identity is not None for b in tau2_briefs)
    assert sum(said) / len(said) >= 0.9


def test_identity_can_be_turned_off(retail, retail_build):
    assert GenerateConfig().identity is True
    briefs = _briefs(retail, retail_build, identity=False, graphs=4)
    assert briefs and all(b.identity is None for b in briefs)
    assert not any(IDENTITY.search(writer.write(b)) for b in briefs)


def test_one_cell_and_attempt_always_reads_the_same(tau2_briefs):
    for brief in tau2_briefs[:40]:
        assert writer.write(brief) == writer.write(brief.model_copy(deep=True))
    texts = {writer.write(b.model_copy(update={"attempt": a})) for b in tau2_briefs[:1] for a in range(4)}
    assert len(texts) == 4
