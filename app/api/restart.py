"""A graceful restart. On SIGTERM (or SIGINT) the process first says it is not ready
(/readyz answers 503, so the proxy stops sending it new players), tells every socket
``{"type": "server_restart"}`` and closes it with 1012 (the client reconnects, with
jitter, to another process: every table lives in Redis), and only then hands the signal
to uvicorn, which shuts down as usual.

Installed from the lifespan, after uvicorn has put its own handlers in place; only
uvicorn's handlers are wrapped (a test client's process keeps its own), and they are put
back at shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger("app.restart")

RESTART_FRAME = {"type": "server_restart"}
# However soon the sockets go, the process stays up saying "not ready" this long (within
# the drain's limit), so that a proxy's next look at /readyz, and a request already on its
# way, get an answer rather than a closed port.
NOT_READY_AT_LEAST = 1.0
SERVICE_RESTART = 1012  # RFC 6455: "the server is restarting"
SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _is_uvicorn_handler(handler: Any) -> bool:
    owner = getattr(handler, "__self__", None)
    return type(owner).__module__.startswith("uvicorn")


async def drain(hub: Any, seconds: float) -> int:
    """Tell every socket of this process to reconnect elsewhere and close it; wait up to
    ``seconds`` for them to go. Returns how many there were."""
    told: set[Any] = set()
    deadline = time.monotonic() + seconds
    while True:
        # A socket opened during the drain (the proxy had not yet seen /readyz) is told too.
        for conn in [c for c in hub.sockets if c not in told]:
            told.add(conn)
            conn.send(RESTART_FRAME)
            conn.closing = True  # the pump writes the frame, then closes
            conn.push(("close", SERVICE_RESTART))
        if not hub.sockets or time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.05)
    log.info(
        "drained %d sockets (%d still open) before shutting down",
        len(told),
        len(hub.sockets),
        extra={"sockets": len(told), "left": len(hub.sockets)},
    )
    return len(told)


def install(app: Any) -> Callable[[], None]:
    """Wrap uvicorn's signal handlers; returns the function that puts them back."""
    app.state.draining = False
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    previous: dict[int, Any] = {sig: signal.getsignal(sig) for sig in SIGNALS}
    wrapped = [sig for sig, handler in previous.items() if _is_uvicorn_handler(handler)]

    async def drain_then_exit(sig: int, frame: FrameType | None) -> None:
        started = time.monotonic()
        limit = app.state.settings.shutdown_drain_seconds
        with contextlib.suppress(Exception):
            await drain(app.state.hub, limit)
        left = min(NOT_READY_AT_LEAST, limit) - (time.monotonic() - started)
        if left > 0:
            await asyncio.sleep(left)
        handler = previous[sig]
        if callable(handler):
            handler(sig, frame)

    def on_signal(sig: int, frame: FrameType | None) -> None:
        if app.state.draining:  # a second signal: no more waiting
            handler = previous[sig]
            if callable(handler):
                handler(sig, frame)
            return
        app.state.draining = True
        loop.call_soon_threadsafe(  # the task is kept on app.state so it is not collected
            lambda: setattr(app.state, "drain_task", loop.create_task(drain_then_exit(sig, frame)))
        )

    for sig in wrapped:
        signal.signal(sig, on_signal)

    def uninstall() -> None:
        for sig in wrapped:
            if signal.getsignal(sig) is on_signal:
                signal.signal(sig, previous[sig])

    return uninstall
