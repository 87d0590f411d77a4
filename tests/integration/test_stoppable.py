"""miscue.stoppable.run: SIGTERM stops a coroutine even when the process's SIGTERM handler raises
(as Prefect's does while a flow runs) and a background task would swallow what it raises.

Each case runs in its own Python process (signals go to the process), which sends itself SIGTERM
once the coroutine is under way; the coroutine would otherwise run for 20 s.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from miscue import stoppable

    class Terminated(BaseException):  # Prefect's TerminationSignal is a BaseException too
        pass

    def bridge(signum, frame):
        raise Terminated()

    async def busy():  # a background task the loop spends its time in (litellm's logging worker)
        while True:
            for _ in range(200_000):
                pass
            await asyncio.sleep(0)

    async def work():
        asyncio.get_running_loop().call_later(0.3, os.kill, os.getpid(), signal.SIGTERM)
        keeper = asyncio.create_task(busy())
        await asyncio.sleep(20)
        keeper.cancel()
        return "finished"

    mode = sys.argv[1]
    if mode != "default":
        signal.signal(signal.SIGTERM, bridge)
    runner = asyncio.run if mode == "plain" else stoppable.run
    try:
        print(runner(work()), flush=True)
    except Terminated:
        print("terminated", flush=True)
        sys.exit(7)
""")


def _child(mode: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=timeout)


def test_a_raising_handler_stops_the_run_through_stoppable():
    done = _child("bridge")
    assert (done.returncode, done.stdout.strip()) == (7, "terminated"), done.stderr[-2000:]


def test_the_default_handler_ends_the_process_with_sigterm():
    done = _child("default")
    assert done.returncode == -signal.SIGTERM, done.stdout + done.stderr[-2000:]


def test_plain_asyncio_run_loses_the_raising_handlers_exception():
    """The failure stoppable exists for: the handler raises inside the busy task, asyncio keeps
    the exception in that task, and the coroutine runs on for its full 20 s."""
    try:
        done = _child("plain", timeout=6)
    except subprocess.TimeoutExpired:
        return  # still running 5.7 s after the signal: the stop was lost
    pytest.fail(f"plain asyncio.run stopped on SIGTERM ({done.returncode}, {done.stdout!r}): this test's premise is gone")


def test_off_the_main_thread_it_is_asyncio_run():
    import asyncio
    import threading

    from miscue import stoppable

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    before = signal.getsignal(signal.SIGTERM)
    out: list[int] = []
    worker = threading.Thread(target=lambda: out.append(stoppable.run(answer())))
    worker.start()
    worker.join(10)
    assert out == [42]
    assert signal.getsignal(signal.SIGTERM) is before


def test_on_the_main_thread_the_handler_before_is_put_back():
    from miscue import stoppable

    def mine(signum, frame):  # pragma: no cover - never delivered
        raise AssertionError

    async def answer() -> int:
        assert signal.getsignal(signal.SIGTERM) is not mine, "the loop takes SIGTERM while the coroutine runs"
        return 42

    before = signal.signal(signal.SIGTERM, mine)
    try:
        assert stoppable.run(answer()) == 42
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, before)
