"""chip dumping: the address an account was made from, flagged pairs, held winnings

Revision ID: 0009_chip_dumping
Revises: 0008_bets_state_index
Create Date: 2026-12-04

Accounts made before this revision have no signup address: they are never weighed
together by address (docs/decisions/0016-chip-dumping.md).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_chip_dumping"
down_revision: str | None = "0008_bets_state_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("signup_addr", sa.String(32), nullable=True))
        batch.create_index("ix_users_signup_addr", ["signup_addr"])
    op.create_table(
        "integrity_flags",
        sa.Column(
            "winner_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "loser_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("reason", sa.String(16), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("first_at", _WHEN, nullable=False),
        sa.Column("last_at", _WHEN, nullable=False),
        sa.Column("released_at", _WHEN, nullable=True),
    )
    op.create_table(
        "winnings_holds",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column(
            "user_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("released_at", _WHEN, nullable=True),
    )
    op.create_index("ix_winnings_holds_user_id", "winnings_holds", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_winnings_holds_user_id", table_name="winnings_holds")
    op.drop_table("winnings_holds")
    op.drop_table("integrity_flags")
    with op.batch_alter_table("users") as batch:
        batch.drop_index("ix_users_signup_addr")
        batch.drop_column("signup_addr")
