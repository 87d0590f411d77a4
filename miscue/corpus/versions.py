"""Corpus versions under ``artifacts/corpora/``: names, lookup, manifests and tables.

Versions are sequential: ``v0001``, ``v0002``, … (four digits, so ``v0001``–``v9999``; the next
number is one more than the highest version directory present). The number is not a semantic
version; lineage is in the manifest's ``parent``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from miscue.errors import CorpusError

FORMAT = "miscue-corpus/3"
#: How each earlier format's tables read in the current one: format -> table -> {old column: new}.
#: miscue-corpus/2 names the request text ``query`` in ``attempts`` as in ``samples`` (it was ``text``);
#: miscue-corpus/3 adds the extractors' readings to ``attempts`` (``reading_a``, ``reading_b``).
RENAMED: dict[str, dict[str, dict[str, str]]] = {"miscue-corpus/1": {"attempts": {"text": "query"}}}
#: The columns each earlier format's tables lack, read as nulls: format -> table -> {column: DuckDB type}.
ADDED: dict[str, dict[str, dict[str, str]]] = {
    f: {"attempts": {"reading_a": "varchar", "reading_b": "varchar"}} for f in ("miscue-corpus/1", "miscue-corpus/2")}
CORPORA_DIR = "corpora"
STAGING_DIR = ".staging"  # under artifacts/, next to corpora/: never inside the read root
VERSION_RE = re.compile(r"^v(\d{4})$")
VERSION_GLOB = "v[0-9][0-9][0-9][0-9]"  # DuckDB/pathlib glob matching exactly the version names


class VersionExists(CorpusError, FileExistsError):
    """A published version is never overwritten."""


class UnknownVersion(CorpusError, LookupError):
    """A version name that is not published (bad input: exit 2)."""

    exit_code = 2


def corpora_root(artifacts: Path) -> Path:
    return Path(artifacts) / CORPORA_DIR


def version_dir(artifacts: Path, version: str) -> Path:
    if not VERSION_RE.match(version):
        raise UnknownVersion(f"not a version name: {version!r} (versions look like v0001)")
    return corpora_root(artifacts) / version


def _numbers(artifacts: Path) -> list[int]:
    root = corpora_root(artifacts)
    if not root.is_dir():
        return []
    return sorted(int(m.group(1)) for p in root.iterdir() if (m := VERSION_RE.match(p.name)))


def versions(artifacts: Path) -> list[str]:
    """Published versions (directories holding a manifest), oldest first."""
    return [f"v{n:04d}" for n in _numbers(artifacts)
            if (corpora_root(artifacts) / f"v{n:04d}" / "manifest.json").is_file()]


def latest(artifacts: Path) -> str | None:
    vs = versions(artifacts)
    return vs[-1] if vs else None


def next_version(artifacts: Path) -> str:
    """One more than the highest version *directory* present (published or not)."""
    nums = _numbers(artifacts)
    n = (nums[-1] if nums else 0) + 1
    if n > 9999:
        raise CorpusError("version numbers are exhausted (v9999)")
    return f"v{n:04d}"


def resolve(artifacts: Path, version: str | None) -> str:
    """``None`` or ``latest`` -> the latest published version; otherwise check it exists."""
    if version in (None, "", "latest"):
        v = latest(artifacts)
        if v is None:
            raise UnknownVersion(f"no published version under {corpora_root(artifacts)}: run `miscue build` first")
        return v
    d = version_dir(artifacts, version)  # type: ignore[arg-type]
    if not (d / "manifest.json").is_file():
        known = ", ".join(versions(artifacts)) or "none"
        raise UnknownVersion(f"version {version} is not published under {corpora_root(artifacts)} (published: {known})")
    return version  # type: ignore[return-value]


def manifest(artifacts: Path, version: str) -> dict[str, Any]:
    return json.loads((version_dir(artifacts, version) / "manifest.json").read_text())


def content_hashes(artifacts: Path, version: str) -> dict[str, str]:
    """Each table's content hash, as the version's manifest records it."""
    return {name: t["content_hash"] for name, t in manifest(artifacts, version)["tables"].items()}


def same_content(artifacts: Path, hashes: dict[str, str], tables: tuple[str, ...] | None = None,
                 config_hash: str | None = None) -> list[str]:
    """Published versions, oldest first, whose tables (every one of ``hashes``, or only ``tables``)
    have these content hashes -- and, when ``config_hash`` is given, that configuration hash."""
    names = tables or tuple(hashes)
    found = []
    for version in versions(artifacts):
        theirs = content_hashes(artifacts, version)
        if (tables is None and set(theirs) != set(hashes)) or any(theirs.get(n) != hashes.get(n) for n in names):
            continue
        if config_hash is None or manifest(artifacts, version).get("config_hash") == config_hash:
            found.append(version)
    return found


def renamed_columns(artifacts: Path, version: str, name: str) -> dict[str, str]:
    """The columns of table ``name`` whose names changed since ``version``'s format: old -> current."""
    return RENAMED.get(manifest(artifacts, version).get("format", FORMAT), {}).get(name, {})


def added_columns(artifacts: Path, version: str, name: str) -> dict[str, str]:
    """The columns of table ``name`` added since ``version``'s format: column -> DuckDB type."""
    return ADDED.get(manifest(artifacts, version).get("format", FORMAT), {}).get(name, {})


def read_table(artifacts: Path, version: str, name: str) -> pa.Table:
    """A published table with today's column names, whatever format it was published in (the file
    itself is never changed: :func:`miscue.corpus.verify_corpus` reads it as written); a column
    added since reads as nulls."""
    tbl = pq.read_table(version_dir(artifacts, version) / f"{name}.parquet")
    renames = renamed_columns(artifacts, version, name)
    if renames:
        tbl = tbl.rename_columns([renames.get(c, c) for c in tbl.column_names])
    for column in added_columns(artifacts, version, name):
        if column not in tbl.column_names:
            tbl = tbl.append_column(column, pa.nulls(tbl.num_rows, pa.string()))
    return tbl
