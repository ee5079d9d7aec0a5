"""Reconciliation: the cached balances, the ledger and conservation must all agree.

Conservation (per currency): what people and escrows hold equals what the house issued
(starting grants, daily bonuses) minus what the house took in (shop purchases, special
table fees, stakes nobody could win). Both sides are computed from the ledger rows,
independently of the cached balances.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.economy.ledger import CURRENCIES
from app.economy.models import Account, Entry


@dataclass
class Report:
    held: dict[str, int] = field(default_factory=dict)  # people + holds + escrows
    issued: dict[str, int] = field(default_factory=dict)  # by house:grants
    taken: dict[str, int] = field(default_factory=dict)  # by the other house accounts
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


async def reconcile(db: AsyncSession) -> Report:
    report = Report()
    await _check_cached_balances(db, report)
    await _check_transfers_balance(db, report)
    await _check_conservation(db, report)
    return report


async def _check_cached_balances(db: AsyncSession, report: Report) -> None:
    sums = (
        select(Entry.account_id, func.sum(Entry.amount).label("total"))
        .group_by(Entry.account_id)
        .subquery()
    )
    stmt = select(Account.key, Account.kind, Account.balance, sums.c.total).outerjoin(
        sums, sums.c.account_id == Account.id
    )
    for key, kind, balance, total in (await db.execute(stmt)).all():
        if balance != int(total or 0):
            report.problems.append(f"{key}: cached {balance} != ledger {int(total or 0)}")
        if kind != "house" and balance < 0:
            report.problems.append(f"{key}: negative balance {balance}")


async def _check_transfers_balance(db: AsyncSession, report: Report) -> None:
    stmt = (
        select(Entry.transfer_id, func.sum(Entry.amount))
        .group_by(Entry.transfer_id)
        .having(func.sum(Entry.amount) != 0)
    )
    for transfer_id, total in (await db.execute(stmt)).all():
        report.problems.append(f"transfer {transfer_id} sums to {total}, not 0")


async def _check_conservation(db: AsyncSession, report: Report) -> None:
    for cur in CURRENCIES:
        report.held[cur] = report.issued[cur] = report.taken[cur] = 0
    held = (
        select(Account.currency, func.sum(Account.balance))
        .where(Account.kind != "house")
        .group_by(Account.currency)
    )
    for cur, total in (await db.execute(held)).all():
        report.held[cur] = int(total or 0)
    flows = (
        select(Account.currency, Account.key, func.sum(Entry.amount))
        .join(Entry, Entry.account_id == Account.id)
        .where(Account.kind == "house")
        .group_by(Account.currency, Account.key)
    )
    for cur, key, total in (await db.execute(flows)).all():
        if key.startswith("house:grants:"):
            report.issued[cur] += -int(total)
        else:
            report.taken[cur] += int(total)
    for cur in CURRENCIES:
        if report.held[cur] != report.issued[cur] - report.taken[cur]:
            report.problems.append(
                f"{cur}: held {report.held[cur]} != issued {report.issued[cur]}"
                f" - taken {report.taken[cur]}"
            )
