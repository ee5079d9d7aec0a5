"""Frames skip the ASGI layers on the server we ship (app/tables/sockets.py): the
installed uvicorn's WebSocket protocol is recognised and its own ``send`` is used; any
other ASGI ``send`` keeps the usual path."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_impl import WebSocketProtocol

from app.tables.sockets import direct_text_sender


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
