"""What a process pays before its first answer (issue 30's test run, issue 32's ready): the CPU of a
server or live process's warm-up (service.warm_up) and of a command-line answer of Nim, each in a fresh
process, beside the same at a previous commit (bench.at_commit: `--before COMMIT`, default the commit
before the warm-up loaded kernels instead of computing).

Then a server's live processes (issue 31's pool, forked from a template): `nimbase serve` from start to
ready, and what a request needing a live process waits once they were killed, beside the same at
`--before-live` (default: before a live process took the template's warm-up).

`python -m bench.bench_start_cost [--before COMMIT] [--before-live COMMIT]`; numba's cache as the
environment has it (run it twice: the first run of a commit may compile)."""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from bench.at_commit import checkout
from bench.common import figure, fresh_database, process_parents, running_server

#: The CPU seconds of one warm-up in this process, printed last.
WARM_UP = """
import time
from nimbase.settings import Settings
from service.warm_up import warm_up
started = time.process_time()
warm_up(Settings())
print(time.process_time() - started)
"""
#: The CPU seconds of `nimbase value nim 3 5 7` in a child, printed last (on a machine where nothing was
#: started: a formula needs no database).
CLI_ANSWER = """
import os, resource, subprocess, sys, tempfile
env = {**os.environ, "NIMBASE_VAR_DIR": tempfile.mkdtemp()}
env.pop("DATABASE_URL", None)
command = [sys.executable, "-m", "cli", "value", "nim", "3", "5", "7"]
subprocess.run(command, check=True, capture_output=True, env=env)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime)
"""
BEFORE = "0ed5ac7"
#: The commit before a live process took the template's warm-up (it asked its own questions again).
BEFORE_LIVE = "eab09c9"
#: Fresh games computed live, one a request: what a request needing a live process asks.
LIVE_GAME = "subtraction:1,2,{k}"
LIVE_HEAP = "3000"
#: Kills of the live processes measured (the median is printed).
KILLS = 3


def cpu_seconds(code: str, tree: Path | None = None, runs: int = 3) -> float:
    """The least CPU seconds `code` prints over `runs` fresh processes (the first may compile), run in
    `tree` (a previous commit's checkout) or here."""
    env = os.environ if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    printed = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(runs)
    ]
    return min(float(out.split()[-1]) for out in printed)


def _live_children(server: int) -> list[int]:
    """The live processes of a server: the children of its fork server (a child of the server)."""
    parents = process_parents()
    forkers = [
        pid
        for pid, parent in parents.items()
        if parent == server and b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    return [pid for pid, parent in parents.items() if forkers and parent == forkers[0]]


def _live_request(base: str, k: int) -> float:
    started = time.perf_counter()
    answer = httpx.get(
        f"{base}/v1/value", params={"game": LIVE_GAME.format(k=k), "position": LIVE_HEAP}, timeout=60
    )
    answer.raise_for_status()
    return time.perf_counter() - started


def live_processes(url: str, tree: Path | None) -> tuple[float, float]:
    """(seconds from `nimbase serve` with its two live processes started to ready, seconds a request
    needing a live process waits once both were killed, beyond one that finds them ready: their
    replacement), at this commit or in `tree`; each started once before, unmeasured (a fresh checkout's
    first start compiles its kernels into numba's cache; a fresh database's first server reads more)."""
    with running_server(url, tree=tree):
        pass
    started = time.perf_counter()
    with running_server(url, tree=tree) as server:
        ready = time.perf_counter() - started
        waits = []
        for kill in range(KILLS):
            time.sleep(1.0)
            plain = _live_request(server.base, 100 + 2 * kill)
            for pid in _live_children(server.pid):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)
            waits.append(_live_request(server.base, 101 + 2 * kill) - plain)
    return ready, statistics.median(waits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default=BEFORE, help=f"the commit compared with (default {BEFORE})")
    parser.add_argument(
        "--before-live",
        default=BEFORE_LIVE,
        help=f"the commit the live processes' figures are compared with (default {BEFORE_LIVE})",
    )
    args = parser.parse_args()
    before, before_live = args.before, args.before_live
    measured = {code: cpu_seconds(code) for code in (WARM_UP, CLI_ANSWER)}
    with checkout(before) as tree:
        then = {code: cpu_seconds(code, tree) for code in (WARM_UP, CLI_ANSWER)}
    for name, code in (("warm-up of a process", WARM_UP), ("`nimbase value nim 3 5 7`", CLI_ANSWER)):
        figure(f"CPU of the {name}", measured[code], "s")
        figure(f"  ... at {before}", then[code], "s")
    with fresh_database() as url:
        ready, replaced = live_processes(url, None)
        with checkout(before_live) as tree:
            ready_then, replaced_then = live_processes(url, tree)
    figure("`nimbase serve` with two live processes: started to ready", ready, "s")
    figure(f"  ... at {before_live}", ready_then, "s")
    figure("live processes killed: what a request needing one waits for their replacement", replaced, "s")
    figure(f"  ... at {before_live}", replaced_then, "s")


if __name__ == "__main__":
    main()
