"""Start, stop, restart (issue 32): `nimbase run` from its start to /readyz 200, on a fresh machine (empty
data directory, numba cache and home) and warm; the first answer of each shipped kind once ready; and a
worker stopped mid-solve, by SIGINT and by SIGKILL inside `run` (each stopping a solve of its own, right
after its first checkpoint is stored): how soon its job is queued again and `run` starts another worker,
whether the next worker resumes from its checkpoint records, and how much work was lost.

Each figure is printed beside its target. `python -m bench.bench_lifecycle` (`make bench` runs it); the
cold start compiles every kernel from nothing and takes minutes.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import ADMIN_TOKEN, figure, free_port
from nimbase.client import NimbaseClient

REPO = Path(__file__).resolve().parents[1]
#: The first answer of each shipped kind once ready, asked one after the other: (game, position).
FIRST_ANSWERS = (
    ("nim", "3 5 7"),
    ("subtraction:1,3,4", "10 12"),
    ("octal:0.77", "1000"),
    ("grundy", "7 4"),
    ("wythoff", "3,5"),
    ("bicolor-nim", "2w1b 3w 4b"),
    ("lights-out:5x5", "00000/01100/01100/00000/00000"),
    ("graph:bench", "a"),
    ("chess:KRvK", "8/8/8/8/8/2k5/8/KR6 w - - 0 1"),
    ("chess:KQvKR", "8/8/8/4k3/8/8/7r/KQ6 w - - 0 1"),
    ("tictactoe", "x../.o./..."),
    ("connect4:4x4", "..../..../..../...."),
)
FIRST_ANSWER_TARGET_MS = 50.0
REQUEUE_TARGET_S = 5.0
#: The table solved while its worker is stopped, one of its own for each stop (a table stored already is
#: answered at once, with nothing to stop): four men without pawns, one slice of 3,784,704 slots solved in
#: three stages a checkpoint each, seconds apart. Neither the default set nor the first answers' automatic
#: jobs store them (the default set holds no chess, and the stops cancel the open jobs first); KQQvK, the
#: slowest of the four-man solves, is asked nowhere else. KQvKR's solve stores KQvK and KRvK too: the warm
#: start's first chess answers are of stored tables.
STOPPED = {signal.SIGINT: "chess:KQvKR", signal.SIGKILL: "chess:KQQvK"}
#: With --first-answers, the table stored uninterrupted instead, so that the warm start's are stored too.
STORED_GAME = STOPPED[signal.SIGINT]
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
GRAPH = {"name": "bench", "vertices": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]}
READY_SECONDS = 3600.0


@dataclass
class Machine:
    root: Path
    env: dict[str, str]

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.env['NIMBASE_HTTP_PORT']}"

    @property
    def grpc(self) -> str:
        return f"127.0.0.1:{self.env['NIMBASE_GRPC_PORT']}"


def fresh_machine(keep_numba_cache: bool = False) -> Machine:
    root = Path(tempfile.mkdtemp(prefix="nbl"))  # short: PostgreSQL's socket lives there
    for name in ("h", "v", "n"):
        (root / name).mkdir()
    skipped = ("NIMBASE_", "NUMBA_")
    inherited = dict(os.environ)
    env = {k: v for k, v in inherited.items() if not k.startswith(skipped) and k != "DATABASE_URL"}
    if keep_numba_cache and "NUMBA_CACHE_DIR" in inherited:
        env["NUMBA_CACHE_DIR"] = inherited["NUMBA_CACHE_DIR"]
    env |= {
        "HOME": str(root / "h"),
        "XDG_DATA_HOME": "",
        "NIMBASE_VAR_DIR": str(root / "v"),
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": str(free_port()),
        "NIMBASE_HTTP_PORT": str(free_port()),
        "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
        "NIMBASE_WORKER_CHECKPOINT_SECONDS": "0",
        "NIMBASE_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    if not keep_numba_cache:
        env["NUMBA_CACHE_DIR"] = str(root / "n")
    return Machine(root, env)


def start(machine: Machine) -> tuple[subprocess.Popen[bytes], float]:
    """`nimbase run` (one server process), and the seconds until its /readyz is 200."""
    started = time.monotonic()
    with (machine.root / "run.log").open("ab") as log:
        run = subprocess.Popen(
            [sys.executable, "-m", "cli", "run", "--processes", "1"],
            cwd=REPO,
            env=machine.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    while True:
        if run.poll() is not None or time.monotonic() - started > READY_SECONDS:
            raise RuntimeError((machine.root / "run.log").read_text()[-3000:])
        try:
            if httpx.get(f"{machine.http}/readyz", timeout=5).status_code == 200:
                return run, time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.1)


def stop(run: subprocess.Popen[bytes]) -> None:
    """SIGINT to the process group (Ctrl-C), SIGKILL past a minute."""
    os.killpg(run.pid, signal.SIGINT)
    try:
        run.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()


def first_answers(machine: Machine, label: str) -> None:
    with httpx.Client(base_url=machine.http, timeout=60) as http:
        http.post("/v1/graphs", json=GRAPH, headers=ADMIN)  # 409 on the second start: it is stored
        for game, position in FIRST_ANSWERS:
            began = time.perf_counter()
            reply = http.get("/v1/value", params={"game": game, "position": position})
            took = (time.perf_counter() - began) * 1000
            figure(f"first answer {game} ({label}, {reply.status_code})", took, "ms")
    print(f"target: each first answer <= {FIRST_ANSWER_TARGET_MS:.0f} ms after ready", flush=True)


def workers(pid: int) -> list[int]:
    """The ids of the `nimbase worker` processes `pid` started (its children, from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if parent == pid and b"worker" in cmdline:
            found.append(int(entry.name))
    return found


class LogTail:
    """The lines `nimbase run` (its worker included) writes to its log from now on."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("rb")
        self._file.seek(0, os.SEEK_END)
        self._rest = b""

    def lines(self) -> list[str]:
        self._rest += self._file.read()
        *whole, self._rest = self._rest.split(b"\n")
        return [line.decode(errors="replace") for line in whole]

    def close(self) -> None:
        self._file.close()


def stopped_worker(machine: Machine, run: subprocess.Popen[bytes], signum: signal.Signals) -> None:
    """Queue the table STOPPED[signum] names, stop the worker by `signum` as soon as its log says the
    solve stored its first checkpoint, and print how soon the job was queued again (and, for a worker
    killed, how soon `run` started another), the records the next worker resumed from and the work lost:
    the seconds of solving since the last checkpoint record stored before the stop (what the next worker
    solves again; from the run's log), beside the seconds the records kept."""
    game, name = STOPPED[signum], signum.name
    tail = LogTail(machine.root / "run.log")
    with NimbaseClient(machine.grpc, token=ADMIN_TOKEN, timeout=60) as client:
        for job in client.list_jobs()["jobs"]:  # the default set: not what is measured here
            if job["status"] in ("queued", "running"):
                client.cancel_job(job["id"])
        job = client.submit_job(game, 0, family="table")
        if job["status"] == "done":
            raise RuntimeError(f"{game} is stored already, so no solve of it can be stopped: {job}")
        number = job["id"]
        seen = re.compile(rf"job {number}: stored checkpoint \d+ ")
        polls = 0
        while not any(seen.search(line) for line in tail.lines()):
            polls += 1
            if polls % 20 == 0:  # now and then: whether the job ended meanwhile
                state = client.get_job(number)
                if state["status"] in ("done", "failed", "cancelled"):
                    raise RuntimeError(
                        f"{game}'s job ended before a checkpoint of it was seen, so no worker could be "
                        f"stopped mid-solve (a larger material solves longer): {state}"
                    )
            time.sleep(0.005)
        (worker,) = workers(run.pid)
        stopped, stopped_at = time.monotonic(), datetime.datetime.now()
        os.kill(worker, signum)
        while True:
            state = client.get_job(number)
            if state["status"] == "queued":
                queued_after = time.monotonic() - stopped
                break
            if state["status"] != "running":
                raise RuntimeError(f"the stopped job became {state['status']}: {state}")
            time.sleep(0.02)
        while not (others := [pid for pid in workers(run.pid) if pid != worker]):
            if time.monotonic() - stopped > 120:
                raise RuntimeError(f"`nimbase run` started no worker in place of {worker} within 120 s")
            time.sleep(0.02)
        restarted_after = time.monotonic() - stopped
        while (state := client.get_job(number))["status"] != "done":
            if state["status"] in ("failed", "cancelled"):
                raise RuntimeError(f"the resumed job became {state['status']}: {state}")
            time.sleep(0.1)
    tail.close()
    figure(f"{name} to a worker mid-solve ({game}): job queued again after", queued_after, "s")
    print(f"target: queued again within {REQUEUE_TARGET_S:.0f} s", flush=True)
    figure(f"{name}: another worker (pid {others[0]}) started by run after", restarted_after, "s")
    log = (machine.root / "run.log").read_text()
    said = re.findall(rf"^\S+ \S+ WARNING nimbase: (the worker \(pid {worker}\) [^\n]*)", log, re.M)
    if said:
        print(f"run's log: {said[-1]}", flush=True)
    found = re.findall(rf"job {number}: resuming from (\d+) checkpoint records", log)
    records = int(found[-1]) if found else 0
    figure(f"{name}: checkpoint records the next worker resumed from", float(records), "records")
    marks = re.compile(rf"^(\S+ \S+) .*(running job {number} |job {number}: stored checkpoint)", re.M)
    before = [(_when(stamp), what) for stamp, what in marks.findall(log) if _when(stamp) <= stopped_at]
    began = max(when for when, what in before if what.startswith("running"))
    last = max((when for when, what in before if what.startswith("job")), default=began)
    figure(
        f"{name}: work lost (seconds of solving since the last checkpoint)",
        (stopped_at - last).total_seconds(),
        "s",
    )
    figure(f"{name}: work kept by the checkpoints (seconds of solving)", (last - began).total_seconds(), "s")


def stored(machine: Machine) -> None:
    """STORED_GAME's table stored by the worker, uninterrupted (--first-answers: no worker is stopped)."""
    with NimbaseClient(machine.grpc, token=ADMIN_TOKEN, timeout=60) as client:
        for open_job in client.list_jobs()["jobs"]:  # the default set: not what is measured here
            if open_job["status"] in ("queued", "running"):
                client.cancel_job(open_job["id"])
        job = client.submit_job(STORED_GAME, 0, family="table")
        while (state := client.get_job(job["id"]))["status"] != "done":
            if state["status"] in ("failed", "cancelled"):
                raise RuntimeError(f"the job storing {STORED_GAME} became {state['status']}: {state}")
            time.sleep(0.2)


def _when(stamp: str) -> datetime.datetime:
    """A log line's time (logging's default format, local time)."""
    return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f")


def main() -> None:
    """With --keep-numba-cache the first start has a fresh data directory and home but numba's cache as
    the environment has it (the kernels compiled already: a quicker run of the rest); with --first-answers
    no worker is stopped (the starts and the first answers only)."""
    kept = "--keep-numba-cache" in sys.argv[1:]
    stops = "--first-answers" not in sys.argv[1:]
    machine = fresh_machine(kept)
    try:
        run, cold = start(machine)
        what = "fresh data and home, numba's cache kept" if kept else "fresh machine (empty caches)"
        figure(f"nimbase run to /readyz 200, {what}", cold, "s")
        first_answers(machine, "cold start")
        if stops:
            stopped_worker(machine, run, signal.SIGINT)
            stopped_worker(machine, run, signal.SIGKILL)
        else:
            stored(machine)  # as the stopped solves store it: the warm start's chess answers are stored
        stop(run)
        run, warm = start(machine)
        figure("nimbase run to /readyz 200, warm (same data and numba cache)", warm, "s")
        first_answers(machine, "warm start")
        stop(run)
    finally:
        data = machine.root / "v" / "postgres"
        pid_file = data / "postmaster.pid"
        if pid_file.is_file():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
            until = time.monotonic() + 30
            while pid_file.exists() and time.monotonic() < until:
                time.sleep(0.2)
        shutil.rmtree(machine.root, ignore_errors=True)


if __name__ == "__main__":
    main()
