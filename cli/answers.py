"""The question commands (`value`, `best-move`, `sequence`, `stats`, `games`), answered as JSON.

They ask the service layer (`service.core`) on the local database, exactly as the server would answer,
or a running server with `--server HOST:PORT` (gRPC) or `--server http://HOST:PORT` (REST), also
given as NIMBASE_SERVER (through `nimbase_client`): both behind `Answers`. Without a database, answers
from a closed form are still given here (`nimbase value nim 3 5 7`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import nimbase_client
from cli.database import CommandError, missing_database, open_engine, ready_database
from cli.plots import text_plot, write_png
from nimbase import collector, schema
from nimbase.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from engine.deadline import Deadline

T = TypeVar("T")


class Answers(Protocol):
    """Where the answer commands ask: the local service layer, or a server (`NimbaseClient` and
    `RestClient` are ones)."""

    def list_games(self) -> schema.GameList: ...
    def get_value(self, game: str, position: str) -> schema.Value: ...
    def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> schema.BestMove: ...
    def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> schema.Mainline: ...
    def get_sequence(
        self, game: str, start: int, stop: int, family: str | None = None
    ) -> schema.Sequence: ...
    def get_stats(self, game: str) -> schema.Stats: ...


#: How long a command without a database may compute to find that its answer is a formula's (a formula
#: answers at once; anything else needs the database, and is refused saying so).
FORMULA_SECONDS = 2.0


class LocalAnswers:
    """The service layer (`service.core.Nimbase`) here: the server's own answers, as JSON.

    On the local database when there is one. Without one (`engine` None), only answers from a closed
    form are given (the value of `nim 3 5 7` needs no table): any other question ends with `missing`,
    the error that says how to create the database.
    """

    def __init__(
        self, settings: Settings, engine: Engine | None, missing: CommandError | None = None
    ) -> None:
        from service.core import Nimbase

        self._service = Nimbase(settings, engine)
        self._missing = missing if engine is None else None
        collector.resume()  # the service and its modules built (cli.main paused the collector)

    def _ask(self, call: Callable[[Deadline | None], T], source: Callable[[T], str]) -> T:
        """`call`'s answer; without a database, only a closed form's (found within FORMULA_SECONDS), else
        the missing database's error. A request that is wrong in itself is refused as it is."""
        missing = self._missing
        if missing is None:
            return call(None)
        from engine.deadline import Deadline
        from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, NimbaseError, UnknownGame

        try:
            answer = call(Deadline(time.monotonic() + FORMULA_SECONDS))
        except (InvalidArgument, InvalidGameId, InvalidPosition, UnknownGame):
            raise
        except NimbaseError:  # needs storage, or more than a formula
            raise missing from None
        if source(answer) != "formula":
            raise missing
        return answer

    def _database(self) -> None:
        """Refuse a question that is about what is stored (games, stats) when there is no database."""
        if self._missing is not None:
            raise self._missing

    def list_games(self) -> schema.GameList:
        from service.convert import game_list_as_dict

        self._database()
        return game_list_as_dict(self._service.list_games())

    def get_value(self, game: str, position: str) -> schema.Value:
        from service.calls import GetValue
        from service.convert import value_as_dict

        value = self._ask(
            lambda deadline: self._service.get_value(GetValue(game, position, deadline=deadline)), _source
        )
        return value_as_dict(value)

    def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> schema.BestMove:
        from service.calls import BestMove
        from service.convert import best_move_as_dict

        service = self._service
        answer = self._ask(
            lambda deadline: service.best_move(
                BestMove(game, position, limit, choose, seed, deadline=deadline)
            ),
            lambda result: result.value.source,
        )
        return best_move_as_dict(answer)

    def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> schema.Mainline:
        from service.calls import Mainline
        from service.convert import mainline_as_dict

        service = self._service
        line = self._ask(
            lambda deadline: service.mainline(Mainline(game, position, max_plies, metric, deadline=deadline)),
            _source,
        )
        return mainline_as_dict(line)

    def get_sequence(self, game: str, start: int, stop: int, family: str | None = None) -> schema.Sequence:
        from service.calls import GetSequence
        from service.convert import sequence_as_dict

        service = self._service
        answer = self._ask(
            lambda deadline: service.get_sequence(GetSequence(game, family, start, stop, deadline=deadline)),
            _source,
        )
        return sequence_as_dict(answer)

    def get_stats(self, game: str) -> schema.Stats:
        from service.calls import GetStats
        from service.convert import stats_as_dict

        self._database()
        return stats_as_dict(self._service.get_stats(GetStats(game)))


def _source(answer: Any) -> str:
    return str(answer.source)


@contextmanager
def _answers(args: argparse.Namespace) -> Iterator[Answers]:
    """The server named by --server (or NIMBASE_SERVER): its REST API for an http(s):// URL, else gRPC
    at HOST:PORT; else the local service layer, on the (existing, migrated) database, or without one for
    answers from a closed form."""
    settings: Settings = args.settings
    server = args.server or settings.server
    if server is not None:
        collector.resume()  # a client: nothing long-lived built here (cli.main paused the collector)
        try:
            root = args.root_cert.read_bytes() if args.root_cert is not None else None
        except OSError as error:
            raise CommandError(f"cannot read {args.root_cert}: {error.strerror or error}") from None
        if server.startswith(("http://", "https://")):
            with nimbase_client.RestClient(server, root_certificates=root) as rest:
                yield rest
            return
        with nimbase_client.NimbaseClient(server, tls=args.tls, root_certificates=root) as client:
            yield client
        return
    missing = missing_database(settings)
    if missing is not None:
        yield LocalAnswers(settings, None, missing)
        return
    engine = open_engine(ready_database(settings))
    try:
        yield LocalAnswers(settings, engine)
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
        _print_json(answers.best_move(args.game, _position(args), args.limit, args.choose, args.seed))
    return 0


def cmd_mainline(args: argparse.Namespace) -> int:
    with _answers(args) as answers:
        _print_json(answers.mainline(args.game, _position(args), args.max_plies, args.metric))
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
