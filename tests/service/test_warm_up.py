"""Ready means ready (issue 32, finding 1): minutes after a first start, with /healthz 200, a Nim formula
answered 504 while numba compiled in the server process. Each process now asks every listed kind its
warm-up questions (service.warm_up) before it is ready, and no request loads a kernel after that;
/readyz (503, naming why) and gRPC health (NOT_SERVING) wait for what the process waits for."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nimbase.settings import Settings
from service.core import Nimbase
from tests.servers import running_server

REPO = Path(__file__).resolve().parents[2]


def kernels_loaded_by_requests(*flags: str) -> list[str]:
    """The kernels a fresh process loads (compiles, or reads from numba's cache) under the questions of
    every listed game's examples (tests.service.kernels_after_warm_up)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.service.kernels_after_warm_up", *flags],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_without_a_warm_up_requests_load_kernels() -> None:
    """The finding as it was: the first requests of a process load the kernels they run."""
    loaded = kernels_loaded_by_requests("--cold")
    assert "kinds.heaps.kernels.subtraction._fill" in loaded, loaded
    assert "kinds.chess.kernels.lookup.probe_many" in loaded, loaded


def test_after_the_warm_up_no_request_loads_a_kernel() -> None:
    assert kernels_loaded_by_requests() == []


def grpc_status(port: int) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=10
        )
    return int(reply.status)


def test_readyz_and_grpc_health_wait_for_what_the_process_waits_for() -> None:
    service = Nimbase(Settings(), None)
    waiting: list[str | None] = ["compiling the kernels its requests may run: 3 of 21 games warmed up"]
    service.readiness.require("kernels", lambda: waiting[0])
    service.readiness.require("worker", lambda: None)
    with (
        running_server(service) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http,
    ):
        reply = http.get("/readyz")
        assert reply.status_code == 503
        error = reply.json()["error"]
        assert error["code"] == "UNAVAILABLE"
        assert error["reasons"] == [waiting[0]]
        assert error["message"] == f"not ready: {waiting[0]}"
        assert http.get("/healthz").status_code == 200  # alive all the same
        assert grpc_status(ports.grpc) == health_pb2.HealthCheckResponse.NOT_SERVING

        waiting[0] = None
        deadline = time.monotonic() + 30
        while grpc_status(ports.grpc) != health_pb2.HealthCheckResponse.SERVING:
            assert time.monotonic() < deadline, "gRPC health never became SERVING"
            time.sleep(0.1)
        reply = http.get("/readyz")
        assert reply.status_code == 200 and reply.json()["status"] == "ok"
