"""Password hashing with argon2id (argon2-cffi).

Hashing is CPU-bound (tens of milliseconds by design), so the async helpers run it in a
worker thread; argon2-cffi releases the GIL while it works.
"""

from __future__ import annotations

import secrets

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from starlette.concurrency import run_in_threadpool


class Passwords:
    def __init__(self, *, time_cost: int, memory_kib: int, parallelism: int) -> None:
        self._hasher = PasswordHasher(
            time_cost=time_cost,
            memory_cost=memory_kib,
            parallelism=parallelism,
            hash_len=32,
            salt_len=16,
            type=Type.ID,
        )
        # Verified against when the user does not exist, so that an unknown username
        # costs as much time as a wrong password and timing tells nothing.
        self._dummy_hash = self._hasher.hash(secrets.token_urlsafe(16))

    def hash_sync(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify_sync(self, stored_hash: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(stored_hash or self._dummy_hash, password) and (
                stored_hash is not None
            )
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored_hash: str) -> bool:
        return self._hasher.check_needs_rehash(stored_hash)

    async def hash(self, password: str) -> str:
        return await run_in_threadpool(self.hash_sync, password)

    async def verify(self, stored_hash: str | None, password: str) -> bool:
        return await run_in_threadpool(self.verify_sync, stored_hash, password)
