"""Verifying a published version against its manifest (``miscue verify-corpus``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from miscue.canonical import file_sha256
from miscue.corpus.tables import content_hash_table
from miscue.corpus.versions import version_dir


@dataclass
class Verification:
    version: str
    ok: bool = True
    checked_files: int = 0
    checked_tables: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)

    def fail(self, what: str, name: str, detail: str) -> None:
        self.ok = False
        self.problems.append({"what": what, "name": name, "detail": detail})

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "ok": self.ok, "checked_files": self.checked_files,
                "checked_tables": self.checked_tables, "problems": self.problems}


def verify_corpus(version: str, artifacts: Path = Path("artifacts")) -> Verification:
    """Recompute every file's sha256 and every table's row count and content hash from the
    files; each difference from the manifest (and any missing or extra file) is a problem."""
    d = version_dir(artifacts, version)
    result = Verification(version)
    try:
        man = json.loads((d / "manifest.json").read_text())
    except FileNotFoundError:
        result.fail("manifest", "manifest.json", f"{d / 'manifest.json'} does not exist")
        return result
    except ValueError as exc:
        result.fail("manifest", "manifest.json", f"unreadable: {exc}")
        return result
    if man.get("version") != version:
        result.fail("manifest", "version", f"manifest names version {man.get('version')!r}")
    files: dict[str, str] = man.get("files", {})
    present = {p.name for p in d.iterdir() if p.name != "manifest.json"}
    for name in sorted(present - set(files)):
        result.fail("file", name, "not listed in the manifest")
    for name, digest in sorted(files.items()):
        path = d / name
        if not path.exists():
            result.fail("file", name, "listed in the manifest but missing")
            continue
        result.checked_files += 1
        now = file_sha256(str(path))
        if now != digest:
            result.fail("file", name, f"sha256 {now} != manifest {digest}")
    for name, meta in sorted(man.get("tables", {}).items()):
        path = d / meta.get("file", f"{name}.parquet")
        if not path.exists():
            continue  # already reported as a missing file
        result.checked_tables += 1
        try:
            tbl = pq.read_table(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is a finding, not a crash
            result.fail("table", name, f"unreadable Parquet: {type(exc).__name__}: {exc}")
            continue
        if tbl.num_rows != meta.get("rows"):
            result.fail("table", name, f"{tbl.num_rows} rows != manifest {meta.get('rows')}")
        now = content_hash_table(name, tbl)
        if now != meta.get("content_hash"):
            result.fail("table", name, f"content hash {now} != manifest {meta.get('content_hash')}")
    return result
