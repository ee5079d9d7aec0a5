"""ratings: a skill rating per player, family and format; one rating event per game

Revision ID: 0010_ratings
Revises: 0009_chip_dumping
Create Date: 2026-12-04

Games finished before this revision are not rated (docs/ratings.md).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_ratings"
down_revision: str | None = "0009_chip_dumping"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column(
            "user_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("format", sa.String(8), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["family", "format", "ordinal"])
    op.create_table(
        "rating_events",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("family", sa.String(16), nullable=True),
        sa.Column("format", sa.String(8), nullable=True),
        sa.Column("players_key", sa.String(200), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("ix_rating_events_players", "rating_events", ["players_key", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_rating_events_players", table_name="rating_events")
    op.drop_table("rating_events")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
