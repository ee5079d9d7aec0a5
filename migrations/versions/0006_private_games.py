"""private games: a finished game remembers whether its table was private

Revision ID: 0006_private_games
Revises: 0005
Create Date: 2026-12-01

Replays and profiles show a private game only to the people who played it
(docs/security.md). Games archived before this revision were public or private
unknown: they stay readable as before (false).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_private_games"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("private")
