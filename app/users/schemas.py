"""Request and response bodies of the account endpoints."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.ids import UserId
from app.core.text import Clean

USERNAME_RE = re.compile(r"^[A-Za-z0-9_]+$")
# Guests get nicknames like "Invitado1234"; a username may not pose as one.
GUEST_NICKNAME_PREFIX = "Invitado"
_RESERVED_RE = re.compile(rf"^{GUEST_NICKNAME_PREFIX}[0-9]*$", re.IGNORECASE)


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Annotated[
        str,
        Field(min_length=3, max_length=20, json_schema_extra={"pattern": USERNAME_RE.pattern}),
        Clean(20),
    ]
    # The upper bound keeps a huge body from costing a huge hash.
    password: str = Field(min_length=8, max_length=128)

    @field_validator("username")
    @classmethod
    def _username_chars(cls, value: str) -> str:
        if not USERNAME_RE.match(value):
            raise ValueError("only letters A-Z, digits and underscore are allowed")
        if _RESERVED_RE.match(value):
            raise ValueError(f"names starting with '{GUEST_NICKNAME_PREFIX}' are reserved")
        return value


class RegisterIn(Credentials):
    pass


class ClaimIn(Credentials):
    pass


class PasswordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current_password: str = Field(min_length=1, max_length=128)
    new_password: str = Field(min_length=8, max_length=128)


class LoginIn(BaseModel):
    """Login does not re-check the signup rules: a bad name simply fails to log in."""

    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=128)


class MeOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: UserId
    username: str | None
    nickname: str
    is_guest: bool
    created_at: datetime
