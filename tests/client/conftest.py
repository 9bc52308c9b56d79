"""A real service over the test database on loopback (plaintext and TLS), and a virtualenv holding only
the client package: the one a user gets from `pip install ./client`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from nimbase.settings import Settings, TlsFiles
from service.core import Nimbase
from service.server import BoundPorts
from tests.servers import running_server
from tests.tls import self_signed_certificate

from .served import ADMIN_TOKEN
from .virtualenv import REPO


@pytest.fixture(scope="module")
def service(db_engine: sa.Engine) -> Nimbase:
    return Nimbase(Settings(admin_token=ADMIN_TOKEN), db_engine)


@pytest.fixture(scope="module")
def ports(service: Nimbase) -> Iterator[BoundPorts]:
    with running_server(service) as bound:
        yield bound


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_ports(service: Nimbase, tls_files: TlsFiles) -> Iterator[BoundPorts]:
    with running_server(service, tls=tls_files) as bound:
        yield bound


@pytest.fixture(scope="session")
def client_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtualenv into which only ./client was installed (pip fetches grpcio,
    protobuf and httpx, or takes them from its cache)."""
    venv = tmp_path_factory.mktemp("client-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [
        str(python),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        str(REPO / "client"),
    ]
    done = subprocess.run(install, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return python
