"""What the live processes are forked from: the service's modules imported and every kernel its
computations may run loaded, once, in the fork server of the server process (service.isolation).

A live process started from nothing pays seconds of CPU (imports, then numba's kernels loaded from its
disk cache, then its warm-up questions) before its first call, and one is started again each time a
runaway is killed, so under a hostile load the cores went to starting processes. Forked from a process
that did all three once, a new live process shares those pages, takes what the warm-up made as its own
(copied on write: each process's caches are its own) where its settings are the template's, and only
reads ahead from the database (service.live_child, service.warm_up's `warmed_from`). The fork
server imports this module by name (`multiprocessing` preload) with the server's environment; a failure
here costs only that speed, so it is logged and the live processes do the work themselves.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.warm_up import Warmed

log = logging.getLogger(__name__)


def _warm_up() -> Warmed:
    from nimbase.settings import Settings
    from service.warm_up import warm_up_template

    return warm_up_template(Settings.from_env())


#: The warm-up asked here, which a live process forked from here takes as its own where it runs under the
#: same settings (service.live_child); None where it failed.
WARMED: Warmed | None = None
try:
    WARMED = _warm_up()
except Exception:  # the fork server must start whatever happens: each process then loads its own
    log.warning("the live processes' template did not load the kernels", exc_info=True)
