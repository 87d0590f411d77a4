"""A corpus version as format 1 (``miscue-corpus/1``) wrote it, made from one published today.

Format 2 renamed the request text of ``attempts`` from ``text`` to ``query``; format 3 added the
extractors' readings (``reading_a``, ``reading_b``); nothing else in the files changed.
:func:`as_format_1` rewrites a published version the way the format-1 code wrote it:
``attempts.parquet`` with the old column name and without the readings, and a manifest saying
``miscue-corpus/1`` whose file digest, column list and content hash describe those files (so
``verify-corpus`` passes).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pyarrow.parquet as pq

from miscue import corpus
from miscue.canonical import file_sha256


def as_format_1(artifacts: Path, version: str) -> None:
    d = corpus.version_dir(artifacts, version)
    os.chmod(d, 0o755)
    for p in d.iterdir():
        os.chmod(p, 0o644)
    path = d / "attempts.parquet"
    tbl = pq.read_table(path)
    tbl = tbl.drop_columns([c for c in ("reading_a", "reading_b") if c in tbl.column_names])
    old = tbl.rename_columns(["text" if c == "query" else c for c in tbl.column_names])
    pq.write_table(old, path)
    man = json.loads((d / "manifest.json").read_text())
    man["format"] = "miscue-corpus/1"
    man["files"]["attempts.parquet"] = file_sha256(str(path))
    man["tables"]["attempts"]["columns"] = old.column_names
    man["tables"]["attempts"]["content_hash"] = corpus.content_hash_table("attempts", old)
    (d / "manifest.json").write_text(json.dumps(man, indent=2, sort_keys=True))
    for p in d.iterdir():
        os.chmod(p, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    os.chmod(d, 0o555)
