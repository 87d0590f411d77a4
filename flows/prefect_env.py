"""Prefect settings for every miscue process, applied before prefect is first imported (tooling
notes). They are environment variables, not a ``prefect.toml``, so an installed ``miscue`` run in
any directory gets them; values already in the environment win (``setdefault``).

- ``DO_NOT_TRACK=1``, ``PREFECT_SERVER_ANALYTICS_ENABLED=false``: no telemetry from the client or
  the (ephemeral) server, and no telemetry ERROR line offline;
- ``PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL=WARNING``: a quiet console while the API keeps INFO logs;
- the task-run recorder's batches of 200 (the default, 1, loses task-run records and backs up SQLite);
- 120 s for the ephemeral server to start: the first start on a new machine creates the database and
  runs every migration, and 20 s (the default) is not enough on 2 busy cores.
"""

from __future__ import annotations

import os

PREFECT_ENV = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_READ_BATCH_SIZE": "200",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
}


def apply() -> None:
    for key, value in PREFECT_ENV.items():
        os.environ.setdefault(key, value)
