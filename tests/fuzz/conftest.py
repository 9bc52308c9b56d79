"""The fuzzer's target and its bounds.

`--fuzz-examples N` sets the examples generated per route (default `DEFAULT_EXAMPLES`, what `make test`
runs); `--fuzz-random` draws fresh random examples instead of the fixed, derandomized ones (`make fuzz`
passes both). The options are declared here, so they are known when `tests/fuzz` is named on the command
line (`pytest tests/fuzz --fuzz-examples 1000`); a plain `pytest` runs the defaults.

Schemathesis builds each route's test when the test module is collected, from the configuration it is
given then: `pytest_configure` keeps the options in `OPTIONS` for the test module to read. What it keeps
between runs (its cache of failures to replay) goes to `CACHE_DIR`, under the ignored var/, never into
the tracked tree; Hypothesis keeps no example database here (`"database": "none"`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import sqlalchemy as sa

from nimbase.settings import Limits, Settings
from service.core import Nimbase
from tests.database import empty_data_tables
from tests.servers import running_server

#: Examples per route in `make test`: enough to reach every route's error paths in well under a minute.
DEFAULT_EXAMPLES = 25
#: Where schemathesis keeps what it caches between runs (the failures it replays first).
CACHE_DIR = Path(__file__).resolve().parents[2] / "var" / "schemathesis"

#: The admin token of the fuzzed server; the fuzzer sends it on some of the job routes' calls.
TOKEN = "fuzz-admin-token"

#: The server's limits: the defaults, with a shorter request deadline so no example may take long.
LIMITS = Limits(request_seconds=2.0)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fuzz", "REST fuzzing (tests/fuzz)")
    group.addoption(
        "--fuzz-examples",
        type=int,
        default=None,
        metavar="N",
        help=f"examples generated per REST route (default {DEFAULT_EXAMPLES})",
    )
    group.addoption(
        "--fuzz-random",
        action="store_true",
        default=False,
        help="draw fresh random examples rather than the fixed derandomized ones",
    )


@dataclass
class FuzzOptions:
    """The run's bounds, from the command line."""

    examples: int = DEFAULT_EXAMPLES
    randomized: bool = False


OPTIONS = FuzzOptions()


def pytest_configure(config: pytest.Config) -> None:
    examples = config.getoption("fuzz_examples", default=None)
    OPTIONS.examples = int(examples) if examples else DEFAULT_EXAMPLES
    OPTIONS.randomized = bool(config.getoption("fuzz_random", default=False))


@dataclass(frozen=True)
class FuzzTarget:
    """The running server the fuzzer calls."""

    base_url: str
    limits: Limits
    token: str


@pytest.fixture(scope="module")
def fuzz_target(db_engine: sa.Engine) -> Iterator[FuzzTarget]:
    """A real nimbase server (REST and gRPC on loopback) over the emptied test database, shared by the
    module's routes; no worker runs, so the jobs it is asked for stay queued (and are emptied after)."""
    empty_data_tables(db_engine)
    settings = Settings(admin_token=TOKEN, limits=LIMITS)
    try:
        with running_server(Nimbase(settings, db_engine), settings.limits) as ports:
            base_url = f"http://127.0.0.1:{ports.http}"
            warm_up(base_url)
            yield FuzzTarget(base_url, settings.limits, TOKEN)
    finally:
        empty_data_tables(db_engine)


#: Requests that compile the kernels (numba, on first use) before the fuzzer times any answer.
WARM_UP = [
    ("/v1/value", {"game": game, "position": position})
    for game, position in [
        ("subtraction:1,3,4", "1000 7"),
        ("octal:0.77", "1000"),
        ("octal:0.127", "1000"),
        ("grundy", "1000"),
        ("wythoff", "3,5 100,7"),
        ("subtraction:1,3,4:misere", "10 7"),
        ("lights-out:5x5", "00000/01100/01100/00000/00000"),
        ("lights-out:5x5:torus", "00000/01100/01100/00000/00000"),
        ("lights-out:graph:fuzz", "1010"),
    ]
] + [
    ("/v1/best-move", {"game": "wythoff", "position": "100,7"}),
    ("/v1/best-move", {"game": "nim", "position": "9 5"}),
    ("/v1/best-move", {"game": "lights-out:3x3", "position": "000/011/011"}),
    ("/v1/stats", {"game": "lights-out:3x3"}),
    ("/v1/stats", {"game": "lights-out:100000x100000"}),
]
#: A graph the fuzzer's Lights Out requests play on (`lights-out:graph:fuzz`), uploaded before them.
FUZZ_GRAPH = {"name": "fuzz", "vertices": ["a", "b", "c", "d"], "edges": [["a", "b"], ["b", "c"], ["c", "d"]]}


def warm_up(base_url: str) -> None:
    """Upload the fuzzer's graph, and ask what compiles the kernels, whatever the answers (a first
    compilation may overrun a deadline)."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        uploaded = client.post("/v1/graphs", json=FUZZ_GRAPH, headers={"authorization": f"Bearer {TOKEN}"})
        assert uploaded.status_code == 200, uploaded.text
        for path, params in WARM_UP:
            client.get(path, params=params)


def fuzz_config(*, examples_and_coverage: bool = True, stateful: bool = False) -> schemathesis.Config:
    """Schemathesis' configuration for this run: valid and invalid requests, `OPTIONS.examples` random
    ones per route, derandomized unless `--fuzz-random`; before them the schema's examples and the
    boundary values of each parameter (the coverage phase) unless `examples_and_coverage` is false; the
    links between routes that chains of calls follow when `stateful`."""
    data: dict[str, Any] = {
        "generation": {
            "mode": "all",
            "max-examples": OPTIONS.examples,
            "deterministic": not OPTIONS.randomized,
            "database": "none",
        },
        "phases": {
            "examples": {"enabled": examples_and_coverage},
            "coverage": {"enabled": examples_and_coverage},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": stateful},
        },
        # A 5xx is a failure, but for 504 DEADLINE_EXCEEDED: the contract's answer to a request that ran
        # out of its deadline (the fuzzer sends short ones; `deadline_kept` checks it came on time).
        "checks": {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "504"]}},
        "suppress-health-check": ["too_slow", "filter_too_much", "data_too_large"],
        "request-timeout": 60,
        "cache": {"directory": str(CACHE_DIR)},
    }
    if not OPTIONS.randomized:
        data["seed"] = 12
    return schemathesis.Config.from_dict(data)
