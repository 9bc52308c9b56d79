"""The client package stands alone: a fresh virtualenv with only ./client installed (grpcio, protobuf,
httpx and their own dependencies; no numba, psycopg, fastapi, pydantic or the server) answers through
all four clients, in plaintext and over TLS, against a real service on loopback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from nimbase.settings import TlsFiles
from service.server import BoundPorts

from .virtualenv import CLIENT_DISTRIBUTIONS, installed

SCRIPT = Path(__file__).with_name("standalone_script.py")
NIM_357 = {
    "game": "nim",
    "position": "3 5 7",
    "outcome": "N",
    "grundy": 1,
    "remoteness": 15,
    "source": "formula",
}


def run_script(python: Path, cwd: Path, *args: str) -> dict[str, Any]:
    # -I: the script sees neither PYTHONPATH nor the repository, only what the virtualenv holds.
    done = subprocess.run(
        [str(python), "-I", str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def check_answers(out: dict[str, Any]) -> None:
    assert out["sync"] == out["async"] == out["rest"] == out["async_rest"] == NIM_357
    assert out["best_move"]["outcome"] == "P" and out["best_move"]["grundy"] == 0
    assert out["p_position"] is True
    assert out["sequence"] == [0, 1, 2, 3, 4]
    assert "nim" in out["games"] and "wythoff" in out["games"]
    assert [v["grundy"] for v in out["async_stream"]] == [3, 0]
    assert (out["error"], out["rest_error"]) == ("INVALID_ARGUMENT", "NOT_FOUND")
    assert out["imported"] == []  # nothing of the server, nor pydantic or numpy, came along


def test_only_the_client_and_its_three_dependencies_are_installed(client_venv: Path) -> None:
    names = installed(client_venv)
    assert {"nimbase-client", "grpcio", "protobuf", "httpx"} <= names
    assert not names & {"numba", "numpy", "psycopg", "psycopg-binary", "fastapi", "pydantic", "nimbase"}
    assert names <= CLIENT_DISTRIBUTIONS, names - CLIENT_DISTRIBUTIONS


def test_sync_and_async_clients_answer_from_a_fresh_virtualenv(
    client_venv: Path, ports: BoundPorts, tmp_path: Path
) -> None:
    out = run_script(client_venv, tmp_path, f"127.0.0.1:{ports.grpc}", f"http://127.0.0.1:{ports.http}")
    check_answers(out)


def test_tls(client_venv: Path, tls_ports: BoundPorts, tls_files: TlsFiles, tmp_path: Path) -> None:
    """A server with NIMBASE_TLS_CERT and NIMBASE_TLS_KEY serves TLS only; a client trusting the
    certificate gets the same answers."""
    out = run_script(
        client_venv,
        tmp_path,
        f"127.0.0.1:{tls_ports.grpc}",
        f"https://127.0.0.1:{tls_ports.http}",
        str(tls_files.cert),
    )
    check_answers(out)
