"""Versioned, immutable corpora: ``artifacts/corpora/<version>/`` (DESIGN section 9).

A published version is a directory of Parquet tables plus ``manifest.json`` and
``datasheet.md``. It never changes after publication:

- **Versions** are sequential: ``v0001``, ``v0002``, … (four digits, so ``v0001``–``v9999``;
  the next number is one more than the highest version directory present). The number is not
  a semantic version; lineage is in the manifest's ``parent``.
- **Publishing is atomic.** Everything is written into ``artifacts/.staging/<version>-<uuid>/``
  (outside the corpora root, so no glob over ``corpora/`` can see half a version), then moved
  into place with one rename that refuses to replace anything: ``renameat2(RENAME_NOREPLACE)``
  where the C library has it, otherwise an explicit existence check followed by ``os.rename``
  (which by itself would silently replace an *empty* directory). An existing version, even an
  empty directory of that name, is never overwritten: :class:`VersionExists`.
- **Immutable on disk**: after the rename every file is chmod 0444 and the directory 0555.
- **Verifiable**: the manifest holds the sha256 of every file and the content hash of every
  table; :func:`verify_corpus` recomputes both from the files and reports each mismatch.

Table content hash: sha256 over the sorted canonical JSON encodings of the rows (sorted keys,
values in their JSON types), so re-publishing identical rows gives an identical hash even when
the Parquet bytes differ (row order, compression, writer version). Columns that record how one
run obtained a row rather than what the row says (:data:`PROVENANCE_COLUMNS`: whether a model
call was answered from the exchange store, its latency and retry count, which version's run
produced the row) are kept in the table but left out of its content hash; the manifest names
them per table.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import hashlib
import json
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from miscue import graph_store, ledger
from miscue.canonical import canonical_json, content_hash, file_sha256
from miscue.errors import CorpusError

FORMAT = "miscue-corpus/1"
CORPORA_DIR = "corpora"
STAGING_DIR = ".staging"  # under artifacts/, next to corpora/: never inside the read root
VERSION_RE = re.compile(r"^v(\d{4})$")
VERSION_GLOB = "v[0-9][0-9][0-9][0-9]"  # DuckDB/pathlib glob matching exactly the version names

# ------------------------------------------------------------------------------------ schemas

_STR, _STRS = pa.string(), pa.list_(pa.string())


def _extend(schema: pa.Schema, *fields: tuple[str, pa.DataType]) -> pa.Schema:
    for name, typ in fields:
        schema = schema.append(pa.field(name, typ))
    return schema


#: The tables of a version, in publication order, with their Parquet schemas. The ledger tables
#: are miscue.ledger.SCHEMAS; the graph tables are miscue.graph_store.SCHEMAS (its ``ledger`` is
#: published as ``graph_ledger``). Two tables carry extra columns: ``llm_calls`` the fault types
#: of the attempts that issued each call and the version whose run produced the row; ``edges``
#: its benchmark (so every table can be filtered by benchmark).
SCHEMAS: dict[str, pa.Schema] = {
    "samples": ledger.SCHEMAS["samples"],
    "attempts": ledger.SCHEMAS["attempts"],
    "cells": ledger.SCHEMAS["cells"],
    "llm_calls": _extend(ledger.SCHEMAS["llm_calls"], ("fault_types", _STRS), ("run_version", _STR)),
    "graphs": graph_store.SCHEMAS["graphs"],
    "nodes": graph_store.SCHEMAS["nodes"],
    "edges": _extend(graph_store.SCHEMAS["edges"], ("benchmark", _STR)),
    "graph_ledger": graph_store.SCHEMAS["ledger"],
}
TABLES: tuple[str, ...] = tuple(SCHEMAS)
REQUIRED_TABLES = ("samples", "attempts", "graphs", "edges", "llm_calls")

#: Per-run columns, excluded from the table content hash (see the module docstring).
PROVENANCE_COLUMNS: dict[str, tuple[str, ...]] = {
    "llm_calls": ("cached", "latency_s", "attempts", "run_version"),
}

#: Deterministic row order of the published files (the content hash does not depend on it).
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "samples": ("benchmark", "sample_id"),
    "attempts": ("benchmark", "graph_id", "cell_id", "attempt"),
    "cells": ("benchmark", "graph_id", "cell_id"),
    "llm_calls": ("benchmark", "call_id", "role", "run_version"),
    "graphs": ("benchmark", "graph_id"),
    "nodes": ("benchmark", "graph_id", "role", "intent_id"),
    "edges": ("benchmark", "graph_id", "src", "dst"),
    "graph_ledger": ("benchmark", "task_id"),
}


def table(name: str, rows: Iterable[dict[str, Any]]) -> pa.Table:
    """Rows (dicts) as a corpus table with the published schema; missing columns are null."""
    schema = SCHEMAS[name]
    return pa.Table.from_pylist([{f: r.get(f) for f in schema.names} for r in rows], schema=schema)


# ------------------------------------------------------------------------------------ errors


class VersionExists(CorpusError, FileExistsError):
    """A published version is never overwritten."""


class UnknownVersion(CorpusError, LookupError):
    pass


# ------------------------------------------------------------------------------------ hashing


def _hash_rows(encoded: list[str]) -> str:
    h = hashlib.sha256()
    for line in sorted(encoded):
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def row_json(row: dict[str, Any], skip: Iterable[str] = ()) -> str:
    """The canonical encoding of one row (sorted keys; ``skip`` columns left out)."""
    skip = set(skip)
    return canonical_json({k: v for k, v in row.items() if k not in skip})


def content_hash_table(name: str, tbl: pa.Table) -> str:
    """Content hash of a table: sha256 of its sorted canonical row encodings, provenance columns
    excluded. Independent of row order and of the Parquet bytes."""
    skip = PROVENANCE_COLUMNS.get(name, ())
    return _hash_rows([row_json(r, skip) for r in tbl.to_pylist()])


# ------------------------------------------------------------------------------------ versions


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


def read_table(artifacts: Path, version: str, name: str) -> pa.Table:
    return pq.read_table(version_dir(artifacts, version) / f"{name}.parquet")


# ------------------------------------------------------------------------------------ rename


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


# ------------------------------------------------------------------------------------ publish


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


# ------------------------------------------------------------------------------------ verify


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


# ------------------------------------------------------------------------------------ datasheet

COLUMN_DOCS: dict[str, dict[str, str]] = {
    "samples": {
        "_": "One row per admitted sample: a request that carries the planned fault, verified by two extractors and by execution.",
        "sample_id": "content hash of graph, fault plan and request text",
        "benchmark": "host benchmark (e.g. tau2-retail)",
        "task_id": "the host task the true intent was lifted from",
        "graph_id": "the intent graph (graphs.graph_id)",
        "intent_id": "the true (root) intent",
        "k": "number of fault components (1 = single fault)",
        "fault_types": "the planned fault type(s)",
        "families": "their families (intention, premise, parameter, expression)",
        "targets": "target slot per component (null for whole-message / added-detail faults)",
        "query": "the opening request as the user says it",
        "conditions_json": "the true conditions (canonical JSON: slot, op, value)",
        "gt_kind": "ground-truth kind (database states for tau2)",
        "gt_hash": "hash of the ground-truth outcome set",
        "gt_value": "the acceptable outcomes (state hashes)",
        "shift_options": "the graph's children: operator, delta, target intent, its ground-truth hash, whether the truth moved, a scripted announcement",
        "evidence_json": "the extractors' blind and targeted outputs and the writer's materials",
        "readings_json": "the literal reading(s) executed for admission, with their outcomes",
        "readings_executed": "how many literal readings were executed (0 is never admitted)",
        "models_json": "model id per role",
        "card_version": "hash of the prompt card used by the writer",
        "attempt": "which attempt of the cell was admitted (0-based)",
        "split": "the host task's split",
    },
    "attempts": {
        "_": "The full ledger: every attempt of every planned cell, admitted or not, with a stable verdict code.",
        "cell_id": "the cell (graph x fault plan)",
        "attempt": "attempt index within the cell (0-based)",
        "text": "the writer's output (null when writing failed)",
        "materials_json": "the plan's materials given to the writer (target, wrong value, extra detail ...)",
        "blind_a": "extractor A's blind answer (which flaw on which requirement), JSON",
        "blind_b": "extractor B's blind answer (null when A already failed the plan)",
        "targeted_a": "extractor A's targeted form for the class it found, JSON",
        "targeted_b": "extractor B's targeted form, JSON",
        "readings_json": "literal readings executed for admission and their outcomes",
        "readings_executed": "number of literal readings executed",
        "truth_hash": "ground-truth hash of the true intent",
        "call_ids": "model exchanges of this attempt (llm_calls.call_id)",
        "card_version": "writer card hash",
        "admitted": "true when this attempt was admitted",
        "stage": "the stage that decided: plan, write, text, extract, agree, admit",
        "code": "stable verdict code, e.g. text:leaked_slot_name or admitted",
        "detail": "human-readable detail of the verdict",
    },
    "cells": {
        "_": "One row per (graph, fault type): admitted, rejected (no admitted attempt), skipped (not applicable to this intent) or unsupported (by this host).",
        "status": "admitted | rejected | skipped | unsupported",
        "code": "admitted, the last attempt's verdict code, or plan:<status>",
        "detail": "verdict detail or the skip / unsupported reason",
        "attempts_used": "attempts made for the cell",
        "sample_id": "the admitted sample (null otherwise)",
    },
    "llm_calls": {
        "_": "One row per model request issued by the pipeline (answered by a model or from the exchange store).",
        "call_id": "sha256 of the canonical request (model, messages, parameters, card version): the exchange store key",
        "role": "writer | extractor_a | extractor_b",
        "model": "litellm model string",
        "cached": "answered from the exchange store by this row's run (no model call). Provenance: not in the content hash",
        "prompt_tokens": "prompt tokens of the exchange",
        "completion_tokens": "completion tokens of the exchange",
        "cost": "cost in USD of the exchange (0 for the offline baselines)",
        "latency_s": "latency of the model call when it was made. Provenance",
        "attempts": "requests sent for the exchange, retries included. Provenance",
        "card_version": "card hash the request was rendered from",
        "fault_types": "fault types of the attempts that issued this request",
        "run_version": "the version whose run produced this row (carried-over rows keep their parent's). Provenance",
    },
    "graphs": {
        "_": "One row per intent graph: a host task's true intent and its executed alternatives.",
        "env_id": "environment identity (host data included)",
        "root_intent_id": "the true intent",
        "children": "number of child intents",
        "moved_edges": "edges whose ground truth differs from the root's",
        "refine": "children per operator", "relax": "children per operator",
        "substitute": "children per operator", "pivot": "children per operator",
        "root_gt_hash": "root ground-truth hash", "root_gt_size": "number of acceptable outcomes of the root",
        "config_hash": "hash of the graph-relevant configuration",
    },
    "nodes": {
        "_": "Every intent of every graph with its executed ground truth.",
        "role": "root | child", "is_seed": "the intent is a host task's own intent",
        "source_task": "task the intent came from", "base_json": "the non-negotiable frame",
        "conditions": "the conditions (slot, op, canonical JSON value)",
    },
    "edges": {
        "_": "Root -> child edges of each graph.",
        "src": "root intent", "dst": "child intent", "operator": "refine | relax | substitute | pivot",
        "delta_json": "what changed", "provenance": "real (another host task) | synthetic",
        "gt_moved": "the child's ground truth differs from the root's",
    },
    "graph_ledger": {
        "_": "One row per host task: whether it became a graph, and if not, why (Tasks in the report).",
        "status": "built | dropped | duplicate", "code": "stable code of the outcome",
    },
}


def datasheet(man: dict[str, Any]) -> str:
    """The Markdown datasheet of a version (from its manifest)."""
    models = man.get("models", {})
    offline = man.get("offline_baselines")
    lines = [
        f"# miscue corpus {man['version']}",
        "",
        f"Parent version: {man.get('parent') or 'none (a fresh build)'}. Created {man['created_at']}. "
        f"Code: `{man['code_version']}`. Configuration hash: `{man['config_hash'][:16]}`.",
        "",
        "## What this is",
        "",
        "Verified *miscommunicated* opening requests over executable agent benchmarks. Each admitted sample pairs a "
        "host task's true intent (an executable condition set whose ground truth was executed in the host's own "
        "environment) with a request written to carry exactly the planned communication fault, the evidence that two "
        "independent extractors recovered that fault, the evidence that executing the request's literal reading gives "
        "a different answer than the truth, and the intent graph of alternative goals with executed ground truth. "
        "Nothing in a sample's ground truth comes from a model.",
        "",
        "## How it was made",
        "",
        "load host tasks -> validate and lift to true intents -> build intent graphs (every node executed) -> plan one "
        "cell per graph and applicable fault type -> up to N attempts per cell: write, mechanical text checks, blind "
        "and targeted extraction by two extractors of different families, agreement, executable admission -> publish "
        "(this directory) -> report. Every attempt is in `attempts`; every model exchange in `llm_calls`.",
        "",
        "Models: " + ", ".join(f"{role} `{m}`" for role, m in sorted(models.items())) + ".",
        "",
    ]
    if offline:
        lines += [
            "**The models are the embedded offline baselines** (`offline/...`): deterministic, CPU-only algorithms "
            "registered as a litellm provider so the pipeline runs with no keys. The writer realises each fault card's "
            "operation from the intent; the extractors are independent algorithms (cue and value matching vs. parsing "
            "the text into conditions). They are honest baselines for running and testing the pipeline, **not** a "
            "substitute for real models: their requests are templated and far less varied than human or LLM text, and "
            "their agreement and rejection rates say nothing about real models.",
            "",
        ]
    if man.get("regeneration"):
        r = man["regeneration"]
        lines += [f"This version regenerated fault type(s) {', '.join(r.get('fault_types', []))} for "
                  f"{', '.join(r.get('benchmarks', []))} from {man.get('parent')}; every other row was carried over "
                  "unchanged from the parent.", ""]
    lines += [
        "Rejection rates use the reference denominator: cells = graphs x applicable fault types; a cell is rejected "
        "when none of its attempts was admitted. Skipped (not applicable to the intent) and unsupported (by the host) "
        "cells are listed in `cells` but are not in the denominator.",
        "",
        "## Limits",
        "",
        "- Ground truth is what the host environment executes; host bugs are inherited (see DESIGN section 11).",
        "- A fault type a host cannot verify by execution is unsupported there, never admitted silently.",
        "- Single-fault cells (k = 1) only in this version unless `k` says otherwise.",
        "- Samples are as good as the models that wrote and checked them; see the models above.",
        "",
        "## Integrity",
        "",
        "`manifest.json` holds the sha256 of every file and the content hash of every table (sorted canonical rows; "
        "provenance columns excluded, listed per table). `miscue verify-corpus " + man["version"] + "` recomputes them.",
        "",
        "## Tables",
        "",
    ]
    for name, meta in man.get("tables", {}).items():
        docs = COLUMN_DOCS.get(name, {})
        lines += [f"### {name} ({meta['rows']} rows)", "", docs.get("_", ""), "", "| column | meaning |", "|---|---|"]
        shared = {**COLUMN_DOCS["samples"], **COLUMN_DOCS["attempts"]}
        for col in meta["columns"]:
            lines.append(f"| `{col}` | {docs.get(col) or shared.get(col, '')} |")
        lines.append("")
    return "\n".join(lines)
