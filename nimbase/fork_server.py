"""Child processes started by a fork server: forked from a process that imported what they need once,
not spawned to import it all again (a worker's computing child, the service's live processes); spawned
where the platform has no fork server.

The fork server of a process is one, shared by every user in it: the modules it preloads are those
named by the first of them to start a child.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from typing import Any

__all__ = ["context"]


def context(preload: Sequence[str]) -> Any:
    """The fork server's context where the platform has one (importing `preload` once), else spawn's."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forking = multiprocessing.get_context("forkserver")
        forking.set_forkserver_preload(list(preload))
        return forking
    return multiprocessing.get_context("spawn")
