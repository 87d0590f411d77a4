from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from filelock import FileLock

from miscue import resources
from miscue.adapters.tau2 import Tau2Adapter
from miscue.graphs import GraphBuild, GraphBuilder


def pytest_configure(config: pytest.Config) -> None:
    """Before any test module is imported: litellm reads these when it is first imported (by a
    test module or by miscue), so it makes no network call at import."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")


def shared_once(factory: pytest.TempPathFactory, name: str, make):
    """``make()``'s result, made once per test run and shared by every xdist worker: the first
    worker to ask makes it under a file lock in the run's shared temporary root (the parent of
    each worker's own base temp) and pickles it; the others wait and read it. The file is named
    by the code's digest, so an edit between two runs never reads a stale build."""
    root = factory.getbasetemp().parent
    path = root / f"{name}-{resources.digest(resources.CODE_PACKAGES, length=12)}.pickle"
    with FileLock(str(path) + ".lock"):
        if path.is_file():
            return pickle.loads(path.read_bytes())
        value = make()
        path.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        return value


@pytest.fixture(scope="session")
def retail() -> Tau2Adapter:
    return Tau2Adapter("retail")


@pytest.fixture(scope="session")
def airline() -> Tau2Adapter:
    return Tau2Adapter("airline")


@pytest.fixture(scope="session")
def retail_build(retail: Tau2Adapter, tmp_path_factory: pytest.TempPathFactory) -> GraphBuild:
    """Every retail task's graph (about 30 s to build): built once per test run."""
    return shared_once(tmp_path_factory, "retail-build", lambda: GraphBuilder(retail).build())


@pytest.fixture(scope="session")
def airline_build(airline: Tau2Adapter, tmp_path_factory: pytest.TempPathFactory) -> GraphBuild:
    return shared_once(tmp_path_factory, "airline-build", lambda: GraphBuilder(airline).build())


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every xdist worker of this run sees (for builds made once per run)."""
    return tmp_path_factory.getbasetemp().parent
