"""An exclusive run lock on an artifacts directory (DESIGN section 13: concurrent runs).

Two runs started at once on the same artifacts directory must never both write to its store,
ledgers or versions. :func:`run_lock` takes ``fcntl.flock(LOCK_EX | LOCK_NB)`` on
``<artifacts>/.lock`` and writes the holder's pid and command line into it; a second run refuses
at once with :class:`RunLocked` naming the holder (or, with ``wait=True``, blocks until it is
free, up to ``timeout_s``). The kernel releases the lock when the holder exits, however it
exits (SIGKILL included), so a stale lock file never blocks a later run.

The lock is re-entrant within one process (a flow that takes it can call ``run_benchmark``,
which takes it too).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from miscue import errors

LOCK_NAME = ".lock"
NAME_PATIENCE_S = 2.0  # how long a refused run waits for a fresh holder to write its name

_held: dict[str, int] = {}  # resolved lock path -> depth, in this process
_guard = threading.Lock()


class RunLocked(errors.RunLocked):
    """Another process holds the artifacts directory's run lock."""

    def __init__(self, path: Path, holder: dict[str, Any]) -> None:
        self.path, self.holder = path, holder
        pid = holder.get("pid", "?")
        command = holder.get("command") or "?"
        super().__init__(
            f"another miscue run (pid {pid}: {command}) holds the lock {path} on this artifacts "
            f"directory; wait for it to finish (or pass --wait) -- nothing was written")


def lock_path(artifacts: str | os.PathLike[str]) -> Path:
    return Path(artifacts) / LOCK_NAME


def holder(artifacts: str | os.PathLike[str]) -> dict[str, Any]:
    """What the lock file says about its (last) holder; ``{}`` when unreadable."""
    try:
        return json.loads(lock_path(artifacts).read_text() or "{}")
    except (OSError, ValueError):
        return {}


def _named_holder(artifacts: str | os.PathLike[str]) -> dict[str, Any]:
    """The holder of a lock just found taken, waiting briefly for it to name itself.

    The holder takes the flock first and writes its pid a moment later, so a run refused in
    that moment would read an empty file; it polls until the name is there (or gives up and
    says "?")."""
    deadline = time.monotonic() + NAME_PATIENCE_S
    while True:
        found = holder(artifacts)
        if found.get("pid") or time.monotonic() >= deadline:
            return found
        time.sleep(0.01)


@contextlib.contextmanager
def run_lock(artifacts: str | os.PathLike[str], command: str | None = None, wait: bool = False,
             timeout_s: float | None = None, poll_s: float = 0.2) -> Iterator[Path]:
    """Hold the exclusive run lock of ``artifacts`` for the duration of the block."""
    path = lock_path(artifacts)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = str(path.resolve())
    with _guard:
        if key in _held:  # re-entrant in this process
            _held[key] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield path
        finally:
            with _guard:
                _held[key] -= 1
        return

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait or (deadline is not None and time.monotonic() >= deadline):
                    raise RunLocked(path, _named_holder(artifacts)) from None
                time.sleep(poll_s)
        info = {"pid": os.getpid(), "command": command or " ".join(sys.argv)[:500],
                "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        with _guard:
            _held[key] = 1
        try:
            yield path
        finally:
            with _guard:
                _held.pop(key, None)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
