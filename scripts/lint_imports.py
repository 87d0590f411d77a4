"""Run import-linter on the package as it is installed.

The repository keeps its rooms at the top (``flows/``, ``adapters/``, ``verifiers/``, ``prompts/``,
``data/``) and ``pyproject.toml`` ships them inside ``miscue`` (``[tool.setuptools.package-dir]``).
import-linter reads a package from one directory, so this stages ``miscue/`` in a temporary
directory as the wheel lays it out -- a symlink per kernel entry and per mapped room -- and runs
``lint-imports`` on it with the repository's contracts. Exit status: lint-imports' own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "miscue"


def stage(into: Path) -> Path:
    """``into/miscue`` laid out as installed; every entry a symlink into the repository."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    package = into / PACKAGE
    package.mkdir()
    for entry in (ROOT / mapping[PACKAGE]).iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, source in mapping.items():
        parts = name.split(".")
        if len(parts) == 2 and parts[0] == PACKAGE:  # a room shipped as miscue.<room>
            (package / parts[1]).symlink_to(ROOT / source)
    return package


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="miscue-lint-") as tmp:
        stage(Path(tmp))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))}
        linter = Path(sys.executable).with_name("lint-imports")
        return subprocess.call([str(linter), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")], cwd=tmp, env=env)


if __name__ == "__main__":
    sys.exit(main())
