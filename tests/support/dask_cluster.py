"""An "existing" Dask cluster for tests: ``dask scheduler`` and ``dask worker`` as separate
processes on 127.0.0.1 (as a user would start them on other machines), stopped by PID.

``with DaskCluster(tmp_path, workers=2) as cluster:`` -- ``cluster.address`` is the scheduler's
``tcp://127.0.0.1:PORT``, ``cluster.worker_pids()`` the worker processes.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from support.prefect_server import BIN, ROOT, descendants, free_port, stop, wait


class DaskCluster:
    def __init__(self, directory: Path, workers: int = 2, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.workers = workers
        self.env = {**os.environ, **(env or {})}  # the workers import this checkout (PYTHONPATH passes through)
        self.logs = [directory / "dask-scheduler.log", directory / "dask-worker.log"]
        self.procs: list[subprocess.Popen] = []

    def _start(self, args: list[str], log: Path) -> None:
        with open(log, "w") as out:
            self.procs.append(subprocess.Popen([str(BIN / "dask"), *args], cwd=ROOT, env=self.env, stdout=out,
                                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))

    def __enter__(self) -> "DaskCluster":
        try:
            self._start(["scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"], self.logs[0])
            wait("the Dask scheduler", lambda: socket.create_connection(("127.0.0.1", self.port), timeout=1).close() or True,
                 120, self.logs)
            self._start(["worker", self.address, "--host", "127.0.0.1", "--nworkers", str(self.workers), "--nthreads", "1",
                         "--no-dashboard"], self.logs[1])
            wait(f"{self.workers} Dask workers", lambda: self.logs[1].read_text().count("Registered to:") >= self.workers,
                 120, self.logs)
        except BaseException:
            stop(self.procs)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        stop(self.procs)

    def worker_pids(self) -> list[int]:
        return descendants(self.procs[1].pid) if len(self.procs) > 1 else []

    def closed(self) -> bool:
        """Every process stopped and the scheduler's port no longer accepts connections."""
        if any(p.poll() is None for p in self.procs):
            return False
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return True
        return False
