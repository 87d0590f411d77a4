"""The error root of miscue and the few kinds the command line maps to exit codes.

Every error miscue raises on purpose is a :class:`MiscueError`; its ``exit_code`` is what a
``miscue`` command exits with when the error ends it (one mapping, in ``flows/cli``):

- 1 :class:`CorpusError` (and any other MiscueError): a corpus is missing, corrupt or refused;
- 2 :class:`BadInput`: the caller's input is wrong (an unknown name, a malformed file, line or
  field, a configuration that cannot be used); the message names the culprit, nothing is written;
- 3 :class:`RunStopped`: a run stopped cleanly (budget reached, a terminal provider error, a store
  miss under replay); finished work is kept and a rerun resumes;
- 4 :class:`RunLocked`: another run holds the artifacts directory;
- 5 ``PromptsExported`` (:mod:`miscue.llm.errors`, a RunStopped): a ``--prompts-out`` round wrote the
  requests the store cannot answer and published nothing;
- 70 :class:`MissingResource`: a file miscue ships (a prompt card, the WebShop catalogue) is not
  installed -- an internal error of the installation, not of the caller (``EX_SOFTWARE``).

``BadInput`` is also a ``ValueError``, so pydantic validators may raise it and callers that
catch ``ValueError`` keep working.
"""

from __future__ import annotations


class MiscueError(Exception):
    """Root of every error miscue raises on purpose."""

    exit_code = 1


class BadInput(MiscueError, ValueError):
    """The caller's input is wrong; the message names the file, line or field."""

    exit_code = 2


class HostDataError(BadInput):
    """Host data is missing or malformed; the message names the file and the field."""


class UnknownBenchmark(BadInput):
    """A benchmark name no adapter is registered for."""


class UnknownFaultType(BadInput):
    """A fault type id outside the taxonomy."""


class ConfigError(BadInput):
    """A run or model configuration that cannot be used (the message names the field)."""


class CorpusError(MiscueError):
    """A corpus version is missing, corrupt, or an operation on it is refused."""

    exit_code = 1


class RunStopped(MiscueError):
    """A run stopped cleanly before finishing; finished work is kept, a rerun resumes."""

    exit_code = 3


class RunLocked(MiscueError):
    """Another run holds the artifacts directory's lock."""

    exit_code = 4


class MissingResource(MiscueError):
    """A file miscue ships is not installed: the installation is incomplete (nothing the caller typed)."""

    exit_code = 70
