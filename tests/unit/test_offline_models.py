"""The embedded offline models (miscue.offline): the writer realises every card's operation, and
both extractors, called through litellm on the rendered reading form, read what the text says.

The briefs (tests/support/briefs.py) are hand-built in two domains (a retail exchange, an airline
flight change). The mechanical rules checked on the writer's texts are written here,
independently of the writer and of the extractors.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from miscue.briefs import ExtractionInput, Materials, WriterBrief
from miscue.llm.env import load_litellm
from miscue.offline import extractors, provider, writer
from miscue.offline.extractors.lexicon import masked
from miscue.taxonomy import FAULT_TYPES, ExtractionClass
from miscue.reading import Departure, departures, single_class
from miscue.writing import render_read, render_writer
from support.briefs import DOMAINS, extraction_input, make_brief, reading_form

litellm = load_litellm()  # with its offline environment set before the import

ATTEMPTS = range(4)

# The airline fixture's syntactic plan ("the other cabin") is no attachment site the writer can build
# on (no part, no negated requirement, no item the customer has now): the planner skips such cells
# (plan:skipped, no_attachment_site), so the writer is not asked to realise it.
NOT_PLANNED = {("airline", "syntactic_ambiguity")}
CASES = [(d, ft, a) for d in DOMAINS for ft in FAULT_TYPES for a in ATTEMPTS if (d, ft) not in NOT_PLANNED]
CASE_IDS = [f"{d}-{ft}-{a}" for d, ft, a in CASES]

# ---------------------------------------------------------------------------------------------
# The mechanical rules (written here, not borrowed from the writer or the extractors)
# ---------------------------------------------------------------------------------------------

REQUEST_PHRASES = ("i want", "i need", "i would like", "i'd like", "please", "can you", "could you",
                   "would you", "looking for", "help me")
META = re.compile(r"\b(?:flaw|fault|fault card|brief|instruction|instructions|as an ai|language model|"
                  r"placeholder|slot|variation|requirement)s?\b", re.IGNORECASE)
PREMISE_MARKER = re.compile(r"\b(?:since|given that|now that|because|seeing that|i know|apparently|it looks like|i saw that)\b")


def has(text: str, needle: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(needle.lower())}(?!\w)", text.lower()) is not None


def count(text: str, needle: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(needle.lower())}(?!\w)", text.lower()))


def words(text: str) -> int:
    return len(text.split())


def stated(text: str, r) -> bool:
    """The requirement's true value is said, in its spoken form or one of the ways customers say it."""
    return any(has(text, f) for f in (r.spoken, *r.says, *(p.say for p in r.parts)) if f)


def clauses(text: str) -> list[str]:
    return [c.strip().lower() for c in re.split(r"[,;.!?()]", text) if c.strip()]


def violations(brief: WriterBrief, text: str) -> list[str]:
    """Every mechanical rule the text breaks (an empty list: the text passes)."""
    out: list[str] = []
    ft, t, m = brief.fault_type, brief.requirement(brief.target), brief.materials
    if not text.strip():
        return ["empty"]
    limit = 220 if ft == "contextual_irrelevance" else 130
    if words(text) > limit:
        out.append(f"too long: {words(text)} words")
    for r in brief.requirements:
        if has(text, r.slot):
            out.append(f"slot id leaked: {r.slot}")
        if (t is None or r.slot != t.slot) and not stated(text, r):
            out.append(f"value missing: {r.spoken}")
    own = set(brief.identity.facts.values()) if brief.identity else set()  # a host's user id is said as it is
    if any(w not in own for w in re.findall(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", text)):
        out.append("snake_case")
    if META.search(text):
        out.append(f"meta-commentary: {META.search(text).group(0)}")
    if re.search(r"[{}<>]|\bNone\b|=", text):
        out.append("template or markup residue")

    if ft == "factual_error":
        if has(text, t.spoken):
            out.append("true value present")
        if not has(text, m.wrong_value):
            out.append("wrong value absent")
    elif ft == "insufficient_information":
        if has(text, t.spoken) or has(text, t.phrase):
            out.append("omitted requirement present")
    elif ft in ("referential_ambiguity", "vagueness_subjectivity", "lexical_ambiguity"):
        material = {"referential_ambiguity": m.pointer, "vagueness_subjectivity": m.vague_word,
                    "lexical_ambiguity": m.ambiguous_word}[ft]
        if has(text, t.spoken):
            out.append("true value present")
        if not has(text, material):
            out.append(f"material absent: {material}")
    elif ft == "false_presupposition":
        premises = [c for c in clauses(text) if PREMISE_MARKER.search(c) and has(c, t.spoken)]
        if not premises:
            out.append("no premise clause naming the true value")
        if not any(has(c, m.fallback) and not PREMISE_MARKER.search(c) for c in clauses(text)):
            out.append("fallback not asked for")
    elif ft == "syntactic_ambiguity":
        if count(text, t.spoken) != 1:
            out.append(f"value stated {count(text, t.spoken)} times")
        holders = [c for c in clauses(text) if has(c, t.spoken)]
        if not holders or not has(holders[0], m.companion):
            out.append("value not beside the companion")
        elif not re.search(r"\b(?:and|with)\b", holders[0]):
            out.append("target and companion not coordinated")
        bound = rf"(?:and\s+)?{re.escape(t.phrase.lower())}\s+(?:is|should be|would be|:)\s+{re.escape(t.spoken.lower())}"
        if any(re.fullmatch(bound, c) for c in clauses(text)):
            out.append("value bound to the target alone")
    elif ft == "irrelevant_information":
        if not has(text, m.extra):
            out.append("extra absent")
    elif ft == "tool_capability_mismatch":
        if not has(text, m.mismatch):
            out.append("mismatch absent")
        if has(text, brief.request):
            out.append("true request stated")
    elif ft == "contextual_irrelevance":
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
        k = next((i for i, s in enumerate(sentences) if any(stated(s, r) for r in brief.requirements)), len(sentences))
        passage, rest = " ".join(sentences[:k]), " ".join(sentences[k:])
        if words(passage) < 25 or words(passage) < words(rest):
            out.append(f"off-topic passage too short: {words(passage)} vs {words(rest)}")
        if any(has(passage, r.phrase) for r in brief.requirements):
            out.append("off-topic passage mentions a requirement")
        if not all(stated(rest, r) for r in brief.requirements):
            out.append("request not stated after the passage")
    elif ft == "indirect_intent":
        low = text.lower()
        used = [p for p in REQUEST_PHRASES if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", low)]
        if used or "?" in text:
            out.append(f"request language: {used or '?'}")
    return out


# ---------------------------------------------------------------------------------------------
# Calling the models through litellm (the real code path)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def offline_provider():
    provider.register()
    yield


def complete(model: str, messages: list[dict]) -> str:
    response = litellm.completion(model=model, messages=messages, temperature=0.0, max_retries=0)
    return response.choices[0].message.content or ""


def written(brief: WriterBrief) -> str:
    messages, _ = render_writer(brief)
    return complete("offline/writer", messages)


def extract(model: str, inp: ExtractionInput, form) -> tuple[str, str | None]:
    """The class and target code derives from ``model``'s reading of ``inp`` ("none": a plain request)."""
    reading = form.parse(json.loads(complete(model, render_read(inp, form)[0])))
    return derived(reading, form)


def derived(reading, form) -> tuple[str, str | None]:
    """The class and target code derives from a reading ("none": plain; "two_faults": more than one departure)."""
    d = single_class(reading, form)
    if d is None:
        return "none", None
    if not isinstance(d, Departure):
        return "two_faults", None
    return d.cls.value, d.target


def norm(text: str | None) -> str:
    return re.sub(r"\s+", " ", (text or "").lower()).strip(" .,;")


def expected_requirement(brief: WriterBrief) -> str | None:
    return brief.target if FAULT_TYPES[brief.fault_type].extraction.value in (
        "substituted", "presupposed", "withheld", "marked", "ambiguous") else None


# ---------------------------------------------------------------------------------------------
# The writer
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("domain,fault_type,attempt", CASES, ids=CASE_IDS)
def test_writer_text_obeys_the_mechanical_rules(domain, fault_type, attempt):
    brief = make_brief(domain, fault_type, attempt)
    text = written(brief)
    assert text == writer.write(brief)  # the provider serves exactly the writer's text
    assert violations(brief, text) == [], text


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_plain_text_states_everything(domain, attempt):
    brief = make_brief(domain, "factual_error", attempt)
    text = writer.write_plain(brief)
    plain = brief.model_copy(update={"fault_type": "none", "target": None})
    assert violations(plain, text) == []
    assert all(stated(text, r) for r in brief.requirements)
    assert writer.write(plain) == writer.write_plain(plain)


def test_the_rules_catch_broken_texts():
    """The checker is not vacuous: the plain text breaks each fault type's own rule."""
    for domain in DOMAINS:
        for ft in FAULT_TYPES:
            if (domain, ft) in NOT_PLANNED:
                continue
            brief = make_brief(domain, ft)
            assert violations(brief, writer.write_plain(brief)), (domain, ft)
    brief = make_brief("retail", "factual_error")
    assert "slot id leaked: order_id" in violations(brief, writer.write(brief) + " order_id")
    assert any(v.startswith("too long") for v in violations(brief, writer.write(brief) + " word" * 100))


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("fault_type", list(FAULT_TYPES))
def test_writer_is_deterministic_and_varies_with_the_attempt(domain, fault_type):
    texts = [writer.write(make_brief(domain, fault_type, a)) for a in ATTEMPTS]
    assert texts == [writer.write(make_brief(domain, fault_type, a)) for a in ATTEMPTS]
    assert len(set(texts)) == len(texts)


def test_writer_rejects_an_unknown_fault_type():
    brief = make_brief("retail", "factual_error").model_copy(update={"fault_type": "typo"})
    with pytest.raises(ValueError, match="typo"):
        writer.write(brief)


# ---------------------------------------------------------------------------------------------
# The extractors
# ---------------------------------------------------------------------------------------------


# Hand-written texts (not from the offline writer): the extractors are not tuned to its frames only.
HAND_WRITTEN = [
    ("none", None, "Hi! I want to exchange an item from a delivered order: the order is #W2378156, the item "
     "to exchange is the mechanical keyboard, and the new switch type is clicky. The new keyboard size is "
     "full size and the payment method is my credit card ending in 7447. Thanks!"),
    ("substituted", "new_switch_type", "Can you exchange an item from a delivered order? Order #W2378156, the "
     "mechanical keyboard, full size, my credit card ending in 7447, and the new switch type should be linear."),
    ("withheld", "payment_method_id", "Please exchange an item from a delivered order: the order is #W2378156 "
     "and the item to exchange is the mechanical keyboard; the new switch type is clicky and the new keyboard "
     "size is full size."),
    ("marked", "new_switch_type", "I'd like to exchange an item from a delivered order. The order is #W2378156, "
     "the item to exchange is the mechanical keyboard, the new switch type is whatever I picked last time, the "
     "new keyboard size is full size and the payment method is my credit card ending in 7447."),
    ("marked", "new_size", "I'd like to exchange an item from a delivered order. The order is #W2378156, the "
     "item to exchange is the mechanical keyboard, the new switch type is clicky, the new keyboard size should "
     "be fairly big, and the payment method is my credit card ending in 7447."),
    ("presupposed", "payment_method_id", "I'd like to exchange an item from a delivered order. The order is "
     "#W2378156, the item to exchange is the mechanical keyboard, the new switch type is clicky and the new "
     "keyboard size is full size. Since my credit card ending in 7447 has expired, I'll just use my gift card."),
    ("oblique", None, "So the order is #W2378156 and the mechanical keyboard in it is the item to exchange. The "
     "new switch type is clicky, the new keyboard size is full size, and the payment method is my credit card "
     "ending in 7447. My friend says you exchange an item from a delivered order all the time."),
    ("mismatch", None, "Could you cancel order #W2378156 and reorder the mechanical keyboard? The new switch type "
     "is clicky, the new keyboard size is full size, the item to exchange is the mechanical keyboard and the "
     "payment method is my credit card ending in 7447."),
    # a wish said with "also" is a request; a word that orders the telling ("starting with") adds no detail
    ("none", None, "The order is #W2378156 and it's the mechanical keyboard, full size with clicky switches. I'd also "
     "like the difference to go on my credit card ending in 7447."),
    ("none", None, "Hi, I'd like to exchange two things, starting with the mechanical keyboard from order #W2378156: "
     "full size, clicky switches, on my credit card ending in 7447."),
    # "I also need to ..." is one more thing asked for, not a detail added to a wish ("it also needs to be ...")
    ("none", None, "Please exchange the mechanical keyboard from order #W2378156 for a full size one with clicky switches. "
     "I also need the difference charged to my credit card ending in 7447."),
    # a need someone else reports is no ask; a verb of state ("stays") makes a clause a statement, not a shorthand list
    ("oblique", None, "The mechanical keyboard from order #W2378156 is done for. Apparently I need a full size one with "
     "clicky switches, and the difference would go on my credit card ending in 7447."),
    ("none", None, "Apparently clicky switches are the best, so please exchange the mechanical keyboard from order "
     "#W2378156 for a full size clicky one, with the difference on my credit card ending in 7447."),
    ("oblique", None, "The mechanical keyboard from order #W2378156 is the one going back. Clicky switches as always, and "
     "the size stays full size; the difference goes on my credit card ending in 7447."),
    # a thing said twice, the second time in the ask, is named where it is asked for: not all chatter
    ("none", None, "Order #W2378156, full size, clicky switches, credit card ending in 7447. The mechanical keyboard in it "
     "arrived with a cracked case and a space bar that sticks on every press. Please exchange the mechanical keyboard "
     "for me as soon as you can."),
    ("extras", None, "I'd like to exchange an item from a delivered order. The order is #W2378156, the item to "
     "exchange is the mechanical keyboard, the new switch type is clicky, the new keyboard size is full size and "
     "the payment method is my credit card ending in 7447. Also, it should ship by express courier."),
]


@pytest.mark.parametrize("name", ["lexical", "parse"])
@pytest.mark.parametrize("flaw,requirement,text", HAND_WRITTEN, ids=[f"{f}-{i}" for i, (f, _, _) in
                                                                    enumerate(HAND_WRITTEN)])
def test_extractor_on_hand_written_text(name, flaw, requirement, text):
    brief = make_brief("retail", "factual_error")
    form = reading_form(brief)
    assert derived(extractors.EXTRACTORS[name].read(extraction_input(brief, text), form), form) == (flaw, requirement)


def test_a_requirement_value_is_blanked_as_whole_words_only():
    """Extractor A blanks the requirements' own words before looking for another operation: a
    value ("noise cancelling") names no operation, and a short one (size "M") blanks no letter of
    the words around it ("modify")."""
    low = "please modify the order: earbuds with noise cancelling, size m"
    out = masked(low, ["M", "noise cancelling"])
    assert "modify" in out and "cancel" not in out and len(out) == len(low)


def test_extractors_read_only_the_extraction_input():
    """The same text under two different plans gives the same answers: nothing of the plan
    reaches an extractor (the form carries only context, request, requirements and text)."""
    a = make_brief("retail", "factual_error", 2)
    b = make_brief("retail", "insufficient_information", 2).model_copy(
        update={"target": "order_id", "materials": Materials(wrong_value="#W0000000")})
    text = writer.write(a)
    for model in ("offline/lexical", "offline/parse"):
        assert extract(model, extraction_input(a, text), reading_form(a)) == \
            extract(model, extraction_input(b, text), reading_form(b))


def writer_phrases() -> list[str]:
    """Every string the writer's modules hold in their module-level tuples and dicts (its sentence plans)."""
    import importlib
    import pkgutil

    out: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, (tuple, list, set, frozenset)):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for info in pkgutil.iter_modules(writer.__path__):
        module = importlib.import_module(f"{writer.__name__}.{info.name}")
        for name, value in vars(module).items():
            if name.isupper() or name.startswith("_") and name[1:].isupper():
                walk(value)
    return out


def test_lexical_extractor_does_not_borrow_the_writer_templates():
    package = Path(extractors.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(package.glob("*.py")))
    assert "offline.writer" not in source and "import writer" not in source
    frames = writer_phrases()
    assert len(frames) > 100  # the writer's sentence plans were found
    pieces = {p.strip(" ,.?:").lower() for f in frames for p in re.split(r"\{[^}]*\}", f)}
    borrowed = sorted(p for p in pieces if len(p) >= 12 and p in source.lower())
    assert borrowed == []


# ---------------------------------------------------------------------------------------------
# The provider
# ---------------------------------------------------------------------------------------------


def test_register_is_idempotent_and_costs_nothing():
    first = provider.register()
    second = provider.register()
    assert first is second
    assert [e["provider"] for e in litellm.custom_provider_map].count("offline") == 1
    brief = make_brief("airline", "factual_error")
    messages, _ = render_writer(brief)
    response = litellm.completion(model="offline/writer", messages=messages)
    text = response.choices[0].message.content
    prompt_tokens = sum(len(m["content"].split()) for m in messages)
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (prompt_tokens, len(text.split()))
    assert response._hidden_params.get("response_cost") == 0.0
    assert litellm.model_cost["offline/parse"]["input_cost_per_token"] == 0.0


def test_async_completion_and_call_parameters_are_ignored():
    brief = make_brief("retail", "referential_ambiguity", 3)
    inp = extraction_input(brief, writer.write(brief))
    form = reading_form(brief)
    messages, _ = render_read(inp, form)

    async def run():
        return await litellm.acompletion(model="offline/parse", messages=messages, temperature=0.9,
                                         seed=7, max_retries=0, timeout=5, my_flag="x")

    response = asyncio.run(run())
    reading = form.parse(json.loads(response.choices[0].message.content))
    assert derived(reading, form) == ("marked", "old_item")


@pytest.mark.parametrize("model", ["offline/writer", "offline/lexical", "offline/parse"])
@pytest.mark.parametrize("content", [
    "no tags at all",
    "<brief>{not json</brief>",
    "<input>{\"context\": 1}</input>",
    "<brief>{\"benchmark\": \"x\"}</brief>",
    "<input>{\"context\": \"c\", \"request\": \"r\", \"requirements\": [], \"text\": \"t\"}</input>",
    "",
])
def test_malformed_prompts_get_an_empty_reply(model, content):
    response = litellm.completion(model=model, messages=[{"role": "user", "content": content}])
    assert response.choices[0].message.content == ""


def test_writer_with_an_unknown_fault_type_gets_an_empty_reply():
    brief = make_brief("retail", "factual_error").model_copy(update={"fault_type": "typo"})
    content = f"<brief>{brief.model_dump_json()}</brief>"
    assert complete("offline/writer", [{"role": "user", "content": content}]) == ""


def test_unknown_offline_model_is_a_bad_request():
    with pytest.raises(litellm.BadRequestError, match="unknown offline model"):
        litellm.completion(model="offline/nope", messages=[{"role": "user", "content": "hi"}])


def test_the_last_user_message_is_read():
    brief = make_brief("retail", "factual_error")
    old = make_brief("airline", "factual_error")
    messages = [{"role": "user", "content": f"<brief>{old.model_dump_json()}</brief>"},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": [{"type": "text", "text": f"<brief>{brief.model_dump_json()}</brief>"}]}]
    assert complete("offline/writer", messages) == writer.write(brief)


def test_the_gateway_runs_on_the_offline_models(tmp_path):
    """The pipeline's own gateway (store, retries, usage) driving the three offline roles."""
    from miscue.llm import Gateway, LLMConfig, RoleConfig

    config = LLMConfig(writer=RoleConfig(model="offline/writer", params={"temperature": 0.7}),
                       extractor_a=RoleConfig(model="offline/lexical", params={"temperature": 0.0}),
                       extractor_b=RoleConfig(model="offline/parse", params={"temperature": 0.0}))
    gateway = Gateway(config, tmp_path)
    brief = make_brief("retail", "syntactic_ambiguity", 1)
    messages, card_version = render_writer(brief)
    wrote = gateway.complete_sync("writer", messages, card_version)
    assert wrote.text == writer.write(brief) and wrote.cost == 0.0 and not wrote.cached
    inp = extraction_input(brief, wrote.text)
    for role in ("extractor_a", "extractor_b"):
        form = reading_form(brief)
        read_messages, form_version = render_read(inp, form)
        reading = form.parse(json.loads(gateway.complete_sync(role, read_messages, form_version, form.schema()).text))
        assert Departure(ExtractionClass.ambiguous, "new_switch_type") in departures(reading, form)
    again = gateway.complete_sync("writer", messages, card_version)
    assert again.cached and again.text == wrote.text
    usage = gateway.usage_summary()
    assert usage["writer"].calls == 1 and usage["writer"].cache_hits == 1
    assert usage["writer"].completion_tokens == len(wrote.text.split())


def test_the_fuzzy_grounder_hears_a_value_said_across_a_comma():
    """Two addresses share "123 Elm Street"; the text says the suite after a comma. Extractor B
    matches a form inside one clause, so the street alone would be either address; a form of
    three words or more may span the comma into the next clause, and the longer form wins."""
    from miscue.language import Domains, LegalValue, SlotDomain
    from miscue.offline.extractors.parse import FuzzyGrounder

    def address(suite: str) -> LegalValue:
        return LegalValue(f"123 Elm Street, Suite {suite}", (f"123 Elm Street, Suite {suite}", "123 Elm Street"))

    domains = Domains({"address": SlotDomain("address", "123 Elm Street, Suite 641", (address("641"), address("640")),
                                             ("address", "deliver"))})
    said = FuzzyGrounder(domains).ground("Please deliver it to 123 Elm Street, Suite 641, Austin, TX 78712 instead.")
    assert [m.values for m in said.mentions if m.slots == ("address",)] == [('"123 Elm Street, Suite 641"',)]
    unsure = FuzzyGrounder(domains).ground("Please deliver it to 123 Elm Street instead.")
    assert [len(m.values) for m in unsure.mentions if m.slots == ("address",)] == [2]



# Hand-written texts about real host tasks, each read with the extraction form the pipeline sends
# for the task: (benchmark, task, flaw, requirement, text), each with why it is what it is.
HOST_WRITTEN = [
    # Airline task 27 sends Ethan Martin a travel certificate for a delayed flight: customers call it a voucher, so "a
    # fair voucher, whatever is reasonable" leaves its amount to a subjective word (marked), not unsaid (withheld).
    ("tau2-airline", "27", "marked", "certificate.amount",
     "ethan_martin_2396. HAT039 from Atlanta to Seattle was delayed for hours. I'd like a fair voucher, whatever's fine."),
    # Retail task 48 returns Daiki Johnson's air purifier: a customer who only says they would rather have the money
    # back than keep it asks for the return without stating it (oblique); the long clause that says so is the request,
    # not an off-topic passage.
    ("tau2-retail", "48", "oblique", None,
     "Daiki Johnson, 80273. The air purifier from order #W9502127 has been such a disappointment; it barely "
     "clears the smell in our flat, and honestly I would rather get my money back on PayPal than keep it "
     "gathering dust by the window for another month."),
    # Retail task 34 moves Noah Patel's pending order to a new address: a long sentence whose only words about the
    # request point at the address ("my usual address") is the request with a marked value, not an off-topic passage.
    ("tau2-retail", "34", "marked", "modify_address.address",
     "Noah Patel, 10108. The pending order I placed last week is apparently on its way to the wrong place "
     "entirely, so could you please have its shipping address changed to my usual address before it leaves?"),
    # Airline task 38 sends Noah Muller a certificate for a delay: a text whose only word about the amount is a vague
    # one ("a modest travel certificate") leaves it to a subjective word (marked); the sentence saying so is the
    # request, not an off-topic passage.
    ("tau2-airline", "38", "marked", "certificate.amount",
     "noah_muller_9847. My last flight sat on the tarmac for hours, which was a real mess for me, so I'm only "
     "asking for a modest certificate to make up for it as a goodwill gesture."),
    # Airline task 37 upgrades Aarav Ahmed's M20IZO to business: a premise that names the reservation and the cabin,
    # followed by another cabin settled for, is about the cabin.
    ("tau2-airline", "37", "presupposed", "change_flights.cabin",
     "aarav_ahmed_6699. Please cancel NQNU5R. On M20IZO I wanted business, but I hear upgrades aren't allowed "
     "there, so leave it in economy on the same flights, any difference on my Mastercard ending 7334."),
    # Retail task 34 moves Noah Patel's pending order to 224 Elm Street, Suite 491: the city, state and ZIP code a
    # customer writes after the street are part of the address said.
    ("tau2-retail", "34", "none", None,
     "Noah Patel, zip 10108. Please change the shipping address of my pending order to 224 Elm Street, Suite 491, "
     "New York, NY 10108, USA."),
    # Retail task 18 exchanges Mei Davis's office chair for a blue high-back one: the complaint before "so I want to
    # exchange it" is why she asks, not a detail she adds; the colour is unsaid.
    ("tau2-retail", "18", "withheld", "exchange.item1.color",
     "Mei Davis, 80217. My office chair came with a cracked base, so I want to exchange it for a high-back one."),
    # Retail task 16 returns Fatima Johnson's smart watch: "wherever the money went before" points at a payment.
    ("tau2-retail", "16", "marked", "return.payment",
     "Fatima Johnson, zip 78712. Cancel both my pending orders, I do not need them anymore. I am also returning the "
     "smart watch; refund it wherever the money went before."),
    # Airline task 25 books Ivan Smith with Ivan Muller's gift card first: he has a gift card and a travel
    # certificate, and customers call either a voucher.
    ("tau2-airline", "25", "ambiguous", "book.payment",
     "ivan_muller_7015. Book my friend Ivan Smith from my saved passengers on HAT097 and HAT251, DTW to Seattle, "
     "May 17, one way, economy, no bags, no insurance. Voucher first, the rest on my Mastercard ending 6710."),
    # WebShop task 24 wants the 10 fl oz kosher ghost pepper sauce; task 2 a white office chair: what a shop "no
    # longer makes" or "retired" is a premise, and "grab me" asks.
    ("webshop", "24", "presupposed", "option:size",
     "ghost pepper hot sauce, kosher, under $40. I heard they no longer make the 10 oz bottle, so a 5 oz will do."),
    ("webshop", "2", "presupposed", "option:color",
     "White was retired from the range, so grab me a grey mesh back office chair with 360 swivel and a footrest, "
     "under $280."),
    # Retail task 6 exchanges Mei Kovacs's desk lamp for a low-brightness battery one: "runs on batteries" says it.
    ("tau2-retail", "6", "none", None,
     "mei_kovacs_8020, zip 28236. Please exchange the desk lamp I got for the low brightness one that runs on batteries."),
    # Retail task 21 changes Ethan Garcia's keyboard to an 80% one: a "compact" keyboard is 80% or 60%.
    ("tau2-retail", "21", "ambiguous", "modify_items.item2.size",
     "Ethan Garcia, zip 80280 - pending order: running shoes to synthetic material; mechanical keyboard to compact, "
     "linear switches, no backlight. Put any extra cost on my gift card."),
    # WebShop task 36 wants a tagless v-neck tee, task 14 a chair with easy assembly: "no itchy tag" and "easy to put
    # together" say those attributes, they add nothing.
    ("webshop", "36", "none", None, "v-neck tee with a chest pocket and no itchy tag, xx-large, under $20 please"),
    ("webshop", "14", "none", None, "office chair with lumbar support that swivels 360, easy to put together, no footrest, "
     "under $270"),
    # WebShop task 217 wants wireless earbuds under $130: "I spend a lot of time on trains" is part of an off-topic
    # story, though "a lot of" is a vague word a price can take: the price is said ("under $130"), and only the vague
    # word a requirement is left to speaks of it.
    ("webshop", "217", "noise", None,
     "I started a new job two weeks ago and my head is still spinning. The office is on the other side of the "
     "city, so I spend a lot of time on trains now. Anyway. Can you find me wireless earbuds with ear hooks and "
     "touch control, in black, under $130?"),
]


#: the texts an offline reader reads with a second, harmless departure besides the planned one (the
#: reading is two faults: ``read:two_faults``, the offline readers' largest miss, see the README)
TWO_DEPARTURES = {("tau2-airline", "27", "lexical"), ("tau2-airline", "37", "lexical"), ("tau2-airline", "37", "parse"),
                  ("tau2-retail", "16", "parse")}


def _host_cases() -> list:
    return [pytest.param(name, *case, id=f"{case[0]}-{case[1]}-{case[2]}-{name}",
                         marks=[pytest.mark.xfail(strict=True, reason="read as two departures")]
                         if (case[0], case[1], name) in TWO_DEPARTURES else [])
            for case in HOST_WRITTEN for name in ("lexical", "parse")]


@pytest.mark.parametrize("name,benchmark,task,flaw,requirement,text", _host_cases())
def test_extractor_on_hand_written_text_about_a_host_task(name, benchmark, task, flaw, requirement, text):
    from miscue.flows.registry import adapter_for
    from miscue.briefs import ExtractionInput
    from miscue.planning import Planner

    host = adapter_for(benchmark)
    intent = host.validate(next(s for s in host.load_seeds() if s.task_id == task)).intent
    inp = ExtractionInput(context=host.context_line(intent), request=host.request_phrase(intent),
                          requirements=Planner(host).requirements(intent, options=True), text=text)
    form = Planner(host).reading_form(intent)
    found, target = derived(extractors.EXTRACTORS[name].read(inp, form), form)
    assert found == flaw and (requirement is None or target == requirement)
