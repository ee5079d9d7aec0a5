"""Stopping a background task for certain.

On Python 3.11 a cancellation can be swallowed when it lands inside ``asyncio.wait_for``
just as the awaited thing completes (redis-py, asyncpg and SQLAlchemy's pool all wait that
way). A periodic loop that loses its cancellation goes back to sleep and ticks on, and an
``await task`` after one ``cancel()`` then waits for ever: the app's shutdown hangs. So a
task is cancelled again until it is done, each time it comes back to an await.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.2


async def cancel_and_wait(task: asyncio.Task[object] | None) -> None:
    """Cancel ``task`` and return once it has finished, whatever it raised."""
    if task is None:
        return
    tries = 0
    while not task.done():
        task.cancel()
        tries += 1
        await asyncio.wait({task}, timeout=RETRY_SECONDS)
    if tries > 1:
        log.info("task %s needed %d cancellations to stop", task.get_name(), tries)
    if not task.cancelled():
        with contextlib.suppress(BaseException):
            task.result()  # retrieved, so asyncio does not report it as never retrieved


STEP_SECONDS = 10.0


async def bounded(name: str, step: Awaitable[object], seconds: float = STEP_SECONDS) -> None:
    """One step of a shutdown, given at most ``seconds``: a step that hangs (a store that
    does not answer, a task that will not stop) is cancelled, logged and left behind
    without waiting for it, so the process still exits and the next steps still run."""
    task = asyncio.ensure_future(step)
    await asyncio.wait({task}, timeout=seconds)
    if not task.done():
        task.cancel()
        log.warning("shutdown: %s did not stop within %.0f s; going on", name, seconds)
        return
    if not task.cancelled() and task.exception() is not None:
        log.warning("shutdown: %s failed", name, exc_info=task.exception())
