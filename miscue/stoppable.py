"""Run a coroutine to completion in a way SIGTERM can stop, as Ctrl-C does.

``asyncio.run`` alone is not enough on the main thread: a SIGTERM handler that raises (Prefect's,
while a flow runs, raises ``TerminationSignal``) raises inside whichever task the loop happens to
be stepping, and asyncio keeps that exception in the task (only ``KeyboardInterrupt`` and
``SystemExit`` leave a loop), so a ``miscue build`` stopped by ``timeout``, systemd or a scheduler
went on running. Here SIGTERM is taken by the loop itself: it cancels the coroutine (every
finished exchange is already in the store, so a rerun resumes), the loop closes, the handler in
place before is restored, and the signal is delivered again to it -- outside any loop, where
Prefect's bridge raises into the flow (the run ends as crashed) and the default handler ends the
process (exit status 143).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``; on the main thread a SIGTERM cancels ``coro`` and is then handed
    to the handler that was installed before (see the module text)."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(coro)  # signals reach only the main thread (e.g. a Dask worker's task thread)
    before = signal.getsignal(signal.SIGTERM)
    stopped = threading.Event()
    try:
        return asyncio.run(_until_sigterm(coro, stopped))
    finally:
        signal.signal(signal.SIGTERM, before if before is not None else signal.SIG_DFL)
        if stopped.is_set():  # the SIGTERM the loop took, to the handler that was there before
            os.kill(os.getpid(), signal.SIGTERM)


async def _until_sigterm(coro: Coroutine[Any, Any, T], stopped: threading.Event) -> T:
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None

    def stop() -> None:
        stopped.set()
        main.cancel()

    loop.add_signal_handler(signal.SIGTERM, stop)
    try:
        return await coro
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
