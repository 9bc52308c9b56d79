"""What a process pays before its first answer (issue 30's test run, issue 32's ready): the CPU of a
server or live process's warm-up (service.warm_up) and of a command-line answer of Nim, each in a fresh
process, beside the same at a previous commit (bench.at_commit: `--before COMMIT`, default the commit
before the warm-up loaded kernels instead of computing).

`python -m bench.bench_start_cost [--before COMMIT]`; numba's cache as the environment has it (run it
twice: the first run of a commit may compile)."""

from __future__ import annotations

import argparse
import subprocess
import sys

from bench.at_commit import run_at
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
#: The CPU seconds of `nimbase value nim 3 5 7` in a child, printed last.
CLI_ANSWER = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-m", "cli", "value", "nim", "3", "5", "7"], check=True, capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime)
"""
BEFORE = "0ed5ac7"


def here(code: str) -> float:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default=BEFORE, help=f"the commit compared with (default {BEFORE})")
    before = parser.parse_args().before
    for name, code in (("warm-up of a process", WARM_UP), ("`nimbase value nim 3 5 7`", CLI_ANSWER)):
        now = min(here(code) for _ in range(2))
        then = min(float(run_at(before, code).split()[-1]) for _ in range(2))
        figure(f"CPU of the {name}", now, "s")
        figure(f"  ... at {before}", then, "s")


if __name__ == "__main__":
    main()
