"""What miscue ships besides code: the prompt cards (``miscue.prompts``) and the small WebShop
catalogue (``miscue.data``), found through :mod:`importlib.resources`, so an installed wheel run
in any directory finds them as a checkout does (DESIGN section 2).

A resource that is not there means the installation is incomplete, not that the user typed
something wrong: :class:`MissingResource` (its own exit code, one line naming what is missing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from miscue.errors import MissingResource

PROMPTS = "miscue.prompts"
DATA = "miscue.data"
#: the packages whose files make up the code version (the kernel, its rooms, the prompts)
CODE_PACKAGES = ("miscue", "miscue.adapters", "miscue.verifiers", "miscue.flows", "miscue.prompts")
CODE_SUFFIXES = (".py", ".j2")


def package_dir(package: str) -> Path:
    """The directory of an installed (or editable) package of miscue's."""
    try:
        root = resources.files(package)
    except ModuleNotFoundError:
        raise MissingResource(f"package {package} is missing: the miscue installation is incomplete (reinstall miscue)") from None
    return Path(str(root))


def prompts_dir() -> Path:
    return package_dir(PROMPTS)


def data_dir(name: str) -> Path:
    """A folder of shipped data (``webshop``: the small catalogue in WebShop's three-file format)."""
    return package_dir(DATA) / name


def require(path: Path, what: str) -> Path:
    """``path`` if it exists, else :class:`MissingResource` naming it."""
    if not path.exists():
        raise MissingResource(f"{what} ({path}) is missing: the miscue installation is incomplete (reinstall miscue)")
    return path


def files_of(package: str, suffixes: tuple[str, ...] = CODE_SUFFIXES) -> Iterator[tuple[str, Path]]:
    """Every file of ``package`` with one of ``suffixes``, named by its path inside the installed
    package (``miscue/flows/cli/app.py``), sorted. A room's files belong to the room: the kernel's
    walk leaves them out, so a checkout and an installed wheel name and count them the same."""
    root = package_dir(package)
    prefix = package.replace(".", "/")
    rooms = {p.split(".")[1] for p in CODE_PACKAGES if p.startswith("miscue.")} if package == "miscue" else set()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and path.suffix in suffixes and "__pycache__" not in rel.parts and rel.parts[0] not in rooms:
            yield f"{prefix}/{rel.as_posix()}", path


def digest(packages: tuple[str, ...], length: int = 16) -> str:
    """A hash of the named packages' files (names and bytes)."""
    h = hashlib.sha256()
    for package in packages:
        for name, path in files_of(package):
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:length]
