"""Writing output directories so readers see the old content or the new, never a mix."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def replaced_directory(directory: Path) -> Iterator[Path]:
    """Yield a staging directory next to ``directory``; on success it replaces ``directory``.

    Staging lives beside the target with a dot prefix, so globbing readers that skip hidden
    entries never see half-written files. On error the staging directory is removed and the
    old content is untouched.
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = directory.parent / f".{directory.name}.tmp-{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = None
    if directory.exists():
        old = directory.parent / f".{directory.name}.old-{uuid.uuid4().hex}"
        os.rename(directory, old)
    os.rename(staging, directory)
    if old is not None:
        shutil.rmtree(old)
