"""Which browser origins may change state: the site itself (on whatever port it is
served) and the configured list. Used by the WebSocket handshake (app/api/ws.py) and by
``OriginGuard`` for state-changing REST requests (docs/security.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.errors import error_response

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


class _HasOrigins(Protocol):
    ws_allowed_origins: list[str]


@lru_cache(maxsize=1024)  # a few origins and hosts, parsed on every state change
def _canonical(origin: str) -> str:
    """``Scheme://host[:port]`` in lower case, without a trailing slash or default port."""
    parts = urlsplit(origin.strip().lower())
    return f"{parts.scheme}://{_host_part(parts.netloc, parts.scheme)}"


@lru_cache(maxsize=1024)
def _host_part(netloc: str, scheme: str) -> str:
    netloc = netloc.strip().lower()
    default = _DEFAULT_PORTS.get(scheme)
    if default and netloc.endswith(f":{default}"):
        return netloc[: -len(default) - 1]
    return netloc


def origin_allowed(origin: str | None, host: str | None, settings: _HasOrigins) -> bool:
    """True when a request with this ``Origin`` header may act on the user's behalf.

    No Origin at all is not a cross-site browser request (browsers always send one on a
    cross-origin POST and on every WebSocket handshake), so it is allowed; ``null``
    (sandboxed frames, file://) is refused unless listed."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip().lower())
    # The site's own origin, compared without the scheme: behind a TLS proxy the request
    # reaches us as http while the page is https.
    if (
        parts.scheme in ("http", "https")
        and parts.netloc
        and host
        and _host_part(parts.netloc, parts.scheme)
        in (_host_part(host, "http"), _host_part(host, "https"))
    ):
        return True
    allowed = {_canonical(o) for o in settings.ws_allowed_origins}
    return _canonical(origin) in allowed


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class OriginGuard:
    """Pure ASGI: a state-changing request from a foreign Origin (or one a browser marks
    ``Sec-Fetch-Site: cross-site``) is refused with 403 ``bad_origin`` before any route
    runs. SameSite=Lax cookies alone leave top-level cross-site POSTs of older browsers
    and same-site sibling hosts open."""

    def __init__(self, app: ASGIApp, settings: _HasOrigins) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in STATE_CHANGING:
            origin = _header(scope, b"origin")
            cross_site = _header(scope, b"sec-fetch-site") == "cross-site"
            listed = origin is not None and origin_allowed(origin, None, self.settings)
            own = origin_allowed(origin, _header(scope, b"host"), self.settings)
            if not own or (cross_site and not listed):
                response = error_response(
                    403,
                    "bad_origin",
                    "This request came from another site; open the game at its own address.",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
