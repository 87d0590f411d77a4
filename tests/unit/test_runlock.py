"""The run lock names its holder, even when refused in the moment before the holder wrote its name."""

import fcntl
import json
import os
import threading

import pytest

from miscue import runlock
from miscue.runlock import RunLocked, lock_path, run_lock


def test_a_run_refused_before_the_holder_wrote_its_pid_still_names_it(tmp_path):
    path = lock_path(tmp_path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # another run: flock taken, pid not yet written
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        late = threading.Timer(0.2, lambda: os.pwrite(fd, json.dumps({"pid": 4242, "command": "miscue build"}).encode(), 0))
        late.start()
        with pytest.raises(RunLocked) as refused, run_lock(tmp_path):
            pass
        late.join()
        assert "pid 4242: miscue build" in str(refused.value)
    finally:
        os.close(fd)


def test_a_holder_that_never_names_itself_is_reported_unknown(tmp_path, monkeypatch):
    fd = os.open(lock_path(tmp_path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        monkeypatch.setattr(runlock, "NAME_PATIENCE_S", 0.1)
        with pytest.raises(RunLocked, match=r"pid \?: \?"), run_lock(tmp_path):
            pass
    finally:
        os.close(fd)


def test_the_lock_is_reentrant_and_free_after_the_block(tmp_path):
    with run_lock(tmp_path, command="outer"), run_lock(tmp_path, command="inner"):
        assert json.loads(lock_path(tmp_path).read_text())["command"] == "outer"
    with run_lock(tmp_path, command="again"):
        pass
