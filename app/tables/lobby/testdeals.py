"""Known deals for browser tests: with BURACO_ENV=test only, the host of a waiting table
may stack the deals of its next hands, so a test can play cards it chose (an opponent's
meld, a canasta, a muerto taken) instead of hoping a shuffle brings them.

Refused everywhere else: the router is mounted only when the environment is "test"
(app/main.py), the endpoint checks it again, and the service uses a stacked deal only in
that environment. A stacked deal is committed and revealed like a shuffled one, so the
fairness check still holds for it; it is kept out of every public view of the table.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from app.api.deps import CurrentUser
from app.core.errors import AppError
from app.rules.cards import full_deck
from app.rules.deal import deal_from_dict, deal_to_dict
from app.rules.ruleset import ruleset_from_dict
from app.tables.lobby.routes import TablesDep, TablesRoute
from app.tables.play.service import Change, table_record
from app.tables.storage.meta import TableMeta

router = APIRouter(prefix="/api/test", tags=["tests"], route_class=TablesRoute)
TableId = Annotated[str, Path(pattern=r"^[A-Za-z0-9]{1,32}$")]


class DealIn(BaseModel):
    hands: list[list[str]]
    muertos: list[list[str]] = Field(default_factory=list)
    stock: list[str]  # top first
    discard: list[str] = Field(default_factory=list)  # bottom first
    first: int = 0


class DealsIn(BaseModel):
    deals: list[DealIn] = Field(min_length=1, max_length=8)


def checked(meta: TableMeta, deal: DealIn) -> dict[str, Any]:
    """The deal as the service stores it, once it is a whole deck cut as the rules say."""
    rules = ruleset_from_dict(meta.rules)
    try:
        parsed = deal_from_dict(deal.model_dump())
    except (KeyError, ValueError):
        raise AppError("bad_deal", "A deal holds only card names.", 422) from None
    sizes_ok = (
        len(parsed.hands) == rules.players
        and all(len(h) == rules.hand_size for h in parsed.hands)
        and len(parsed.muertos) == rules.muertos
        and all(len(m) == rules.muerto_size for m in parsed.muertos)
        and 0 <= parsed.first < rules.players
    )
    cards = [c for h in parsed.hands for c in h] + [c for m in parsed.muertos for c in m]
    cards += list(parsed.stock) + list(parsed.discard)
    if not sizes_ok or sorted(cards) != sorted(full_deck(rules.jokers)):
        raise AppError("bad_deal", "The deal is not this table's deck cut by its rules.", 422)
    return deal_to_dict(parsed)


@router.post("/tables/{table_id}/deals", include_in_schema=False)
async def stack_deals(
    table_id: TableId, body: DealsIn, user: CurrentUser, svc: TablesDep, conn: HTTPConnection
) -> dict[str, Any]:
    if conn.app.state.settings.env != "test":
        raise AppError("not_found", "Not found.", 404)

    def decide(v: int, meta: TableMeta, state: object) -> Change:
        if meta.host != user.id:
            raise AppError("not_host", "Only the host may do that.", 403)
        if meta.status != "waiting":
            raise AppError("table_not_waiting", "The game has started.", 409)
        meta = meta.edit()
        meta.stacked_deals = [checked(meta, d) for d in body.deals]
        return Change(meta=meta, records=[table_record("deals_stacked", meta)])

    v, _ = await svc.mutate(table_id, decide)
    return {"table": table_id, "stacked": len(body.deals), "v": v}
