# Two commands for a newcomer:  make run  (serve on http://127.0.0.1:8000)  and  make test.
# Everything else here is a step those two use.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# The shared rules scenarios live beside the repository when it is checked out for CI.
SHARED_CONFORMANCE := $(CURDIR)/../shared/conformance

.PHONY: run test test-fast install native frontend migrate lint typecheck imports pytest \
	conformance clean lock format bench-quick

## Start the server (embedded SQLite + in-process Redis unless BURACO_* say otherwise).
run: install native frontend migrate
	exec $(BIN)/uvicorn app.main:create_app --factory --host $(HOST) --port $(PORT) --no-access-log \
		--ws-per-message-deflate false --ws app.tables.live.detach:DetachableProtocol

## Lint, type-check, check import rules, run every test, then the rules conformance.
test: install lint typecheck imports pytest conformance

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Every dependency, direct or not, at the version and hashes of the lock (requirements/);
# reinstalled only when the lock changes. The app itself goes in editable, without deps.
# uv (pinned, the tool that writes the locks) installs the same lock with the same hash
# checks and byte-compiles it as pip does, in about a third of pip's time (25 s against
# 78 s from a clean clone here); pip does it when uv cannot be had.
DEV_LOCK := requirements/dev.lock
UV_VERSION := 0.13.9
UV_PIP = $(BIN)/uv pip install --quiet --python $(BIN)/python
$(VENV)/.installed: $(DEV_LOCK) pyproject.toml | $(BIN)/python
	if $(BIN)/python -m pip install --quiet uv==$(UV_VERSION) \
		&& $(UV_PIP) --require-hashes --compile-bytecode -r $(DEV_LOCK) \
		&& $(UV_PIP) --no-deps -e .; then :; else \
		echo "uv failed: installing with pip"; \
		$(BIN)/python -m pip install --quiet --require-hashes -r $(DEV_LOCK) \
		&& $(BIN)/python -m pip install --quiet --no-deps -e .; fi
	touch $@

## Regenerate the lock files from pyproject.toml (after adding or bumping a dependency):
## requirements/runtime.lock (the production image) and requirements/dev.lock (embedded
## default, tests and tools), requirements/build.lock (the image's engine compiler).
UV_COMPILE = $(BIN)/uv pip compile --quiet --generate-hashes --universal --python-version 3.11 \
	--no-header
lock: $(BIN)/python
	[ -x $(BIN)/uv ] || $(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	$(UV_COMPILE) pyproject.toml -o requirements/runtime.lock
	$(UV_COMPILE) pyproject.toml --extra dev -o requirements/dev.lock
	$(UV_COMPILE) requirements/build.in -o requirements/build.lock

install: $(VENV)/.installed

## Compile the rules engine with mypyc (app/native.py) when its sources changed since the
## last build. Without a C compiler this says so and everything runs on the sources.
RULES_SOURCES := $(filter-out app/rules/__init__.py app/rules/conformance.py,\
	$(wildcard app/rules/*.py))
app/rules/_compiled.json: $(RULES_SOURCES) app/native.py $(VENV)/.installed
	$(BIN)/python -m app.native build || true

native: install app/rules/_compiled.json

## Build the browser client (frontend/) when it is not built yet or its sources changed.
FRONTEND_STALE = $(shell [ -f frontend/dist/index.html ] && find frontend/src frontend/index.html \
	frontend/package-lock.json -newer frontend/dist/index.html 2>/dev/null | head -n1)
frontend:
	@if [ -f frontend/package.json ] && { [ ! -f frontend/dist/index.html ] || [ -n "$(FRONTEND_STALE)" ]; }; then \
		if command -v npm >/dev/null 2>&1; then \
			cd frontend && npm ci --no-audit --no-fund && npm run build; \
		else \
			echo "npm not found: install Node.js 22 to build the browser client (the API runs without it)"; \
		fi; \
	fi

migrate: install
	$(BIN)/alembic upgrade head

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy app

imports: install
	$(BIN)/lint-imports

# Three parts: everything that may run in parallel on pytest-xdist workers (each with
# its own database and Redis server, tests/conftest.py); the browser tests, a file per
# worker on more workers than cores (they mostly wait on servers, bots and clocks); then
# the timing-sensitive tests marked serial (frame and long-task budgets, killed
# processes, one-second clocks) one at a time.
# Exit code 5 means "no tests collected": not a failure of the suite itself.
# The first part runs on three workers on a 2-core machine: its benchmark runs and
# servers wait on fixed windows while another file computes (418 s against 450 s on two
# workers, on a slow 2-core VM). test-fast, all CPU, keeps one worker a core.
PYTEST_WORKERS ?= 2
PARALLEL_WORKERS ?= 3
BROWSER_WORKERS ?= 3
# Every part runs even when one fails, so one log shows every failure. Each part ends
# with its slowest tests (--durations): where CI's time goes.
pytest: install native
	$(BIN)/pytest -n $(PARALLEL_WORKERS) --dist loadfile -m "not serial and not browser" --durations=25; par=$$?; \
	if [ $$par -eq 5 ]; then par=0; fi; \
	$(BIN)/pytest -n $(BROWSER_WORKERS) --dist loadfile -m browser --durations=15; web=$$?; \
	if [ $$web -eq 5 ]; then web=0; fi; \
	$(BIN)/pytest -m serial --durations=15; ser=$$?; \
	if [ $$ser -eq 5 ]; then echo "pytest collected no serial tests"; ser=0; fi; \
	if [ $$par -ne 0 ]; then echo "parallel tests FAILED"; exit $$par; fi; \
	if [ $$web -ne 0 ]; then echo "browser tests FAILED"; exit $$web; fi; exit $$ser

## The inner loop: the rules engine's tests and the unit tests, no servers, under 30 s on
## a 2-core machine. It plays fewer random games than `make test` (2 per modality instead
## of 5), one hand per table of the three bot strengths instead of two, and the strong bot
## deals 4 worlds per searched decision instead of 20 there (its search was most of the
## loop's time); nothing else is left out.
FAST_TESTS = tests/rules tests/core/test_config.py tests/core/test_errors.py \
	tests/ops/test_compose.py tests/ops/test_lock.py tests/ops/test_dashboard.py \
	tests/ops/test_source_sizes.py tests/ops/test_repo_docs.py tests/core/test_import_graph.py
test-fast: install native
	RULES_PROPERTY_EXAMPLES=2 RULES_LEVEL_HANDS=1 RULES_STRONG_SAMPLES=4 $(BIN)/pytest -q -p no:cacheprovider \
		-n $(PYTEST_WORKERS) $(FAST_TESTS)

## Every benchmark once at its smallest size (benchmarks/quick.py; needs PostgreSQL and
## redis-server, as the tests do): CI runs it after the tests, in under a minute.
bench-quick: install native
	$(BIN)/python benchmarks/quick.py

## Apply the formatter (ruff format); `make lint` checks that it was applied.
format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix --select I .

# Twice: on the engine as it runs (compiled when built), then on its Python sources.
SCENARIOS = tests/rules/scenarios $$( [ -d "$(SHARED_CONFORMANCE)" ] && echo "$(SHARED_CONFORMANCE)" )
conformance: install native
	$(BIN)/python -m app.rules.conformance $(SCENARIOS)
	$(BIN)/python -m app.native sources app.rules.conformance $(SCENARIOS)

clean:
	[ ! -x $(BIN)/python ] || $(BIN)/python -m app.native clean
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache *.egg-info build
