"""Compiling before ready: every listed kind answers its own warm-up questions in this process first.

numba compiles a kernel (or loads it from its cache) the first time a process calls it; under a request
that took seconds, on the event loop or past the request's deadline (issue 32: a Nim formula answered
504 minutes after the first start). So every process that will run kernels (the server process, for
what it answers from memory and storage, and each live process, for computations) asks each listed
game what its kind declares (`GameKind.warm_ups`: value, best moves, then the game's stats, which are cut
short by a deadline: where no period is known they compute for seconds past their kernels' loading) before it
says it is ready, on a service of its own without a database: nothing is queued, nothing is stored, and
no request waits behind it. service/ names no kind here; each kind says what to ask.

The process's own service (`into`) then starts where the warm-up left it, so that the first request of
each kind is answered within its target rather than repeating the warm-up's work under its deadline: it
keeps the objects the warm-up made (it shares the warm-up service's keepers: a rules game solved live, a
board's elimination; a stored object still replaces one made live at its next look), adopts what the
warm-up's memo and live sequences gained (service.learned: a remoteness search, a live prefix; in the
server process only, for a live process sends back what it computes for a call), and is
asked the same questions once more without computing, queueing nothing, and those of the games with a
stored table: the stored tables' headers and first chunks, the database connection of this process,
read before ready.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from engine.errors import NimbaseError
from engine.keep import Keepers
from engine.registry import list_games, parse_game_id
from nimbase import collector
from nimbase.settings import Settings
from service import learned
from service.calls import BestMove, GetStats, GetValue

if TYPE_CHECKING:
    from service.core import Nimbase

log = logging.getLogger(__name__)

#: The longest a warm-up question may take (a kernel compiles in seconds on a cold cache; a question that
#: needs longer is refused by its deadline, the kernels it reached compiled all the same).
QUESTION_SECONDS = 60.0
#: The deadline of a warm-up's stats: past their kernels' first calls (a compile is not interrupted by a
#: deadline, so it ends all the same), stats of a game with no known period go on computing values, which
#: is spent CPU and time before ready in every process: the kernels they reach only far on, a kind loads
#: itself (`GameKind.load_kernels`). At 2 s, octal:0.6's values grew for all of them: a warm-up took
#: 2.1 s of CPU, 1.3 at a quarter of a second (bench.bench_start_cost), and each server process, each
#: live process not forked from the template and each template pays one.
STATS_SECONDS = 0.25
#: Games with a stored table (besides the listed ones) whose warm-up questions a process's own service
#: reads ahead before ready: a few database reads each (a header, a chunk or a block).
READ_AHEAD_GAMES = 64


def warm_up(
    settings: Settings,
    progress: Callable[[int, int], None] | None = None,
    into: Nimbase | None = None,
    *,
    adopt: bool = True,
) -> int:
    """Ask every listed game its kind's warm-up questions in this process; how many were asked.
    `progress(done, total)` is told the games done after each question (a sign of life). `into`, the
    process's own service, starts where the warm-up left it (the module's docstring); without `adopt`
    it takes none of the memo's and live sequences' gains (a live process: what it computes for a call
    must be computed there, for its journal to carry it to the server, service.learned)."""
    from service.core import Nimbase  # the service layer, which imports this module's users

    service = Nimbase(settings, None)
    apart = service
    if into is not None:
        service.kept = into.kept
        # A warm-up graph is not the uploaded graph of its name: what is made on it is not kept.
        apart = Nimbase(settings, None)
    with service.journal.recording() as gained:
        asked, questions = _ask(service, apart, progress)
    if into is not None:
        packed = learned.pack(gained) if adopt else None
        if packed is not None:
            into.adopt(packed)
        into.kept.look_again()  # made without storage: what is stored replaces them as it is read now
        _read_ahead(into, questions)
    return asked


@dataclass(frozen=True)
class Warmed:
    """A warm-up a template process asked once, for the processes forked from it (service.live_template):
    the settings it was asked under, the keepers of what it made, and the questions it asked."""

    settings: Settings
    kept: Keepers
    questions: list[tuple[str, str]]


def warm_up_template(settings: Settings) -> Warmed:
    """`warm_up` in a process others are forked from: its kernels loaded, and what it made kept for them
    (what a graph kind made on its warm-up graph apart, as `warm_up` keeps it apart)."""
    from service.core import Nimbase

    service = Nimbase(settings, None)
    collector.resume()  # the imports done with it off (a fork server's); compiling, never (nimbase.collector)
    _, questions = _ask(service, Nimbase(settings, None), None)
    # Frozen before the processes are forked: their collections then never walk (nor write to, copying
    # the pages they share) what they inherit.
    collector.freeze_startup()
    return Warmed(settings, service.kept, questions)


def warmed_from(warmed: Warmed, into: Nimbase) -> None:
    """What `warm_up` leaves `into` (adopting nothing: a live process's), from a template's warm-up: a
    process forked from it has its kernels loaded and its own copy of what it made, so it asks no
    question again (seconds of CPU for each process, each time one is replaced), and only reads ahead."""
    into.kept = warmed.kept
    into.kept.look_again()  # made without storage: what is stored replaces them as it is read now
    _read_ahead(into, warmed.questions)


def _read_ahead(service: Nimbase, questions: list[tuple[str, str]]) -> None:
    """Ask `service` the warm-up's questions and their games' stats, and those of the first
    READ_AHEAD_GAMES other games with a stored table (ListGames lists them), without computing and
    without queueing any job."""
    with service.automatic.held():
        asked = {game for game, _ in questions}
        stored = [info.id for info in service.list_games() if info.id not in asked]
        for game in stored[:READ_AHEAD_GAMES]:
            with contextlib.suppress(NimbaseError):
                questions = [*questions, *((game, p) for p in service.game(game).warm_ups())]
        for game, position in questions:
            for question in (GetValue, BestMove):
                asking = question(game, position, deadline=time.monotonic() + QUESTION_SECONDS)
                with contextlib.suppress(NimbaseError):
                    service.without_computing(partial(service.answer, asking))
        for game in dict.fromkeys(game for game, _ in questions):  # their stored statistics, and kernels
            with contextlib.suppress(NimbaseError):
                stats = GetStats(game, deadline=time.monotonic() + STATS_SECONDS)
                service.without_computing(partial(service.get_stats, stats))


def _ask(
    shared: Nimbase, apart: Nimbase, progress: Callable[[int, int], None] | None
) -> tuple[int, list[tuple[str, str]]]:
    """Every listed game's warm-up questions asked of `shared`, those of games played on a warm-up graph
    of `apart`: how many, and the (game, position)s asked of `shared`."""
    games = [info.id for info in list_games()]
    asked = 0
    questions: list[tuple[str, str]] = []
    for done, game in enumerate(games):
        service = shared
        try:
            kind = parse_game_id(game)
            kind.load_kernels()
            service = shared if kind.graph_name is None else apart
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
            if service is shared:
                questions.append((game, position))
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
    return asked, questions


class WarmUp:
    """`warm_up` in a background thread of this process; `reason` says what is left until it is done."""

    def __init__(self, settings: Settings, into: Nimbase | None = None) -> None:
        self._settings = settings
        self._into = into
        self._done = threading.Event()
        self._progress = (0, 0)
        self._started = time.monotonic()

    def start(self) -> WarmUp:
        threading.Thread(target=self._run, name="nimbase-warm-up", daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            asked = warm_up(self._settings, self._report, self._into)
            log.info(
                "kernels compiled or loaded: %d warm-up questions in %.1f s",
                asked,
                time.monotonic() - self._started,
            )
        except Exception:  # a kind's warm-up that fails leaves its first request to compile, as before
            log.exception("the warm-up failed")
        finally:
            # What the warm-up made (the kernels loaded, the read-ahead's tables) lives as long as the
            # process, as the start-up's objects frozen before it do: frozen too before ready, the
            # first full collections after ready (tens of ms each, holding the GIL) no longer walk it
            # under the first requests.
            collector.freeze_startup()
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
