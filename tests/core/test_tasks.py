"""A background loop that swallows a cancellation still stops, and an app's shutdown with
it (on Python 3.11 a cancel can be lost inside wait_for)."""

import asyncio

import pytest

from app.core.tasks import bounded, cancel_and_wait


async def test_a_loop_that_swallows_its_cancellation_is_stopped() -> None:
    ticks = 0
    swallowed = 0

    async def stubborn() -> None:
        nonlocal ticks, swallowed
        while True:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if swallowed < 3:  # as a lost cancellation would: the loop goes on
                    swallowed += 1
                    continue
                raise
            ticks += 1

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0.05)
    await asyncio.wait_for(cancel_and_wait(task), 5)
    assert task.done() and task.cancelled()
    assert swallowed == 3


async def test_a_finished_task_or_none_is_fine_and_its_error_is_retrieved() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_and_wait(task)
    await cancel_and_wait(None)
    assert isinstance(task.exception(), RuntimeError)


async def test_a_shutdown_step_that_hangs_is_left_behind_and_the_next_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    async def hangs() -> None:
        await asyncio.Event().wait()

    async def fails() -> None:
        raise RuntimeError("store away")

    async def works() -> None:
        ran.append("works")

    await asyncio.wait_for(bounded("stuck", hangs(), seconds=0.1), 5)
    await bounded("broken", fails())
    await bounded("fine", works())
    assert ran == ["works"]
    assert "stuck did not stop" in caplog.text and "broken failed" in caplog.text


async def test_a_shutdown_step_that_swallows_its_cancellation_is_still_left_behind() -> None:
    deaf_to_cancel = True

    async def deaf() -> None:
        while True:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if not deaf_to_cancel:
                    raise

    await asyncio.wait_for(bounded("deaf", deaf(), seconds=0.1), 5)
    # the step was left running; this test ends it so its loop closes cleanly
    deaf_to_cancel = False
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            await cancel_and_wait(task)
