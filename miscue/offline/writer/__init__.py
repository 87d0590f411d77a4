"""The embedded offline writer (DESIGN section 8): a deterministic baseline, not a model.

``write(brief)`` realises the fault card's operation from the brief alone (:mod:`.single`, one
fault type per message); ``write_composite(briefs)`` realises several in one message and
``write_transform(text, briefs)`` is the second, transformation-only pass (:mod:`.composite`).
``write_plain(brief)`` states the request and every requirement accurately. The sentence frames
they share are in :mod:`.frames`.

Every sentence frame is host-agnostic: the host's domain enters only through the brief's own
words. The texts are honest baselines for running and testing the pipeline, not corpora.
"""

from __future__ import annotations

from miscue.offline.writer.composite import slips, write_composite, write_transform
from miscue.offline.writer.single import OPERATIONS, write, write_plain

__all__ = ["OPERATIONS", "slips", "write", "write_composite", "write_plain", "write_transform"]
