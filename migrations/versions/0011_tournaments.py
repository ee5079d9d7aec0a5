"""tournaments: the tournament, its entrants, matches and payouts

Revision ID: 0011_tournaments
Revises: 0010_ratings
Create Date: 2026-12-04

Buy-ins wait in the ledger's ``tournament:{id}`` escrow (docs/tournaments.md).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_tournaments"
down_revision: str | None = "0010_ratings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _tournament_fk(primary_key: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "tournament_id",
        _ID,
        sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(16), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("max_entrants", sa.Integer(), nullable=False),
        sa.Column("min_entrants", sa.Integer(), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("fee_bps", sa.Integer(), nullable=False),
        sa.Column("guaranteed", sa.BigInteger(), nullable=False),
        sa.Column("prize_table", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("round_seconds", sa.Integer(), nullable=False),
        sa.Column("duplicate", sa.Boolean(), nullable=False),
        sa.Column("allow_bots", sa.Boolean(), nullable=False),
        sa.Column("bot_fill_seconds", sa.Integer(), nullable=False),
        sa.Column("turbo", sa.Boolean(), nullable=False),
        sa.Column("created_by", _ID, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("registration_opens_at", _WHEN, nullable=True),
        sa.Column("starts_at", _WHEN, nullable=True),
        sa.Column("late_registration_seconds", sa.Integer(), nullable=False),
        sa.Column("full_at", _WHEN, nullable=True),
        sa.Column("started_at", _WHEN, nullable=True),
        sa.Column("finished_at", _WHEN, nullable=True),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("pool", sa.BigInteger(), nullable=False),
        sa.Column("seed", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_index("ix_tournaments_state_starts", "tournaments", ["state", "starts_at"])
    op.create_table(
        "tournament_entrants",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        _tournament_fk(),
        sa.Column("user_id", _ID, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("paid", sa.BigInteger(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("team", sa.Integer(), nullable=True),
        sa.Column("registered_at", _WHEN, nullable=False),
    )
    op.create_index(
        "ix_tournament_entrants_tournament_id", "tournament_entrants", ["tournament_id"]
    )
    op.create_index("ix_tournament_entrants_user_id", "tournament_entrants", ["user_id"])
    op.create_index(
        "uq_tournament_entrants_active",
        "tournament_entrants",
        ["tournament_id", "user_id"],
        unique=True,
        postgresql_where=sa.text("state <> 'left'"),
        sqlite_where=sa.text("state <> 'left'"),
    )
    op.create_table(
        "tournament_matches",
        _tournament_fk(primary_key=True),
        sa.Column("round_no", sa.Integer(), primary_key=True),
        sa.Column("table_no", sa.Integer(), primary_key=True),
        sa.Column("side_a", sa.Integer(), nullable=False),
        sa.Column("side_b", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("deadline", _WHEN, nullable=True),
        sa.Column("mp_a", sa.Integer(), nullable=False),
        sa.Column("mp_b", sa.Integer(), nullable=False),
        sa.Column("vp_a", sa.Integer(), nullable=False),
        sa.Column("vp_b", sa.Integer(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("abandoned", sa.JSON(), nullable=False),
        sa.Column("deals", sa.JSON(), nullable=False),
        sa.Column("finished_at", _WHEN, nullable=True),
    )
    op.create_table(
        "tournament_payouts",
        _tournament_fk(primary_key=True),
        sa.Column("place", sa.Integer(), primary_key=True),
        sa.Column("entrant_id", sa.BigInteger(), primary_key=True),
        sa.Column("user_id", _ID, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("paid_at", _WHEN, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("tournament_payouts")
    op.drop_table("tournament_matches")
    op.drop_index("uq_tournament_entrants_active", table_name="tournament_entrants")
    op.drop_table("tournament_entrants")
    op.drop_index("ix_tournaments_state_starts", table_name="tournaments")
    op.drop_table("tournaments")
