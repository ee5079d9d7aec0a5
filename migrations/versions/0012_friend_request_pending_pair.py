"""friend requests: at most one pending between two players

Revision ID: 0012_friend_request_pending_pair
Revises: 0011_tournaments
Create Date: 2026-12-06

The same request sent many times at once (or both players asking each other at the
same moment) made as many pending requests; a unique index over the unordered pair,
for pending requests only, lets one in and turns the rest into the answer the first
one gets (``app/social/friends.py``). Duplicates already stored are cancelled first,
the oldest of each pair kept.

SQLite cannot reflect an index over expressions, so a later migration that rebuilds
``friend_requests`` in batch mode there must create this index again after it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_friend_request_pending_pair"
down_revision: str | None = "0011_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOW = "CASE WHEN sender_id < recipient_id THEN sender_id ELSE recipient_id END"
HIGH = "CASE WHEN sender_id < recipient_id THEN recipient_id ELSE sender_id END"
PENDING = "state = 'pending'"


def upgrade() -> None:
    op.execute(
        f"""UPDATE friend_requests SET state = 'cancelled'
        WHERE {PENDING} AND id NOT IN (
          SELECT min(id) FROM friend_requests WHERE {PENDING} GROUP BY {LOW}, {HIGH})"""
    )
    op.create_index(
        "uq_friend_requests_pending_pair",
        "friend_requests",
        [sa.text(f"({LOW})"), sa.text(f"({HIGH})")],
        unique=True,
        postgresql_where=sa.text(PENDING),
        sqlite_where=sa.text(PENDING),
    )


def downgrade() -> None:
    op.drop_index("uq_friend_requests_pending_pair", table_name="friend_requests")
