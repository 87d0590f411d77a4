"""Publishing a corpus version (DESIGN section 9): atomic, never over an existing version.

- **Publishing is atomic.** Everything is written into ``artifacts/.staging/<version>-<uuid>/``
  (outside the corpora root, so no glob over ``corpora/`` can see half a version), then moved
  into place with one rename that refuses to replace anything: ``renameat2(RENAME_NOREPLACE)``
  where the C library has it, otherwise an explicit existence check followed by ``os.rename``
  (which by itself would silently replace an *empty* directory). An existing version, even an
  empty directory of that name, is never overwritten: :class:`VersionExists`.
- **Immutable on disk**: after the rename every file is chmod 0444 and the directory 0555.
- **Verifiable**: the manifest holds the sha256 of every file and the content hash of every
  table (:mod:`miscue.corpus.tables`); :func:`miscue.corpus.verify.verify_corpus` recomputes both.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from miscue.canonical import content_hash, file_sha256
from miscue.corpus.datasheet import datasheet
from miscue.corpus.tables import PROVENANCE_COLUMNS, REQUIRED_TABLES, SCHEMAS, SORT_KEYS, TABLES, content_hash_table
from miscue.corpus.versions import (FORMAT, STAGING_DIR, VersionExists, corpora_root, manifest, next_version, resolve,
                                    version_dir)
from miscue.errors import CorpusError


def _libc_renameat2() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _libc_renameat2()
_AT_FDCWD, _RENAME_NOREPLACE = -100, 1


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``; raise :class:`VersionExists` if ``dst`` exists in any form."""
    if os.path.lexists(dst):  # explicit check: os.rename would replace an empty directory
        raise VersionExists(f"{dst} already exists; a published version is never overwritten")
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise VersionExists(f"{dst} already exists; a published version is never overwritten")
        if err not in (errno.ENOSYS, errno.EINVAL):  # not supported here: fall back below
            raise OSError(err, os.strerror(err), str(dst))
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):  # a racing publisher got there first
            raise VersionExists(f"{dst} already exists; a published version is never overwritten") from exc
        raise


def sweep_staging(artifacts: Path) -> list[str]:
    """Remove what an interrupted publish (a killed process) left under ``.staging/``; returns
    the names removed. Call it only while holding the artifacts directory's run lock (no other
    publisher can then be writing there). Staging is outside the corpora root, so a leftover
    was never visible as a version."""
    root = Path(artifacts) / STAGING_DIR
    if not root.is_dir():
        return []
    removed = []
    for leftover in sorted(root.iterdir()):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover)
        else:
            leftover.unlink()
        removed.append(leftover.name)
    return removed


def _is_offline(models: dict[str, Any]) -> bool:
    return any(str(m).startswith("offline/") for m in models.values())


def publish(tables: dict[str, pa.Table], *, artifacts: Path, parent: str | None, config: dict[str, Any],
            code_version: str, input_hashes: dict[str, Any], models: dict[str, Any],
            card_versions: dict[str, Any], version: str | None = None,
            extra: dict[str, Any] | None = None) -> str:
    """Publish ``tables`` as a new immutable version and return its name.

    ``version`` defaults to the next sequential number (if a concurrent publisher takes it
    first, the one after). ``extra`` adds manifest fields (e.g.
    ``kind``, ``regeneration``, ``run``). Rows whose ``run_version`` is null get the version
    being published (carried-over rows keep theirs). Raises :class:`VersionExists` rather than
    overwrite anything.
    """
    artifacts = Path(artifacts)
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise CorpusError(f"cannot publish without the tables {missing}")
    unknown = sorted(set(tables) - set(SCHEMAS))
    if unknown:
        raise CorpusError(f"unknown corpus tables {unknown}; known: {list(SCHEMAS)}")
    if parent is not None:
        resolve(artifacts, parent)
    if version is not None:
        return _publish_as(version, tables, artifacts, parent, config, code_version, input_hashes, models,
                           card_versions, extra)
    for _ in range(20):  # a racing publisher may take the next number first: take the one after
        try:
            return _publish_as(next_version(artifacts), tables, artifacts, parent, config, code_version,
                               input_hashes, models, card_versions, extra)
        except VersionExists:
            continue
    raise CorpusError("could not claim a version number after 20 tries (too many concurrent publishers?)")


def _publish_as(version: str, tables: dict[str, pa.Table], artifacts: Path, parent: str | None, config: dict[str, Any],
                code_version: str, input_hashes: dict[str, Any], models: dict[str, Any], card_versions: dict[str, Any],
                extra: dict[str, Any] | None) -> str:
    final = version_dir(artifacts, version)
    if os.path.lexists(final):
        raise VersionExists(f"{final} already exists; a published version is never overwritten")

    staging_root = artifacts / STAGING_DIR
    staging_root.mkdir(parents=True, exist_ok=True)
    corpora_root(artifacts).mkdir(parents=True, exist_ok=True)
    staging = staging_root / f"{version}-{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        table_meta: dict[str, Any] = {}
        for name in TABLES:
            if name not in tables:
                continue
            tbl = _prepare(name, tables[name], version)
            path = staging / f"{name}.parquet"
            pq.write_table(tbl, path, compression="zstd")
            table_meta[name] = {
                "file": path.name, "rows": tbl.num_rows, "columns": tbl.schema.names,
                "content_hash": content_hash_table(name, tbl),
                "provenance_columns": list(PROVENANCE_COLUMNS.get(name, ())),
            }
        man: dict[str, Any] = {
            "format": FORMAT,
            "version": version,
            "parent": parent,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "config": config,
            "config_hash": content_hash(config, length=64),
            "code_version": code_version,
            "input_hashes": input_hashes,
            "models": models,
            "offline_baselines": _is_offline(models),
            "card_versions": card_versions,
            "row_counts": {n: m["rows"] for n, m in table_meta.items()},
            "tables": table_meta,
            **(extra or {}),
        }
        if parent is not None:
            pman = manifest(artifacts, parent)
            same = {n for n, m in table_meta.items()
                    if pman.get("tables", {}).get(n, {}).get("content_hash") == m["content_hash"]}
            man["unchanged_tables_vs_parent"] = sorted(same)
            man["identical_to_parent"] = same == set(table_meta) == set(pman.get("tables", {}))
        (staging / "datasheet.md").write_text(datasheet(man), encoding="utf-8")
        man["files"] = {p.name: file_sha256(str(p)) for p in sorted(staging.iterdir())}
        (staging / "manifest.json").write_text(json.dumps(man, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        rename_noreplace(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for p in final.iterdir():
        p.chmod(0o444)
    final.chmod(0o555)
    return version


def _prepare(name: str, tbl: pa.Table, version: str) -> pa.Table:
    schema = SCHEMAS[name]
    if tbl.schema.names != schema.names:
        raise CorpusError(f"table {name}: columns {tbl.schema.names} differ from the corpus schema {schema.names}")
    tbl = tbl.cast(schema)
    if "run_version" in schema.names:
        col = tbl.column("run_version")
        tbl = tbl.set_column(schema.get_field_index("run_version"), "run_version", pc.fill_null(col, version))
    keys = [k for k in SORT_KEYS.get(name, ()) if k in schema.names]
    if keys and tbl.num_rows:
        tbl = tbl.sort_by([(k, "ascending") for k in keys])
    return tbl
