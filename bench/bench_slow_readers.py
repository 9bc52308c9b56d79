"""Large answers cannot hold up small ones (issue 31): 100 clients ask for a million values of Nim
(`GET /v1/sequence?game=nim&start=0&stop=1000000`) and read nothing, then 100 others ask the same and read
slowly; meanwhile cheap Nim lookups over REST and gRPC are timed. Printed: the cheap lookups' p99 beside
the target (100 ms) and the server's resident memory growth beside its target (200 MB).

The readers run in a process of their own (`readers`), so the cheap clients' timings do not include the
readers' share of this process's GIL.
"""

from __future__ import annotations

import multiprocessing
import selectors
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Event
from urllib.parse import urlsplit

from bench.bench_isolation import Sample, _resident, cheap_grpc, cheap_rest, p99
from bench.common import figure, fresh_database, running_server

#: Clients asking for a long answer, and what they ask.
READERS = 100
SEQUENCE = "/v1/sequence?game=nim&start=0&stop=1000000"
#: How a slow reader reads: this many bytes every `SLOW_EVERY_S` (the answer is about 6.9 MB).
SLOW_BYTES = 16384
SLOW_EVERY_S = 0.1
#: Seconds the cheap lookups are timed in each phase.
SECONDS = 15.0
TARGET_P99_MS = 100.0
TARGET_GROWTH_MB = 200.0


def readers(base: str, count: int, slow: bool, started: Event, stop: Event) -> None:
    """`count` connections each sending the long request, then reading nothing (or `SLOW_BYTES` every
    `SLOW_EVERY_S`), until `stop`."""
    where = urlsplit(base)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    request = f"GET {SEQUENCE} HTTP/1.1\r\nhost: {host}\r\n\r\n".encode()
    connections = []
    for _ in range(count):
        connection = socket.create_connection((host, port))
        connection.sendall(request)
        connection.setblocking(False)
        connections.append(connection)
    started.set()
    with selectors.DefaultSelector() as selector:
        for connection in connections:
            selector.register(connection, selectors.EVENT_READ)
        while not stop.wait(SLOW_EVERY_S):
            if not slow:
                continue
            for key, _ in selector.select(0):
                try:
                    if not key.fileobj.recv(SLOW_BYTES):  # type: ignore[union-attr]
                        selector.unregister(key.fileobj)
                except OSError:
                    selector.unregister(key.fileobj)
    for connection in connections:
        connection.close()


@dataclass
class Phase:
    """What one phase measured: the cheap lookups of each transport, and the server's resident bytes
    before and at most during it."""

    rest: list[Sample]
    grpc: list[Sample]
    before: int
    most: int


def phase(base: str, target: str, pid: int, slow: bool, seconds: float = SECONDS) -> Phase:
    """Start the readers, time the cheap lookups for `seconds` while sampling the server's memory, then
    let the readers go."""
    context = multiprocessing.get_context("spawn")
    started, stop = context.Event(), context.Event()
    before = _resident(pid)
    process = context.Process(target=readers, args=(base, READERS, slow, started, stop))
    process.start()
    started.wait(60)
    most = before
    sampling = threading.Event()

    def sample_memory() -> None:
        nonlocal most
        while not sampling.wait(0.2):
            most = max(most, _resident(pid))

    sampler = threading.Thread(target=sample_memory)
    sampler.start()
    found: dict[str, list[Sample]] = {}

    def timed(name: str, run: Callable[[], list[Sample]]) -> threading.Thread:
        thread = threading.Thread(target=lambda: found.__setitem__(name, run()))
        thread.start()
        return thread

    for thread in (
        timed("rest", lambda: cheap_rest(base, seconds, clients=2)),
        timed("grpc", lambda: cheap_grpc(target, seconds, clients=2)),
    ):
        thread.join()
    sampling.set()
    sampler.join()
    stop.set()
    process.join(30)
    return Phase(found["rest"], found["grpc"], before, most)


def report(name: str, measured: Phase) -> tuple[list[str], list[str]]:
    """Prints the phase's figures beside the targets; the targets missed, and the problems (lookups that
    failed or were wrong, or none made)."""
    missed, problems = [], []
    for transport, samples in (("REST", measured.rest), ("gRPC", measured.grpc)):
        times = [sample.took * 1000 for sample in samples]
        failed = sum(1 for sample in samples if sample.outcome not in ("200", "OK"))
        figure(f"{name}: cheap {transport} GetValue p99 (target <= {TARGET_P99_MS:.0f})", p99(times), "ms")
        figure(f"  ... {transport} lookups answered (not 200/OK: {failed})", len(samples) - failed, "")
        if not p99(times) <= TARGET_P99_MS:
            missed.append(f"{name}: cheap {transport} p99")
        if failed or not samples:
            problems.append(
                f"{name}: {failed} of {len(samples)} cheap {transport} lookups failed or were wrong"
            )
    growth = (measured.most - measured.before) / 1e6
    figure(f"{name}: server resident memory growth (target <= {TARGET_GROWTH_MB:.0f})", growth, "MB")
    if growth > TARGET_GROWTH_MB:
        missed.append(f"{name}: memory growth")
    return missed, problems


def soak_phase(base: str, target: str, pid: int, seconds: float = 10.0) -> list[str]:
    """The soak's short phase of silent, then slow, readers; what fails the soak (lookups that failed or
    were wrong: as for the hostile load, a target missed on a busy machine is printed, not failed)."""
    print(
        f"== soak: {READERS} silent, then {READERS} slow readers of a million values (issue 31)", flush=True
    )
    missed, problems = report("silent readers", phase(base, target, pid, slow=False, seconds=seconds))
    more_missed, more_problems = report("slow readers", phase(base, target, pid, slow=True, seconds=seconds))
    missed += more_missed
    print("  targets " + ("met" if not missed else "missed: " + "; ".join(missed)), flush=True)
    return problems + more_problems


def main(seconds: float = SECONDS) -> None:
    with fresh_database() as url, running_server(url) as server:
        cheap_rest(server.base, 2.0, clients=1)  # the connections and the game warmed
        cheap_grpc(server.target, 2.0, clients=1)
        quiet = [sample.took * 1000 for sample in cheap_rest(server.base, seconds / 3, clients=2)]
        figure("no readers (same run): cheap REST GetValue p99", p99(quiet), "ms")
        quiet = [sample.took * 1000 for sample in cheap_grpc(server.target, seconds / 3, clients=2)]
        figure("no readers (same run): cheap gRPC GetValue p99", p99(quiet), "ms")
        figure(f"{READERS} silent and then {READERS} slow readers of", 1_000_000, "values each")
        report("silent readers", phase(server.base, server.target, server.pid, slow=False, seconds=seconds))
        report("slow readers", phase(server.base, server.target, server.pid, slow=True, seconds=seconds))


if __name__ == "__main__":
    main()
