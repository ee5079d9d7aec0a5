"""Answering an invitation from its toast: accepting is sitting down (``POST
/api/tables/{id}/sit``); declining, here, takes the invitee off the table's list and
tells the host at once (a challenge has its own decline, which also closes the table)."""

from __future__ import annotations

from app.core.errors import AppError
from app.rules.state import State
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage.meta import TableMeta


async def decline(svc: TableService, table_id: str, user_id: int, name: str) -> None:
    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        if user_id not in meta.invited or meta.kind == "challenge":
            raise AppError("not_invited", "You have no invitation to that table.", 403)
        if meta.seat_of(user_id) is not None:
            raise AppError("already_seated", "You already sit at that table.", 409)
        meta = meta.edit()
        meta.invited.remove(user_id)
        return Change(
            meta=meta, records=[table_record("invitation_declined", meta)], result=meta.host
        )

    _, change = await svc.mutate(table_id, decide)
    await svc.notify_user(
        change.result,
        {
            "type": "invitation_declined",
            "table": table_id,
            "by": {"id": user_id, "name": name},
        },
    )
