"""Child processes started by a fork server: forked from a process that imported what they need once,
not spawned to import it all again (a worker's computing child, the service's live processes); spawned
where the platform has no fork server.

The fork server of a process is one, shared by every user in it: the modules it preloads are those
named by the first of them to start a child. It imports them with the collector off, and freezes what
they made before it forks (nimbase.collector): `PAUSE` and `FREEZE`, imported first and last (the fork
server imports its preload in order, and runs nothing else of ours).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from typing import Any

__all__ = ["context"]

PAUSE = "nimbase.fork_server_pause"
FREEZE = "nimbase.fork_server_freeze"


def context(preload: Sequence[str]) -> Any:
    """The fork server's context where the platform has one (importing `preload` once), else spawn's."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forking = multiprocessing.get_context("forkserver")
        forking.set_forkserver_preload([PAUSE, *preload, FREEZE])
        return forking
    return multiprocessing.get_context("spawn")
