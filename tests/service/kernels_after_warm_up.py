"""`python -m tests.service.kernels_after_warm_up [--cold]`: in a fresh process, warm up as a server
process does (service.warm_up; not with --cold), then ask every listed game's examples what requests ask
(value, best moves, stats; a game played on an uploaded graph on one graph with cycles and one without),
and print as JSON the numba kernels that compiled or loaded from numba's cache under those questions (a
kernel's new overloads), by name."""

from __future__ import annotations

import contextlib
import json
import sys
import time

from numba.core.dispatcher import Dispatcher

from engine.errors import NimbaseError
from engine.graphs import GraphBuilder
from engine.registry import list_games, parse_game_id
from nimbase.settings import Settings
from service.calls import BestMove, GetStats, GetValue
from service.core import Nimbase
from service.warm_up import warm_up

PACKAGES = ("engine.", "nimbase_rules", "kinds.")


def dispatchers() -> dict[str, Dispatcher]:
    found: dict[str, Dispatcher] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(PACKAGES):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                found[f"{value.py_func.__module__}.{value.py_func.__qualname__}"] = value
    return found


def overloads() -> dict[str, int]:
    return {name: len(kernel.overloads) for name, kernel in dispatchers().items()}


def main(cold: bool) -> None:
    settings = Settings.from_env()
    if not cold:
        warm_up(settings)
    before = overloads()
    service = Nimbase(settings, None)
    for info in list_games():
        games = [info.id]
        graph_name = parse_game_id(info.id).graph_name
        if graph_name is not None:  # the user's graphs, not the warm-up's own: with cycles and without
            builder = GraphBuilder(graph_name)
            builder.add_vertices([*info.examples, *(f"v{i}" for i in range(12))])
            pairs = [(f"v{i}", f"v{(3 * i + 1) % 12}") for i in range(12)]
            builder.add_edge_pairs([*pairs, *((name, "v0") for name in info.examples)])
            service.graphs.hold(builder.finish())
            acyclic = f"{graph_name}-acyclic"
            builder = GraphBuilder(acyclic)
            builder.add_vertices([*info.examples, *(f"v{i}" for i in range(12))])
            pairs = [(f"v{i}", f"v{i + 1}") for i in range(11)]
            builder.add_edge_pairs([*pairs, *((name, "v0") for name in info.examples)])
            service.graphs.hold(builder.finish())
            games.append(info.id.removesuffix(graph_name) + acyclic)
        for game in games:
            ask(service, game, info.examples)
    after = overloads()
    print(json.dumps(sorted(name for name, count in after.items() if count > before.get(name, 0))))


def ask(service: Nimbase, game: str, positions: tuple[str, ...]) -> None:
    """What requests ask of `game`: each position's value and best moves, then the game's stats."""
    for position in positions:
        with contextlib.suppress(NimbaseError):
            service.get_value(GetValue(game, position, deadline=time.monotonic() + 60))
        with contextlib.suppress(NimbaseError):
            service.best_move(BestMove(game, position, deadline=time.monotonic() + 60))
    with contextlib.suppress(NimbaseError):
        service.get_stats(GetStats(game, deadline=time.monotonic() + 60))


if __name__ == "__main__":
    main("--cold" in sys.argv[1:])
