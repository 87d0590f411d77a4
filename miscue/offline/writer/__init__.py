"""The embedded offline writer (DESIGN section 8): a deterministic baseline that writes like a
customer, not a model.

``write(brief)`` realises the fault card's operation from the brief alone (:mod:`.single`, one
fault type per message); ``write_composite(briefs)`` realises several in one message and
``write_transform(text, briefs)`` is the second, transformation-only pass (:mod:`.composite`).
``write_plain(brief)`` states the request and every requirement accurately.

A message is said the way the host's customers say it (:mod:`.message`): who they are
(:mod:`.identity`), each act by a sentence plan of its kind (:mod:`.orders`, :mod:`.trips`,
:mod:`.shop`), each value in one of the ways customers say it (:mod:`.says`, in the English of
:mod:`.phrases`). Every choice is seeded by the brief and its attempt (:mod:`.voice`), so a
rebuild writes the same bytes.
"""

from __future__ import annotations

from miscue.offline.writer.composite import slips, write_composite, write_transform
from miscue.offline.writer.single import OPERATIONS, write, write_plain

__all__ = ["OPERATIONS", "slips", "write", "write_composite", "write_plain", "write_transform"]
