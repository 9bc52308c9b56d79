"""The `nimbase` console script, run as a user runs it: a subprocess in a directory of its own.

A few runs of each kind are real subprocesses; the checks of what a command prints (its JSON, its errors,
its help) run the same `cli.main.main` in this process, in that directory and with that environment
(`in_process`): a subprocess would add only its start-up, a second of imports each.

Without a database it says so in one line and creates none; on the test database its questions are
answered by the service layer; with --server by a running server, with the same JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from cli.plots import text_plot, write_png
from nimbase import __version__
from nimbase.settings import Settings
from nimbase_client import NimbaseClient, NimbaseClientError, RestClient
from service.calls import UploadGraph
from service.core import Nimbase
from tests.servers import running_server
from tests.tls import self_signed_certificate

NIM_357 = {
    "game": "nim",
    "position": "3 5 7",
    "outcome": "N",
    "grundy": 1,
    "remoteness": 15,
    "source": "formula",
}


def nimbase(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m cli ARGS` (the `nimbase` script) in `cwd`, with no nimbase variable but those given."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def in_process(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`nimbase ARGS` as `nimbase` runs it, but by `cli.main.main` in this process: in `cwd`, with no
    nimbase variable but those given, its output and exit status returned as a subprocess's are."""
    from cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("NIMBASE_") or name == "DATABASE_URL":
                patch.delenv(name)
        for name, value in env.items():
            patch.setenv(name, value)
        patch.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exit:  # argparse: --help, --version, a bad argument
                status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return subprocess.CompletedProcess(["nimbase", *args], status, out.getvalue(), err.getvalue())


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A working directory that is not the repository."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    "command",
    [
        ["value", "octal:0.77", "100"],  # a formula's answer needs none (test_cli_finds_its_database)
        ["best-move", "octal:0.77", "100"],
        ["mainline", "octal:0.77", "100"],
        ["sequence", "octal:0.77", "--plot"],
        ["stats", "nim"],
        ["games"],
        ["jobs"],
        ["precompute", "subtraction:1,2,5", "--upto", "1000"],
        ["worker"],
        ["serve"],
    ],
)
def test_without_a_database_one_line_names_the_fix_and_creates_none(
    elsewhere: Path, tmp_path: Path, command: list[str]
) -> None:
    var = tmp_path / "data"
    run = nimbase if command[0] == "value" else in_process  # one as a person runs it, the rest here
    line = one_line_error(run(elsewhere, *command, NIMBASE_VAR_DIR=str(var)))
    assert line == f"nimbase: no nimbase database at {var}: run `nimbase migrate` (or `make run`) first"
    assert not var.exists()
    assert list(elsewhere.iterdir()) == []


@pytest.fixture
def unmigrated_url(database_url: str) -> Iterator[str]:
    """A database of its own on the test server that was never migrated."""
    name = f"nimbase_cli_{secrets.token_hex(4)}"
    admin = sa.create_engine(database_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(database_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_an_unmigrated_database_is_refused_in_one_line(elsewhere: Path, unmigrated_url: str) -> None:
    for command in (["value", "nim", "3 5 7"], ["jobs"], ["worker"]):
        line = one_line_error(in_process(elsewhere, *command, DATABASE_URL=unmigrated_url))
        assert line.startswith("nimbase: the nimbase database at postgresql+psycopg://"), line
        assert line.endswith("is not migrated: run `nimbase migrate` first"), line
        assert "***" in line or "@" not in line  # never the password


def test_an_unreachable_database_is_one_line_too(elsewhere: Path) -> None:
    url = "postgresql://nobody:secret@127.0.0.1:1/nimbase"
    line = one_line_error(in_process(elsewhere, "value", "nim", "1", DATABASE_URL=url))
    assert line.startswith("nimbase: cannot reach the nimbase database at postgresql+psycopg://nobody:***@")
    assert "secret" not in line


def test_questions_on_the_local_database(elsewhere: Path, database_url: str) -> None:
    env = {"DATABASE_URL": database_url}
    value = nimbase(elsewhere, "value", "nim", "3", "5", "7", **env)
    assert value.returncode == 0, value.stderr
    assert json.loads(value.stdout) == NIM_357
    assert json.loads(in_process(elsewhere, "value", "nim", "3 5 7", **env).stdout) == NIM_357

    best = in_process(elsewhere, "best-move", "nim", "3", "5", "7", "--limit", "1", **env)
    assert best.returncode == 0, best.stderr
    answer = json.loads(best.stdout)
    assert answer["best_move"]["outcome"] == "P" and len(answer["moves"]) == 1

    plot = in_process(elsewhere, "sequence", "nim", "--start", "0", "--stop", "10", "--plot", **env)
    assert plot.returncode == 0, plot.stderr
    lines = plot.stdout.splitlines()
    assert lines[0].startswith("nim (heap), n = 0..9")
    assert lines[1] == "9 |         *" and lines[10] == "0 |*"  # one row per value: g(n) = n
    assert lines[-2] == "  +----------" and lines[-1].split() == ["0", "9"]

    sequence = json.loads(in_process(elsewhere, "sequence", "nim", "--stop", "5", **env).stdout)
    assert sequence["values"] == [0, 1, 2, 3, 4]

    stats = in_process(elsewhere, "stats", "subtraction:1,2", **env)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["period"]["period"] == 3

    games = in_process(elsewhere, "games", **env)
    assert games.returncode == 0, games.stderr
    assert any(line.split()[0] == "nim" for line in games.stdout.splitlines())
    assert {g["id"] for g in json.loads(in_process(elsewhere, "games", "--json", **env).stdout)["games"]} >= {
        "nim",
        "wythoff",
    }
    assert list(elsewhere.iterdir()) == []


def test_errors_of_a_question_are_one_line(elsewhere: Path, database_url: str) -> None:
    line = one_line_error(in_process(elsewhere, "value", "no-such-game", "1", DATABASE_URL=database_url))
    assert line.startswith("nimbase: NOT_FOUND: ")
    line = one_line_error(in_process(elsewhere, "value", "nim", "x", DATABASE_URL=database_url))
    assert line.startswith("nimbase: INVALID_ARGUMENT: ") and "'x'" in line


def test_precompute_binds_a_game_graph(elsewhere: Path, database_url: str, db_engine: sa.Engine) -> None:
    """`nimbase precompute graph:NAME` loads the graph to plan its solve job (family "solution")."""
    from storage.jobs import JobQueue

    name = f"cli-{secrets.token_hex(4)}"
    Nimbase(Settings(admin_token="t"), db_engine).upload_graph(
        UploadGraph(name, ["a", "b"], [["a", "b"]], token="t")
    )
    env = {"DATABASE_URL": database_url}
    done = in_process(elsewhere, "precompute", f"graph:{name}", "--upto", "0", "--detach", **env)
    assert done.returncode == 0, done.stderr
    queue = JobQueue(db_engine)
    jobs = [job for job in queue.list() if job.game_id == f"graph:{name}"]
    assert [job.family for job in jobs] == ["solution"]
    queue.cancel(jobs[0].id)  # no later worker should run it
    missing = in_process(elsewhere, "precompute", "graph:no-such-graph", "--upto", "0", **env)
    assert missing.returncode == 2 and "no graph named 'no-such-graph'" in missing.stderr


def test_png(elsewhere: Path, database_url: str) -> None:
    done = in_process(
        elsewhere, "sequence", "octal:0.77", "--stop", "300", "--png", "kayles.png", DATABASE_URL=database_url
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "wrote kayles.png (300 values)"
    assert read_png((elsewhere / "kayles.png").read_bytes())[:2] == (800, 400)


def test_asking_a_server_gives_the_same_json(
    elsewhere: Path, database_url: str, db_engine: sa.Engine
) -> None:
    local = in_process(elsewhere, "best-move", "nim", "3 5 7", DATABASE_URL=database_url)
    with running_server(Nimbase(Settings(), db_engine)) as ports:
        remote = nimbase(elsewhere, "best-move", "nim", "3 5 7", "--server", f"127.0.0.1:{ports.grpc}")
    assert remote.returncode == 0, remote.stderr
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    line = one_line_error(in_process(elsewhere, "games", "--server", "127.0.0.1:1"))
    assert line.startswith("nimbase: UNAVAILABLE: ")


#: How long `nimbase serve` may take to answer (imports and its gRPC and HTTP servers; on a loaded
#: 2-core machine this has taken over a minute).
SERVE_START_SECONDS = 240


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_serve_refuses_a_bad_kind_setting_at_start(elsewhere: Path) -> None:
    """A kind's own variable (declared by the kind, engine.kind_settings) is checked before the service
    starts: exit 2, one line naming it."""
    line = in_process(elsewhere, "serve", NIMBASE_LIMITS_CHESS_LIVE_MEN="0")
    assert line.returncode == 2 and "Traceback" not in line.stderr
    assert line.stderr.startswith("nimbase: NIMBASE_LIMITS_CHESS_LIVE_MEN='0' is invalid: ")


def test_serve_refuses_syzygy_files_that_do_not_open(elsewhere: Path, tmp_path: Path) -> None:
    """The files a kind's setting names are opened before the service starts (outside engine/, by the
    kind's plugin): exit 2, one line naming the variable and the file."""
    (tmp_path / "KQvK.rtbw").write_bytes(b"not a table")
    line = in_process(elsewhere, "serve", NIMBASE_SYZYGY_PATH=str(tmp_path))
    assert line.returncode == 2 and "Traceback" not in line.stderr
    assert line.stderr.startswith("nimbase: NIMBASE_SYZYGY_PATH: Syzygy files that do not open: ")
    assert "KQvK.rtbw" in line.stderr


def test_serve_with_tls(elsewhere: Path, tmp_path: Path, database_url: str) -> None:
    """NIMBASE_TLS_CERT and NIMBASE_TLS_KEY make `nimbase serve` speak TLS only; one without the other
    is refused at start, naming both."""
    tls = self_signed_certificate(tmp_path)
    line = in_process(elsewhere, "serve", NIMBASE_TLS_CERT=str(tls.cert), DATABASE_URL=database_url)
    assert line.returncode == 2 and "Traceback" not in line.stderr
    assert "NIMBASE_TLS_CERT is set but NIMBASE_TLS_KEY is not" in line.stderr
    grpc_port, http_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    env |= {
        "DATABASE_URL": database_url,
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": str(grpc_port),
        "NIMBASE_HTTP_PORT": str(http_port),
        "NIMBASE_TLS_CERT": str(tls.cert),
        "NIMBASE_TLS_KEY": str(tls.key),
        # No live processes: Nim's formula answers, and each would load every kind's kernels at start
        # (on an empty numba cache, each server process's two compiled them all at once).
        "NIMBASE_LIMITS_LIVE_PROCESSES": "0",
    }
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        # One server process (the default is one a core): several sharing the ports are test_processes'.
        [sys.executable, "-m", "cli", "serve", "--processes", "1"],
        cwd=elsewhere,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    root = tls.cert.read_bytes()
    try:
        deadline = time.monotonic() + SERVE_START_SECONDS
        with NimbaseClient(f"127.0.0.1:{grpc_port}", root_certificates=root, timeout=5) as client:
            while True:
                try:
                    assert client.get_value("nim", "3 5 7") == NIM_357
                    break
                except NimbaseClientError:
                    assert server.poll() is None and time.monotonic() < deadline, (
                        tmp_path / "serve.log"
                    ).read_text()
                    time.sleep(0.2)
        with RestClient(f"https://127.0.0.1:{http_port}", root_certificates=root) as rest:
            assert rest.get_value("nim", "3 5 7") == NIM_357
        with NimbaseClient(f"127.0.0.1:{grpc_port}", timeout=5) as plain, pytest.raises(NimbaseClientError):
            plain.get_value("nim", "3 5 7")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        log.close()


def test_version_and_help(elsewhere: Path) -> None:
    version = nimbase(elsewhere, "--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"nimbase {__version__} (nimbase-client {__version__})"
    top = in_process(elsewhere, "--help").stdout
    assert "examples:" in top and "nimbase value nim 3 5 7" in top and "NIMBASE_VAR_DIR" in top
    for command in ("value", "best-move", "mainline", "sequence", "stats", "games"):
        text = in_process(elsewhere, command, "--help").stdout
        assert "examples:" in text and "--server URL" in text and "HOST:PORT for gRPC" in text, command
        assert "NIMBASE_SERVER" in text, command


# -- the plots, in process ------------------------------------------------------------------------


def test_text_plot_squeezes_many_values_into_its_width() -> None:
    lines = text_plot([n % 5 for n in range(1000)], start=0, width=50, height=16)
    assert len(lines) == 5 + 2  # values 0..4: one row each, then the axis and the labels
    assert all(len(line) <= 3 + 50 for line in lines[:-1])
    assert lines[-1].split() == ["0", "999"]
    assert text_plot([], 0) == ["(no values)"]
    assert text_plot([7, 7], 3)[0] == "7 |**"


def test_png_encoder(tmp_path: Path) -> None:
    path = tmp_path / "plot.png"
    write_png([0, 5, 10], path, width=100, height=60)
    width, height, pixels = read_png(path.read_bytes())
    assert (width, height) == (100, 60)
    ink = (0x1F, 0x3A, 0x93)
    assert sum(1 for p in pixels if p == ink) == 3 * 9  # three dots of 3x3 pixels
    write_png([], path)  # axes only
    assert read_png(path.read_bytes())[:2] == (800, 400)


def read_png(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """(width, height, pixels) of an 8-bit RGB PNG without filters, checking every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + body)
        chunks[kind] = body
        at += 12 + length
    width, height, depth, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, color) == (8, 2) and b"IEND" in chunks
    raw = zlib.decompress(chunks[b"IDAT"])
    assert len(raw) == height * (1 + 3 * width)
    pixels = []
    for y in range(height):
        row = raw[y * (1 + 3 * width) : (y + 1) * (1 + 3 * width)]
        assert row[0] == 0
        pixels += [tuple(row[1 + 3 * x : 4 + 3 * x]) for x in range(width)]
    return width, height, pixels  # type: ignore[return-value]


def test_the_console_script_module_imports_nothing(elsewhere: Path) -> None:
    """Processes started by spawn import the script that started their parent again: the `nimbase`
    script's entry module must cost them nothing (cli.entry)."""
    code = "import sys; before = set(sys.modules); import cli.entry; print(sorted(set(sys.modules) - before))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.replace("'", '"')) == ["cli", "cli.entry"]


def test_a_reader_that_leaves_gets_no_traceback(elsewhere: Path, tmp_path: Path) -> None:
    """`nimbase best-move ... | head -1`: the pipe closed before the answer is written ends quietly."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    env = {**clean, "NIMBASE_VAR_DIR": str(tmp_path / "none")}
    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "cli", "best-move", "nim", "3 5 7"],
            cwd=elsewhere,
            env=env,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
