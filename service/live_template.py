"""What the live processes are forked from: the service's modules imported and every kernel its
computations may run loaded, once, in the fork server of the server process (service.isolation).

A live process started from nothing pays seconds of CPU (imports, then numba's kernels loaded from its
disk cache, then its warm-up questions) before its first call, and one is started again each time a
runaway is killed, so under a hostile load the cores went to starting processes. Forked from a process
that did the first two once, a new live process shares those pages and pays only its own warm-up
questions (service.live_child), which then load nothing: its service's caches are its own. The fork
server imports this module by name (`multiprocessing` preload) with the server's environment; a failure
here costs only that speed, so it is logged and the live processes do the work themselves.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def _load_kernels() -> None:
    from nimbase.settings import Settings
    from service.warm_up import warm_up

    warm_up(Settings.from_env())


try:
    _load_kernels()
except Exception:  # the fork server must start whatever happens: each process then loads its own
    log.warning("the live processes' template did not load the kernels", exc_info=True)
