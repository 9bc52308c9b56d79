"""The question commands (`value`, `best-move`, `sequence`, `stats`, `games`), answered as JSON.

They ask the service layer (`service.core`) on the local database, exactly as the server would answer,
or a running server with `--server HOST:PORT` (through `nimbase_client`): both behind `Answers`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import nimbase_client
from cli.database import CommandError, open_engine, ready_database
from cli.plots import text_plot, write_png
from nimbase import schema
from nimbase.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine


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
    engine = open_engine(ready_database(args.settings))
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
