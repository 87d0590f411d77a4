"""What the gateways of one run share across processes and machines: the halt on the first
terminal error and the budget ledger (DESIGN sections 8, 10).

A sharded build (``miscue build --workers N`` or ``--dask-address``) runs one gateway per shard,
in different worker processes and, on an existing Dask cluster, on different machines. They
share one directory on the artifacts filesystem (which every worker must see anyway: the
exchange store lives there), created by the flow for the run and removed when it ends:

- ``halt.json``: the first terminal provider error (auth, quota, bad request, budget) of any
  shard, written once (``os.link`` of a complete temporary file: atomic, the first writer
  wins). Every gateway looks for it before each model call the store cannot answer and raises
  the same error, so every shard stops at its next call; finished exchanges stay in the store
  and a rerun resumes.
- ``budget.json`` under an exclusive ``flock`` of ``budget.lock``: the cost spent by every
  shard and the expected cost of the calls in flight. A call is refused when the spent cost,
  the calls in flight and its own expected cost would pass the cap, so the sum over all shards
  never passes ``--max-cost`` (the same rule one gateway applies alone).

``flock`` is honoured across processes on one machine and, on Linux NFS clients, across
machines (emulated with POSIX locks).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from miscue.llm.errors import BudgetExceeded, TerminalProviderError
from miscue.llm.records import Exchange

HALT = "halt.json"
LEDGER = "budget.json"
LEDGER_LOCK = "budget.lock"


class RunControl:
    """The shared state of one run's gateways in the directory ``root`` (see the module docstring)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._halted: TerminalProviderError | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"root": str(self.root)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.root, self._halted = Path(state["root"]), None

    # -- halt -------------------------------------------------------------------------------
    def halt(self, error: TerminalProviderError) -> None:
        """Record ``error`` as the run's halt unless another gateway recorded one first."""
        record = {"message": str(error), "kind": error.kind, "status": error.status,
                  "exchange": error.exchange.model_dump(mode="json")}
        if isinstance(error, BudgetExceeded):
            record.update(budget={"spent": error.spent, "expected": error.expected, "cap": error.cap})
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".halt.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh)
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, self.root / HALT)
        finally:
            Path(tmp).unlink(missing_ok=True)
        self._halted = self._halted or error

    def halted(self) -> TerminalProviderError | None:
        """The run's halt (raised again by every gateway), or None while no shard recorded one."""
        if self._halted is not None:
            return self._halted
        try:
            record = json.loads((self.root / HALT).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        exchange = Exchange.model_validate(record["exchange"])
        if "budget" in record:
            self._halted = BudgetExceeded(record["message"], exchange=exchange, **record["budget"])
        else:
            self._halted = TerminalProviderError(record["message"], exchange=exchange, kind=record["kind"],
                                                 status=record["status"])
        return self._halted

    # -- budget -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _ledger(self) -> Iterator[dict[str, float]]:
        fd = os.open(self.root / LEDGER_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            path = self.root / LEDGER
            try:
                state = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                state = {"spent": 0.0, "reserved": 0.0}
            before = dict(state)
            yield state
            if state != before:
                tmp = path.with_name(f".{LEDGER}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps(state), encoding="utf-8")
                os.replace(tmp, path)
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def reserve(self, expected: float, cap: float) -> tuple[bool, float, float]:
        """Reserve ``expected`` USD for a call unless spent + in flight + expected would pass
        ``cap``: (reserved?, spent, in flight) as the ledger stood."""
        with self._ledger() as state:
            spent, reserved = state["spent"], state["reserved"]
            if spent + reserved + expected > cap:
                return False, spent, reserved
            state["reserved"] = reserved + expected
            return True, spent, reserved

    def settle(self, reservation: float, cost: float) -> None:
        """A reserved call ended: release its reservation and add what it cost."""
        with self._ledger() as state:
            state["reserved"] = max(0.0, state["reserved"] - reservation)
            state["spent"] += cost

    def spent(self) -> float:
        with self._ledger() as state:
            return float(state["spent"])
