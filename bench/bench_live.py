"""Live work within one request's deadline: certifying a period for a far heap of a game nobody
computed, and ranking the moves of positions that once ran out of time.

Each game is asked for on a fresh database (nothing stored, nothing cached) through the service layer,
so the figure is the cost for that one request, beside the request deadline it must fit in.
"""

from __future__ import annotations

import time

from bench.common import figure, fresh_database
from nimbase.settings import Limits, Settings
from service.calls import BestMove, GetValue
from service.core import Nimbase
from storage.database import create_engine

#: Games whose period is certified within a default deadline, and the heap asked for.
#: BestMove calls that ran to the deadline before (the soak's Nim cases and issue 12's 1,000-heap sum).
BEST_MOVES = (
    ("nim", "1753 3", 10),
    ("nim", "1149 12", 10),
    ("subtraction:1,3,4", " ".join(map(str, range(1, 1001))), 10000),
)

GAMES = (
    ("octal:0.127", 10**9),
    ("octal:0.16", 10**12),
    ("octal:0.56", 10**12),
    ("subtraction:2,5,7,31", 10**15),
)


def main() -> None:
    deadline = Limits().request_seconds
    figure("request deadline (NIMBASE_LIMITS_REQUEST_SECONDS)", deadline, "s")
    with fresh_database() as url:
        engine = create_engine(url)
        try:
            for game, heap in GAMES:
                service = Nimbase(Settings(), engine)  # a fresh process: nothing cached
                started = time.perf_counter()
                value = service.get_value(GetValue(game, str(heap)))
                elapsed = time.perf_counter() - started
                figure(f"{game} heap {heap:.0e}, from nothing ({value.source})", elapsed, "s")
            for game, position, limit in BEST_MOVES:
                service = Nimbase(Settings(), engine)
                started = time.perf_counter()
                answer = service.best_move(BestMove(game, position, limit))
                elapsed = time.perf_counter() - started
                shown = position if len(position) < 16 else f"{len(position.split())} heaps"
                figure(f"BestMove {game} '{shown}' limit {limit} ({len(answer.moves)} moves)", elapsed, "s")
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
