from __future__ import annotations

import os

import pytest

from miscue.adapters.tau2 import Tau2Adapter
from miscue.graphs import GraphBuild, GraphBuilder


def pytest_configure(config: pytest.Config) -> None:
    """Before any test module is imported: litellm reads these when it is first imported (by a
    test module or by miscue), so it makes no network call at import."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")


@pytest.fixture(scope="session")
def retail() -> Tau2Adapter:
    return Tau2Adapter("retail")


@pytest.fixture(scope="session")
def airline() -> Tau2Adapter:
    return Tau2Adapter("airline")


@pytest.fixture(scope="session")
def retail_build(retail: Tau2Adapter) -> GraphBuild:
    return GraphBuilder(retail).build()


@pytest.fixture(scope="session")
def airline_build(airline: Tau2Adapter) -> GraphBuild:
    return GraphBuilder(airline).build()
