# The two commands: `make run` and `make test`. Everything else is what they are made of.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench soak proto migrate lint typecheck pytest fuzz install clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

## Regenerates the gRPC/protobuf modules from proto/ (the generated files are committed).
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. \
		proto/nimbase/v1/nimbase.proto

## The embedded database (used when DATABASE_URL is unset) lives in ./var/ for every make target;
## outside make, nimbase defaults NIMBASE_VAR_DIR to the user data directory.
run migrate bench soak: export NIMBASE_VAR_DIR ?= var

## Applies every Alembic migration to DATABASE_URL (or the embedded database).
migrate: $(STAMP)
	$(BIN)/nimbase migrate

## Starts the embedded database (unless DATABASE_URL is set), migrates, serves, and runs one worker.
run: $(STAMP)
	$(BIN)/nimbase run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

## Fuzzes every REST route from /openapi.json at length: FUZZ_EXAMPLES fresh random requests per route
## and kind (`make test` runs the same tests, tests/fuzz, with 25 fixed ones each).
FUZZ_EXAMPLES ?= 1000
fuzz: $(STAMP)
	$(BIN)/pytest tests/fuzz --fuzz-examples $(FUZZ_EXAMPLES) --fuzz-random

bench: $(STAMP)
	$(BIN)/python -m bench

## 10 minutes of mixed load while a worker is SIGKILLed and PostgreSQL restarted (not in CI);
## SOAK_ARGS passes options, e.g. `make soak SOAK_ARGS="--seconds 90"`.
soak: $(STAMP)
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
