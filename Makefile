# The two commands: `make run` and `make test`. Everything else is what they are made of.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench soak proto migrate lint typecheck pytest fuzz install browser loadgen clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

## The server depends on the client package (./client, `nimbase-client`), which no index has: both from here.
$(STAMP): $(BIN)/python pyproject.toml client/pyproject.toml
	$(BIN)/pip install --quiet -e ./client -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

## Regenerates the gRPC/protobuf modules from proto/ (the generated files are committed) into their one
## home, the client package: client/nimbase_client/v1/ (the server imports them from there, or as nimbase.v1),
## and the client's kind shapes (v1/kind_records.py) from the kind messages of the same .proto.
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Inimbase_client/v1=proto/nimbase/v1 \
		--python_out=client --pyi_out=client --grpc_python_out=client nimbase_client/v1/nimbase.proto
	$(BIN)/python proto/generate_kind_records.py

## The embedded database (used when DATABASE_URL is unset) lives under NIMBASE_VAR_DIR, by default the
## user data directory (~/.local/share/nimbase on Linux) for `make run`, `make migrate` and the `nimbase`
## command run from anywhere alike, so each finds what the other started. The benchmarks keep theirs in
## ./var/ (set NIMBASE_VAR_DIR to choose another for any of them).
bench soak: export NIMBASE_VAR_DIR ?= var

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

## The tests run in TEST_PROCESSES worker processes (pytest-xdist; `auto`: one a core), each module, or
## each folder sharing one server (tests/conftest.py), in one of them. One more than the cores ran 40 s
## faster here but starved the live processes the deadline tests rely on (they run below the service).
TEST_PROCESSES ?= auto
pytest: $(STAMP) browser
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadscope --durations=15

## The page's browser test (tests/web) drives Debian's headless Chromium through its chromedriver:
## installed with apt-get when either is missing (as root, else through sudo), a no-op once they are.
BROWSER_PACKAGES := chromium chromium-driver
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then sudo=; \
		elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
		else echo "the browser test needs Chromium: install the packages $(BROWSER_PACKAGES) (apt-get install -y $(BROWSER_PACKAGES))"; exit 1; fi; \
		echo "installing $(BROWSER_PACKAGES) for the browser test"; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BROWSER_PACKAGES) >/dev/null 2>&1 || { \
			$$sudo apt-get update -q >/dev/null && \
			$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BROWSER_PACKAGES) >/dev/null; } || { \
			echo "could not install $(BROWSER_PACKAGES) with apt-get; install them to run the browser test"; exit 1; }; \
	}

test: lint typecheck pytest

## Fuzzes every REST route from /openapi.json at length, under every schemathesis check: FUZZ_EXAMPLES
## fresh random requests per route and kind, and as many chains of calls (`make test` runs the same
## tests, tests/fuzz, with 25 fixed ones each).
FUZZ_EXAMPLES ?= 1000
fuzz: $(STAMP)
	$(BIN)/pytest tests/fuzz --fuzz-examples $(FUZZ_EXAMPLES) --fuzz-random

## The service benchmark measures capacity with C load generators (h2load for gRPC, wrk for REST) beside a
## bare gRPC server: installed with apt-get when missing, like the browser; without them those figures
## are left out (each says so).
LOAD_PACKAGES := nghttp2-client wrk
loadgen:
	@command -v h2load >/dev/null 2>&1 && command -v wrk >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
		else echo "install $(LOAD_PACKAGES) for the capacity figures"; exit 0; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(LOAD_PACKAGES) >/dev/null 2>&1 || { \
			$$sudo apt-get update -q >/dev/null && \
			$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(LOAD_PACKAGES) >/dev/null; } || \
			echo "could not install $(LOAD_PACKAGES): the capacity figures are left out"; \
	}

bench: $(STAMP) loadgen
	$(BIN)/python -m bench

## 10 minutes of mixed load while a worker is SIGKILLed and PostgreSQL restarted (not in CI);
## SOAK_ARGS passes options, e.g. `make soak SOAK_ARGS="--seconds 90"`.
soak: $(STAMP)
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
