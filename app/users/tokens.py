"""Opaque session tokens: random for the cookie, SHA-256 for the database."""

from __future__ import annotations

import hashlib
import secrets

SESSION_COOKIE = "buraco_session"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
