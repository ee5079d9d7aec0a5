"""The built browser client (frontend/dist), mounted at ``/`` after every API route.

* Text assets go out gzip-compressed when the client accepts it (compressed once per
  file version and kept in memory: the client is a few hundred KB).
* Vite's hashed assets (``assets/name-HASH.ext``) never change under their name: cached
  for a year, ``immutable``. Everything else (``index.html``) is revalidated each time,
  so a deploy reaches players at their next load.
* The mount never answers for the API: a path some API route serves with other methods
  gets 405 with that route's ``Allow``, and an unknown ``/api/...`` path a JSON 404 (not
  the client's page).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, Response
from starlette.routing import Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

HASHED = re.compile(r"(^|/)assets/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
TEXT_SUFFIXES = {
    ".html",
    ".js",
    ".mjs",
    ".css",
    ".svg",
    ".json",
    ".map",
    ".txt",
    ".webmanifest",
    ".xml",
}
MIN_GZIP_BYTES = 512


def cache_control(path: str) -> str:
    return IMMUTABLE if HASHED.search(path) else REVALIDATE


def _routes(routes: list[Any]) -> Iterator[Any]:
    """Every route, those of included routers too (FastAPI keeps those inside an
    included-router object; each context matches with its prefix and has its methods)."""
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is not None:
            yield from contexts()
        else:
            yield route


def _accepts_gzip(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"accept-encoding":
            return b"gzip" in value.lower()
    return False


class ClientFiles(StaticFiles):
    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory, html=True)
        self._gzipped: dict[tuple[str, int, int], bytes] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self._refuse_api_paths(scope)
        await super().__call__(scope, receive, send)

    def _refuse_api_paths(self, scope: Scope) -> None:
        allowed: set[str] = set()
        for route in _routes(scope["app"].router.routes):
            if isinstance(route, Mount):
                continue
            match, _ = route.matches(scope)
            if match == Match.PARTIAL:  # the path is the route's, the method is not
                allowed |= set(getattr(route, "methods", None) or ())
        if allowed:
            raise HTTPException(405, headers={"Allow": ", ".join(sorted(allowed))})
        path = scope["path"]
        if path == "/api" or path.startswith("/api/"):
            raise HTTPException(404)
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(405, headers={"Allow": "GET, HEAD"})

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["cache-control"] = cache_control(path)
        if (
            isinstance(response, FileResponse)
            and response.status_code == 200
            and scope["method"] == "GET"
            and _accepts_gzip(scope)
        ):
            return self._gzip(response) or response
        return response

    def _gzip(self, response: FileResponse) -> Response | None:
        file = Path(response.path)
        if file.suffix.lower() not in TEXT_SUFFIXES:
            return None
        stat = file.stat()
        if stat.st_size < MIN_GZIP_BYTES:
            return None
        key = (str(file), stat.st_mtime_ns, stat.st_size)
        body = self._gzipped.get(key)
        if body is None:
            body = gzip.compress(file.read_bytes(), compresslevel=9, mtime=0)
            self._gzipped[key] = body
        headers: dict[str, Any] = {
            name: value
            for name, value in response.headers.items()
            if name not in ("content-length", "content-encoding")
        }
        headers["content-encoding"] = "gzip"
        headers["vary"] = "Accept-Encoding"
        return Response(body, status_code=200, headers=headers, media_type=response.media_type)
