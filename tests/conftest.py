from __future__ import annotations

import pytest

from adapters.tau2 import Tau2Adapter
from miscue.graphs import GraphBuild, GraphBuilder


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
