"""Progress of long commands (DESIGN section 10): bars on a terminal; a line per stage and a
heartbeat in a log (make, CI, a pipe, a scheduler); nothing with ``--quiet``.

The stages report ``(label, done, total, **facts)`` to the sink of
:func:`miscue.flows.stages.benchmark.set_progress`; ``facts`` are running counts a stage knows
(``admitted``, ``calls``). Everything is written to stderr, so stdout keeps the result (and
``--json`` stays one JSON object).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from miscue.flows.cli.app import err, out
from miscue.flows.stages.benchmark import set_progress

Mode = Literal["bars", "lines", "off"]
#: seconds between heartbeat lines in a log (``MISCUE_HEARTBEAT_SECONDS`` overrides)
HEARTBEAT_SECONDS = 30.0


def progress_mode(quiet: bool = False, as_json: bool = False) -> Mode:
    """Bars when both streams are a terminal (and stdout is not JSON); lines in a log; off when quiet."""
    if quiet:
        return "off"
    return "bars" if err.is_terminal and out.is_terminal and not as_json else "lines"


@contextlib.contextmanager
def progress(mode: Mode) -> Iterator[None]:
    """Show the stages' progress as ``mode`` says while the block runs."""
    if mode == "bars":
        with _bars() as sink:
            set_progress(sink)
            try:
                yield
            finally:
                set_progress(None)
    elif mode == "lines":
        seconds = float(os.environ.get("MISCUE_HEARTBEAT_SECONDS") or HEARTBEAT_SECONDS)
        lines = LogLines(seconds, lambda line: err.print(line, soft_wrap=True, highlight=False, markup=False))
        set_progress(lines.update)
        try:
            with lines.beating():
                yield
        finally:
            set_progress(None)
    else:
        yield


@contextlib.contextmanager
def _bars() -> Iterator[Any]:
    with Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=False) as bar:
        tasks: dict[str, Any] = {}

        def sink(label: str, done: int, total: int | None, **_facts: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield sink


@dataclass
class _Stage:
    done: int = 0
    total: int | None = None
    facts: dict[str, int] = field(default_factory=dict)
    finished: bool = False


class LogLines:
    """A line when a stage starts and when it finishes, and every ``seconds`` a heartbeat line
    per unfinished stage (done/total, admitted, calls, elapsed), so a log shows where a run is."""

    def __init__(self, seconds: float, write: Any) -> None:
        self.seconds = seconds
        self.write = write
        self.started = time.monotonic()
        self.stages: dict[str, _Stage] = {}
        self.lock = threading.Lock()

    def update(self, label: str, done: int, total: int | None, **facts: int) -> None:
        with self.lock:
            stage = self.stages.get(label)
            if stage is None:
                stage = self.stages[label] = _Stage()
                self.write(self._line(label, "started", total=total))
            stage.done, stage.total, stage.facts = done, total, {**stage.facts, **facts}
            if total is not None and done >= total and not stage.finished:
                stage.finished = True
                self.write(self._line(label, "done", stage))

    def beat(self) -> None:
        with self.lock:
            for label, stage in self.stages.items():
                if not stage.finished:
                    self.write(self._line(label, "working", stage))

    @contextlib.contextmanager
    def beating(self) -> Iterator[None]:
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(self.seconds):
                self.beat()

        thread = threading.Thread(target=loop, name="miscue-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _line(self, label: str, what: str, stage: _Stage | None = None, total: int | None = None) -> str:
        parts = [f"[{time.monotonic() - self.started:6.0f}s] {label}: {what}"]
        if stage is not None:
            parts.append(f"{stage.done}/{stage.total}" if stage.total is not None else f"{stage.done}")
            parts += [f"{value} {name}" for name, value in stage.facts.items()]
        elif total is not None:
            parts.append(f"0/{total}")
        return ", ".join(parts)
