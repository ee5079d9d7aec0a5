"""uvicorn's sans-I/O WebSocket protocol, with a socket the app may detach once accepted.

Under ASGI a socket lives exactly as long as the app's call for it: the server's task
waits in the whole stack (uvicorn's ``run_asgi``, the proxy-headers middleware, the app,
the request log, the endpoint) for as long as the socket is open, and closes the socket
when the call returns. Thousands of sockets each keep those frames for hours, about
1.5 KiB a socket, for layers that have nothing left to do once the handshake is done.

``DetachableProtocol`` is uvicorn's own protocol but for one thing: an endpoint that has
accepted the socket may hand it to a task of its own (``detach``) and return; the
layers' frames are then let go, every middleware having seen the accept, and the
socket stays open until that task closes it or the client leaves. The task is counted
among the server's tasks, so a graceful shutdown waits for it as for any request.
Everything else (framing, keep-alive pings, the close handshake, the server's shutdown)
is uvicorn's.

Servers run it with ``--ws app.tables.live.detach:DetachableProtocol`` (``WS_PROTOCOL``:
the Makefile, the Dockerfile, the tests' and the benchmarks' servers); under another
protocol or server ``detach`` declines and the endpoint serves the socket in its own
call, as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

WS_PROTOCOL = "app.tables.live.detach:DetachableProtocol"

Serve = Callable[[], Coroutine[Any, Any, None]]


class DetachableProtocol(WebSocketsSansIOProtocol):
    detached = False  # set on the instance by ``detach``

    def detach(self, serve: Serve) -> asyncio.Task[None] | None:
        """Run ``serve()`` as the socket's task from now on, and leave the socket open
        when the app's call returns. Only once, and only for an accepted socket still
        open; otherwise None, ``serve`` is not called, and the caller serves the socket
        in its own call."""
        if self.detached or not self.handshake_complete or self.close_sent or self.disconnected:
            return None
        self.detached = True
        task = self.loop.create_task(serve())
        self.tasks.add(task)  # a graceful shutdown waits for it, as for the app's call
        task.add_done_callback(self.tasks.discard)
        return task

    async def run_asgi(self) -> None:
        """uvicorn's ``run_asgi``, but a detached socket is not closed when the app's
        call returns: its task closes it."""
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except BaseException:
            self.logger.exception("Exception in ASGI application\n")
            self.send_500_response()
        else:
            if not self.handshake_complete:
                self.logger.error("ASGI callable returned without completing handshake.")
                self.send_500_response()
            elif result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.", result)
        if self.close_timer is None and not self.detached:
            self.transport.close()


def detach(raw_send: Any, serve: Serve) -> asyncio.Task[None] | None:
    """``DetachableProtocol.detach`` of the server's protocol behind ``raw_send`` (the
    server's own ASGI send), or None when the server is not running it."""
    proto = getattr(raw_send, "__self__", None)
    if isinstance(proto, DetachableProtocol):
        return proto.detach(serve)
    return None
