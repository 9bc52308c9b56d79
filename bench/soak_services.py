"""The processes under soak: one `nimbase serve` and one `nimbase worker`, started, killed and stopped here.

They run as subprocesses of the soak on loopback, with their own environment (no NIMBASE_ setting of the
caller leaks in) and their logs in the run's directory; the admin API is called through `admin_call`,
which waits out a database restart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench.common import ADMIN_TOKEN, free_port

REPO = Path(__file__).resolve().parents[1]
#: The server's automatic jobs are bounded, so the final recomputation stays bounded too.
SERVER_ENV = {"NIMBASE_AUTO_VALUES": str(1 << 22), "NIMBASE_AUTO_SECONDS": "60"}


def log(message: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


def process_env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    env.update(
        {
            "DATABASE_URL": url,
            "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
            "NIMBASE_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


@dataclass
class Services:
    url: str
    logs: Path
    server: subprocess.Popen[bytes] | None = None
    grpc_target: str = ""
    http_base: str = ""
    worker: subprocess.Popen[bytes] | None = None
    worker_starts: int = 0
    log_files: list[Any] = field(default_factory=list)

    def start_server(self) -> None:
        grpc_port, http_port = free_port(), free_port()
        env = process_env(
            self.url,
            NIMBASE_HOST="127.0.0.1",
            NIMBASE_GRPC_PORT=str(grpc_port),
            NIMBASE_HTTP_PORT=str(http_port),
            **SERVER_ENV,
        )
        out = (self.logs / "server.log").open("ab")
        self.log_files.append(out)
        self.server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli",
                "serve",
                "--processes",
                "1",
            ],  # one process's memory is measured
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        self.grpc_target = f"127.0.0.1:{grpc_port}"
        self.http_base = f"http://127.0.0.1:{http_port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.server.returncode}; see {self.logs}/server.log"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http_base}/readyz", timeout=1).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the server did not come up; see {self.logs}/server.log")

    def start_worker(self) -> None:
        self.worker_starts += 1
        out = (self.logs / f"worker-{self.worker_starts}.log").open("ab")
        self.log_files.append(out)
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "cli", "worker"],
            env=process_env(self.url),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )

    def kill_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            self.worker.send_signal(signal.SIGKILL)
            self.worker.wait()
        self.worker = None

    @staticmethod
    def _terminate(process: subprocess.Popen[bytes] | None) -> None:
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop_worker(self) -> None:
        self._terminate(self.worker)
        self.worker = None

    def stop(self) -> None:
        self.stop_worker()
        self._terminate(self.server)
        for out in self.log_files:
            out.close()


def rss(pid: int) -> int:
    """Resident set size of a process, in bytes."""
    return int(psutil.Process(pid).memory_info().rss)


def admin_call(base: str, method: str, path: str, body: Any = None, patience: float = 60.0) -> Any:
    """An authorised REST call, retried while the database is restarting (503) or unreachable."""
    deadline = time.monotonic() + patience
    while True:
        try:
            response = httpx.request(
                method,
                f"{base}{path}",
                json=body,
                headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
                timeout=30,
            )
            if response.status_code < 500:
                response.raise_for_status()
                return response.json()
            problem = f"{response.status_code} {response.text[:200]}"
        except httpx.TransportError as exc:
            problem = str(exc)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{method} {path}: {problem}")
        time.sleep(1)
