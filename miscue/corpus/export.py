"""A published version in the Hugging Face ``datasets`` layout (DESIGN section 9): ``miscue export``.

``DIR/`` gets:

- ``data/<table>/<split>-00000-of-00001.parquet``: one config per corpus table (all eight of
  :data:`~miscue.corpus.tables.TABLES`: ``samples`` is the dataset, and the others are what makes
  it auditable: ``attempts`` the full ledger, ``cells`` and ``graph_ledger`` the denominators of
  the report's rejection rates and task counts, ``llm_calls`` the cost, ``graphs``/``nodes``/
  ``edges`` the alternative intents the samples' ``shift_options`` point to). A table with a
  ``split`` column (``samples``: the host task's split) has one split per value; the others one
  ``train`` split. Rows and columns are the published ones; every config's content hash is checked
  against the manifest before anything is moved into place. A table without rows is no config
  (``datasets`` cannot load a Parquet file without rows); the card lists it with 0 rows.
- ``README.md``: the dataset card. YAML front matter (``configs`` with each config's data files
  per split, ``license``, ``task_categories``, ``size_categories`` from the number of samples,
  ``pretty_name``), then the version's ``datasheet.md``, its provenance and its hashes.
- ``manifest.json``: the version's manifest, byte for byte.

So ``datasets.load_dataset(DIR, "samples")`` works offline. ``DIR`` must not exist or be empty
(:class:`~miscue.errors.BadInput` otherwise, nothing written); the export is written next to it
and renamed into place, and the source version is verified first.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from miscue.canonical import file_sha256
from miscue.corpus.datasheet import COLUMN_DOCS
from miscue.corpus.tables import TABLES, content_hash_table
from miscue.corpus.verify import verify_corpus
from miscue.corpus.versions import manifest, read_table, resolve, version_dir
from miscue.errors import BadInput, CorpusError

#: The configs an export writes, in card order (``samples`` first: the default config).
EXPORTED: tuple[str, ...] = TABLES
DEFAULT_SPLIT = "train"
TASK_CATEGORIES = ["text-classification", "text-generation"]
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
          (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))


@dataclass
class Export:
    """What an export wrote: per config, its splits and row counts; the files with their sha256."""

    version: str
    dest: Path
    configs: dict[str, dict[str, int]] = field(default_factory=dict)  # config -> split -> rows
    files: dict[str, str] = field(default_factory=dict)  # path under dest -> sha256

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "dir": str(self.dest), "configs": self.configs, "files": self.files}


def size_category(n: int) -> str:
    """The Hugging Face ``size_categories`` bucket of ``n`` rows."""
    for bound, name in _SIZES:
        if n < bound:
            return name
    return "n>1B"


def split_name(value: Any) -> str:
    """A split value as a Hugging Face split name (word characters only)."""
    name = re.sub(r"\W+", "_", str(value or "").strip()).strip("_")
    return name or "unsplit"


def _splits(tbl: pa.Table) -> dict[str, pa.Table]:
    if "split" not in tbl.schema.names or tbl.num_rows == 0:
        return {DEFAULT_SPLIT: tbl}
    names = [split_name(v) for v in tbl.column("split").to_pylist()]
    out = {}
    for name in sorted(set(names)):
        out[name] = tbl.filter(pa.array([n == name for n in names]))
    return out


def _check_dest(dest: Path) -> None:
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise BadInput(f"export directory {dest} exists and is not a directory; nothing written")
    if dest.is_dir() and any(dest.iterdir()):
        raise BadInput(f"export directory {dest} is not empty; nothing written (export into a new or empty directory)")


def export_version(artifacts: Path, version: str | None, dest: Path, license: str = "unknown") -> Export:
    """Write ``version`` (None or ``latest``: the latest) to ``dest`` in the datasets layout."""
    artifacts, dest = Path(artifacts), Path(dest).absolute()
    version = resolve(artifacts, version)
    _check_dest(dest)
    check = verify_corpus(version, artifacts)
    if not check.ok:
        raise CorpusError(f"{version} does not match its manifest ({len(check.problems)} problem(s)); "
                          f"run `miscue verify-corpus {version}`; nothing exported")
    man = manifest(artifacts, version)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = dest.parent / f".{dest.name}.export-{uuid.uuid4().hex}"
    staging.mkdir()
    result = Export(version, dest)
    try:
        for name in EXPORTED:
            if man["tables"].get(name, {}).get("rows"):  # datasets cannot load a Parquet file without rows
                _write_config(artifacts, version, name, man, staging, result)
        result.files = _hashes(staging)  # the data files, listed in the card
        shutil.copyfile(version_dir(artifacts, version) / "manifest.json", staging / "manifest.json")
        datasheet = (version_dir(artifacts, version) / "datasheet.md").read_text(encoding="utf-8")
        (staging / "README.md").write_text(card(man, result, datasheet, license), encoding="utf-8")
        result.files = _hashes(staging)
        _move_into_place(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): file_sha256(str(p)) for p in sorted(root.rglob("*")) if p.is_file()}


def _write_config(artifacts: Path, version: str, name: str, man: dict[str, Any], staging: Path, result: Export) -> None:
    tbl = read_table(artifacts, version, name)
    parts = _splits(tbl)
    folder = staging / "data" / name
    folder.mkdir(parents=True)
    written = []
    for split, part in parts.items():
        pq.write_table(part, folder / f"{split}-00000-of-00001.parquet", compression="zstd")
        written.append(part)
    merged = pa.concat_tables(written) if written else tbl
    if content_hash_table(name, merged) != man["tables"][name]["content_hash"]:  # pragma: no cover - a bug guard
        raise CorpusError(f"exported {name} does not hash to the manifest's content hash; nothing exported")
    result.configs[name] = {split: part.num_rows for split, part in parts.items()}


def _move_into_place(staging: Path, dest: Path) -> None:
    """Rename ``staging`` to ``dest``; an empty ``dest`` is replaced, anything else refused."""
    try:
        os.rename(staging, dest)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise BadInput(f"export directory {dest} is no longer empty; nothing written") from exc
        raise


def front_matter(man: dict[str, Any], result: Export, license: str) -> dict[str, Any]:
    """The card's YAML front matter (Hugging Face dataset card metadata)."""
    samples = sum(result.configs.get("samples", {}).values())
    configs = []
    for name, splits in result.configs.items():
        entry: dict[str, Any] = {"config_name": name}
        if name == "samples":
            entry["default"] = True
        entry["data_files"] = [{"split": s, "path": f"data/{name}/{s}-00000-of-00001.parquet"} for s in splits]
        configs.append(entry)
    tags = ["miscommunication", "clarification", "agents", "tool-use", "synthetic"]
    if man.get("offline_baselines"):
        tags.append("offline-baselines")
    return {
        "pretty_name": f"miscue corpus {man['version']}",
        "license": license,
        "language": ["en"],
        "task_categories": list(TASK_CATEGORIES),
        "tags": tags,
        "size_categories": [size_category(samples)],
        "configs": configs,
    }


def card(man: dict[str, Any], result: Export, datasheet: str, license: str) -> str:
    """The dataset card: front matter, how to load it, the datasheet, provenance and hashes."""
    meta = yaml.safe_dump(front_matter(man, result, license), sort_keys=False, allow_unicode=True)
    version = man["version"]
    lines = ["---", meta.rstrip("\n"), "---", "", f"# miscue corpus {version}", "",
             f"Exported by `miscue export {version}` from the published, immutable corpus version {version} "
             "(Parquet under `data/`, one config per table; `manifest.json` is the version's manifest, byte for byte).",
             "", "```python", "from datasets import load_dataset", "",
             'samples = load_dataset("path/to/this/directory", "samples")  # or attempts, cells, llm_calls, ...',
             "```", "", "| config | splits (rows) | what |", "|---|---|---|"]
    for name in man.get("tables", {}):
        splits = result.configs.get(name)
        rows = ", ".join(f"{s} ({n})" for s, n in splits.items()) if splits else "none: the table has no rows"
        lines.append(f"| `{name}` | {rows} | {COLUMN_DOCS.get(name, {}).get('_', '')} |")
    lines += ["", "## Datasheet", ""]
    body = datasheet.splitlines()
    if body and body[0].startswith("# "):
        body = body[1:]
    while body and not body[0].strip():
        body = body[1:]
    lines += ["#" + ln if ln.startswith("#") else ln for ln in body]  # one level down, under this card's title
    lines += ["", "## Provenance", "", "| field | value |", "|---|---|"]
    for key in ("version", "parent", "kind", "created_at", "code_version", "config_hash", "format", "offline_baselines"):
        if key in man:
            lines.append(f"| {key} | `{'none' if man[key] is None else man[key]}` |")
    for role, model in sorted(man.get("models", {}).items()):
        lines.append(f"| model: {role} | `{model}` |")
    for fault, card_version in sorted(man.get("card_versions", {}).items()):
        lines.append(f"| card: {fault} | `{card_version}` |")
    for source, hashes in sorted(man.get("input_hashes", {}).items()):
        for item, digest in sorted(hashes.items()) if isinstance(hashes, dict) else [("", hashes)]:
            lines.append(f"| input: {source} {item} | `{digest}` |")
    lines += ["", "## Hashes", "",
              "Table content hashes (sha256 of the sorted canonical rows, provenance columns left out) are the "
              "manifest's; each exported config hashes to the same value (checked when it was exported). "
              f"`miscue verify-corpus {version}` recomputes them on the published version.", "",
              "| table | rows | content hash |", "|---|---|---|"]
    for name, meta in man.get("tables", {}).items():
        lines.append(f"| `{name}` | {meta['rows']} | `{meta['content_hash']}` |")
    lines += ["", "sha256 of the published version's files:", "", "| file | sha256 |", "|---|---|"]
    lines += [f"| `{f}` | `{digest}` |" for f, digest in sorted(man.get("files", {}).items())]
    lines += ["", "sha256 of this export's data files:", "", "| file | sha256 |", "|---|---|"]
    lines += [f"| `{f}` | `{digest}` |" for f, digest in sorted(result.files.items()) if f.startswith("data/")]
    return "\n".join(lines) + "\n"
