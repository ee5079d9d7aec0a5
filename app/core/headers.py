"""Security headers on every HTTP response (pages, assets, API, errors): docs/security.md."""

from __future__ import annotations

import re
from functools import lru_cache

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The built client is one module script and one stylesheet from our own origin: no inline
# script, no eval. Style attributes stay allowed (the client sets widths, e.g. the clock
# bar), <style> elements from elsewhere do not. The socket is same-origin; 'self' covers
# ws:/wss: only in CSP level 3 browsers, so the host is named for the others.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'{ws}; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# The development-only API explorer (/docs) loads Swagger UI from its CDN and runs an
# inline bootstrap script; it is switched off in production.
_DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: "
    "https://fastapi.tiangolo.com; frame-ancestors 'none'"
)
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")
HSTS = b"max-age=31536000; includeSubDomains"
FIXED = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)


def csp_for(host: str | None, path: str = "/") -> str:
    return _DOCS_CSP if path == "/docs" else _csp_for_host(host)


@lru_cache(maxsize=256)  # one site has a handful of hosts; built once each
def _csp_for_host(host: str | None) -> str:
    ws = f" ws://{host} wss://{host}" if host and _HOST.match(host) else ""
    return _CSP.format(ws=ws)


def error_headers() -> dict[str, str]:
    """For a 500 written by Starlette's outermost error middleware, which no other
    middleware sees: the same headers, the CSP without the socket's host."""
    headers = {k.decode(): v.decode() for k, v in FIXED}
    headers["content-security-policy"] = csp_for(None)
    return headers


class SecurityHeaders:
    """Pure ASGI; adds the headers to ``http.response.start`` whatever produced it."""

    def __init__(self, app: ASGIApp, *, hsts: bool) -> None:
        self.app = app
        self.fixed = list(FIXED)
        if hsts:
            self.fixed.append((b"strict-transport-security", HSTS))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next(
            (v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), None
        )
        csp = csp_for(host, scope.get("path", "/")).encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    h for h in message.get("headers", []) if h[0] != b"content-security-policy"
                ]
                headers += [*self.fixed, (b"content-security-policy", csp)]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
