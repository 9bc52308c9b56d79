"""Whether two versions answer byte for byte alike: the web page, the OpenAPI document, and every game
family's examples over both transports.

    python -m bench.same_answers BEFORE [AFTER]

serves BEFORE (a commit, checked out into a temporary git worktree as bench/at_commit.py does) and AFTER
(another commit, or by default the working tree), each on a fresh database of the embedded PostgreSQL,
without warm-up or live processes (a plain `Nimbase` behind `service.server.serve`, so only the kernels
the questions need compile). Both are asked the same fixed list: `/`, `/openapi.json`, `/v1/games`, and
for each example position ListGames gives GET /v1/value, /v1/best-move, /v1/is-p-position, and per game
/v1/stats and /v1/sequence over REST, GetValue, BestMove and IsPPosition over gRPC (the reply's
serialized bytes, or its status code and details). Each answer is its status, content type and body.
Both servers may compute for REQUEST_SECONDS, and a question answered differently is asked both again,
so that a deadline met only once a kernel was compiled is not taken for a change; each difference left
is printed, or "byte for byte the same: N answers". A checked-out commit's kernels are kept in numba's
cache under the temporary directory, so a second run compiles nothing.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
from sqlalchemy import text

from bench.at_commit import ROOT
from bench.common import free_port
from nimbase.settings import Settings
from nimbase_client.v1 import nimbase_pb2 as pb
from storage.database import create_engine
from storage.embedded import database_url

#: What a served tree runs: its own migrations on the empty database, then its service and both
#: transports, with nothing started beside them.
SERVE = """
import asyncio
from nimbase.settings import Settings
from service.core import Nimbase
from service.server import serve
from storage.database import create_engine
from storage.migrate import upgrade_head

settings = Settings.from_env()
upgrade_head(settings.database_url)
service = Nimbase(settings, create_engine(settings.database_url))
asyncio.run(serve(service, settings.grpc_port, settings.http_port, "127.0.0.1", limits=settings.limits))
"""
#: How long a server may take to answer /healthz (imports on a busy machine).
START_SECONDS = 300.0
#: Seconds each question may take: a live computation is bounded by the server's own limits, but a kernel
#: compiled for the first time (numba) is not, and takes minutes on a busy machine.
ASK_SECONDS = 900.0
#: The longest a request may compute on either server (the default 10 s is often not enough for a
#: kernel compiled for the first time).
REQUEST_SECONDS = 300
#: The values of /v1/sequence asked per game.
SEQUENCE_STOP = 24


@dataclass(frozen=True)
class Answer:
    """What one question got: the status (HTTP, or gRPC's code name), the content type and the body."""

    status: str
    kind: str
    body: bytes


@contextmanager
def empty_database() -> Iterator[str]:
    """A new database without tables on the embedded server (or DATABASE_URL's), dropped afterwards: the
    served tree migrates it with its own migrations."""
    settings = Settings.from_env()
    server_url = database_url(settings.database_url, settings.var_dir)
    name = f"nimbase_same_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    head, _, query = server_url.partition("?")
    try:
        yield head.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@dataclass(frozen=True)
class Served:
    grpc: str
    http: str


def entry_points(tree: Path, into: Path) -> Path:
    """A distribution's metadata in `into` giving the entry points `tree`'s pyproject.toml declares (the
    kinds it registers, the plugin games): first on the import path, it stands for the installed ones,
    which are the working tree's."""
    project = tomllib.loads((tree / "pyproject.toml").read_text())["project"]
    info = into / f"nimbase-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: nimbase\nVersion: {project['version']}\n")
    groups = project.get("entry-points", {})
    scripts = {"console_scripts": project.get("scripts", {}), **groups}
    lines = [
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items()) for group, names in scripts.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(lines))
    return into


@contextmanager
def serving(tree: Path, database: str) -> Iterator[Served]:
    """`tree`'s server (its own code, client package and entry points first on the import path) on
    `database`."""
    grpc_port, http_port = free_port(), free_port()
    metadata = entry_points(tree, Path(tempfile.mkdtemp(prefix="nimbase-same-")))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(metadata), str(tree), str(tree / "client"))),
        "DATABASE_URL": database,
        "NIMBASE_GRPC_PORT": str(grpc_port),
        "NIMBASE_HTTP_PORT": str(http_port),
        "NIMBASE_LOG_LEVEL": "WARNING",
        # room for what a cold kernel cache and a busy machine cost, so answers do not hang on timing
        "NIMBASE_LIMITS_REQUEST_SECONDS": str(REQUEST_SECONDS),
        **({} if tree == ROOT else {"NUMBA_CACHE_DIR": str(NUMBA_CACHE)}),
    }
    process = subprocess.Popen([sys.executable, "-c", SERVE], cwd=tree, env=env)
    http = f"http://127.0.0.1:{http_port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if httpx.get(f"{http}/healthz", timeout=2).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"the server of {tree} did not start")
            time.sleep(0.3)
        yield Served(f"127.0.0.1:{grpc_port}", http)
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(metadata, ignore_errors=True)


#: Where the kernels a checked-out commit compiles are kept between runs (numba's cache, found again by
#: the source's path and modification time, which `checkout_at` makes the same each time).
NUMBA_CACHE = Path(tempfile.gettempdir()) / "nimbase-same-answers-numba"


def _git(tree: Path, *arguments: str) -> str:
    return subprocess.run(
        ["git", "-C", str(tree), *arguments], check=True, capture_output=True, text=True
    ).stdout


@contextmanager
def checkout_at(commit: str) -> Iterator[Path]:
    """`commit`'s tree in a temporary git worktree (as bench/at_commit.py checks one out), removed
    afterwards; at a path and with file times fixed by the commit, so a later run reuses its kernels."""
    sha = _git(ROOT, "rev-parse", commit).strip()
    tree = Path(tempfile.gettempdir()) / f"nimbase-same-{sha[:12]}"
    git = ["git", "-C", str(ROOT), "worktree"]
    subprocess.run([*git, "remove", "--force", str(tree)], check=False, capture_output=True)
    subprocess.run([*git, "add", "--detach", str(tree), sha], check=True, capture_output=True)
    try:
        when = int(_git(tree, "log", "-1", "--format=%ct"))
        files = _git(tree, "ls-files", "-z")
        for name in files.split("\0"):
            if name and (tree / name).is_file():
                os.utime(tree / name, (when, when))
        yield tree
    finally:
        subprocess.run([*git, "remove", "--force", str(tree)], check=False, capture_output=True)


@contextmanager
def tree_of(commit: str | None) -> Iterator[Path]:
    """The working tree (None), or `commit`'s in a temporary worktree."""
    if commit is None:
        yield ROOT
    else:
        with checkout_at(commit) as tree:
            yield tree


def examples(listed: bytes) -> list[tuple[str, str]]:
    """(game, position) of every example ListGames' REST answer gives, in its order."""
    games: list[dict[str, Any]] = json.loads(listed)["games"]
    return [(game["id"], position) for game in games for position in game.get("examples", ())]


def questions(asked: list[tuple[str, str]]) -> list[tuple[str, str, Any]]:
    """The fixed list: (name, transport, what is sent): a REST path with its query, or a gRPC method
    with its request message."""
    rest: list[tuple[str, str, Any]] = [
        ("GET /", "rest", ("/", {})),
        ("GET /openapi.json", "rest", ("/openapi.json", {})),
        ("GET /v1/games", "rest", ("/v1/games", {})),
    ]
    remote: list[tuple[str, str, Any]] = []
    games = list(dict.fromkeys(game for game, _ in asked))
    for game, position in asked:
        query = {"game": game, "position": position}
        for route in ("/v1/value", "/v1/best-move", "/v1/is-p-position"):
            rest.append((f"GET {route} {game} {position!r}", "rest", (route, query)))
        for method, message in (
            ("GetValue", pb.GetValueRequest(game=game, position=position)),
            ("BestMove", pb.BestMoveRequest(game=game, position=position)),
            ("IsPPosition", pb.IsPPositionRequest(game=game, position=position)),
        ):
            remote.append((f"gRPC {method} {game} {position!r}", "grpc", (method, message)))
    for game in games:
        rest.append((f"GET /v1/stats {game}", "rest", ("/v1/stats", {"game": game})))
        sequence = {"game": game, "start": 0, "stop": SEQUENCE_STOP}
        rest.append((f"GET /v1/sequence {game}", "rest", ("/v1/sequence", sequence)))
    return rest + remote


def ask_all(served: Served, asked: list[tuple[str, str, Any]]) -> list[Answer]:
    """Every question, in order, of one server."""
    answers: list[Answer] = []
    with (
        httpx.Client(base_url=served.http, timeout=ASK_SECONDS) as http,
        grpc.insecure_channel(served.grpc) as channel,
    ):
        for number, (name, transport, sent) in enumerate(asked, 1):
            print(f"{served.http} {number}/{len(asked)} {name}", file=sys.stderr, flush=True)
            if transport == "rest":
                path, query = sent
                try:
                    response = http.get(path, params=query)
                except httpx.TimeoutException:
                    answers.append(Answer("no answer", "", b""))
                    continue
                kind = response.headers.get("content-type", "")
                answers.append(Answer(str(response.status_code), kind, response.content))
                continue
            method, message = sent
            call = channel.unary_unary(f"/nimbase.v1.Nimbase/{method}", None, None)
            try:
                reply: bytes = call(message.SerializeToString(), timeout=ASK_SECONDS)
            except grpc.RpcError as error:
                details = (error.details() or "").encode()
                answers.append(Answer(error.code().name, "grpc-error", details))
                continue
            answers.append(Answer("OK", "protobuf", reply))
    return answers


def listed_games(served: Served) -> bytes:
    return httpx.get(f"{served.http}/v1/games", timeout=ASK_SECONDS).content


def show(body: bytes) -> list[str]:
    """A body as lines to diff: JSON pretty-printed, other text as it is, bytes in hex."""
    try:
        text = body.decode()
    except UnicodeDecodeError:
        return [body.hex()]
    try:
        return json.dumps(json.loads(text), indent=1, sort_keys=True).splitlines()
    except ValueError:
        return text.splitlines()


def differences(asked: list[tuple[str, str, Any]], before: list[Answer], after: list[Answer]) -> int:
    """Print each question answered differently (status, content type, then a diff of the bodies)."""
    found = 0
    for (name, _, _), old, new in zip(asked, before, after, strict=True):
        if old == new:
            continue
        found += 1
        print(f"--- {name}")
        if (old.status, old.kind) != (new.status, new.kind):
            print(f"    status {old.status} {old.kind} -> {new.status} {new.kind}")
        lines = difflib.unified_diff(show(old.body), show(new.body), "before", "after", n=1, lineterm="")
        for line in list(lines)[2:60]:
            print(f"    {line}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", help="the commit answering first, e.g. ed4fe41")
    parser.add_argument("after", nargs="?", help="the commit to compare with it (default: the working tree)")
    args = parser.parse_args()
    started = time.monotonic()
    with ExitStack() as stack:
        old_tree = stack.enter_context(tree_of(args.before))
        new_tree = stack.enter_context(tree_of(args.after))
        old = stack.enter_context(serving(old_tree, stack.enter_context(empty_database())))
        new = stack.enter_context(serving(new_tree, stack.enter_context(empty_database())))
        listed = listed_games(new)
        if listed != listed_games(old):
            print("ListGames differs: the examples asked are the working side's")
        asked = questions(examples(listed))
        before, after = ask_all(old, asked), ask_all(new, asked)
        # A question answered differently is asked both again: an answer that changes on the same server
        # depended on timing (a deadline met once the kernels were compiled), not on the version.
        again = [
            i
            for i, (old_answer, new_answer) in enumerate(zip(before, after, strict=True))
            if old_answer != new_answer
        ]
        if again:
            repeat = [asked[i] for i in again]
            for i, old_answer, new_answer in zip(
                again, ask_all(old, repeat), ask_all(new, repeat), strict=True
            ):
                if (old_answer, new_answer) != (before[i], after[i]):
                    alike = "alike" if old_answer == new_answer else "differently"
                    print(
                        f"asked again, {asked[i][0]} was answered {alike} (its first answers hung on timing)"
                    )
                before[i], after[i] = old_answer, new_answer
    found = differences(asked, before, after)
    label = f"{args.before} vs {args.after or 'the working tree'}"
    if found:
        print(f"{found} of {len(asked)} answers differ ({label})")
    else:
        print(f"byte for byte the same: {len(asked)} answers ({label})")
    print(f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
