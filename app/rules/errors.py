"""The one error the rules engine raises: a refused command, with a stable code."""

from __future__ import annotations


class RuleViolation(Exception):
    """A command the rules refuse. ``code`` is stable (clients translate it); ``message``
    is a readable English reason. Raising it never leaves a state half-changed, because
    states are immutable and ``decide`` builds nothing until the whole command is valid."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


def refuse(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)
