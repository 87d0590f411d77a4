"""Progress in a log (no terminal): a line when a stage starts and ends, heartbeats between."""

from __future__ import annotations

import time

from miscue.flows.cli.progress import LogLines, progress_mode


def test_a_stage_is_announced_finished_and_beaten_in_between():
    lines: list[str] = []
    log = LogLines(0.02, lines.append)
    log.update("cells tau2-airline", 0, 4)
    log.update("cells tau2-airline", 2, 4, admitted=1, calls=9)
    log.beat()
    log.update("cells tau2-airline", 4, 4, admitted=3, calls=17)
    log.beat()  # a finished stage is not beaten again
    assert [line.split("] ", 1)[1] for line in lines] == [
        "cells tau2-airline: started, 0/4",
        "cells tau2-airline: working, 2/4, 1 admitted, 9 calls",
        "cells tau2-airline: done, 4/4, 3 admitted, 17 calls",
    ]


def test_the_heartbeat_runs_by_itself_until_the_block_ends():
    lines: list[str] = []
    log = LogLines(0.01, lines.append)
    log.update("graphs webshop", 1, 10)
    with log.beating():
        time.sleep(0.1)
    beats = len([line for line in lines if "working" in line])
    time.sleep(0.05)
    assert beats >= 2 and len([line for line in lines if "working" in line]) == beats  # stopped with the block


def test_quiet_silences_and_a_log_gets_lines():
    assert progress_mode(quiet=True) == "off"
    assert progress_mode(as_json=True) == "lines"  # under pytest neither stream is a terminal
    assert progress_mode() == "lines"
