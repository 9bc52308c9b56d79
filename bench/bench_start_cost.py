"""What a process pays before its first answer (issue 30's test run, issue 32's ready): the CPU of a
server or live process's warm-up (service.warm_up) and of a command-line answer of Nim, each in a fresh
process, beside the same at a previous commit (bench.at_commit: `--before COMMIT`, default the commit
before the warm-up loaded kernels instead of computing).

`python -m bench.bench_start_cost [--before COMMIT]`; numba's cache as the environment has it (run it
twice: the first run of a commit may compile)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from bench.at_commit import checkout
from bench.common import figure

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default=BEFORE, help=f"the commit compared with (default {BEFORE})")
    before = parser.parse_args().before
    measured = {code: cpu_seconds(code) for code in (WARM_UP, CLI_ANSWER)}
    with checkout(before) as tree:
        then = {code: cpu_seconds(code, tree) for code in (WARM_UP, CLI_ANSWER)}
    for name, code in (("warm-up of a process", WARM_UP), ("`nimbase value nim 3 5 7`", CLI_ANSWER)):
        figure(f"CPU of the {name}", measured[code], "s")
        figure(f"  ... at {before}", then[code], "s")


if __name__ == "__main__":
    main()
