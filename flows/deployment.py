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

NIGHTLY_CRON = "0 2 * * *"  # 02:00 every night (server time zone: UTC unless configured)
DEPLOYMENT_NAME = "nightly"
FLOW_NAME = "miscue-build"


class NoPrefectServer(RuntimeError):
    pass


def nightly_deployment(cron: str = NIGHTLY_CRON, parameters: dict[str, Any] | None = None,
                       name: str = DEPLOYMENT_NAME) -> Any:
    """The deployment definition: ``miscue-build/nightly`` on ``cron`` with default parameters
    (every registered benchmark, every fault type, 4 attempts, ``artifacts/``; a rebuild that
    changes nothing publishes nothing)."""
    from prefect.deployments.runner import EntrypointType

    from flows.prefect_flows import build_flow

    params = {"skip_unchanged": True, **(parameters or {})}
    return build_flow.to_deployment(
        name=name, cron=cron, parameters=params, tags=["miscue", "nightly"],
        description="Nightly rebuild of every configured benchmark; publishes a new corpus version when anything changed.",
        entrypoint_type=EntrypointType.MODULE_PATH,
    )


def require_server() -> str:
    url = os.environ.get("PREFECT_API_URL", "")
    if not url:
        raise NoPrefectServer(
            "serving a schedule needs a real Prefect server (the ephemeral one never fires schedules): "
            "start one with `prefect server start --host 127.0.0.1 --port 4200 --analytics-off` and set "
            "PREFECT_API_URL=http://127.0.0.1:4200/api")
    return url


def serve(cron: str = NIGHTLY_CRON, parameters: dict[str, Any] | None = None, name: str = DEPLOYMENT_NAME) -> None:
    """Register the scheduled deployment with the server and serve it until interrupted
    (SIGTERM / Ctrl-C pauses the deployment's schedule and exits)."""
    require_server()
    from prefect import serve as prefect_serve

    prefect_serve(nightly_deployment(cron, parameters, name), print_starting_message=True)
