"""Prompt cards and the reading form (miscue.writing, prompts/)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from miscue.briefs import ExtractionInput, Materials, WriterBrief
from miscue.offline import writer
from miscue.taxonomy import FAULT_TYPES
from miscue.writer_view import word_budget
from miscue.errors import MissingResource
from miscue.writing import (
    PROMPTS_DIR,
    PromptSet,
    card_versions,
    render_read,
    render_writer,
)

from support.briefs import DOMAINS, FORM, extraction_input, make_brief, reading_form

# Every way a fault type could be named in a form (ids and their human spellings).
TYPE_NAMES = sorted({n for ft in FAULT_TYPES for n in (ft, ft.replace("_", " "))}
                    | {"vagueness", "subjectivity", "presupposition", "irrelevance", "indirect",
                       "capability", "insufficient", "irrelevant", "lexical", "syntactic", "referential"})
HOST_WORDS = ("retail", "airline", "webshop", "tau2", "flight", "reservation", "keyboard", "cabin",
              "benchmark", "order #", "luggage", "baggage")


def materials_of(brief: WriterBrief) -> list[str]:
    m = brief.materials
    values = [m.wrong_value, m.fallback, m.pointer, m.vague_word, m.ambiguous_word, m.companion,
              m.extra, m.mismatch, m.off_topic, *m.senses]
    truths = {r.spoken.lower() for r in brief.requirements}
    return [v for v in values if v and v.lower() not in truths]


def user(messages: list[dict]) -> str:
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[1]["content"]


# ---------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------


def test_every_fault_type_has_a_card():
    cards = {p.stem for p in (PROMPTS_DIR / "cards").glob("*.j2")}
    assert cards == set(FAULT_TYPES)
    assert (PROMPTS_DIR / "writer.j2").is_file()


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("fault_type", list(FAULT_TYPES))
def test_card_renders_with_the_brief_embedded(domain, fault_type):
    brief = make_brief(domain, fault_type, attempt=2)
    says = {r.slot: FORM[r.slot][0] for r in brief.requirements}
    brief = brief.model_copy(update={"requirements": [r.model_copy(update={"says": says[r.slot]}) for r in brief.requirements]})
    messages, version = render_writer(brief)
    system, text = messages[0]["content"], user(messages)
    assert re.fullmatch(r"[0-9a-f]{16}", version)
    # the generic rules
    for rule in ("first person", f"never more than {word_budget(brief)} words", "meaning exact", "instructions", "slot ids"):
        assert rule in system
    # values are given, and may be said as a customer would: no card demands a verbatim copy
    assert "verbatim" not in system and "verbatim" not in text
    for r in brief.requirements:
        assert f'- {r.phrase}: "{r.spoken}" (also said: "{r.says[0]}"' in text
    # the brief as JSON, readable by any model
    found = re.findall(r"<brief>(.*?)</brief>", text, re.DOTALL)
    assert len(found) == 1 and WriterBrief.model_validate_json(found[0]) == brief
    # the card: definition, an example, the rule, the materials
    for part in ("Definition:", "Example of the flaw alone", "Rule for this flaw:", "How to use the material"):
        assert part in text
    for material in materials_of(brief):
        assert material in text, material
    for r in brief.requirements:
        assert f'"{r.spoken}"' in text and r.phrase in text
    assert brief.request in text and brief.context in text
    assert "Variation 3" in text
    assert "None" not in text.split("<brief>")[0]


def test_card_text_follows_the_plan():
    fe, _ = render_writer(make_brief("retail", "factual_error"))
    assert 'wrong value "tactile"' in user(fe) and "the switch type of the new mechanical keyboard" in user(fe)
    fp, _ = render_writer(make_brief("airline", "false_presupposition"))
    assert 'settle for "economy"' in user(fp) and '"business"' in user(fp)
    lex, _ = render_writer(make_brief("retail", "lexical_ambiguity"))
    assert '"my credit card ending in 7447" (the one you mean) and "my gift card" (the other)' in user(lex)
    ci, _ = render_writer(make_brief("retail", "contextual_irrelevance"))
    assert f"never more than {word_budget(make_brief('retail', 'contextual_irrelevance'))} words" in ci[0]["content"]
    assert "at least 25 words" in user(ci)


@pytest.mark.parametrize("fault_type", list(FAULT_TYPES))
def test_card_renders_without_materials(fault_type):
    brief = make_brief("retail", fault_type).model_copy(update={"materials": Materials(), "target": None})
    messages, _ = render_writer(brief)
    assert "Rule for this flaw:" in user(messages)


def test_cards_speak_no_host():
    for path in sorted((PROMPTS_DIR / "cards").glob("*.j2")) + [PROMPTS_DIR / "writer.j2"]:
        source = path.read_text(encoding="utf-8").lower()
        for word in HOST_WORDS:
            assert word not in source, (path.name, word)


def test_unknown_fault_type_is_refused():
    brief = make_brief("retail", "factual_error").model_copy(update={"fault_type": "typo"})
    with pytest.raises(ValueError, match="unknown fault type 'typo'"):
        render_writer(brief)


# ---------------------------------------------------------------------------------------------
# Versions
# ---------------------------------------------------------------------------------------------


def test_versions_are_stable_and_distinct():
    versions = card_versions()
    assert set(versions) == set(FAULT_TYPES) | {"read"}
    assert all(re.fullmatch(r"[0-9a-f]{16}", v) for v in versions.values())
    assert len(set(versions.values())) == len(versions)
    assert versions == card_versions() == PromptSet(PROMPTS_DIR).versions()
    for ft in FAULT_TYPES:
        assert render_writer(make_brief("retail", ft))[1] == versions[ft]
    brief = make_brief("retail", "factual_error")
    form = reading_form(brief)
    assert render_read(extraction_input(brief, "text"), form)[1] == f"{versions['read']}+{form.schema_hash()}"


def test_editing_a_template_changes_exactly_the_versions_that_use_it(tmp_path):
    root = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, root)
    before = PromptSet(root).versions()
    assert before == card_versions()

    card = root / "cards" / "referential_ambiguity.j2"
    card.write_text(card.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    after_card = PromptSet(root).versions()
    changed = {k for k in before if before[k] != after_card[k]}
    assert changed == {"referential_ambiguity"}
    brief = make_brief("retail", "referential_ambiguity")
    messages, version = PromptSet(root).render_writer(brief)
    assert version == after_card["referential_ambiguity"] and "One more line." in user(messages)

    frame = root / "writer.j2"
    frame.write_text(frame.read_text(encoding="utf-8").replace("plain conversational English",
                                                               "plain, friendly English"), encoding="utf-8")
    after_frame = PromptSet(root).versions()
    changed = {k for k in before if after_card[k] != after_frame[k]}
    assert changed == set(FAULT_TYPES)

    form = root / "read.j2"
    form.write_text(form.read_text(encoding="utf-8") + " ", encoding="utf-8")
    after_form = PromptSet(root).versions()
    assert {k for k in before if after_frame[k] != after_form[k]} == {"read"}


# ---------------------------------------------------------------------------------------------
# The reading form
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("fault_type", list(FAULT_TYPES))
def test_reading_form_never_reveals_the_plan(domain, fault_type):
    brief = make_brief(domain, fault_type, attempt=1)
    form = reading_form(brief)
    # on a neutral text, nothing of the plan may appear anywhere in the form
    neutral = extraction_input(brief, writer.write_plain(brief))
    # on the faulty text, nothing of the plan may appear outside the quoted text
    faulty = extraction_input(brief, writer.write(brief))
    for inp in (neutral, faulty):
        messages, _ = render_read(inp, form)
        whole = "\n".join(m["content"] for m in messages)
        outside = whole.replace(json.dumps(inp.text)[1:-1], "").replace(inp.text, "").lower()
        for name in TYPE_NAMES:
            assert name not in outside, name
        truthless = outside
        for r in inp.requirements:  # the truth and every legal value are shown on purpose, all alike
            for said in sorted({r.spoken, *r.says, *(x for o in r.options for x in (o.say, *o.also))}, key=len, reverse=True):
                truthless = truthless.replace(said.lower(), "")
        examples = (Path(PROMPTS_DIR) / "read.j2").read_text(encoding="utf-8").lower()  # the form's own, every task's
        for material in materials_of(brief):
            assert material.lower() not in truthless or material.lower() in examples, material
        found = re.findall(r"<input>(.*?)</input>", whole, re.DOTALL)
        assert len(found) == 1 and ExtractionInput.model_validate(json.loads(found[0])["input"]) == inp
        for r in brief.requirements:
            assert r.slot in whole and r.phrase in whole and r.spoken in whole
    assert fault_type not in json.dumps(ExtractionInput.model_json_schema())


def test_prompt_set_reports_a_missing_template_as_an_incomplete_installation(tmp_path):
    with pytest.raises(MissingResource, match="writer.j2.*installation is incomplete") as missing:
        PromptSet(tmp_path).versions()
    assert missing.value.exit_code == 70
    shutil.copytree(PROMPTS_DIR, tmp_path / "prompts")
    (tmp_path / "prompts" / "cards" / "vagueness_subjectivity.j2").unlink()
    with pytest.raises(MissingResource, match="vagueness_subjectivity.j2"):
        PromptSet(tmp_path / "prompts").check()
    (tmp_path / "prompts" / "read.j2").unlink()
    brief = make_brief("retail", "factual_error")
    with pytest.raises(MissingResource, match="read.j2.*installation is incomplete"):
        PromptSet(tmp_path / "prompts").render_read(extraction_input(brief, "text"), reading_form(brief))
    PromptSet(PROMPTS_DIR).check()
    assert Path(PROMPTS_DIR).name == "prompts"
