"""Live certification: how long a request for a far heap of a game nobody computed takes.

Each game is asked for on a fresh database (nothing stored, nothing cached) through the service layer,
so the figure is the cost of growing its values and certifying its period for that one request,
beside the request deadline it must fit in.
"""

from __future__ import annotations

import time

from bench.common import figure, fresh_database
from nimbase.settings import Limits, Settings
from service.core import Nimbase
from storage.database import create_engine

#: Games whose period is certified within a default deadline, and the heap asked for.
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
                value = service.get_value(game, str(heap))
                elapsed = time.perf_counter() - started
                figure(f"{game} heap {heap:.0e}, from nothing ({value.source})", elapsed, "s")
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
