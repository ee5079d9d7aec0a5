"""Two small asyncio primitives for objects that live as long as a socket.

A server process holds thousands of sockets for hours, and uvicorn gives each one an
``asyncio.Queue`` for what it receives and an ``asyncio.Event`` for "the transport may be
written". Each deque inside them is 0.7 KiB even when empty, so the two come to about
3 KiB a socket while holding nothing. These do the same jobs, with only the operations
uvicorn's protocol calls, in about 0.2 KiB: their lists are allocated only when there is
something to hold. ``app.tables.sockets.drop_handshake`` swaps them in once a socket is
accepted."""

from __future__ import annotations

import asyncio
from typing import Any


def _wake_first(waiters: list[asyncio.Future[None]]) -> None:
    while waiters:
        waiter = waiters.pop(0)
        if not waiter.done():
            waiter.set_result(None)
            return


class ReceiveQueue:
    """An unbounded FIFO queue, as ``asyncio.Queue(maxsize=0)``: ``put_nowait``, ``get``,
    ``get_nowait``, ``empty``, ``qsize``. Getters are served in the order they came."""

    __slots__ = ("_items", "_loop", "_getters")

    def __init__(self, loop: asyncio.AbstractEventLoop, items: list[Any] | None = None) -> None:
        self._loop = loop
        self._items: list[Any] | None = items or None
        self._getters: list[asyncio.Future[None]] | None = None

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = [item]
        else:
            self._items.append(item)
        if self._getters:
            _wake_first(self._getters)

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
            if self._getters is None:
                self._getters = [getter]
            else:
                self._getters.append(getter)
            try:
                await getter
            except BaseException:
                getter.cancel()
                getters = self._getters
                if getters is not None and getter in getters:
                    getters.remove(getter)
                # woken, then cancelled before it ran: the item goes to the next getter
                if self._items and getters and not getter.cancelled():
                    _wake_first(getters)
                raise
            finally:
                if not self._getters:
                    self._getters = None
        return self.get_nowait()


class Flag:
    """A settable flag that can be awaited, as ``asyncio.Event``: ``set``, ``clear``,
    ``is_set``, ``wait``."""

    __slots__ = ("_set", "_loop", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop, is_set: bool = False) -> None:
        self._loop = loop
        self._set = is_set
        self._waiters: list[asyncio.Future[None]] | None = None

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
        if self._waiters is None:
            self._waiters = [waiter]
        else:
            self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            waiters = self._waiters
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    self._waiters = None
