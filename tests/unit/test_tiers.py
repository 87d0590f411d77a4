"""The suite's tiers (README, "Tests"): tests/unit/ is the fast lane -- no whole graph build, no
server and no subprocess -- so `make check` stays under two minutes; builds, servers and
processes live in tests/integration/ and tests/drills/."""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).resolve().parent
#: what a unit test may not reach for: processes, servers, clusters, whole-host graph builds
FORBIDDEN_IMPORTS = {"subprocess", "multiprocessing", "support.prefect_server", "support.openai_stub", "support.drills",
                     "support.dask_cluster", "support.prefect_home", "miscue.flows.prefect_flows", "prefect"}
WHOLE_BUILDS = {"retail_build", "airline_build"}  # the session fixtures building every task of a host


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return names


def test_unit_tests_start_no_process_or_server_and_build_no_whole_host():
    found = []
    for path in sorted(UNIT.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.name}: imports {n}" for n in sorted(_imports(tree) & FORBIDDEN_IMPORTS)]
        args = {a.arg for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) for a in node.args.args}
        found += [f"{path.name}: uses the fixture {n}" for n in sorted(args & WHOLE_BUILDS)]
    assert not found, found
