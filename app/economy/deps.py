"""Dependencies shared by the economy and social routes."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from app.economy.notify import Notifier


async def get_notifier(conn: HTTPConnection) -> Notifier:
    return Notifier(conn.app.state.redis)


async def request_key(
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=64,
            pattern=r"^[A-Za-z0-9_.:-]+$",
            description="Makes a retried request safe: a replay is refused with "
            "`duplicate_request` and moves nothing. Optional.",
        ),
    ] = None,
) -> str:
    return idempotency_key or uuid.uuid4().hex


NotifierDep = Annotated[Notifier, Depends(get_notifier)]
RequestKey = Annotated[str, Depends(request_key)]
