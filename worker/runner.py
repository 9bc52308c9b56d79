"""The precompute worker: claims jobs and extends stored sequences with the engine's kernels.

Each step extends the values, then writes the new chunks, the new stored length and the job's progress
in one transaction fenced by the job lease, so a worker killed at any moment leaves a consistent
checkpoint from which another worker resumes once the lease runs out. A background thread renews the
lease; when it is lost or the job is cancelled the worker stops without writing more.

The kernels run in a child process (worker.compute: under the memory cap NIMBASE_WORKER_MEMORY_BYTES,
killed as soon as the job must stop), so no step can outlive its job's bounds: a job past the cap fails,
its error naming the cap.

A job with `max_seconds` (the service's automatic jobs) is bounded in worker time: it ends as 'done'
short of its total once that many seconds of the attempt have passed, its progress (done/total) showing
how far it got and its error holding a note saying how long it ran ("stopped at its time bound of ...");
the values it computed are stored and served. A step is sized by the rate the last one measured so that
it ends before the bound (if even the smallest would not, the job stops there, saying so), and a step
still running KILL_GRACE_SECONDS past the bound is killed, losing only that step. The bound counts per
attempt: a job resumed after its worker died or shut down starts a fresh bound. The first step of an
attempt, which nothing predicts, may run until KILL_GRACE_SECONDS past its start even when the bound is
shorter, so every attempt can make progress.

A kernel whose sequence is one object made whole (`SequenceKernel.length`: a solved game graph, an
endgame table, a Lights Out elimination, stored as words by engine.stored_bytes) makes it before the
first step, its progress recorded in the job as it goes (`JobQueue.progress`, about once a second, in the
kernel's own units); then exactly its words are stored, whatever `upto` the job was given, and no time
bound stops them short. A kernel that checkpoints as it makes it (engine.kind.ChecksPoints) has each
record stored as it comes, under the lease (storage.checkpoints), and a job whose object has stored
records (its last worker was killed part way) resumes from them: a killed worker loses at most the stage
in flight. Records are stored only once a solve has computed NIMBASE_WORKER_CHECKPOINT_SECONDS of
CPU (those of its first seconds then): a short solve, whose records would be deleted with its object a
moment later, writes none. The records are deleted with the write that stores the object whole;
records the kernel cannot use (another version's) are dropped and the object made from the start.

A job of an object made whole that finds it stored whole (an older version's, stored in the packed
form, queued again by a submission: storage.job_needs.plain_job) solves nothing: it stores the chunks not
stored as plain words again as plain words, one at a time, and is done (worker.plain_words).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray

from engine.errors import NimbaseError
from engine.graphs import UploadedGraph
from engine.kind import ChecksPoints, GameKind, SequenceKernel
from engine.periods import Period
from engine.precompute import StoredName, plan_job
from engine.registry import parse_game_id
from engine.stored_bytes import decode_words
from nimbase.settings import DEFAULT_WORKER, WorkerSettings
from storage.checkpoints import CheckpointStore
from storage.errors import CorruptChunk, LeaseLost, StaleWrite, StorageUnavailable
from storage.graphs import GraphStore
from storage.jobs import Job, JobQueue
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceInfo, SequenceStore
from worker.compute import MEMORY_SETTING, Computer, KernelFailed, TimeUp
from worker.plain_words import store_plain

log = logging.getLogger(__name__)

#: How often in a row a job may find its sequence changed under it before it gives up.
MAX_STALE_RETRIES = 5


class JobError(Exception):
    """A job that cannot be run as submitted (recorded as the job's error)."""


class BeyondCap(Exception):
    """A job its kind estimates beyond this worker's memory cap: left queued for a larger worker."""

    def __init__(self, message: str, memory_bytes: int) -> None:
        super().__init__(message)
        self.memory_bytes = memory_bytes


class _Stopped(Exception):
    """The job was interrupted: lease lost, job cancelled or worker shutting down."""


#: Values computed by a job's first step; later steps double up to the worker's step size.
FIRST_STEP = 4096
#: Least seconds between two progress records of a long computation within one step (a solve).
PROGRESS_SECONDS = 1.0
#: Seconds past its time bound (or past its start, for an attempt's first step) a step may run before
#: its process is killed.
KILL_GRACE_SECONDS = 2.0


def default_worker_id() -> str:
    """host:pid:random, unique across machines and restarts, readable in the jobs table."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class _Lease:
    """Renews a job's lease every lease/3 seconds in a daemon thread; `lost` is set once it is gone."""

    def __init__(self, queue: JobQueue, job: Job, worker_id: str, lease_seconds: float) -> None:
        self.lost = threading.Event()
        self._queue = queue
        self._job_id = job.id
        self._worker_id = worker_id
        self._lease_seconds = lease_seconds
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{job.id}", daemon=True)

    def __enter__(self) -> _Lease:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._done.wait(self._lease_seconds / 3):
            try:
                held = self._queue.heartbeat(self._job_id, self._worker_id, self._lease_seconds)
            except StorageUnavailable as exc:
                log.warning("job %d: heartbeat failed: %s", self._job_id, exc)
                continue
            if not held:
                log.info("job %d: lease lost or job cancelled", self._job_id)
                self.lost.set()
                return


class Worker:
    """Claims and runs jobs until told to stop."""

    def __init__(
        self,
        engine: sa.Engine,
        worker_id: str | None = None,
        lease_seconds: float = DEFAULT_WORKER.lease_seconds,
        poll_seconds: float = DEFAULT_WORKER.poll_seconds,
        step_values: int = DEFAULT_WORKER.step,
        memory_bytes: int = DEFAULT_WORKER.memory_bytes,
        checkpoint_seconds: float = DEFAULT_WORKER.checkpoint_seconds,
    ) -> None:
        if (
            lease_seconds <= 0
            or poll_seconds < 0
            or step_values < 1
            or memory_bytes < 0
            or not checkpoint_seconds >= 0
        ):
            raise ValueError(
                f"invalid worker settings: lease_seconds={lease_seconds}, poll_seconds={poll_seconds}, "
                f"step_values={step_values}, memory_bytes={memory_bytes}, "
                f"checkpoint_seconds={checkpoint_seconds}"
            )
        self.worker_id = worker_id or default_worker_id()
        self.lease_seconds = lease_seconds
        self.poll_seconds = poll_seconds
        self.step_values = step_values
        self.queue = JobQueue(engine)
        self.store = SequenceStore(engine)
        self.graphs = GraphStore(engine)
        self.checkpoints = CheckpointStore(engine)
        self.memory_bytes = memory_bytes
        self.checkpoint_seconds = checkpoint_seconds
        self._computer = Computer(memory_bytes)
        self._stop = threading.Event()

    def run_forever(self, stop: threading.Event) -> None:
        """Run jobs until `stop` is set; a job in progress is stopped and put back in the queue."""
        self._stop = stop
        try:
            while not stop.is_set():
                try:
                    worked = self.run_once()
                except StorageUnavailable as exc:
                    log.warning("worker %s: %s", self.worker_id, exc)
                    worked = False
                if not worked:
                    stop.wait(self.poll_seconds)
        finally:
            self.close()

    def run_until_idle(self, stop: threading.Event) -> None:
        """Run jobs until none is left to claim (or `stop` is set)."""
        self._stop = stop
        try:
            while not stop.is_set() and self.run_once():
                pass
        finally:
            self.close()

    def close(self) -> None:
        """Stop the process computing the jobs (one starts again when needed)."""
        self._computer.close()

    def run_once(self) -> bool:
        """Claim and run one job; whether there was one."""
        job = self.queue.claim(self.worker_id, self.lease_seconds, self.memory_bytes)
        if job is None:
            return False
        log.info(
            "worker %s: running job %d (%s %s to %d)", self.worker_id, job.id, job.kind, job.game_id, job.upto
        )
        with _Lease(self.queue, job, self.worker_id, self.lease_seconds) as lease:
            try:
                self._run(job, lease.lost)
            except _Stopped:
                if not lease.lost.is_set() and self._stop.is_set():
                    self.queue.release(job.id, self.worker_id)
                log.info("worker %s: job %d interrupted", self.worker_id, job.id)
            except LeaseLost:
                log.info("worker %s: lost the lease of job %d", self.worker_id, job.id)
            except BeyondCap as exc:
                self.queue.leave_for_larger(job.id, self.worker_id, exc.memory_bytes)
                log.warning("worker %s: %s", self.worker_id, exc)
            except StorageUnavailable as exc:
                # Nothing can be recorded; the lease runs out and another attempt resumes the job.
                log.warning("worker %s: job %d: %s", self.worker_id, job.id, exc)
            except KernelFailed as exc:  # recorded as the kernel's error, as if raised here
                log.warning("worker %s: job %d failed: %s", self.worker_id, job.id, exc)
                self.queue.fail(job.id, self.worker_id, str(exc))
            except Exception as exc:
                log.exception("worker %s: job %d failed", self.worker_id, job.id)
                self.queue.fail(job.id, self.worker_id, f"{type(exc).__name__}: {exc}")
        return True

    # ---- running one job ---------------------------------------------------------------------

    def _check(self, lost: threading.Event) -> None:
        if lost.is_set() or self._stop.is_set():
            raise _Stopped

    def _kernel(self, job: Job) -> tuple[UploadedGraph | None, dict[StoredName, bytes], bool]:
        """Check that the job's game stores its family (JobError otherwise); the graph its game plays on,
        for the computing process (None: not a game on a graph), the stored objects its kernel reads,
        and whether it checkpoints (engine.kind.ChecksPoints)."""
        graph, kind, kernel = self._game_kernel(job)
        self._check_fits(job, kind)
        return graph, self._inputs(job, kernel.needs()), isinstance(kernel, ChecksPoints)

    def _game_kernel(self, job: Job) -> tuple[UploadedGraph | None, GameKind[Any], SequenceKernel]:
        """The graph the job's game plays on (None: not a game on a graph), its kind bound to it, and the
        kernel of the job's family (JobError where the game stores no such family)."""
        kind = parse_game_id(job.game_id)
        graph = None
        if kind.graph_name is not None:  # plays on an uploaded graph: bound to it, as the service does
            graph = self.graphs.load(kind.graph_name)
            if graph is None:
                raise JobError(
                    f"game {job.game_id!r} plays on the graph {kind.graph_name!r}, which is not stored"
                )
            kind = kind.bind_graph(graph)
        kernel = kind.kernel_for(job.family)
        if kernel is None:
            raise JobError(f"game {job.game_id!r} stores no sequence {job.family!r}: nothing to precompute")
        return graph, kind, kernel

    def _check_fits(self, job: Job, kind: GameKind[Any]) -> None:
        """Leave at once a job whose kind estimates its memory beyond this worker's cap (BeyondCap),
        rather than fail it when the cap stops it, maybe hours later: a job whose estimate was not kept
        as it was queued (an older version's), or that was estimated anew since (the claim leaves the
        others to a worker with a larger cap). A kind that gives no estimate of its own runs until the cap
        stops it, keeping what it stored."""
        if not self.memory_bytes:
            return
        try:
            memory = plan_job(kind, job.upto, job.fill, job.family).memory_bytes
        except NimbaseError:
            return
        if memory is not None and memory > self.memory_bytes:  # (none given: the cap decides as it runs)
            raise BeyondCap(
                f"job {job.id} storing {job.game_id} ({job.family}) needs about {memory:,} bytes of memory, "
                f"more than this worker's cap of {self.memory_bytes:,} bytes ({MEMORY_SETTING}): left "
                "queued, with its estimate, for a worker with a larger cap",
                memory,
            )

    def _inputs(self, job: Job, needs: tuple[StoredName, ...]) -> dict[StoredName, bytes]:
        """The stored bytes of every object the job's kernel reads (JobError naming one not stored whole:
        its job stopped short, or was never queued)."""
        inputs: dict[StoredName, bytes] = {}
        for need in needs:
            info = self.store.info(need.game_id, need.family)
            words = self.store.read_prefix(
                need.game_id, need.family, 0 if info is None else info.computed_upto
            )
            try:
                inputs[need] = decode_words(words, f"the stored {need.family!r} of {need.game_id!r}")
            except ValueError as exc:
                raise JobError(
                    f"job {job.id} reads {need.game_id}/{need.family}, not stored whole: {exc}"
                ) from exc
        return inputs

    def _run(self, job: Job, lost: threading.Event) -> None:
        # The time bound counts from the start of this attempt (a resumed job starts a fresh bound).
        started = time.monotonic()
        if job.kind == "extend" and self._found_whole(job, lost):
            return
        graph, inputs, checkpoints = self._kernel(job)

        def load() -> None:
            self._computer.use(job.game_id, job.family, graph, lambda: self._check(lost), inputs, job.upto)

        load()
        if job.kind == "repair":
            # Reading the prefix through the chunk verifies it and recomputes whatever is corrupt.
            if job.chunk_index is None:
                raise JobError(f"repair job {job.id} names no chunk")
            info = self.store.info(job.game_id, job.family)
            stored = 0 if info is None else info.computed_upto
            self._load_prefix(job, min(stored, (job.chunk_index + 1) * CHUNK_VALUES), lost)
            self.queue.finish(job.id, self.worker_id)
            return
        for _ in range(MAX_STALE_RETRIES):
            try:
                self._extend(job, lost, started, load if checkpoints else None)
                return
            except StaleWrite as exc:
                log.info("job %d: %s; reloading", job.id, exc)
        raise JobError(f"job {job.id}: the stored sequence kept changing under it")

    def _found_whole(self, job: Job, lost: threading.Event) -> bool:
        """Finish a job whose object its kernel makes whole and that finds it stored whole (queued after
        its last write: `JobQueue.stored_whole`), with no solve and nothing else read: the chunks an older
        version stored packed are stored again as plain words (worker.plain_words), then the job is done.
        False where there is more to do (nothing or part stored, or statistics to add, which the kernel
        makes as it solves): the job runs as any other."""
        _, _, kernel = self._game_kernel(job)
        if not kernel.makes_whole():
            return False
        if self.queue.stored_whole(StoredName(job.game_id, job.family)) is None:
            return False
        info = self.store.info(job.game_id, job.family)
        if info is None or (kernel.stores_stats and not info.stats_current):
            return False
        store_plain(self.store, job, self.worker_id, lambda: self._check(lost), counted=True)
        self.queue.finish(job.id, self.worker_id)
        return True

    def _extend(
        self, job: Job, lost: threading.Event, started: float, reload: Callable[[], None] | None
    ) -> None:
        """Extend the stored values to job.upto step by step; a job with `max_seconds` ends at its time
        bound (counted from `started`, time.monotonic()) at the checkpoint written last. `reload` loads
        the kernel afresh, for a kernel that checkpoints (None: one that does not)."""
        deadline = None if job.max_seconds is None else started + job.max_seconds
        info = self.store.info(job.game_id, job.family)
        stored = 0 if info is None else info.computed_upto
        period = None if info is None else _certified(info.period)
        if period is not None and not job.fill:
            self.queue.finish(job.id, self.worker_id)
            return

        def check() -> None:
            self._check(lost)

        # An object made whole (a solved graph, an endgame table) is made first, its progress shown as it
        # goes; then exactly its words are stored, whatever `upto` said, and no time bound cuts them short
        # (the costly part is done, and a part of the object would be of no use). Its words are stored
        # plain (storage.packing.encode_plain), so that a reader may take a range of them alone.
        if reload is None:
            length = self._computer.length(self._reporter(job, lost), check, f"making {job.game_id!r} whole")
        else:
            length = self._make_whole(job, lost, reload)
        upto = job.upto if length is None else length
        whole = length is not None
        if whole:
            deadline = None
        if stored >= upto:
            if reload is not None:  # made again for nothing: what it checkpointed is of no use
                self.checkpoints.drop(
                    job_id=job.id, worker_id=self.worker_id, game_id=job.game_id, family=job.family
                )
            # A table stored before its statistics were: they are stored now, and, made whole, its chunks
            # an older version stored packed are stored again as plain words.
            if whole:
                store_plain(self.store, job, self.worker_id, check, counted=False)
            legacy = info is not None and not info.stats_current and _stores_stats(job)
            if legacy and self._store_stats(job, stored, lost, plain=whole):
                return
            self.queue.finish(job.id, self.worker_id)
            return
        # Progress counts the job's own work to the total it was queued with (a whole object's: its
        # kernel's units, the total counted as it started where the plan could not know it).
        total = upto if length is None else self._queued_total(job)
        log.info("job %d: resuming at %d of %d", job.id, stored, upto)
        values = self._load_prefix(job, stored, lost)
        prefix: NDArray[np.uint32] | None = values  # the computing process is given it with the first step
        start = stored
        # The statistics stored for the values so far (engine.kind.SequenceKernel.stats_part) are combined
        # with each new range's; where none are stored for all of them, the first step makes them whole.
        earlier = self._stored_stats(job, stored, info)
        seconds_per_value: float | None = None
        while start < upto:
            self._check(lost)
            # Steps grow with the table (so a period shows after a few thousand values, not after a
            # whole step), and end on chunk boundaries when the step allows, so few partial chunks are
            # rewritten. An object made whole has no period to show and its words are ready: whole steps
            # from the start (growing ones would rewrite its first chunk five times).
            step = self.step_values if length is not None else min(self.step_values, max(FIRST_STEP, start))
            stop = (start // CHUNK_VALUES) * CHUNK_VALUES + step
            if stop <= start:
                stop = start + step
            stop = min(stop, upto)
            now = time.monotonic()
            until = None
            if deadline is not None:
                if prefix is None:  # not the attempt's first step: it must end by the bound
                    if now >= deadline:
                        self._stop_at_bound(job, start, started)
                        return
                    fitted = _fit_step(start, stop, seconds_per_value, deadline - now)
                    if fitted is None:
                        smallest = _predicted(seconds_per_value, start, min(stop, start + FIRST_STEP))
                        self._stop_at_bound(job, start, started, smallest)
                        return
                    stop = fitted
                until = max(deadline, now) + KILL_GRACE_SECONDS
            try:
                new, new_period, stats = self._computer.extend_summarised(
                    stop,
                    check,
                    f"extending {job.game_id!r} (family {job.family!r}) from {start} to {stop} values",
                    prefix=prefix,
                    certify=period is None,
                    until=until,
                    stats=(0, None) if earlier is None else (start, earlier),
                )
            except TimeUp:
                self._stop_at_bound(job, start, started)
                return
            seconds_per_value = (time.monotonic() - now) / (stop - start)
            values = np.concatenate([values, new])
            prefix = None
            new_period = None if period is not None else _certified(new_period)
            finish = stop >= upto or (new_period is not None and not job.fill)
            self._check(lost)
            self.store.write_extension(
                job_id=job.id,
                worker_id=self.worker_id,
                game_id=job.game_id,
                family=job.family,
                start=start,
                values=values,
                period=new_period,
                done=total * min(stop, upto) // upto,
                total=total,
                finish=finish,
                stats=stats,
                plain=whole,
            )
            period = period or new_period
            earlier = stats
            start = stop
            if finish:
                return
            if deadline is not None and time.monotonic() >= deadline:
                self._stop_at_bound(job, stop, started)
                return

    def _stored_stats(self, job: Job, stored: int, info: SequenceInfo | None) -> dict[str, Any] | None:
        """The statistics stored for the job's values 0..stored-1, if they cover them all (else None)."""
        if info is None or not info.stats_current or stored == 0:
            return None
        found = self.store.stats(job.game_id, job.family)
        return None if found is None or found[0] != stored else found[1]

    def _store_stats(self, job: Job, stored: int, lost: threading.Event, *, plain: bool) -> bool:
        """Store the statistics of a table stored before they were (its job finds it whole), made from its
        stored values by the kernel, with the job finished; False where the kernel makes none. `plain`: an
        object made whole, whose partial last chunk, written again, is stored as plain words."""
        values = self._load_prefix(job, stored, lost)
        _, _, stats = self._computer.extend_summarised(
            stored,
            lambda: self._check(lost),
            f"the statistics of {job.game_id!r} (family {job.family!r})",
            prefix=values,
            stats=(0, None),
        )
        if stats is None:
            return False
        self.store.write_extension(
            job_id=job.id,
            worker_id=self.worker_id,
            game_id=job.game_id,
            family=job.family,
            start=stored,
            values=values,
            period=None,
            done=stored,
            total=stored,
            finish=True,
            stats=stats,
            plain=plain,
        )
        log.info(
            "job %d: stored the statistics of %s/%s (%d values)", job.id, job.game_id, job.family, stored
        )
        return True

    def _make_whole(self, job: Job, lost: threading.Event, reload: Callable[[], None]) -> int | None:
        """The length of the object a checkpointing kernel makes whole, each of its records stored as it
        comes; resumed from the records stored (a worker killed part way), or, when the kernel cannot use
        them (KernelFailed: another version's records), made from the start once they are dropped."""

        def check() -> None:
            self._check(lost)

        what = f"making {job.game_id!r} whole"
        count = size = 0

        def stored() -> Iterator[bytes]:  # counted as they go to the computing process
            nonlocal count, size
            for record in self.checkpoints.records(job.game_id, job.family):
                count += 1
                size += len(record)
                yield record

        self._computer.resume(stored(), check, what)
        if count:
            log.info("job %d: resuming from %d checkpoint records (%d bytes)", job.id, count, size)
            try:
                return self._computer.length(
                    self._reporter(job, lost),
                    check,
                    what,
                    checkpoint=self._saver(job, count),
                    hold=self.checkpoint_seconds,
                )
            except KernelFailed as exc:
                log.warning(
                    "job %d: the checkpoint records cannot be resumed from (%s): starting over", job.id, exc
                )
                self.checkpoints.drop(
                    job_id=job.id, worker_id=self.worker_id, game_id=job.game_id, family=job.family
                )
                reload()
        saver, hold = self._saver(job, 0), self.checkpoint_seconds
        return self._computer.length(self._reporter(job, lost), check, what, checkpoint=saver, hold=hold)

    def _saver(self, job: Job, first: int) -> Callable[[bytes], None]:
        """checkpoint(record) storing the kernel's records under the lease as numbers first, first + 1,
        ... (LeaseLost ends the job's attempt). When the database cannot take one, the solve goes on
        without storing the later ones, which would be of no use without it."""
        number = first
        broken = False

        def save(record: bytes) -> None:
            nonlocal number, broken
            if broken:
                return
            try:
                self.checkpoints.append(
                    job_id=job.id,
                    worker_id=self.worker_id,
                    game_id=job.game_id,
                    family=job.family,
                    record=number,
                    data=record,
                )
            except StorageUnavailable as exc:
                log.warning("job %d: checkpoint %d not stored, nor any later one: %s", job.id, number, exc)
                broken = True
                return
            except LeaseLost:  # nor any later one (those the child already sent, handed over as it stops)
                broken = True
                raise
            log.info("job %d: stored checkpoint %d (%d bytes)", job.id, number, len(record))
            number += 1

        return save

    def _queued_total(self, job: Job) -> int:
        """The job's progress total as recorded now (set as it started where it was queued as 0)."""
        try:
            found = self.queue.get(job.id)
        except StorageUnavailable:
            found = None
        return max(1, (found or job).total)

    def _reporter(self, job: Job, lost: threading.Event) -> Callable[[int, int], None]:
        """progress(done, total) for a kernel's long computation, in the units of the job's own total
        (the kernel's scaled to it; a job queued with total 0 takes the kernel's first), so the total
        never changes during the run: recorded in the job at most every PROGRESS_SECONDS (its first
        report at once), and where the job is to stop (lease lost, cancelled, shutting down) it raises
        `_Stopped`, which ends the computation."""
        last = [float("-inf")]
        fixed = [job.total]

        def report(done: int, total: int) -> None:
            self._check(lost)
            if fixed[0] <= 0 < total:
                fixed[0] = total
            now = time.monotonic()
            if now - last[0] < PROGRESS_SECONDS:
                return
            last[0] = now
            done = min(fixed[0], fixed[0] * done // total) if total > 0 else 0
            try:
                if not self.queue.progress(job.id, self.worker_id, done, fixed[0]):
                    lost.set()
            except StorageUnavailable as exc:  # the next checkpoint will tell; the work goes on
                log.warning("job %d: progress not recorded: %s", job.id, exc)
            self._check(lost)

        return report

    def _stop_at_bound(self, job: Job, done: int, started: float, next_step: float | None = None) -> None:
        """End a job that ran out of its time bound (or whose `next_step`, in seconds, would run past it),
        its checkpoint of `done` values written."""
        elapsed = time.monotonic() - started
        note = time_bound_note(job.max_seconds or 0.0, elapsed, done, next_step)
        if self.queue.finish_at_bound(job.id, self.worker_id, note):
            log.info("job %d: %s", job.id, note)
        else:
            log.info("job %d: lost its lease at its time bound", job.id)

    def _load_prefix(self, job: Job, stop: int, lost: threading.Event) -> NDArray[np.uint32]:
        """The verified stored values 0..stop-1, recomputing and rewriting any corrupt chunk."""
        while True:
            self._check(lost)
            try:
                return self.store.read_prefix(job.game_id, job.family, stop)
            except CorruptChunk as exc:
                log.warning("job %d: %s; recomputing it", job.id, exc)
                if job.kind != "repair" or exc.chunk_index != job.chunk_index:
                    self.store.report_corruption(exc.game_id, exc.family, exc.chunk_index, str(exc))
                self._recompute_chunk(job, exc.chunk_index, stop, lost)

    def _recompute_chunk(self, job: Job, index: int, stop: int, lost: threading.Event) -> None:
        lo = index * CHUNK_VALUES
        hi = min(stop, lo + CHUNK_VALUES)
        good = self.store.read_prefix(job.game_id, job.family, lo)  # chunks before are verified
        values, _ = self._computer.extend(
            hi, lambda: self._check(lost), f"recomputing chunk {index} of {job.game_id!r}", prefix=good
        )
        self._rewrite(job, index, values)

    def _rewrite(self, job: Job, index: int, values: NDArray[np.uint32]) -> None:
        self.store.rewrite_chunk(
            job_id=job.id,
            worker_id=self.worker_id,
            game_id=job.game_id,
            family=job.family,
            chunk_index=index,
            values=values,
        )


def worker_from_settings(engine: sa.Engine, settings: WorkerSettings = DEFAULT_WORKER) -> Worker:
    """A Worker configured by `settings` (`Settings.from_env().worker`: NIMBASE_WORKER_LEASE_SECONDS,
    NIMBASE_WORKER_POLL_SECONDS, NIMBASE_WORKER_STEP, NIMBASE_WORKER_ID, NIMBASE_WORKER_MEMORY_BYTES and
    NIMBASE_WORKER_CHECKPOINT_SECONDS), so every entry point agrees."""
    return Worker(
        engine,
        worker_id=settings.id,
        lease_seconds=settings.lease_seconds,
        poll_seconds=settings.poll_seconds,
        step_values=settings.step,
        memory_bytes=settings.memory_bytes,
        checkpoint_seconds=settings.checkpoint_seconds,
    )


def time_bound_note(max_seconds: float, elapsed: float, done: int, next_step: float | None = None) -> str:
    """The note a job that ran out of its time bound records in its error: how long it really ran, and
    with `next_step`, that it stopped short of the bound because its next step would take that long."""
    if next_step is None:
        return f"stopped at its time bound of {max_seconds:g} s after {elapsed:.1f} s, with {done} values"
    return (
        f"stopped after {elapsed:.1f} s, short of its time bound of {max_seconds:g} s, with {done} values: "
        f"its next step would take about {next_step:.2g} s"
    )


def _predicted(seconds_per_value: float | None, start: int, stop: int) -> float | None:
    """Seconds a step from `start` to `stop` values should take, from the last step's rate (scaled as for a
    quadratic kernel, which is conservative for the others); None before any step was measured."""
    if seconds_per_value is None:
        return None
    return seconds_per_value * (stop - start) * stop / max(start, 1)


def _fit_step(start: int, stop: int, seconds_per_value: float | None, left: float) -> int | None:
    """The end of a step from `start`, at most `stop`, predicted to end within `left` seconds (halved down
    to FIRST_STEP values at least); None when even that would not."""
    while True:
        predicted = _predicted(seconds_per_value, start, stop)
        if predicted is None or predicted <= left:
            return stop
        half = (stop - start) // 2
        if half < FIRST_STEP:
            return None
        stop = start + half


def _stores_stats(job: Job) -> bool:
    """Whether the kernel of the job's object makes statistics to store beside it (a game on an uploaded
    graph, unbound here, is counted as making none: its solution is not read again for them)."""
    kernel = parse_game_id(job.game_id).kernel_for(job.family)
    return kernel is not None and kernel.stores_stats


def _certified(period: Period | None) -> Period | None:
    """Only a proved period may be stored and used to answer positions."""
    return period if period is not None and period.certified else None
