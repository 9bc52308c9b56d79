"""The `nimbase` console script: one subcommand per process, administrative action or question.

The questions (`value`, `best-move`, `sequence`, `stats`, `games`) are answered by the service layer
(`service.core`) on the local database, exactly as the server would answer them, or by a running
server with `--server HOST:PORT` (through the client package, `nimbase_client`). The database is
DATABASE_URL, else the embedded PostgreSQL under NIMBASE_VAR_DIR (default: the user data directory),
never a function of the working directory. A command that needs it and finds none, or finds it not
migrated, says so in one line with the fix and exits with status 1; only `migrate` and `run` create it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import struct
import subprocess
import sys
import threading
import time
import warnings
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import nimbase_client
from nimbase import __version__, schema
from nimbase.settings import InvalidSetting, Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine

#: Jobs `nimbase run` queues on a fresh database, so a first start has tables to serve: (game, upto).
#: Cheap ones first, since one worker takes them in order. Every classic octal game but 0.6 stops at
#: its Guy-Smith certificate, well inside its `upto` (0.16 and 0.56 within a second, by the sparse
#: kernel). 0.6 has no known period, so nothing certifies it: 2^23 values, about 30 s of computing.
DEFAULT_PRECOMPUTE: tuple[tuple[str, int], ...] = (
    ("subtraction:1,3,4", 1 << 20),
    ("subtraction:1,3,4:misere", 1 << 20),
    ("octal:0.77", 1 << 20),
    ("octal:0.07", 1 << 20),
    ("octal:0.137", 1 << 20),
    ("octal:0.16", 1 << 20),  # period 149,459, certified at 509,622 values
    ("octal:0.56", 1 << 20),  # period 144 after 326,640, certified at 653,570 values
    ("wythoff", 1024),  # the side of the table: 1024 x 1024 pairs
    ("grundy", 1 << 22),
    ("octal:0.6", 1 << 23),
)

log = logging.getLogger("nimbase")


class CommandError(Exception):
    """A failure the user can fix, said in one line (`nimbase: ...`, exit status 1), never a traceback."""


# -- the database ----------------------------------------------------------------------------------


def _where(settings: Settings) -> str:
    """The database as a person names it: DATABASE_URL without its password, or the embedded one's folder."""
    if settings.database_url is not None:
        from sqlalchemy.engine import make_url

        from storage.database import normalize_url

        try:
            return make_url(normalize_url(settings.database_url)).render_as_string(hide_password=True)
        except ValueError:
            return "DATABASE_URL"
    return str(settings.var_dir.resolve())


def _database_url(settings: Settings, *, create: bool = False) -> str:
    """DATABASE_URL, else the embedded server under NIMBASE_VAR_DIR: started when its data exists, and
    created only when `create` (migrate, run), never just to find it empty."""
    from storage.embedded import database_url

    embedded = settings.var_dir / "postgres"
    if settings.database_url is None and not create and not (embedded / "PG_VERSION").is_file():
        raise CommandError(
            f"no nimbase database at {_where(settings)}: run `nimbase migrate` (or `make run`) first"
        )
    return database_url(settings.database_url, settings.var_dir)


def _check_schema(url: str, settings: Settings, *, unreachable_ok: bool = False) -> None:
    """Refuse a database whose schema is not this version's (never migrated, or behind). A database
    that does not answer passes when `unreachable_ok` (the long-running processes recover by themselves
    once it is back), else it is refused too."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from storage.database import create_engine, unavailable_on_disconnect
    from storage.errors import StorageUnavailable
    from storage.migrate import alembic_config

    alembic_log = logging.getLogger("alembic")
    level = alembic_log.level
    alembic_log.setLevel(logging.WARNING)  # reading a revision is no news
    engine = create_engine(url, pool_size=1)
    try:
        heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
        with unavailable_on_disconnect(), engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except StorageUnavailable as error:
        if unreachable_ok:
            return
        raise CommandError(f"cannot reach the nimbase database at {_where(settings)}: {error}") from None
    finally:
        alembic_log.setLevel(level)
        engine.dispose()
    if not current:
        raise CommandError(
            f"the nimbase database at {_where(settings)} is not migrated: run `nimbase migrate` first"
        )
    if current != heads:
        raise CommandError(
            f"the nimbase database at {_where(settings)} has schema revision {', '.join(sorted(current))}, "
            f"not this nimbase's {', '.join(sorted(heads))}: run `nimbase migrate` first"
        )


def _ready_database(settings: Settings, *, unreachable_ok: bool = False) -> str:
    """The URL of an existing, migrated database (CommandError otherwise)."""
    url = _database_url(settings)
    _check_schema(url, settings, unreachable_ok=unreachable_ok)
    return url


def _engine(url: str) -> Engine:
    from storage.database import create_engine

    return create_engine(url)


# -- processes -------------------------------------------------------------------------------------


def cmd_migrate(args: argparse.Namespace) -> int:
    from storage.migrate import upgrade_head

    upgrade_head(_database_url(args.settings, create=True))
    print("database schema is up to date")
    return 0


def _processes_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--processes",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="server processes sharing the gRPC and HTTP ports (default: the number of cores, here "
        f"{os.cpu_count() or 1}); each has its own caches",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from engine.games.registry import kind_settings
    from service.core import Nimbase
    from service.server import run_configured

    settings: Settings = args.settings
    kind_settings(settings.kind_variables)  # each kind's own variables, checked before anything starts
    if args.migrate:
        from storage.migrate import upgrade_head

        url = _database_url(settings, create=True)
        upgrade_head(url)
    else:
        url = _ready_database(settings, unreachable_ok=True)
    if args.processes < 1:
        print(f"nimbase: --processes {args.processes} is below 1", file=sys.stderr)
        return 2
    if args.processes > 1:
        from service.processes import serve_processes

        return serve_processes(settings, url, args.processes)
    run_configured(Nimbase(settings, _engine(url)), settings)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from worker.runner import worker_from_settings

    url = _ready_database(args.settings, unreachable_ok=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    worker_from_settings(_engine(url), args.settings.worker).run_forever(stop)
    return 0


def _queue_defaults(engine: Engine) -> None:
    """Queue the default precompute set for games that are neither stored nor queued yet."""
    from engine.errors import NimbaseError
    from engine.games.registry import parse_game_id
    from engine.precompute import plan_job
    from storage.jobs import JobQueue
    from storage.sequences import SequenceStore

    queue, store = JobQueue(engine), SequenceStore(engine)
    pending = {(job.game_id, job.upto) for job in queue.list(limit=1000) if job.status != "cancelled"}
    for game_id, upto in DEFAULT_PRECOMPUTE:
        try:
            plan = plan_job(parse_game_id(game_id), upto)
        except NimbaseError:
            continue
        info = store.info(plan.game_id, plan.family)
        stored = info is not None and (info.computed_upto >= plan.values or info.period is not None)
        if not stored and (plan.game_id, plan.values) not in pending:
            queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill)
            log.info("queued default precompute %s up to %d", plan.game_id, upto)


def cmd_run(args: argparse.Namespace) -> int:
    """Embedded database (unless DATABASE_URL is set), migrations, one worker, and the server."""
    from storage.migrate import upgrade_head

    settings: Settings = args.settings
    url = _database_url(settings, create=True)
    upgrade_head(url)
    _queue_defaults(_engine(url))
    # The worker is a child process: it reads its settings from the environment it is given.
    env = {**os.environ, "DATABASE_URL": url}
    worker = subprocess.Popen([sys.executable, "-m", "cli", "worker"], env=env)
    try:
        served = settings.model_copy(update={"database_url": url})
        return cmd_serve(argparse.Namespace(migrate=False, settings=served, processes=args.processes))
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()


# -- jobs ------------------------------------------------------------------------------------------


def cmd_precompute(args: argparse.Namespace) -> int:
    from engine.errors import NimbaseError
    from engine.games.registry import parse_game_id
    from engine.precompute import plan_job
    from storage.graphs import GraphStore
    from storage.jobs import JobQueue

    engine = None
    try:
        kind = parse_game_id(args.game)
        if kind.graph_name is not None:  # plays on an uploaded graph (`graph:NAME`): bound to it first
            engine = _engine(_ready_database(args.settings))
            graph = GraphStore(engine).load(kind.graph_name)
            if graph is None:
                print(f"nimbase: no graph named {kind.graph_name!r}: upload it first", file=sys.stderr)
                return 2
            kind = kind.bind_graph(graph)
        plan = plan_job(kind, args.upto, args.fill, args.family)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    queue = JobQueue(engine or _engine(_ready_database(args.settings)))
    job = queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill)
    print(f"queued job {job.id}: {plan.game_id} up to {args.upto}" + (" (fill)" if plan.fill else ""))
    if args.detach:
        return 0
    try:
        return _follow(queue, job.id)
    except KeyboardInterrupt:
        print(f"\nstopped watching; job {job.id} keeps running (nimbase jobs)")
        return 0


def _follow(queue: object, job_id: int) -> int:
    """Draws a progress bar until the job ends."""
    from storage.jobs import JobQueue

    assert isinstance(queue, JobQueue)
    width = 40
    while True:
        job = queue.get(job_id)
        if job is None:
            print(f"\njob {job_id} disappeared", file=sys.stderr)
            return 1
        total = max(job.total, 1)
        filled = int(width * min(job.done, total) / total)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {job.done}/{job.total} {job.status:<9}")
        sys.stderr.flush()
        if job.status in ("done", "failed", "cancelled"):
            sys.stderr.write("\n")
            if job.error:
                print(f"job {job_id} {job.status}: {job.error}", file=sys.stderr)
            return 0 if job.status == "done" else 1
        time.sleep(0.5)


def cmd_jobs(args: argparse.Namespace) -> int:
    from storage.jobs import JobQueue

    for job in JobQueue(_engine(_ready_database(args.settings))).list(limit=args.limit):
        print(f"{job.id:>6}  {job.status:<9}  {job.done:>12}/{job.total:<12}  {job.game_id}")
    return 0


# -- answers ---------------------------------------------------------------------------------------


class Answers(Protocol):
    """Where the answer commands ask: the local service layer, or a server (`NimbaseClient` is one)."""

    def list_games(self) -> schema.GameList: ...
    def get_value(self, game: str, position: str) -> schema.Value: ...
    def best_move(self, game: str, position: str, limit: int | None = None) -> schema.BestMove: ...
    def get_sequence(
        self, game: str, start: int, stop: int, family: str | None = None
    ) -> schema.Sequence: ...
    def get_stats(self, game: str) -> schema.Stats: ...


class LocalAnswers:
    """The service layer (`service.core.Nimbase`) on the local database: the server's own answers, as JSON."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        from service.core import Nimbase

        self._service = Nimbase(settings, engine)

    def list_games(self) -> schema.GameList:
        from service.convert import game_list_as_dict

        return game_list_as_dict(self._service.list_games())

    def get_value(self, game: str, position: str) -> schema.Value:
        from service.convert import value_as_dict

        return value_as_dict(self._service.get_value(game, position))

    def best_move(self, game: str, position: str, limit: int | None = None) -> schema.BestMove:
        from service.convert import best_move_as_dict

        return best_move_as_dict(self._service.best_move(game, position, limit))

    def get_sequence(self, game: str, start: int, stop: int, family: str | None = None) -> schema.Sequence:
        from service.convert import sequence_as_dict

        return sequence_as_dict(self._service.get_sequence(game, family, start, stop))

    def get_stats(self, game: str) -> schema.Stats:
        from service.convert import stats_as_dict

        return stats_as_dict(self._service.get_stats(game))


@contextmanager
def _answers(args: argparse.Namespace) -> Iterator[Answers]:
    """The server named by --server, else the local service layer on the (existing, migrated) database."""
    if args.server is not None:
        try:
            root = args.root_cert.read_bytes() if args.root_cert is not None else None
        except OSError as error:
            raise CommandError(f"cannot read {args.root_cert}: {error.strerror or error}") from None
        with nimbase_client.NimbaseClient(args.server, tls=args.tls, root_certificates=root) as client:
            yield client
        return
    engine = _engine(_ready_database(args.settings))
    try:
        yield LocalAnswers(args.settings, engine)
    finally:
        engine.dispose()


def _print_json(answer: object) -> None:
    print(json.dumps(answer, indent=2))


def _position(args: argparse.Namespace) -> str:
    return " ".join(args.position)


def cmd_value(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        _print_json(answers.get_value(args.game, _position(args)))
    return 0


def cmd_best_move(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        _print_json(answers.best_move(args.game, _position(args), args.limit))
    return 0


def cmd_sequence(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        sequence = answers.get_sequence(args.game, args.start, args.stop, args.family)
    if args.png is not None:
        try:
            write_png(sequence["values"], args.png)
        except OSError as error:
            raise CommandError(f"cannot write {args.png}: {error.strerror or error}") from None
        print(f"wrote {args.png} ({len(sequence['values'])} values)")
    if args.plot:
        print(_sequence_title(sequence))
        print("\n".join(text_plot(sequence["values"], sequence["start"])))
    if not args.plot and args.png is None:
        _print_json(sequence)
    return 0


def _sequence_title(sequence: schema.Sequence) -> str:
    period = sequence["period"]
    known = "no period known"
    if period is not None:
        known = f"period {period['period']} after {period['preperiod']}"
        known += f", saltus {period['saltus']}" if period["saltus"] else ""
        known += "" if period["certified"] else " (observed, not certified)"
    return (
        f"{sequence['game']} ({sequence['family']}), n = {sequence['start']}..{sequence['stop'] - 1}: "
        f"{known}; source {sequence['source']}"
    )


def cmd_stats(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        _print_json(answers.get_stats(args.game))
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        games = answers.list_games()
    if args.json:
        _print_json(games)
        return 0
    width = max((len(game["id"]) for game in games["games"]), default=0)
    for game in games["games"]:
        period = game.get("period")
        line = f"{game['id']:<{width}}  {game['name']}"
        if game["examples"]:
            line += f", e.g. {game['examples'][0]!r}"
        if period is not None and period["certified"]:
            line += f" (period {period['period']})"
        print(line)
    return 0


# -- plots -----------------------------------------------------------------------------------------


def text_plot(values: Sequence[int], start: int, width: int = 72, height: int = 16) -> list[str]:
    """Values against n as plain characters: a `*` per value (several values per column when there are
    more values than columns), the value axis on the left, n below."""
    if not values:
        return ["(no values)"]
    low, top = min(0, *values), max(values)
    rows, cols = min(height, top - low + 1), min(width, len(values))
    grid = [[" "] * cols for _ in range(rows)]
    for i, value in enumerate(values):
        row = (value - low) * (rows - 1) // (top - low) if top > low else 0
        grid[rows - 1 - row][i * cols // len(values)] = "*"
    label = max(len(str(low)), len(str(top)))
    lines = []
    for k, cells in enumerate(grid):
        name = str(top) if k == 0 else str(low) if k == rows - 1 else ""
        lines.append(f"{name:>{label}} |{''.join(cells)}".rstrip())
    lines.append(" " * label + " +" + "-" * cols)
    first, last = str(start), str(start + len(values) - 1)
    lines.append(" " * (label + 2) + first + last.rjust(max(cols - len(first), len(last) + 1)))
    return lines


def write_png(values: Sequence[int], path: Path, width: int = 800, height: int = 400) -> None:
    """Values against n as a PNG scatter plot: a dark square per value over light axes. Written by a
    few lines of zlib and struct (an RGB PNG has one filter byte per row), so no plotting library."""
    margin = 20
    white, axis, ink = b"\xff\xff\xff", b"\xa0\xa0\xa0", b"\x1f\x3a\x93"
    pixels = [bytearray(white * width) for _ in range(height)]
    bottom, right = height - margin, width - margin
    for y in range(margin, bottom + 1):
        pixels[y][3 * margin : 3 * margin + 3] = axis
    pixels[bottom][3 * margin : 3 * (right + 1)] = axis * (right + 1 - margin)
    if values:
        low, top = min(0, *values), max(values)
        span, count = max(top - low, 1), max(len(values) - 1, 1)
        points = {
            (
                margin + 2 + i * (right - margin - 4) // count,
                bottom - 2 - (v - low) * (bottom - margin - 4) // span,
            )
            for i, v in enumerate(values)
        }
        for x, y in points:
            for row in pixels[y - 1 : y + 2]:
                row[3 * (x - 1) : 3 * (x + 2)] = ink * 3
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
    path.write_bytes(png + chunk(b"IEND", b""))


# -- the parser ------------------------------------------------------------------------------------

EXAMPLES = """\
examples:
  nimbase migrate                          create (or update) the database
  nimbase run                              database, migrations, one worker and the server
  nimbase value nim 3 5 7                  the value of a position, as JSON
  nimbase best-move subtraction:1,3,4 10 12 --limit 3
  nimbase sequence octal:0.77 --stop 100 --plot
  nimbase sequence grundy --stop 5000 --png grundy.png
  nimbase stats subtraction:1,3,4
  nimbase games
  nimbase value nim 3 5 7 --server localhost:50051
  nimbase precompute subtraction:2,5,7 --upto 1000000

The database is DATABASE_URL, else the embedded PostgreSQL under NIMBASE_VAR_DIR (default: the user
data directory, e.g. ~/.local/share/nimbase); `nimbase migrate` or `nimbase run` creates it.
The questions (value, best-move, sequence, stats, games) are answered on it by the same service layer
as the server's, or by a running server with --server HOST:PORT.
"""


def _command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help: str,
    examples: str = "",
    parents: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    return commands.add_parser(
        name,
        help=help,
        description=help[:1].upper() + help[1:] + ".",
        epilog=f"examples:\n{examples}" if examples else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=list(parents),
    )


def _server_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False)
    group = options.add_argument_group(
        "asking a server", "By default the answer is computed here, on the local database."
    )
    group.add_argument(
        "--server",
        "--target",
        metavar="HOST:PORT",
        help="ask the nimbase server at HOST:PORT (gRPC) instead",
    )
    group.add_argument(
        "--tls", action="store_true", help="connect to the server with TLS, trusting the system's CAs"
    )
    group.add_argument(
        "--root-cert",
        metavar="PEM",
        type=Path,
        help="trust this CA certificate (a PEM file) for the server's TLS instead (implies --tls)",
    )
    return options


def _add_position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game id, e.g. nim, subtraction:1,3,4, octal:0.77, wythoff")
    parser.add_argument(
        "position",
        nargs="+",
        help='the position, in one argument or several joined by spaces: 3 5 7 or "3 5 7" ("" or 0 is empty)',
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nimbase",
        description="nimbase: a tablebase service for combinatorial games (Grundy values, outcomes, "
        "best moves), its processes and its questions.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"nimbase {__version__} (nimbase-client {nimbase_client.__version__})",
        help="print the version and exit",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = _command(
        commands,
        "serve",
        "serve gRPC and REST, in several processes sharing the ports",
        "  nimbase serve --migrate\n  nimbase serve --processes 4\n",
    )
    serve.add_argument("--migrate", action="store_true", help="create or migrate the database first")
    _processes_argument(serve)
    serve.set_defaults(func=cmd_serve)
    _command(commands, "worker", "run precompute jobs until stopped").set_defaults(func=cmd_worker)
    _command(commands, "migrate", "create the database, or bring its schema up to date").set_defaults(
        func=cmd_migrate
    )
    run = _command(
        commands, "run", "database, migrations, one worker and the server (what `make run` starts)"
    )
    _processes_argument(run)
    run.set_defaults(func=cmd_run)

    precompute = _command(
        commands,
        "precompute",
        "queue a precompute job and follow its progress",
        "  nimbase precompute subtraction:2,5,7 --upto 1000000\n"
        "  nimbase precompute octal:0.6 --upto 16777216 --detach\n",
    )
    precompute.add_argument("game", help="the game id, e.g. subtraction:2,5,7")
    precompute.add_argument("--upto", type=int, required=True, help="compute heaps 0..UPTO-1")
    precompute.add_argument("--fill", action="store_true", help="fill the whole range even once periodic")
    precompute.add_argument(
        "--family", help="the stored family, for games that store several (bicolor-nim: e.g. f_3)"
    )
    precompute.add_argument("--detach", action="store_true", help="queue and return at once")
    precompute.set_defaults(func=cmd_precompute)
    jobs = _command(commands, "jobs", "list precompute jobs, newest first")
    jobs.add_argument("--limit", type=int, default=50, help="list at most this many (default 50)")
    jobs.set_defaults(func=cmd_jobs)

    server = _server_options()
    value = _command(
        commands,
        "value",
        "print the value of a position (JSON)",
        "  nimbase value nim 3 5 7\n  nimbase value wythoff 3,5 4,7\n  nimbase value nim:misere 1 1 1\n",
        [server],
    )
    _add_position(value)
    value.set_defaults(func=cmd_value)

    best = _command(
        commands,
        "best-move",
        "print the value of a position and its moves, best first (JSON)",
        "  nimbase best-move nim 3 5 7 --limit 1\n  nimbase best-move subtraction:1,3,4 10 12\n",
        [server],
    )
    _add_position(best)
    best.add_argument("--limit", type=int, help="list only the first LIMIT moves (default: every move)")
    best.set_defaults(func=cmd_best_move)

    sequence = _command(
        commands,
        "sequence",
        "print the values of single heaps (or of another family) for START <= n < STOP",
        "  nimbase sequence nim --start 0 --stop 10 --plot\n"
        "  nimbase sequence octal:0.07 --stop 200 --plot\n"
        "  nimbase sequence wythoff --family row:3 --stop 50\n"
        "  nimbase sequence grundy --stop 10000 --png grundy.png\n",
        [server],
    )
    sequence.add_argument("game", help="the game id, e.g. octal:0.77")
    sequence.add_argument("--start", type=int, default=0, help="the first n (default 0)")
    sequence.add_argument("--stop", type=int, default=100, help="one past the last n (default 100)")
    sequence.add_argument("--family", help='the family, e.g. "row:3" for wythoff (default: single heaps)')
    sequence.add_argument(
        "--plot", action="store_true", help="draw the values against n in the terminal instead of JSON"
    )
    sequence.add_argument(
        "--png", type=Path, metavar="FILE", help="write the values against n as a PNG image"
    )
    sequence.set_defaults(func=cmd_sequence)

    stats = _command(
        commands,
        "stats",
        "print what is known of a game as a whole (JSON)",
        "  nimbase stats octal:0.77\n",
        [server],
    )
    stats.add_argument("game", help="the game id, e.g. subtraction:1,3,4")
    stats.set_defaults(func=cmd_stats)

    games = _command(
        commands,
        "games",
        "list the game families and every game with a stored table",
        "  nimbase games\n  nimbase games --json\n",
        [server],
    )
    games.add_argument("--json", action="store_true", help="print the list as JSON")
    games.set_defaults(func=cmd_games)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "root_cert", None) is not None:
        args.tls = True
    try:
        args.settings = Settings.from_env()  # the one reading of the environment; commands get it in args
    except InvalidSetting as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pgserver").setLevel(logging.WARNING)  # it logs every reuse of the server
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # a line per plugin, every start
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")  # pgserver's harmless start-up note
    from engine.errors import NimbaseError

    try:
        result: int = args.func(args)
    except InvalidSetting as error:  # a kind's own variable, checked when the service starts
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    except CommandError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 1
    except nimbase_client.NimbaseClientError as error:
        print(f"nimbase: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except NimbaseError as error:
        from service.convert import public_error

        code, message = public_error(error)
        print(f"nimbase: {code}: {message}", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    raise SystemExit(main())
