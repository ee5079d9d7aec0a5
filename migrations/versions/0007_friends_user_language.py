"""user_prefs: each player's chosen language for the strings the server writes

Revision ID: 0007_friends
Revises: 0006_private_games
Create Date: 2026-12-01

Table names the server makes ("¡Juega ya!") and notification texts are rendered in the
reader's language; the choice is stored here (no row: Spanish).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_friends"
down_revision: str | None = "0006_private_games"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_prefs",
        sa.Column("user_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_user_prefs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_prefs")),
    )


def downgrade() -> None:
    op.drop_table("user_prefs")
