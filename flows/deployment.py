"""The nightly rebuild: a Prefect deployment of ``miscue-build`` with a cron schedule.

Served locally by ``miscue serve`` (``flow.serve``-style, through :func:`prefect.serve`)
against a real Prefect server given by ``PREFECT_API_URL``: Prefect's ephemeral server never
fires schedules (tooling notes section 5), so serving without a URL is refused. To run one::

    prefect server start --host 127.0.0.1 --port 4200 --analytics-off      # terminal 1
    PREFECT_API_URL=http://127.0.0.1:4200/api miscue serve                 # terminal 2
    PREFECT_API_URL=http://127.0.0.1:4200/api prefect deployment run miscue-build/nightly   # now

Schedules are Prefect's; nothing here is a home-made scheduler.
"""

from __future__ import annotations

import os
from typing import Any

from miscue.errors import BadInput

NIGHTLY_CRON = "0 2 * * *"  # 02:00 every night (server time zone: UTC unless configured)
DEPLOYMENT_NAME = "nightly"
FLOW_NAME = "miscue-build"


class NoPrefectServer(BadInput):
    """Serving a schedule without a real Prefect server (the ephemeral one never fires schedules)."""


def nightly_parameters(parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """The deployment's default parameters: every registered benchmark, every fault type, 4
    attempts, ``artifacts/``; a rebuild that changes nothing publishes nothing."""
    return {"skip_unchanged": True, **(parameters or {})}


def require_server() -> str:
    url = os.environ.get("PREFECT_API_URL", "")
    if not url:
        raise NoPrefectServer(
            "serving a schedule needs a real Prefect server (the ephemeral one never fires schedules): "
            "start one with `prefect server start --host 127.0.0.1 --port 4200 --analytics-off` and set "
            "PREFECT_API_URL=http://127.0.0.1:4200/api")
    return url


def check_cron(cron: str) -> None:
    """BadInput for a cron string Prefect's schedule would refuse."""
    from miscue.flows.prefect_flows import valid_cron

    if not valid_cron(cron):
        raise BadInput(f"not a valid cron schedule: {cron!r} (five fields, e.g. '0 2 * * *')")


def serve(cron: str = NIGHTLY_CRON, parameters: dict[str, Any] | None = None, name: str = DEPLOYMENT_NAME) -> None:
    """Register the scheduled deployment ``miscue-build/<name>`` with the server and serve it until
    interrupted (SIGTERM / Ctrl-C pauses the deployment's schedule and exits)."""
    from miscue.flows.prefect_flows import serve_deployment

    require_server()
    serve_deployment(name, cron, nightly_parameters(parameters))
