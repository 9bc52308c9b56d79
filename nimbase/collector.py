"""Keep Python's full garbage collections short in a serving process, and out of its start-up.

A full collection walks every object the collector tracks, holding the GIL: in a server built with every
kind, its kernels and its transports that is some 215,000 objects and about 110 ms, during which no
request is read, no refusal sent at its deadline and no health check answered (under the hostile load a
request whose server-side time ended at its deadline reached its client 250 ms later). Almost all of
those objects live as long as the process: frozen once the server is built (`gc.freeze`), and what its
warm-up made (service.warm_up: the kernels loaded, the tables read ahead) once that is done, before
ready, they leave the collections, which then walk only what requests made.

Start-up itself (importing numba, SQLAlchemy, pydantic, FastAPI and every kind) allocates those objects
by the hundred thousand, and the collections they set off walk again and again everything imported so
far: a fifth of the CPU of importing the server's modules, for objects that all stay alive. Each
process's entry (`pause_for_startup`) turns the collector off until what it starts is built, and
`freeze_startup` (or `resume`, for a brief process) turns it on again: before any kernel is compiled,
as numba's compilations leave cycles by the gigabyte (a warm-up compiling every kernel with it off grew
to 2.7 GB of resident memory, 1.4 GB with it on).
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)


def pause_for_startup() -> None:
    """No collection until `freeze_startup` or `resume`: called first thing by a process's entry, which
    must reach one of them (a process that ran with the collector off would keep every cycle it made)."""
    gc.disable()


def resume() -> None:
    """The collector on again, what start-up made frozen out of its walk without a collection first
    (which would walk all of it once more): for a process that lives briefly or built little, where the
    few cycles start-up left are not worth that walk."""
    gc.freeze()
    gc.enable()


def freeze_startup() -> int:
    """Collect what start-up left behind, then move every object alive now out of the collector's walk
    for good, and turn the collector on (`pause_for_startup`); returns how many objects were frozen."""
    gc.collect()
    resume()
    frozen = gc.get_freeze_count()
    log.debug("%d objects of the start-up frozen out of the garbage collector", frozen)
    return frozen
