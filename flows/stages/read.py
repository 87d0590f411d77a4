"""One extractor reads one text (DESIGN section 6, steps 3 and 4): the reading form rendered for
the task, one call with the task's reply schema, the reply parsed tolerantly and validated against
the form's enums, then checked against the text by code (:func:`miscue.reading.check`).

The result is a reading and the verdicts it earned (``read:*`` codes; none: it holds). Deriving
the class, agreement between the two extractors and admission build on it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Awaitable, Callable

from miscue import writing
from miscue.briefs import ExtractionInput
from miscue.host import Adapter
from miscue.llm import parse_json_reply
from miscue.reading import Reading, ReadingError, ReadingForm, check, find_quote, settle_statuses
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.verifiers.admission import without_met_limits

Call = Callable[..., Awaitable[Any]]


@dataclass
class Read:
    """What one extractor's reading came to."""

    reading: Reading | None
    verdicts: list[Verdict] = field(default_factory=list)
    fuzzy_quotes: int = 0  # quotes found only by the fuzzy fallback

    @property
    def holds(self) -> bool:
        return self.reading is not None and not self.verdicts

    def failure(self, who: str) -> Verdict | None:
        """Why this reading cannot be judged (None: it holds). A reply that is no reading always
        carries its verdict; one without is never let through either (``read:malformed``)."""
        if self.holds:
            return None
        return self.verdicts[0] if self.verdicts else Verdict(stage="extract", code="read:malformed",
                                                              detail=f"extractor {who} gave no reading")


async def read(call: Call, role: str, inp: ExtractionInput, form: ReadingForm, call_ids: list[str]) -> Read:
    """``role``'s reading of ``inp.text`` (``call``: a :class:`~miscue.flows.stages.attempt.Caller`)."""
    messages, version = writing.render_read(inp, form)
    ex = await call(role, messages, version, call_ids, schema=form.schema())
    data = parse_json_reply(ex.text)
    if data is None:
        return Read(None, [Verdict(stage="extract", code="read:malformed", detail=f"not a JSON object: {ex.text[:200]!r}")])
    try:
        reading = form.parse(data)
    except ReadingError as exc:
        return Read(None, [exc.verdict])
    quotes = [r.quote for r in reading.requirements.values() if r.quote] + [e.quote for e in reading.extras]
    fuzzy = sum(1 for q in quotes if (m := find_quote(q, inp.text)).found and m.fuzzy)
    return Read(reading, check(reading, form, inp.text), fuzzy)


def settle(adapter: Adapter, root: Intent, truth: GroundTruth, form: ReadingForm, found: Read) -> Read:
    """The reading with a doubted true value read as no value settled for
    (:func:`miscue.reading.settle_statuses`) and the extras execution shows the truth already meets
    taken out (:func:`miscue.verifiers.admission.without_met_limits`): code checks what the reader
    reports."""
    if found.reading is None:
        return found
    reading = settle_statuses(found.reading, form)
    if reading.extras:
        reading = without_met_limits(adapter, root, truth, form, reading)
    return found if reading is found.reading else replace(found, reading=reading)


class ReadingSteps:
    """What a reading-path plan does with its extractors, single fault or composite: one reading
    form per extractor (:func:`read`), each reading kept on the attempt (``reading_a`` /
    ``reading_b``), and the gate: a reading that holds, matching the plan (:meth:`matches`)."""

    form: ReadingForm | None

    async def extract(self, call: Call, role: str, inp: ExtractionInput, call_ids: list[str]) -> Read:
        assert self.form is not None
        return await read(call, role, inp, self.form, call_ids)

    def settle(self, adapter: Adapter, root: Intent, truth: GroundTruth, found: Read) -> Read:
        assert self.form is not None
        return settle(adapter, root, truth, self.form, found)

    def record_extraction(self, row: Any, who: str, found: Read) -> None:
        setattr(row, f"reading_{who}", found.reading.model_dump_json() if found.reading else None)

    def gate(self, found: Read, who: str) -> Verdict | None:
        if (failed := found.failure(who)) is not None:
            return failed
        assert self.form is not None and found.reading is not None
        return self.matches(found.reading, who)

    def matches(self, reading: Reading, who: str) -> Verdict | None:
        """Does one extractor's reading derive what the plan planned? (A failing: B is not asked.)"""
        raise NotImplementedError
