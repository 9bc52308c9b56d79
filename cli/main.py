"""The `nimbase` console script: one subcommand per process, administrative action or question.

The questions (`value`, `best-move`, `sequence`, `stats`, `games`) are answered by the service layer
(`service.core`) on the local database, exactly as the server would answer them, or by a running
server with `--server HOST:PORT` (through the client package, `nimbase_client`). The database is
DATABASE_URL, else the embedded PostgreSQL under NIMBASE_VAR_DIR (default: the user data directory),
never a function of the working directory. A command that needs it and finds none, or finds it not
migrated, says so in one line with the fix and exits with status 1; only `migrate` and `run` create it.

This module builds the parser and runs a command; the commands live by kind in `cli.processes`,
`cli.jobs` and `cli.answers`, the database they need in `cli.database`, the plots in `cli.plots`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import nimbase_client
from cli.answers import cmd_best_move, cmd_games, cmd_mainline, cmd_sequence, cmd_stats, cmd_value
from cli.database import CommandError
from cli.jobs import cmd_jobs, cmd_precompute
from cli.processes import cmd_migrate, cmd_run, cmd_serve, cmd_worker, processes_argument
from nimbase import __version__, collector
from nimbase.settings import InvalidSetting, Settings

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
  nimbase mainline chess:KRvK "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"
  nimbase best-move nim 3 5 7 --choose random --seed 42
  nimbase value nim 3 5 7 --server localhost:50051
  nimbase value nim 3 5 7 --server http://localhost:8080
  nimbase precompute subtraction:2,5,7 --upto 1000000

The database is DATABASE_URL, else the embedded PostgreSQL under NIMBASE_VAR_DIR (default: the user
data directory, e.g. ~/.local/share/nimbase, the same for `make run`); `nimbase migrate` or `nimbase run`
creates it. The questions (value, best-move, mainline, sequence, stats, games) are answered on it by the
same service layer as the server's (answers from a closed form need no database), or by a running
server with --server (or NIMBASE_SERVER): HOST:PORT for gRPC, http://HOST:PORT for REST.
"""

#: Commands that build a service or a worker: they turn the collector on themselves once that is built
#: (nimbase.collector), so their imports run without it; every other command runs with it on.
BUILDING_COMMANDS = frozenset(
    {
        cmd_serve,
        cmd_worker,
        cmd_run,
        cmd_value,
        cmd_best_move,
        cmd_mainline,
        cmd_sequence,
        cmd_stats,
        cmd_games,
    }
)


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
        metavar="URL",
        help="ask the running nimbase server at URL instead: HOST:PORT for gRPC, http(s)://HOST:PORT for "
        "REST (default: NIMBASE_SERVER)",
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
    processes_argument(serve)
    serve.set_defaults(func=cmd_serve)
    _command(commands, "worker", "run precompute jobs until stopped").set_defaults(func=cmd_worker)
    _command(commands, "migrate", "create the database, or bring its schema up to date").set_defaults(
        func=cmd_migrate
    )
    run = _command(
        commands, "run", "database, migrations, one worker and the server (what `make run` starts)"
    )
    processes_argument(run)
    run.set_defaults(func=cmd_run)

    precompute = _command(
        commands,
        "precompute",
        "queue a precompute job and follow its progress",
        "  nimbase precompute subtraction:2,5,7 --upto 1000000\n"
        "  nimbase precompute octal:0.6 --upto 16777216 --detach\n"
        "  nimbase precompute chess:KRPvKR\n"
        "  nimbase precompute chess --men 5\n",
    )
    precompute.add_argument("game", help="the game id, e.g. subtraction:2,5,7 (or a family, with --men)")
    precompute.add_argument(
        "--upto",
        type=int,
        help="compute heaps 0..UPTO-1 (required but with --men, or where the job makes its object whole)",
    )
    precompute.add_argument(
        "--men",
        type=int,
        help="queue a family's whole set up to this size, each job after those it reads (chess: men)",
    )
    precompute.add_argument("--fill", action="store_true", help="fill the whole range even once periodic")
    precompute.add_argument(
        "--family", help="the stored family, for games that store several (bicolor-nim: e.g. f_3)"
    )
    precompute.add_argument("--detach", action="store_true", help="queue and return at once")
    precompute.set_defaults(func=cmd_precompute)
    jobs = _command(
        commands,
        "jobs",
        "list precompute jobs, newest first, or queue a failed one again",
        "  nimbase jobs\n  nimbase jobs --cursor 120\n  nimbase jobs retry 49\n",
    )
    jobs.add_argument("action", nargs="?", choices=["retry"], help="retry: queue the failed job ID again")
    jobs.add_argument("id", nargs="?", type=int, help="the job to retry")
    jobs.add_argument(
        "--limit", type=int, default=50, help="list at most this many (default 50, at most 1000)"
    )
    jobs.add_argument(
        "--cursor", type=int, help="list the jobs older than this one (the line `more:` gives it)"
    )
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
    best.add_argument(
        "--choose",
        metavar="best|random",
        help="which best move comes first: best (the ranking's first, the default) or random (one drawn "
        "from the moves marked best)",
    )
    best.add_argument("--seed", type=int, help="with --choose random: the same seed draws the same move")
    best.set_defaults(func=cmd_best_move)

    line = _command(
        commands,
        "mainline",
        "print best play from a position: its value, the moves of the line, and why it ends (JSON)",
        "  nimbase mainline nim 3 5 7\n  nimbase mainline lights-out:3x3 000/011/011\n"
        "  nimbase mainline chess:KRvK 8/8/8/4k3/8/8/8/R3K3 w - - 0 1 --max-plies 10\n",
        [server],
    )
    _add_position(line)
    line.add_argument("--max-plies", type=int, help="at most this many moves (default: the server's)")
    line.add_argument("--metric", help="how the game ranks its moves, for games that know several (dtm, dtz)")
    line.set_defaults(func=cmd_mainline)

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

    if args.func not in BUILDING_COMMANDS:
        collector.resume()
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
    except BrokenPipeError:  # the reader of the output left (`| head`): nothing more to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit's flush
        return 1
    return result


if __name__ == "__main__":
    raise SystemExit(main())
