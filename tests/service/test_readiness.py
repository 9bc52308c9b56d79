"""service.readiness: the conditions a process waits for, and `nimbase run`'s word on its worker carried
to the server processes it spawns (shared memory, read at every /readyz)."""

from __future__ import annotations

import multiprocessing
import time

from service.readiness import NOTE_BYTES, Readiness, SharedNote


def test_reasons_are_the_conditions_not_met_in_order() -> None:
    readiness = Readiness()
    assert readiness.reasons() == []
    worker: list[str | None] = ["its worker is starting"]
    readiness.require("kernels", lambda: "compiling")
    readiness.require("worker", lambda: worker[0])
    assert readiness.reasons() == ["compiling", "its worker is starting"]
    readiness.require("kernels", lambda: None)  # replaced by name
    worker[0] = None
    assert readiness.reasons() == []


def _read_until(note: SharedNote, expected: str | None, answers: multiprocessing.Queue[str]) -> None:
    deadline = time.monotonic() + 60
    while note.read() != expected and time.monotonic() < deadline:
        time.sleep(0.01)
    answers.put(repr(note.read()))


def test_a_spawned_process_reads_what_its_parent_writes() -> None:
    context = multiprocessing.get_context("spawn")
    note = SharedNote(context, "its worker is starting")
    assert note.read() == "its worker is starting"
    answers: multiprocessing.Queue[str] = context.Queue()
    child = context.Process(target=_read_until, args=(note, "its worker (pid 7) exited", answers))
    child.start()
    note.write("its worker (pid 7) exited")
    assert answers.get(timeout=120) == repr("its worker (pid 7) exited")
    child.join(30)
    note.write(None)
    assert note.read() is None
    note.write("x" * (2 * NOTE_BYTES))
    assert note.read() == "x" * (NOTE_BYTES - 1)
