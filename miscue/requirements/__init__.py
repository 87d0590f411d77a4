"""A task's requirements (issue 16): the settled intent -- every condition lifted from its golden
actions that is necessary by execution or stated in the task's own instructions
(:mod:`~miscue.requirements.settle`; the instructions are read by the rule grammar,
:mod:`miscue.grammar`)."""

from miscue.requirements.settle import Settled, settle

__all__ = ["Settled", "settle"]
