"""Real processes on loopback: `nimbase serve` and `nimbase worker` against the test PostgreSQL, started
with no NIMBASE_ setting but the test's, and stopped by SIGTERM (SIGKILL if that takes over 15 s)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from nimbase.client import NimbaseClient

ADMIN_TOKEN = "test-admin-token"
#: How long a server may take to be ready (its live processes load every kind's kernels): a loaded
#: machine takes minutes, as the other start tests allow.
START_SECONDS = 300
REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    grpc_target: str
    http_url: str
    log_path: Path

    def client(self, token: str | None = ADMIN_TOKEN) -> NimbaseClient:
        return NimbaseClient(self.grpc_target, token=token)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.http_url, timeout=30)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def process_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_")}
    # No automatic jobs unless a test asks for them: the module's worker serves the jobs the tests queue.
    env.update(
        {
            "DATABASE_URL": database_url,
            "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
            "NIMBASE_AUTO_JOBS": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def start_server(database_url: str, log_path: Path, **extra: str) -> Server:
    grpc_port, http_port = free_port(), free_port()
    env = process_env(
        database_url,
        NIMBASE_GRPC_PORT=str(grpc_port),
        NIMBASE_HTTP_PORT=str(http_port),
        NIMBASE_HOST="127.0.0.1",
        **extra,
    )
    log = log_path.open("wb")
    process = subprocess.Popen(
        # One process: these tests compare answers (and `source`) across calls and kill the server by pid.
        [sys.executable, "-m", "cli", "serve", "--processes", "1"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO,
    )
    server = Server(process, f"127.0.0.1:{grpc_port}", f"http://127.0.0.1:{http_port}", log_path)
    deadline = time.monotonic() + START_SECONDS
    with httpx.Client(timeout=1) as http:  # one client: each makes a TLS context, 30 ms of CPU
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}:\n{server.log()}")
            try:
                if http.get(f"{server.http_url}/readyz").status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not come up:\n{server.log()}")


def start_worker(database_url: str, log_path: Path, **extra: str) -> subprocess.Popen[bytes]:
    log = log_path.open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "cli", "worker"],
        env=process_env(database_url, **extra),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO,
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
