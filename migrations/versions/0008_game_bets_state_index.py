"""game_bets: an index for the reconciler's scan of escrowed pots by age

Revision ID: 0008_bets_state_index
Revises: 0007_friends
Create Date: 2026-12-03

The reconciler pages through escrowed pots older than its grace, oldest first, every
period; without this index each page read every game ever played.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008_bets_state_index"
down_revision: str | None = "0007_friends"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_game_bets_state_created", "game_bets", ["state", "created_at", "game_id"])


def downgrade() -> None:
    op.drop_index("ix_game_bets_state_created", table_name="game_bets")
