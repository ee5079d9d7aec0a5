"""What the request guards cost: ``python benchmarks/guards.py [--requests N]``.

Calls a trivial ASGI app N times bare and N times behind the three guards every HTTP
request passes (SecurityHeaders, OriginGuard, NulGuard; docs/security.md), for a GET
with a query string and for a small JSON POST from the site's own Origin, in one
process. Prints the mean microseconds per request of each and the difference; the last
line is one JSON object: ``{"get_bare_us": ..., "get_guarded_us": ..., "post_bare_us":
..., "post_guarded_us": ...}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings
from app.core.headers import SecurityHeaders
from app.core.nul import NulGuard
from app.core.origins import OriginGuard

BODY = b'{"name": "Mesa de prueba", "preset": "cerrado", "players": 2, "bet": 6000}'


async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["method"] == "POST":
        while (await receive()).get("more_body"):
            pass
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": b"{}"})


def _scope(method: str) -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": "/api/tables",
        "query_string": b"status=waiting&players=2",
        "headers": [
            (b"host", b"game.example"),
            (b"origin", b"https://game.example"),
            (b"content-type", b"application/json"),
        ],
    }


async def per_request_us(app: ASGIApp, method: str, n: int) -> float:
    async def send(_: Message) -> None:
        pass

    started = time.perf_counter()
    for _ in range(n):
        messages = [{"type": "http.request", "body": BODY, "more_body": False}]

        async def receive(messages: list[Message] = messages) -> Message:
            return messages.pop() if messages else {"type": "http.disconnect"}

        await app(_scope(method), receive, send)
    return (time.perf_counter() - started) / n * 1e6


async def main(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    guarded = SecurityHeaders(
        OriginGuard(NulGuard(endpoint), settings=Settings(env="test")), hsts=False
    )
    for method in ("GET", "POST"):
        bare = await per_request_us(endpoint, method, n)
        full = await per_request_us(guarded, method, n)
        print(
            f"{method}: bare {bare:.1f} µs, behind the guards {full:.1f} µs "
            f"(+{full - bare:.1f} µs a request)"
        )
        out[f"{method.lower()}_bare_us"] = round(bare, 2)
        out[f"{method.lower()}_guarded_us"] = round(full, 2)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    print(json.dumps(asyncio.run(main(parser.parse_args().requests))))
