"""A previous implementation measured where it lives: at its commit, checked out into a temporary git
worktree, run by this interpreter (the same installed packages), so that the product keeps no copy or
flag of it and a bench still prints both figures from the same run.

`run_at(commit, code)` runs `python -c code` at `commit` (that tree first on the import path) and returns
what it printed; a bench prints its figure from the child's output beside its own measurement.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The commit whose tree still held the previous implementations the benches compare with (the unbatched
#: rules expansion, the previous rare/common and Wythoff kernels, the chess solver before its kernels
#: moved, lila's GET /standard as a FastAPI route).
BEFORE_LAYOUT = "ed4fe41"


@contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """`commit`'s tree in a temporary worktree, removed afterwards."""
    tree = Path(tempfile.mkdtemp(prefix="nimbase-at-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit],
        check=True,
        capture_output=True,
    )
    try:
        yield tree
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
            check=False,
            capture_output=True,
        )


def run_at(commit: str, code: str, timeout: float = 1800.0) -> str:
    """What `python -c code` prints when run at `commit` (its tree first on the import path)."""
    with checkout(commit) as tree:
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the code at {commit} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def seconds_at(commit: str, setup: str, statement: str, repeat: int = 1) -> float:
    """The best wall-clock seconds of `statement` at `commit`, after `setup` (which compiles and warms)."""
    code = (
        f"import time\n{setup}\nbest = float('inf')\n"
        f"for _ in range({repeat}):\n"
        f"    started = time.perf_counter()\n"
        f"    {statement}\n"
        f"    best = min(best, time.perf_counter() - started)\n"
        f"print(best)\n"
    )
    return float(run_at(commit, code).split()[-1])
