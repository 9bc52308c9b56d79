"""Compiling before ready: every listed kind answers its own warm-up questions in this process first.

numba compiles a kernel (or loads it from its cache) the first time a process calls it; under a request
that took seconds, on the event loop or past the request's deadline (issue 32: a Nim formula answered
504 minutes after the first start). So every process that will run kernels (the server process, for
what it answers from memory and storage, and each live process, for computations) asks each listed
game what its kind declares (`GameKind.warm_ups`: value, best moves, then the game's stats, which are cut
short by a deadline: where no period is known they compute for seconds past their kernels' loading) before it
says it is ready, on a service of its own without a database: nothing is queued, nothing is stored, and
no request waits behind it. service/ names no kind here; each kind says what to ask.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

from engine.errors import NimbaseError
from engine.registry import list_games, parse_game_id
from nimbase.settings import Settings
from service.calls import BestMove, GetStats, GetValue

log = logging.getLogger(__name__)

#: The longest a warm-up question may take (a kernel compiles in seconds on a cold cache; a question that
#: needs longer is refused by its deadline, the kernels it reached compiled all the same).
QUESTION_SECONDS = 60.0
#: The deadline of a warm-up's stats: past their kernels' first calls (a compile is not interrupted by a
#: deadline, so it ends all the same), stats of a game with no known period go on computing values.
STATS_SECONDS = 10.0


def warm_up(settings: Settings, progress: Callable[[int, int], None] | None = None) -> int:
    """Ask every listed game its kind's warm-up questions in this process; how many were asked.
    `progress(done, total)` is told the games done after each question (a sign of life)."""
    from service.core import Nimbase  # the service layer, which imports this module's users

    service = Nimbase(settings, None)
    games = [info.id for info in list_games()]
    asked = 0
    for done, game in enumerate(games):
        try:
            kind = parse_game_id(game)
            graph = kind.warm_up_graph()
            if kind.graph_name is None:
                positions = kind.warm_ups()
            elif graph is None:  # plays on an uploaded graph, and has none of its own to warm up on
                positions = ()
            else:
                service.graphs.hold(graph)
                positions = kind.bind_graph(graph).warm_ups()
        except NimbaseError:
            positions = ()
        for position in positions:
            for question in (GetValue, BestMove):
                asked += 1
                with contextlib.suppress(NimbaseError):
                    service.answer(question(game, position, deadline=time.monotonic() + QUESTION_SECONDS))
                if progress is not None:
                    progress(done, len(games))
        if positions:
            asked += 1
            with contextlib.suppress(NimbaseError):
                service.get_stats(GetStats(game, deadline=time.monotonic() + STATS_SECONDS))
        if progress is not None:
            progress(done + 1, len(games))
    return asked


class WarmUp:
    """`warm_up` in a background thread of this process; `reason` says what is left until it is done."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._done = threading.Event()
        self._progress = (0, 0)
        self._started = time.monotonic()

    def start(self) -> WarmUp:
        threading.Thread(target=self._run, name="nimbase-warm-up", daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            asked = warm_up(self._settings, self._report)
            log.info(
                "kernels compiled or loaded: %d warm-up questions in %.1f s",
                asked,
                time.monotonic() - self._started,
            )
        except Exception:  # a kind's warm-up that fails leaves its first request to compile, as before
            log.exception("the warm-up failed")
        finally:
            self._done.set()

    def _report(self, done: int, total: int) -> None:
        self._progress = (done, total)

    def reason(self) -> str | None:
        if self._done.is_set():
            return None
        done, total = self._progress
        return (
            f"compiling the kernels its requests may run (or loading them from numba's cache): "
            f"{done} of {total or '?'} games warmed up after {time.monotonic() - self._started:.0f} s"
        )

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)
