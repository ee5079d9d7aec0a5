# Two commands for a newcomer:  make run  (serve on http://127.0.0.1:8000)  and  make test.
# Everything else here is a step those two use.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# The shared rules scenarios live beside the repository when it is checked out for CI.
SHARED_CONFORMANCE := $(CURDIR)/../shared/conformance

.PHONY: run test install native frontend migrate lint typecheck imports pytest conformance clean

## Start the server (embedded SQLite + in-process Redis unless BURACO_* say otherwise).
run: install native frontend migrate
	exec $(BIN)/uvicorn app.main:create_app --factory --host $(HOST) --port $(PORT) --no-access-log \
		--ws-per-message-deflate false

## Lint, type-check, check import rules, run every test, then the rules conformance.
test: install lint typecheck imports pytest conformance

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

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
			echo "npm not found: install Node.js 20 to build the browser client (the API runs without it)"; \
		fi; \
	fi

migrate: install
	$(BIN)/alembic upgrade head

lint: install
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy app

imports: install
	$(BIN)/lint-imports

# Exit code 5 means "no tests collected": not a failure of the suite itself.
pytest: install native
	$(BIN)/pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

# Twice: on the engine as it runs (compiled when built), then on its Python sources.
SCENARIOS = tests/rules/scenarios $$( [ -d "$(SHARED_CONFORMANCE)" ] && echo "$(SHARED_CONFORMANCE)" )
conformance: install native
	$(BIN)/python -m app.rules.conformance $(SCENARIOS)
	$(BIN)/python -m app.native sources app.rules.conformance $(SCENARIOS)

clean:
	[ ! -x $(BIN)/python ] || $(BIN)/python -m app.native clean
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache *.egg-info build
