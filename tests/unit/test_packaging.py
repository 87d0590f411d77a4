"""One distribution, one import name (DESIGN section 2): the repository's rooms are shipped inside
``miscue``, prompts and data are package data found through importlib.resources, and nothing in
the library reaches into the checkout (``tests/``) or imports a room by its folder name."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from miscue import resources
from miscue.errors import MissingResource
from miscue.writing import PromptSet

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
MAPPING: dict[str, str] = SETUPTOOLS["package-dir"]
ROOMS = {name.split(".")[1]: folder for name, folder in MAPPING.items() if name.startswith("miscue.")}


def _library_files() -> list[Path]:
    folders = [ROOT / "miscue", *(ROOT / f for f in ROOMS.values())]
    return sorted(p for d in folders for p in d.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_package_of_the_tree_is_shipped_under_its_installed_name():
    found = set()
    for installed, folder in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            name = ".".join([installed, *rel.parts])
            if installed == "miscue" and rel.parts and rel.parts[0] in ROOMS:
                continue
            found.add(name)
    assert found == set(SETUPTOOLS["packages"])


def test_the_rooms_keep_their_folders_at_the_top_of_the_repository():
    assert ROOMS == {"adapters": "adapters", "verifiers": "verifiers", "flows": "flows", "prompts": "prompts", "data": "data"}


def test_no_module_imports_a_room_by_its_folder_name():
    bad = []
    for path in _library_files() + sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in ROOMS]
    assert not bad, bad


def test_nothing_in_the_library_reads_the_checkouts_tests_folder():
    bad = []
    for path in _library_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "tests":
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, bad


def test_the_shipped_prompts_and_data_are_found_as_package_data():
    PromptSet().check()  # every card and form a run renders
    names = {p.name for p in resources.data_dir("webshop").glob("*.json")}
    assert names == {"items_shuffle_miscue.json", "items_ins_v2_miscue.json", "items_human_ins.json"}
    assert resources.prompts_dir() == ROOT / "prompts"  # this checkout is installed editable


def test_a_missing_package_or_file_is_an_incomplete_installation_not_bad_input(tmp_path):
    with pytest.raises(MissingResource, match="miscue.nothing_here is missing.*installation is incomplete") as missing:
        resources.package_dir("miscue.nothing_here")
    assert missing.value.exit_code == 70
    with pytest.raises(MissingResource, match="the shipped WebShop catalogue"):
        resources.require(tmp_path / "webshop", "the shipped WebShop catalogue")


def test_the_code_digest_names_files_as_installed_and_counts_each_once():
    kernel = [name for name, _ in resources.files_of("miscue")]
    flows = [name for name, _ in resources.files_of("miscue.flows")]
    assert "miscue/writing.py" in kernel and "miscue/flows/cli/app.py" in flows
    assert not any(name.startswith(("miscue/flows/", "miscue/adapters/", "miscue/verifiers/")) for name in kernel)
    assert "miscue/prompts/cards/factual_error.j2" in [name for name, _ in resources.files_of("miscue.prompts")]
