"""The economy's errors: stable codes the client translates, readable English messages."""

from __future__ import annotations

from app.core.errors import AppError

# Largest single amount anyone may bet, gift or be charged: far above any real balance,
# far below BIGINT, so arithmetic never overflows and absurd inputs get a clear error.
MAX_AMOUNT = 10**12


def insufficient_funds(currency: str) -> AppError:
    if currency == "credits":
        return AppError("no_credits", "You do not have enough credits.", 409)
    return AppError("insufficient_funds", "You do not have enough coins.", 409)


def duplicate_request() -> AppError:
    return AppError(
        "duplicate_request", "This request was already carried out (same idempotency key).", 409
    )


def invalid_amount(message: str = "The amount must be a whole number above zero.") -> AppError:
    return AppError("invalid_amount", message, 400)


def check_amount(amount: int, maximum: int = MAX_AMOUNT) -> None:
    if amount <= 0:
        raise invalid_amount()
    if amount > maximum:
        raise invalid_amount(f"The amount may be at most {maximum}.")
