"""A task's requirements (issue 16): what its own instructions say about each condition lifted from
its golden actions (:mod:`~miscue.requirements.cues`), and the settled intent — every requirement
necessary by execution or stated in the instructions (:mod:`~miscue.requirements.settle`)."""

from miscue.requirements.cues import Cue, InstructionReading, read_instructions
from miscue.requirements.settle import Settled, settle

__all__ = ["Cue", "InstructionReading", "Settled", "read_instructions", "settle"]
