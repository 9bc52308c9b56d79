"""A job's computation in a child process, where it can be stopped at any moment and held to a memory cap.

A thread cannot be stopped, and a kernel's step (numba or numpy) checks nothing while it runs: one step of
an automatic job ran 218 s past the job's time bound while its worker grew to 8 GB. So the worker runs
its kernels in a child process (one per worker, kept from job to job, started again once killed) whose
address space is capped (RLIMIT_AS, NIMBASE_WORKER_MEMORY_BYTES), and waits for each answer only until a
time it chooses: past it, or as soon as the job must stop (lease lost, job cancelled, worker shutting
down), the child is killed. The child never writes to the database (the worker writes every checkpoint),
so killing it loses the step in flight and nothing else; and it exits when its worker's end of the pipe
closes, so a killed worker leaves no computation behind. It ignores the signals that stop its worker
(a terminal's Ctrl-C reaches the whole process group): the worker stops it and puts the job back in the
queue, and a child that died of a signal the worker received too is not the job's failure. A failure
names how the child died (its signal or exit code), and the memory cap only when it was seen near it.

A kernel that checkpoints while it makes its object whole (engine.kind.ChecksPoints) has each record
forwarded to the worker as it is made, and is given back the records of a stopped run (`resume`) before
`length`. Records can be tens of megabytes: they cross the pipe as raw bytes, never pickled, each after a
small header. Given a `hold` (NIMBASE_WORKER_CHECKPOINT_SECONDS), the child holds the records of a
computation's first `hold` seconds of CPU and sends them all once it has computed that long: one that ends
sooner (most do: a four-man chess solve takes a second) sends none, so it costs no pipe or database
writes for records deleted as soon as its object is stored, and a killed worker loses at most that much
computing besides the stage in flight. CPU, not wall time: the child runs at a low priority, and on a
busy machine a short solve takes many times its CPU time. A record the child sent is read even when the
child dies just after sending it, and when the job must stop the worker first takes the records already
sent, so none the child finished is lost.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.graphs import UploadedGraph
from engine.kind import ChecksPoints, SequenceKernel
from engine.periods import Period
from engine.precompute import StoredName
from nimbase import fork_server
from nimbase.settings import variable_name

#: How much lower than a normal process's the child's scheduling priority is: jobs are batch work, and
#: on a machine that also serves, the service's answers (and its live computations, at 10) come first.
NICENESS = 15
#: Longest wait for the child between two checks of whether the job must stop (seconds).
POLL_SECONDS = 0.1
#: Least seconds between two progress messages of the child (the first is sent at once).
CHILD_PROGRESS_SECONDS = 0.1
#: Modules the fork server imports once, so each child starts with them loaded.
PRELOAD = ["worker.compute", "engine.registry"]
#: The setting that caps the child's memory, as messages name it.
MEMORY_SETTING = variable_name(("worker", "memory_bytes"))
#: A child that died with its address space within this fraction of its cap died of its memory: only then
#: does the job's error name the cap.
NEAR_CAP = 0.9
#: How long a worker whose child died of a signal (or whose fork server did) waits for a stop of its own
#: before it takes the death for the job's failure: a terminal's Ctrl-C, or SIGTERM to the process group,
#: reaches the child and the worker at once, and the worker's handler runs only at its next bytecode.
STOP_GRACE_SECONDS = 0.5
#: Signals the child ignores: they stop the worker, which then stops its child (the job goes back to the
#: queue), rather than kill the computation under it and pass for the job's failure.
WORKER_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class ComputeError(Exception):
    """The computation failed: the kernel raised (its error as `Type: message`), or the child died."""


class KernelFailed(ComputeError):
    """The kernel raised: its error as `Type: message`, as if it had been raised in the worker."""


class MemoryCapExceeded(ComputeError):
    """The computation needed more memory than the worker's cap (the message names the cap and setting)."""


class TimeUp(Exception):
    """No answer came by the time given: the child was killed."""


class Computer:
    """A worker's child process computing its jobs' kernels, started when first needed.

    Every call takes `check`, called about every POLL_SECONDS while it waits: whatever it raises (the job
    must stop) kills the child and is raised again. A call given `until` (time.monotonic()) kills the
    child at that time and raises TimeUp. Past its memory cap the call raises MemoryCapExceeded (the
    child is replaced); a kernel's error is raised as KernelFailed, and a child that died as ComputeError.
    """

    def __init__(self, memory_bytes: int) -> None:
        if memory_bytes < 0:
            raise ValueError(f"memory_bytes must be >= 0, got {memory_bytes}")
        self.memory_bytes = memory_bytes
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        #: The largest address space the child was seen to map during the current call.
        self._seen = 0

    def use(
        self,
        game_id: str,
        family: str,
        graph: UploadedGraph | None,
        check: Callable[[], None],
        inputs: Mapping[StoredName, bytes] | None = None,
        upto: int | None = None,
    ) -> None:
        """Make the kernel of (game_id, family) the child's (bound to `graph` for a game on one, given the
        stored objects it reads and the job's `upto`, `SequenceKernel.aim`), with no values computed yet."""
        message = ("kernel", game_id, family, graph, dict(inputs or {}), upto)
        self._call(message, check, None, None, f"loading {game_id!r}")

    def resume(self, records: Iterable[bytes], check: Callable[[], None], what: str) -> None:
        """Have the child's kernel (engine.kind.ChecksPoints) go on from `records`, in order, when it next
        makes its object whole (KernelFailed for a kernel that does not checkpoint). Each record is sent
        as it comes (from the database, a few rows at a time), so the worker never holds them all."""
        self._call(("resume",), check, None, None, what, payloads=records)

    def length(
        self,
        progress: Callable[[int, int], None],
        check: Callable[[], None],
        what: str,
        checkpoint: Callable[[bytes], None] | None = None,
        hold: float = 0.0,
    ) -> int | None:
        """The kernel's `length` (an object made whole: a solve, its progress reported as it goes); with
        `checkpoint`, a kernel that checkpoints (engine.kind.ChecksPoints) has each record handed to it,
        in order, as the child makes it, once the computation has used `hold` seconds of CPU (the
        records of its first `hold` seconds then, all at once; none when it ends before)."""
        if hold < 0:
            raise ValueError(f"hold must be >= 0 seconds, got {hold}")
        message = ("length", checkpoint is not None, hold)
        found: int | None = self._call(message, check, None, progress, what, checkpoint=checkpoint)
        return found

    def extend(
        self,
        stop: int,
        check: Callable[[], None],
        what: str,
        *,
        prefix: NDArray[np.uint32] | None = None,
        certify: bool = False,
        until: float | None = None,
    ) -> tuple[NDArray[np.uint32], Period | None]:
        """The values from the child's current length (or from `prefix`, which it then holds) to `stop`,
        and with `certify` the period the values so far certify (None: none)."""
        values, period, _ = self.extend_summarised(
            stop, check, what, prefix=prefix, certify=certify, until=until
        )
        return values, period

    def extend_summarised(
        self,
        stop: int,
        check: Callable[[], None],
        what: str,
        *,
        prefix: NDArray[np.uint32] | None = None,
        certify: bool = False,
        until: float | None = None,
        stats: tuple[int, Mapping[str, Any] | None] | None = None,
    ) -> tuple[NDArray[np.uint32], Period | None, dict[str, Any] | None]:
        """`extend`, and with `stats` = (since, earlier) the kernel's statistics of every value so far
        (engine.kind.SequenceKernel.stats_part): those of the values from `since` on, combined with
        `earlier` (those of the values before `since`; None when `since` is 0); None where the kernel
        makes none now."""
        message = ("extend", prefix, stop, certify, stats)
        values, period, found = self._call(message, check, until, None, what)
        return values, period, found

    def close(self) -> None:
        """Stop the child (a new one starts when next needed)."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.kill()
            process.join()

    def _start(self) -> Connection:
        if self._conn is not None:
            return self._conn
        context = fork_server.context(PRELOAD)
        pipe: tuple[Connection, Connection] = context.Pipe()
        mine, theirs = pipe
        process = context.Process(
            target=serve, args=(theirs, self.memory_bytes), name="nimbase-compute", daemon=True
        )
        process.start()
        theirs.close()
        self._process, self._conn = process, mine
        return mine

    def _call(
        self,
        message: tuple[Any, ...],
        check: Callable[[], None],
        until: float | None,
        progress: Callable[[int, int], None] | None,
        what: str,
        *,
        payloads: Iterable[bytes] = (),
        checkpoint: Callable[[bytes], None] | None = None,
    ) -> Any:
        self._seen = 0
        try:
            conn = self._start()
            try:
                conn.send(message)
                for payload in payloads:  # records: each after a header, then the end
                    conn.send(("record",))
                    conn.send_bytes(payload)
                if message[0] == "resume":
                    conn.send(("end",))
            except (OSError, ValueError):
                raise self._died(what, check) from None
            while True:
                check()
                now = time.monotonic()
                if until is not None and now >= until:
                    self.close()
                    raise TimeUp(what)
                if not conn.poll(POLL_SECONDS if until is None else min(POLL_SECONDS, until - now)):
                    process = self._process
                    if process is not None:
                        self._seen = max(self._seen, address_space(process.pid))
                        if not process.is_alive():
                            raise self._died(what, check)
                    continue
                try:
                    answer = conn.recv()
                except (EOFError, OSError):
                    raise self._died(what, check) from None
                kind = answer[0]
                if kind == "progress":
                    if progress is not None:
                        progress(answer[1], answer[2])
                elif kind == "checkpoint":
                    record = self._record(conn, what)
                    if checkpoint is not None:
                        checkpoint(record)
                elif kind == "done":
                    return answer[1]
                elif kind == "memory":
                    self.close()  # a fresh child: the old one may be left fragmented
                    raise MemoryCapExceeded(
                        f"{what} needed more memory than the worker's cap of {self.memory_bytes} bytes "
                        f"({MEMORY_SETTING})"
                    )
                else:
                    raise KernelFailed(answer[1])
        except (ComputeError, TimeUp):
            raise
        except BaseException:  # the job must stop (or the worker failed): nothing may go on computing
            self._take_sent(checkpoint)
            self.close()
            raise

    @staticmethod
    def _record(conn: Connection, what: str) -> bytes:
        """The bytes of the record whose header was just read (a child that died part way through sending
        it: ComputeError, and no cut record is given on)."""
        try:
            return conn.recv_bytes()
        except (EOFError, OSError):
            raise ComputeError(f"{what}: the process computing it died sending a checkpoint") from None

    def _take_sent(self, checkpoint: Callable[[bytes], None] | None) -> None:
        """Before the child is killed (the job must stop), hand `checkpoint` the records it already sent:
        they stay of use to whoever resumes the job (the worker shutting down still holds its lease)."""
        conn = self._conn
        if checkpoint is None or conn is None:
            return
        try:
            while conn.poll(0):
                answer = conn.recv()
                if answer[0] == "checkpoint":
                    checkpoint(conn.recv_bytes())
                elif answer[0] != "progress":
                    return
        except Exception:  # the lease is gone, the child too: what is left cannot be kept
            return

    def _died(self, what: str, check: Callable[[], None]) -> ComputeError:
        """The error of a child that died, naming how: its signal or exit code, and the memory cap only
        when it was seen near it. A child killed by a signal the worker received too (its process group's
        Ctrl-C or SIGTERM) is no failure: `check` then raises the worker's stop, which is raised instead."""
        process = self._process
        if process is not None:
            process.join(1.0)  # it closed its pipe: give it a moment to be gone, for its exit code
        code = None if process is None else process.exitcode
        check()  # (what it raises takes the records the child sent, then closes it)
        if code is None or code < 0 or code == FORK_SERVER_GONE:
            until = time.monotonic() + STOP_GRACE_SECONDS
            while time.monotonic() < until:
                time.sleep(POLL_SECONDS / 5)
                check()
        self.close()
        return ComputeError(f"{what}: the process computing it {self._how(code)}")

    def _how(self, code: int | None) -> str:
        if code is None:
            how = "stopped answering"
        elif code < 0:
            how = f"was killed by signal {-code} ({_signal_name(-code)})"
        elif code == FORK_SERVER_GONE:
            how = f"was lost with the fork server that started it (exit code {code})"
        else:
            how = f"exited ({code})"
        if self.memory_bytes and self._seen >= NEAR_CAP * self.memory_bytes:
            how += f", near its memory cap of {self.memory_bytes} bytes ({MEMORY_SETTING})"
        return how


#: The exit code multiprocessing gives a fork server's child once the fork server is gone (its status
#: can no longer be read): the child itself may well have been sound.
FORK_SERVER_GONE = 255


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def address_space(pid: int | None) -> int:
    """Bytes of address space a process maps (VmSize), as its RLIMIT_AS counts them; 0 once it is gone
    (or where /proc is not)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


# ---- the child --------------------------------------------------------------------------------------


def serve(conn: Connection, memory_bytes: int) -> None:
    """The child: answer the worker's messages until its end of the pipe closes."""
    for signum in WORKER_SIGNALS:  # the worker decides when its computation stops
        signal.signal(signum, signal.SIG_IGN)
    os.nice(NICENESS)
    inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()

    def read() -> None:
        try:
            while True:
                message = conn.recv()
                if message[0] == "resume":  # its records follow as raw bytes, each after a header
                    records = []
                    while conn.recv() == ("record",):
                        records.append(conn.recv_bytes())
                    message = ("resume", records)
                inbox.put(message)
        except (EOFError, OSError):
            pass
        os._exit(0)  # the worker is gone (or closed the pipe): nobody waits for the rest

    threading.Thread(target=read, name="compute-inbox", daemon=True).start()
    cap_memory(memory_bytes)
    state = _State()
    while True:
        message = inbox.get()
        try:
            conn.send(("done", state.handle(message, conn)))
        except MemoryError:
            state.reset()
            conn.send(("memory",))
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def cap_memory(memory_bytes: int) -> None:
    """Cap this process's address space at `memory_bytes` (0: no cap), where the platform can."""
    if memory_bytes <= 0 or sys.platform == "win32":
        return
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class _State:
    """The child's kernel and the values it has computed."""

    def __init__(self) -> None:
        self.kernel: SequenceKernel | None = None
        self.values: NDArray[np.uint32] = np.zeros(0, dtype=np.uint32)

    def reset(self) -> None:
        self.kernel = None
        self.values = np.zeros(0, dtype=np.uint32)

    def handle(self, message: tuple[Any, ...], conn: Connection) -> Any:
        kind = message[0]
        if kind == "kernel":
            self.reset()
            self.kernel = _kernel(message[1], message[2], message[3])
            self.kernel.give(message[4])
            if message[5] is not None:
                self.kernel.aim(message[5])
            self.kernel.load()  # compiled here, before a step's time bound counts
            return None
        kernel = self.kernel
        if kernel is None:
            raise RuntimeError("no kernel loaded")
        if kind == "resume":
            if not isinstance(kernel, ChecksPoints):
                raise TypeError(f"{type(kernel).__name__} makes no checkpoints to resume from")
            kernel.resume(message[1])
            return None
        if kind == "length":
            if not (message[1] and isinstance(kernel, ChecksPoints)):
                return kernel.length(_reporter(conn))
            kernel.checkpoint = _forwarder(conn, message[2])
            try:
                return kernel.length(_reporter(conn))
            finally:
                kernel.checkpoint = None
        _, prefix, stop, certify, stats = message
        if prefix is not None:
            self.values = prefix
        start = len(self.values)
        self.values = kernel.extend(self.values, stop)
        period = kernel.certify(self.values) if certify else None
        return self.values[start:stop], period, _stats(kernel, self.values[:stop], stats)


def _stats(
    kernel: SequenceKernel, values: NDArray[np.uint32], wanted: tuple[int, Mapping[str, Any] | None] | None
) -> dict[str, Any] | None:
    """The kernel's statistics of `values` (`Computer.extend`'s `stats`), None where it makes none."""
    if wanted is None:
        return None
    since, earlier = wanted
    part = kernel.stats_part(values, since)
    if part is None or earlier is None:
        return part
    return kernel.combine_stats(earlier, part)


def _kernel(game_id: str, family: str, graph: UploadedGraph | None) -> SequenceKernel:
    from engine.registry import parse_game_id

    kind = parse_game_id(game_id)
    if graph is not None:
        kind = kind.bind_graph(graph)
    kernel = kind.kernel_for(family)
    if kernel is None:
        raise RuntimeError(f"game {game_id!r} stores no sequence {family!r}")
    return kernel


def _reporter(conn: Connection) -> Callable[[int, int], None]:
    last = [-CHILD_PROGRESS_SECONDS]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= CHILD_PROGRESS_SECONDS:
            last[0] = now
            conn.send(("progress", done, total))

    return report


def _forwarder(conn: Connection, hold: float) -> Callable[[bytes], None]:
    """checkpoint(record) for the child's kernel: the record to the worker, raw after its header (only
    the kernel's thread sends, so the two messages are never split by another), once the child has used
    `hold` seconds of CPU since the forwarder was made (the records held until then go first, in order)."""
    until = time.process_time() + hold
    held: list[bytes] = []

    def forward(record: bytes) -> None:
        held.append(record)
        if time.process_time() < until:
            return
        while held:
            data = held.pop(0)
            conn.send(("checkpoint", len(data)))
            conn.send_bytes(data)

    return forward
