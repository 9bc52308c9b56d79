"""`python -m tests.worker.killed_after_checkpoint`: `python -m worker` that kills itself (SIGKILL, as the
OOM killer or a lost machine would) right after it stored its KILL_AFTER_RECORDS-th checkpoint record
of KILL_AFTER_GAME's object, so a test kills a real worker at a known point of a real solve."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from storage.checkpoints import CheckpointStore
from worker.__main__ import main


def kill_after(game_id: str, records: int) -> None:
    """Make every CheckpointStore SIGKILL this process once it stored `records` records of `game_id`."""
    append = CheckpointStore.append
    stored = 0

    def append_then_die(self: CheckpointStore, **record: Any) -> None:
        nonlocal stored
        append(self, **record)
        if record["game_id"] == game_id:
            stored += 1
            if stored >= records:
                os.kill(os.getpid(), signal.SIGKILL)

    CheckpointStore.append = append_then_die  # type: ignore[method-assign]


if __name__ == "__main__":
    kill_after(os.environ["KILL_AFTER_GAME"], int(os.environ["KILL_AFTER_RECORDS"]))
    raise SystemExit(main(sys.argv[1:]))
