# syntax=docker/dockerfile:1
# Multi-stage: node builds the browser client; the builder installs the pinned
# dependencies and the app into a venv and compiles the rules engine with mypyc; the
# runtime image gets only that venv, the app (with the compiled engine), the migrations,
# the built client and a non-root user.

FROM node:20-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend ./
RUN npm run build

FROM python:3.11-slim AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# a C compiler for the rules engine (the image has Python's headers already)
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install .
# The rules engine compiled by mypyc (app/native.py) into /src/app/rules, with the build
# tools (pinned as in pyproject.toml) in their own venv so none of them ships; the image
# refuses to build if the result is not a complete, current build.
RUN python -m venv /opt/build \
    && /opt/build/bin/pip install mypy==2.4.1 setuptools==84.2.1 \
    && /opt/build/bin/python -m app.native build \
    && test "$(python -m app.native status)" = compiled

FROM python:3.11-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BURACO_ENV=production \
    BURACO_VAR_DIR=/app/var \
    BURACO_FRONTEND_DIR=/app/frontend/dist
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin buraco
WORKDIR /app
COPY --from=builder /opt/venv /opt/venv
COPY alembic.ini ./
COPY migrations ./migrations
COPY --from=builder /src/app ./app
COPY --from=frontend /src/frontend/dist ./frontend/dist
RUN mkdir -p /app/var && chown buraco:buraco /app/var
USER buraco
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# Migrations first (an advisory lock in migrations/env.py keeps replicas from racing),
# then the server. BURACO_SECRET_KEY must be set: production refuses to start without it.
ENTRYPOINT ["sh", "-c", "alembic upgrade head && exec uvicorn app.main:create_app --factory --host 0.0.0.0 --port 8000 --proxy-headers --forwarded-allow-ips \"${FORWARDED_ALLOW_IPS:-127.0.0.1}\" --no-access-log --ws-per-message-deflate false"]
