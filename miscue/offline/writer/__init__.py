"""The embedded offline writer (DESIGN section 8); the code is in :mod:`.frames` for now."""

from miscue.offline.writer.frames import (  # noqa: F401 - private names the tests read, until the split
    _ATTACHMENTS,
    _CLAUSES,
    _INDIRECT,
    _OFF_TOPIC_CLOSERS,
    _OFF_TOPIC_FILLERS,
    _OFF_TOPIC_OPENINGS,
    _OPENERS,
    _PREMISES,
    OPERATIONS,
    _slips,
    write,
    write_composite,
    write_plain,
    write_transform,
)

__all__ = ["OPERATIONS", "write", "write_composite", "write_plain", "write_transform"]
