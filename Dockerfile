# syntax=docker/dockerfile:1
# Multi-stage: node builds the browser client; the builder installs the locked runtime
# dependencies (requirements/runtime.lock, every one with its hashes) into a venv and
# compiles the rules engine with mypyc; the runtime image gets only that venv (no pip,
# no setuptools, no embedded-mode or dev packages), the app with the compiled engine, the
# migrations, the built client and a non-root user.
# Base images are pinned to exact releases; to pin by digest as well, replace a tag by
# name:tag@sha256:... (docs/operations.md, "Upgrading").

FROM node:22.12.0-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend ./
RUN npm run build

FROM python:3.11.11-slim-bookworm AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# a C compiler for the rules engine (the image has Python's headers already)
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements/runtime.lock requirements/build.lock ./requirements/
# The runtime venv has no pip of its own: the builder's pip installs into it.
RUN python -m venv --without-pip /opt/venv \
    && pip --python /opt/venv/bin/python install --no-deps --require-hashes \
        -r requirements/runtime.lock
ENV PATH=/opt/venv/bin:$PATH
COPY app ./app
# The rules engine compiled by mypyc (app/native.py) into /src/app/rules, with the build
# tools (requirements/build.lock: mypy==2.4.1, setuptools==84.2.1) in their own venv so
# none of them ships; the image refuses to build if the result is not a complete,
# current build.
RUN python -m venv /opt/build \
    && /opt/build/bin/pip install --no-deps --require-hashes -r requirements/build.lock \
    && /opt/build/bin/python -m app.native build \
    && test "$(python -m app.native status)" = compiled

FROM python:3.11.11-slim-bookworm AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BURACO_ENV=production \
    BURACO_VAR_DIR=/app/var \
    BURACO_FRONTEND_DIR=/app/frontend/dist \
    PROMETHEUS_MULTIPROC_DIR=/tmp/buraco-metrics \
    WEB_CONCURRENCY=1
# Nothing installs packages at run time: the base image's pip and setuptools go.
RUN python -m pip uninstall --yes --quiet pip setuptools wheel 2>/dev/null || true; \
    useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin buraco
WORKDIR /app
COPY --from=builder /opt/venv /opt/venv
COPY alembic.ini ./
COPY migrations ./migrations
COPY --from=builder /src/app ./app
COPY --from=frontend /src/frontend/dist ./frontend/dist
COPY deploy/logging.json ./deploy/logging.json
RUN mkdir -p /app/var && chown buraco:buraco /app/var
USER buraco
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# Migrations first (an advisory lock in migrations/env.py keeps replicas from racing),
# then the server, its uvicorn and alembic lines in the app's JSON format
# (deploy/logging.json). The metrics folder is emptied first: its files belong to the
# processes of one run. WEB_CONCURRENCY > 1 runs that many workers in this container.
# Production refuses unsafe settings (BURACO_SECRET_KEY, Postgres, Redis, origins...).
ENTRYPOINT ["sh", "-c", "rm -rf \"$PROMETHEUS_MULTIPROC_DIR\" && mkdir -p \"$PROMETHEUS_MULTIPROC_DIR\" && alembic upgrade head && exec uvicorn app.main:create_app --factory --host 0.0.0.0 --port 8000 --workers \"$WEB_CONCURRENCY\" --proxy-headers --forwarded-allow-ips \"${FORWARDED_ALLOW_IPS:-127.0.0.1}\" --log-config deploy/logging.json --no-access-log --ws-per-message-deflate false --ws app.tables.live.detach:DetachableProtocol --timeout-graceful-shutdown 10"]
