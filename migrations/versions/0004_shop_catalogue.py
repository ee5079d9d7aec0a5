"""shop catalogue: seeded from app/economy/data/shop_items.json

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30

The data file is read at upgrade time: a later change of catalogue gets its own
migration (insert new SKUs, deactivate old ones) so this one stays reproducible.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATA = Path(__file__).resolve().parents[2] / "app" / "economy" / "data" / "shop_items.json"

shop_items = sa.table(
    "shop_items",
    sa.column("sku", sa.String),
    sa.column("kind", sa.String),
    sa.column("name", sa.String),
    sa.column("price", sa.BigInteger),
    sa.column("currency", sa.String),
    sa.column("amount", sa.BigInteger),
    sa.column("sort", sa.Integer),
    sa.column("active", sa.Boolean),
    sa.column("extra", sa.JSON),
)


def _items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["items"]
    return items


def upgrade() -> None:
    rows = [
        {
            "sku": item["sku"],
            "kind": item["kind"],
            "name": item["name"],
            "price": int(item["price"]),
            "currency": item["currency"],
            "amount": int(item.get("amount", 0)),
            "sort": index,
            "active": True,
            "extra": {},
        }
        for index, item in enumerate(_items())
    ]
    op.bulk_insert(shop_items, rows)


def downgrade() -> None:
    skus = [item["sku"] for item in _items()]
    op.execute(shop_items.delete().where(shop_items.c.sku.in_(skus)))
