"""Prefect environment defaults, applied before prefect is first imported (tooling notes).

``DO_NOT_TRACK=1`` and ``PREFECT_SERVER_ANALYTICS_ENABLED=false``: no telemetry from the client
or the (ephemeral) server, and no telemetry ERROR line offline. ``PREFECT_LOGGING_HANDLERS_
CONSOLE_LEVEL=WARNING``: a quiet console while the API keeps the INFO logs (this one has no
``prefect.toml`` form). Values already in the environment win (``setdefault``).
"""

from __future__ import annotations

import os

PREFECT_ENV = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
}


def apply() -> None:
    for key, value in PREFECT_ENV.items():
        os.environ.setdefault(key, value)
