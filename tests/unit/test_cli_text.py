"""Text the command line cuts is marked as cut."""

from __future__ import annotations

from miscue.flows.cli.app import clip


def test_a_cut_text_ends_in_an_ellipsis_and_keeps_the_limit():
    assert clip("x" * 10, 10) == "x" * 10
    cut = clip('{"readings": [' + "1, " * 200 + "]}", 400)
    assert len(cut) == 400 and cut.endswith("…")
