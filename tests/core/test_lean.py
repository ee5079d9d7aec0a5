"""The lean queue and flag behave as the asyncio.Queue and asyncio.Event they replace on
an accepted socket, for every operation uvicorn's protocol uses, cancellation included,
and hold no list while empty; a Wake is waited on again and again by one task, on
asyncio's loop and uvloop's, the task waiting on it and not on a future of its own."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
import uvloop
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.lean import Flag, ReceiveQueue, Wake


def test_the_queue_is_fifo_and_serves_getters_in_the_order_they_came() -> None:
    async def check() -> None:
        queue = ReceiveQueue(asyncio.get_running_loop(), [1, 2])
        assert queue.qsize() == 2 and not queue.empty()
        assert [await queue.get(), queue.get_nowait()] == [1, 2]
        assert queue.empty() and queue.qsize() == 0
        with pytest.raises(asyncio.QueueEmpty):
            queue.get_nowait()
        getters = [asyncio.ensure_future(queue.get()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(g.done() for g in getters)
        for n in range(3):
            queue.put_nowait(n)
        assert await asyncio.gather(*getters) == [0, 1, 2]

    asyncio.run(check())


def test_a_cancelled_getter_loses_no_item() -> None:
    async def check() -> None:
        queue = ReceiveQueue(asyncio.get_running_loop())
        first = asyncio.ensure_future(queue.get())
        second = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        # the first is woken for the item, then cancelled before it runs
        queue.put_nowait("x")
        first.cancel()
        assert await asyncio.wait_for(second, 1) == "x"
        with pytest.raises(asyncio.CancelledError):
            await first
        # a getter cancelled while waiting leaves nothing behind
        third = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        third.cancel()
        with pytest.raises(asyncio.CancelledError):
            await third
        assert queue._getters is None and queue._items is None
        queue.put_nowait("y")
        assert await asyncio.wait_for(queue.get(), 1) == "y"

    asyncio.run(check())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(), st.none()), max_size=30))
def test_the_queue_hands_out_what_asyncio_queue_hands_out(ops: list[int | None]) -> None:
    """A sequence of puts (an int) and gets (None) gives the same items in the same
    order from both queues, the gets waiting where the queue is empty."""

    async def run(queue: Any) -> list[Any]:
        got: list[Any] = []
        waiting: list[asyncio.Future[Any]] = []
        for op in ops:
            if op is None:
                waiting.append(asyncio.ensure_future(queue.get()))
            else:
                queue.put_nowait(op)
            await asyncio.sleep(0)
        for n in range(sum(op is None for op in ops)):  # every get is answered
            queue.put_nowait(-n - 1)
        got = list(await asyncio.gather(*waiting))
        return [*got, queue.qsize()]

    async def both() -> tuple[list[Any], list[Any]]:
        return await run(asyncio.Queue()), await run(ReceiveQueue(asyncio.get_running_loop()))

    expected, lean = asyncio.run(both())
    assert lean == expected


def test_the_flag_wakes_every_waiter_when_set_and_none_after_a_clear() -> None:
    async def check() -> None:
        flag = Flag(asyncio.get_running_loop())
        assert not flag.is_set()
        waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(w.done() for w in waiters)
        flag.set()
        flag.clear()  # cleared before they run: those already woken still return
        assert await asyncio.gather(*waiters) == [True, True, True]
        late = asyncio.ensure_future(flag.wait())
        await asyncio.sleep(0)
        assert not late.done()
        late.cancel()
        with pytest.raises(asyncio.CancelledError):
            await late
        assert flag._waiters is None
        flag.set()
        assert flag.is_set() and await asyncio.wait_for(flag.wait(), 1) is True

    asyncio.run(check())


def test_they_cost_a_fraction_of_what_they_replace() -> None:
    async def sizes() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        queue, event = asyncio.Queue(), asyncio.Event()  # type: ignore[var-annotated]
        parts: Any = queue
        asyncio_cost = sum(
            sys.getsizeof(x)
            for x in (queue, vars(queue), parts._getters, parts._putters, parts._queue)
        ) + sum(sys.getsizeof(x) for x in (event, vars(event), event._waiters))
        lean_cost = sys.getsizeof(ReceiveQueue(loop)) + sys.getsizeof(Flag(loop))
        return asyncio_cost, lean_cost

    asyncio_cost, lean_cost = asyncio.run(sizes())
    assert lean_cost * 10 < asyncio_cost


@pytest.mark.parametrize("run", [asyncio.run, uvloop.run], ids=["asyncio", "uvloop"])
def test_a_wake_is_waited_on_again_and_again_and_cancelled_like_a_future(run: Any) -> None:
    async def check() -> None:
        loop = asyncio.get_running_loop()
        wake = Wake(loop)
        woken: list[int] = []

        async def pump(rounds: int) -> None:
            for i in range(rounds):
                await wake
                woken.append(i)

        wake.set()  # nobody waits: nothing happens, nothing is kept for later
        task = loop.create_task(pump(3))
        for i in range(3):
            await asyncio.sleep(0)
            assert wake.waiting and not wake.done() and woken == list(range(i))
            assert task._fut_waiter is wake  # type: ignore[attr-defined]  # no future made
            wake.set()
            wake.set()  # twice: one wake
            assert not wake.waiting and wake.done()
            await asyncio.sleep(0)
        await asyncio.wait_for(task, 1)
        assert woken == [0, 1, 2] and not wake.waiting

        # Cancelled while it waits: the task gets CancelledError at its await.
        task = loop.create_task(pump(1))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not wake.waiting and not wake.cancelled()

        # Cancelled after it was woken, before it ran: the next wait starts afresh.
        task = loop.create_task(pump(1))
        await asyncio.sleep(0)
        wake.set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        woken.clear()
        task = loop.create_task(pump(2))
        await asyncio.sleep(0)
        assert wake.waiting
        wake.set()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert woken == [0] and wake.waiting
        wake.set()
        await asyncio.wait_for(task, 1)
        assert woken == [0, 1]

        # One waiter at a time.
        task = loop.create_task(pump(1))
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError):
            await wake
        wake.set()
        await asyncio.wait_for(task, 1)

    run(check())
