"""account versions: every balance change bumps its account's version

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30

A wallet push carries the sum of the wallet's two account versions, so a client can
drop a push that arrives after a newer one (pushes from concurrent transactions may
cross on the way).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("version", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("version")
