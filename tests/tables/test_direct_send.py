"""Frames skip the ASGI layers on the server we ship (app/tables/live/sockets.py): the
installed uvicorn's WebSocket protocols (sans-I/O, the one it picks by itself, and the
legacy one) are recognised and their own ``send`` is used; any other ASGI ``send`` keeps
the usual path. Every test that plays over real sockets goes through the sans-I/O
sender too, since the test servers run uvicorn's default."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_impl import WebSocketProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from app.core.lean import Flag, ReceiveQueue
from app.tables.live.sockets import direct_text_sender, drop_handshake


def test_uvicorns_websockets_protocol_gives_its_own_send() -> None:
    proto = WebSocketProtocol.__new__(WebSocketProtocol)  # no server needed to look
    direct = direct_text_sender(proto.asgi_send)
    assert direct is not None
    assert direct.__self__ is proto and direct.__func__ is type(proto).send


def test_any_other_send_keeps_the_asgi_path() -> None:
    async def plain(message: dict[str, Any]) -> None:
        return None

    class Other:
        async def send(self, message: Any) -> None:
            return None

    assert direct_text_sender(plain) is None
    assert direct_text_sender(Other().send) is None
    assert direct_text_sender(None) is None


def test_uvicorns_sansio_protocol_gives_a_text_sender_over_its_own_send() -> None:
    """The implementation uvicorn picks by itself (make run, the image): the sender calls
    the protocol's ASGI ``send`` with the frame, below Starlette and the middlewares."""
    sent: list[dict[str, Any]] = []

    async def record(message: Any) -> None:
        sent.append(message)

    proto = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)
    raw_send = proto.send  # what KeepRawSend sees: the protocol's own bound send
    proto.send = record  # type: ignore[method-assign]  # what the sender then calls
    direct = direct_text_sender(raw_send)
    assert direct is not None
    asyncio.run(direct('{"type":"hello"}'))
    assert sent == [{"type": "websocket.send", "text": '{"type":"hello"}'}]


def test_the_handshake_is_let_go_once_accepted_and_not_before() -> None:
    async def check() -> None:
        loop = asyncio.get_running_loop()
        proto = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)
        request = Request("/ws", Headers({"Host": "x", "Cookie": "buraco_session=secret"}))
        response = Response(101, "Switching Protocols", Headers({"Upgrade": "websocket"}))
        proto.request, proto.response, proto.loop = request, response, loop
        proto.queue = queue = asyncio.Queue()
        proto.writable = writable = asyncio.Event()
        writable.set()
        proto.handshake_complete = False
        drop_handshake(proto.send)  # still needed to answer the handshake
        assert proto.request is request and proto.response is response
        assert request.headers["Cookie"] == "buraco_session=secret"
        assert proto.queue is queue and proto.writable is writable
        queue.put_nowait({"type": "websocket.receive", "text": "early"})  # came with it
        proto.handshake_complete = True
        drop_handshake(proto.send)
        assert proto.request is None and proto.response is None
        # the library's parser keeps the request object: what it holds is emptied
        assert not list(request.headers.raw_items()) and not list(response.headers.raw_items())
        # the lean receive queue keeps what had come, in order, and what comes next
        assert isinstance(proto.queue, ReceiveQueue) and proto.queue.qsize() == 1
        proto.queue.put_nowait({"type": "websocket.receive", "text": "late"})
        got = [await proto.queue.get(), await proto.queue.get()]
        assert [m["text"] for m in got] == ["early", "late"] and proto.queue.empty()
        assert isinstance(proto.writable, Flag) and proto.writable.is_set()
        # and its attributes, in a dict of the size it needs, are all there
        assert proto.loop is loop and proto.handshake_complete is True

        # a queue somebody waits on is left as it is
        other = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)
        other.request, other.response, other.handshake_complete = request, response, True
        other.loop, other.queue = loop, asyncio.Queue()
        waiting = asyncio.ensure_future(other.queue.get())
        await asyncio.sleep(0)
        kept = other.queue
        drop_handshake(other.send)
        assert other.queue is kept
        kept.put_nowait({"n": 1})
        assert await waiting == {"n": 1}

    asyncio.run(check())
    drop_handshake(None)  # another server: nothing to do


def test_the_request_headers_and_the_unread_scope_are_let_go_once_read() -> None:
    """After the accept the scope's headers, and Starlette's view of them (read before,
    as the endpoint does), are empty: they do not live as long as the socket. So is
    whatever else of the scope nothing reads after the accept; the same dict, which
    every layer holds, keeps what is read, at a smaller size."""
    import sys

    from starlette.websockets import WebSocket

    from app.tables.live.sockets import SCOPE_KEPT, trim_scope

    async def nothing(*_: Any) -> Any:
        return None

    state = {"raw_send": nothing, "request_id": "r1"}
    scope: dict[str, Any] = {  # what uvicorn's sans-I/O protocol gives an app
        "type": "websocket",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "scheme": "ws",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
        "path": "/ws",
        "raw_path": b"/ws",
        "query_string": b"",
        "headers": [(b"host", b"x"), (b"cookie", b"buraco_session=secret")],
        "subprotocols": [],
        "state": state,
        "extensions": {"websocket.http.response": {}},
        "app": object(),
    }
    ws = WebSocket(scope, nothing, nothing)
    assert ws.headers["host"] == "x" and ws.cookies["buraco_session"] == "secret"
    app, size = scope["app"], sys.getsizeof(scope)
    trim_scope(ws.scope)
    assert scope["headers"] == [] and list(ws.headers.raw) == []
    assert ws.scope is scope and sorted(scope) == sorted(SCOPE_KEPT)
    assert scope["state"] is state and ws.app is app and ws.client == ("127.0.0.1", 50000)
    assert sys.getsizeof(scope) < size
    trim_scope({"type": "websocket"})  # no headers: nothing to do


def test_the_connection_lets_go_of_what_it_cached_of_the_scope() -> None:
    """The parsed cookies (the session's token), the headers' view and the URL that
    Starlette's ``WebSocket`` cached while the endpoint read them go with the accept;
    read again, they come from the trimmed scope."""
    from starlette.websockets import WebSocket

    from app.tables.live.sockets import CONNECTION_CACHES, trim_connection

    async def nothing(*_: Any) -> Any:
        return None

    scope: dict[str, Any] = {
        "type": "websocket",
        "path": "/ws",
        "query_string": b"a=1",
        "server": ("x", 80),
        "headers": [(b"host", b"x"), (b"cookie", b"buraco_session=secret")],
    }
    ws = WebSocket(scope, nothing, nothing)
    assert ws.cookies["buraco_session"] == "secret" and ws.headers["host"] == "x"
    assert ws.url.path == "/ws" and ws.query_params["a"] == "1"
    assert any(name in vars(ws) for name in CONNECTION_CACHES)
    trim_connection(ws)
    assert not any(name in vars(ws) for name in CONNECTION_CACHES)
    assert ws.cookies == {} and list(ws.headers.raw) == [] and "query_string" not in scope


async def test_the_connection_sends_through_the_servers_own_send_once_accepted() -> None:
    """Past the accept, the layers' wrappers of ``send`` (the request log's closure)
    are let go: the ``WebSocket`` sends through the server's own ``send`` that
    ``KeepRawSend`` kept, so a close goes out the same."""
    from starlette.websockets import WebSocket

    from app.tables.live.sockets import trim_connection

    sent: list[tuple[str, dict[str, Any]]] = []

    async def raw_send(message: dict[str, Any]) -> None:
        sent.append(("raw", message))

    async def wrapper(message: dict[str, Any]) -> None:  # a layer's: only passes it on
        sent.append(("wrapper", message))
        await raw_send(message)

    async def nothing(*_: Any) -> Any:
        return None

    async def connect() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    scope: dict[str, Any] = {"type": "websocket", "path": "/ws", "state": {"raw_send": raw_send}}
    ws = WebSocket(scope, connect, wrapper)
    await ws.accept()
    assert [who for who, _ in sent] == ["wrapper", "raw"]
    trim_connection(ws)
    await ws.send_text("hi")
    await ws.close(1000)
    assert sent[2:] == [
        ("raw", {"type": "websocket.send", "text": "hi"}),
        ("raw", {"type": "websocket.close", "code": 1000, "reason": ""}),
    ]
    # a WebSocket without the server's send kept (another server) keeps its own
    other = WebSocket({"type": "websocket", "path": "/ws"}, nothing, wrapper)
    trim_connection(other)
    assert vars(other)["_send"] is wrapper


class _Transport:
    """What the sender may touch of a transport: writes are recorded."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing


def _open_sansio() -> tuple[Any, _Transport, list[dict[str, Any]]]:
    """A sans-I/O protocol past its handshake, on a recording transport; its ASGI
    ``send`` is recorded instead of run."""
    from websockets.protocol import State
    from websockets.server import ServerProtocol

    proto: Any = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)
    raw_send = proto.send
    conn = ServerProtocol()
    conn.state = State.OPEN
    proto.conn, proto.transport = conn, _Transport()
    proto.writable = Flag(asyncio.new_event_loop(), True)
    proto.close_sent = proto.disconnected = False
    sent: list[dict[str, Any]] = []

    async def record(message: Any) -> None:
        sent.append(message)

    proto.send = record
    proto.raw_send = raw_send
    return proto, proto.transport, sent


def _library_bytes(text: str) -> bytes:
    """The bytes the websockets library writes for this text as a server."""
    from websockets.protocol import State
    from websockets.server import ServerProtocol

    conn = ServerProtocol()
    conn.state = State.OPEN
    conn.send_text(text.encode())
    return b"".join(conn.data_to_send())


def test_an_open_socket_gets_the_librarys_exact_bytes_written_at_once() -> None:
    """Every length class of RFC 6455 (7, 16 and 64 bits, and their edges), and text
    beyond ASCII: the frame written is byte for byte the library's, in one write."""
    proto, transport, sent = _open_sansio()
    direct = direct_text_sender(proto.raw_send)
    texts = ["", "a" * 125, "b" * 126, "ñ" * 40, "c" * 65535, "d" * 65536, "€" * 30000]
    for text in texts:
        asyncio.run(direct(text))
    assert sent == []  # none went the slow way
    assert transport.written == [_library_bytes(t) for t in texts]


def test_anything_unusual_takes_the_protocols_own_send() -> None:
    """An extension, a close under way, a paused or closing transport, the library's own
    bytes still to be written, a socket gone: the frame goes through uvicorn's ``send``
    (which waits, frames or raises), never straight to the transport."""
    from websockets.protocol import State

    def spoil_extension(p: Any) -> None:
        p.conn.extensions = [object()]

    def spoil_closing(p: Any) -> None:
        p.conn.state = State.CLOSING

    def spoil_pending(p: Any) -> None:
        p.conn.send_ping(b"x")  # a ping the protocol has not written yet

    def spoil_paused(p: Any) -> None:
        p.writable.clear()

    def spoil_transport(p: Any) -> None:
        p.transport.closing = True

    def spoil_close_sent(p: Any) -> None:
        p.close_sent = True

    def spoil_gone(p: Any) -> None:
        p.disconnected = True

    spoilers = [
        spoil_extension,
        spoil_closing,
        spoil_pending,
        spoil_paused,
        spoil_transport,
        spoil_close_sent,
        spoil_gone,
    ]
    for spoil in spoilers:
        proto, transport, sent = _open_sansio()
        direct = direct_text_sender(proto.raw_send)
        spoil(proto)
        asyncio.run(direct("hello"))
        assert transport.written == [], spoil.__name__
        assert sent == [{"type": "websocket.send", "text": "hello"}], spoil.__name__
