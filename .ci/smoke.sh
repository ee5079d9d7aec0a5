#!/usr/bin/env bash
# Smoke test of the README's run command on the embedded default (SQLite + in-process
# Redis): `make run` in the background, wait for /readyz, register, log in, stop.
set -euo pipefail

cd "$(dirname "$0")/.."
# The embedded default: no BURACO_ database or Redis settings from the caller.
unset BURACO_DATABASE_URL BURACO_REDIS_URL BURACO_ENV || true

PORT="${SMOKE_PORT:-8000}"
BASE="http://127.0.0.1:$PORT"
LOG="$(mktemp)"
JAR="$(mktemp)"

if curl -s -o /dev/null "$BASE/healthz"; then
    echo "smoke: something already answers on port $PORT; stop it first" >&2
    exit 1
fi

# setsid: the server gets its own process group, so the whole of it can be stopped.
setsid timeout 300 make run PORT="$PORT" >"$LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    rm -f "$JAR"
}
trap cleanup EXIT

ready=""
for _ in $(seq 1 240); do
    if curl -sf "$BASE/readyz" >/dev/null; then ready=yes; break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.5
done
if [ -z "$ready" ]; then
    echo "smoke: server never became ready; its output:" >&2
    cat "$LOG" >&2
    exit 1
fi
echo "smoke: /readyz answered"

USER_NAME="s$(date +%s)$RANDOM"
BODY="{\"username\":\"$USER_NAME\",\"password\":\"correct horse battery\"}"

expect_status() {  # expected, then curl arguments
    local expected="$1"; shift
    local got
    got=$(curl -s -o /tmp/smoke_body.$$ -w '%{http_code}' "$@")
    if [ "$got" != "$expected" ]; then
        echo "smoke: expected HTTP $expected, got $got for: $*" >&2
        cat /tmp/smoke_body.$$ >&2; echo >&2
        exit 1
    fi
    rm -f /tmp/smoke_body.$$
}

expect_status 201 -X POST -H 'Content-Type: application/json' -d "$BODY" "$BASE/api/auth/register"
echo "smoke: registered $USER_NAME"
expect_status 200 -c "$JAR" -X POST -H 'Content-Type: application/json' -d "$BODY" \
    "$BASE/api/auth/login"
echo "smoke: logged in"
expect_status 200 -b "$JAR" "$BASE/api/me"
echo "smoke: /api/me answered with the session cookie"
# docs/operations.md: in development the metrics are open on the same port.
METRICS="$(curl -sf "$BASE/metrics")"
if ! grep -q '^buraco_http_requests_total{method="POST",route="/api/auth/login",status="200"} 1.0$' \
        <<<"$METRICS"; then
    echo "smoke: /metrics does not count the login" >&2
    exit 1
fi
echo "smoke: /metrics counted the login"
echo "smoke: passed"
