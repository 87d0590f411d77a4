"""The ``miscue`` command line: one module per group of commands, all sharing
:mod:`miscue.flows.cli.app` (the app, the common options, the exit-code mapping) and
:mod:`miscue.flows.cli.progress` (bars, or lines and a heartbeat in a log), and never each other."""

import signal

from miscue.flows.cli import (audit, batch, check_config, corpus, estimate, export, generate, graphs,  # noqa: F401
                              prompts, serve, verify)  # (registers the commands)
from miscue.flows.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    signal.signal(signal.SIGTERM, _terminated)
    app()


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM (``timeout``, systemd, a scheduler) ends a command as Ctrl-C does, by an exception,
    so its clean-up still runs: Prefect's local server stopped, a Dask cluster closed, the run
    lock released. Exit status 143. (While a flow runs, Prefect's handler takes the signal first,
    marks the run crashed and hands it on to this one.)"""
    raise SystemExit(128 + signum)


if __name__ == "__main__":  # pragma: no cover
    main()
