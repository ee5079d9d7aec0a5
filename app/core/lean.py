"""Small asyncio primitives for objects that live as long as a socket.

A server process holds thousands of sockets for hours, and uvicorn gives each one an
``asyncio.Queue`` for what it receives and an ``asyncio.Event`` for "the transport may be
written". Each deque inside them is 0.7 KiB even when empty, so the two come to about
3 KiB a socket while holding nothing. These do the same jobs, with only the operations
uvicorn's protocol calls, in about 0.2 KiB: their lists are allocated only when there is
something to hold. ``app.tables.live.sockets.drop_handshake`` swaps them in once a socket is
accepted.

``Wake`` is a socket's pump's wait for work: one object, waited on again and again,
where an ``asyncio.Future`` is made for each wait and, with it, an iterator; both stay
alive until the next wake, so at every collection a young generation holds three objects
for each socket that received a message since the last one (decision 0007). A task can
wait on any object that speaks the future protocol (``_asyncio_future_blocking``,
``get_loop``, ``add_done_callback``, ``result``, ``cancel``); this one speaks it for one
waiter at a time, and only the task's wake-up callback is new at each wait."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from typing import Any, cast

Waiters = list[asyncio.Future[None]] | None  # None while nobody waits


def _joined(waiters: Waiters, waiter: asyncio.Future[None]) -> list[asyncio.Future[None]]:
    if waiters is None:
        return [waiter]
    waiters.append(waiter)
    return waiters


def _without(waiters: Waiters, waiter: asyncio.Future[None]) -> Waiters:
    if waiters is not None and waiter in waiters:
        waiters.remove(waiter)
    return waiters or None


def _wake_first(waiters: Waiters) -> Waiters:
    while waiters:
        waiter = waiters.pop(0)
        if not waiter.done():
            waiter.set_result(None)
            break
    return waiters or None


class ReceiveQueue:
    """An unbounded FIFO queue, as ``asyncio.Queue(maxsize=0)``: ``put_nowait``, ``get``,
    ``get_nowait``, ``empty``, ``qsize``. Getters are served in the order they came.

    With a ``sink`` set, the queue has no reader waiting on it: each item is offered to
    the sink while nothing is queued ahead of it, and an item the sink takes (it returns
    True) is its. One it declines is queued, and so is everything after it until the
    queue is emptied again, so the order holds; ``notify`` is called for each item
    queued, so that whoever drains the queue knows there is something to drain."""

    __slots__ = ("_items", "_loop", "_getters", "sink", "notify")

    def __init__(self, loop: asyncio.AbstractEventLoop, items: list[Any] | None = None) -> None:
        self._loop = loop
        self._items: list[Any] | None = items or None
        self._getters: Waiters = None
        self.sink: Callable[[Any], bool] | None = None
        self.notify: Callable[[], None] | None = None

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Any) -> None:
        sink = self.sink
        if sink is not None and self._items is None and sink(item):
            return
        if self._items is None:
            self._items = [item]
        else:
            self._items.append(item)
        if self._getters:
            self._getters = _wake_first(self._getters)
        notify = self.notify
        if notify is not None:
            notify()

    def get_nowait(self) -> Any:
        items = self._items
        if not items:
            raise asyncio.QueueEmpty
        item = items.pop(0)
        if not items:
            self._items = None
        return item

    async def get(self) -> Any:
        while not self._items:
            getter: asyncio.Future[None] = self._loop.create_future()
            self._getters = _joined(self._getters, getter)
            try:
                await getter
            except BaseException:
                getter.cancel()
                self._getters = _without(self._getters, getter)
                # woken, then cancelled before it ran: the item goes to the next getter
                if self._items and not getter.cancelled():
                    self._getters = _wake_first(self._getters)
                raise
        return self.get_nowait()


class Flag:
    """A settable flag that can be awaited, as ``asyncio.Event``: ``set``, ``clear``,
    ``is_set``, ``wait``."""

    __slots__ = ("_set", "_loop", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop, is_set: bool = False) -> None:
        self._loop = loop
        self._set = is_set
        self._waiters: Waiters = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters = _joined(self._waiters, waiter)
        try:
            await waiter
            return True
        finally:
            self._waiters = _without(self._waiters, waiter)


_IDLE, _WAITING, _SET, _CANCELLED = 0, 1, 2, 3


class Wake:
    """One task's reusable wait: ``await wake`` suspends the task until ``set()`` (or
    the task is cancelled); ``waiting`` is true from the moment the task is suspended
    until it is woken. ``set()`` while nobody waits does nothing: the waiter looks for
    its work before it waits, as a socket's pump looks at its queue. Only one task may
    wait at a time."""

    __slots__ = ("_loop", "_state", "_callback", "_context", "_asyncio_future_blocking")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._state = _IDLE
        self._callback: Callable[[Any], object] | None = None
        self._context: Any = None
        self._asyncio_future_blocking = False

    @property
    def waiting(self) -> bool:
        return self._state == _WAITING

    def set(self) -> None:
        if self._state == _WAITING:
            self._state = _SET
            self._fire()

    # -- the awaitable: ``await wake`` yields the object itself to the task once, and
    # returns when the task resumes the await after its wake-up.

    def __await__(self) -> Generator[Any, None, None]:
        # Its own iterator (no generator made per wait); typed as the generator an
        # ``__await__`` returns, whose ``__next__`` is all the await calls here.
        if self._state == _WAITING:
            raise RuntimeError("Wake: only one task may wait at a time")
        # _SET or _CANCELLED left by a wait its task left some other way (cancelled
        # after it was woken): a new wait starts afresh.
        self._state = _WAITING
        self._callback = self._context = None
        return cast(Generator[Any, None, None], self)

    def __iter__(self) -> Wake:
        return self

    def __next__(self) -> Wake:
        if self._state == _WAITING:
            self._asyncio_future_blocking = True
            return self
        self._state = _IDLE  # woken (_SET): the await returns
        raise StopIteration

    # -- the future protocol, as asyncio's Task uses it on what a coroutine yields

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def add_done_callback(self, fn: Callable[[Any], object], *, context: Any = None) -> None:
        self._callback, self._context = fn, context
        if self._state in (_SET, _CANCELLED):
            self._fire()

    def remove_done_callback(self, fn: Callable[[Any], object]) -> int:
        if self._callback is fn:
            self._callback = self._context = None
            return 1
        return 0

    def done(self) -> bool:
        return self._state in (_SET, _CANCELLED)

    def cancelled(self) -> bool:
        return self._state == _CANCELLED

    def cancel(self, msg: Any = None) -> bool:
        if self._state != _WAITING:
            return False
        self._state = _CANCELLED
        self._fire()
        return True

    def result(self) -> None:
        if self._state == _CANCELLED:
            self._state = _IDLE  # the task raises at its await; the wait is over
            raise asyncio.CancelledError()

    def exception(self) -> BaseException | None:
        return None

    def _fire(self) -> None:
        callback, context = self._callback, self._context
        self._callback = self._context = None
        if callback is not None:
            self._loop.call_soon(callback, self, context=context)
