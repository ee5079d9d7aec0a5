"""The live chat filter (chat:hidden:*) is restored from Postgres's blocks when Redis
loses it (app/social/hidden.py), only ever adding entries."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI

from app.social.hidden import READY_KEY, restore_if_lost
from app.social.presence import hidden_key, may_see
from tests.economy.helpers import client_for, new_users


async def test_the_filter_is_restored_from_postgres_after_a_flush(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    maker, store = app.state.sessionmaker, app.state.redis
    a, b, c, d = await new_users(maker, 4)
    ca, cc = await client_for(app, make_client, a), await client_for(app, make_client, c)
    assert (await ca.post("/api/blocks", json={"user_id": b})).status_code == 204
    assert (await cc.post("/api/blocks", json={"user_id": a})).status_code == 204
    assert await store.exists(READY_KEY)  # set when the app started

    await store.flushdb()
    assert await may_see(store, a, b)  # what the relay would do now: let it through
    assert await restore_if_lost(maker, store) is True
    assert not await may_see(store, a, b) and not await may_see(store, b, a)
    assert not await may_see(store, a, c) and not await may_see(store, c, a)
    assert await may_see(store, a, d) and await may_see(store, d, b)
    assert await restore_if_lost(maker, store) is False  # the marker is back: one EXISTS

    # An unblock rewrites both sets; a later restore adds only what Postgres holds.
    assert (await ca.delete(f"/api/blocks/{b}")).status_code == 204
    await store.delete(READY_KEY)
    assert await restore_if_lost(maker, store) is True
    assert await may_see(store, a, b) and await may_see(store, b, a)
    assert await store.smembers(hidden_key(a)) == {str(c)}
