"""Error tracking with sentry-sdk, started only when ``BURACO_SENTRY_DSN`` is set: without
a DSN nothing is imported or sent, and every function here returns at once.

Each captured error carries the request id (the same as in the logs and the response's
``x-request-id``) and the user's id (never a name or an address: the SDK's defaults
collect no personal data).
"""

from __future__ import annotations

from typing import Any

_enabled = False


def init(
    dsn: str | None,
    *,
    environment: str,
    release: str,
    traces_sample_rate: float = 0.0,
    transport: Any = None,
) -> bool:
    """Start the SDK (once per process). ``transport`` is for tests: events go there."""
    global _enabled
    if not dsn:
        return False
    import sentry_sdk

    options: dict[str, Any] = {}
    if transport is not None:
        options["transport"] = transport
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release,
        traces_sample_rate=traces_sample_rate,
        **options,
    )
    _enabled = True
    return True


def set_request_id(request_id: str) -> None:
    if _enabled:
        import sentry_sdk

        sentry_sdk.get_isolation_scope().set_tag("request_id", request_id)


def set_user(user_id: int) -> None:
    if _enabled:
        import sentry_sdk

        sentry_sdk.get_isolation_scope().set_user({"id": str(user_id)})


def capture(exc: BaseException) -> None:
    if _enabled:
        import sentry_sdk

        sentry_sdk.capture_exception(exc)
