"""A serving process freezes its start-up objects out of the garbage collector (nimbase.collector)."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from nimbase.collector import freeze_startup, pause_for_startup, resume
from nimbase.settings import Settings
from service import warm_up


def test_start_up_objects_leave_the_collections_and_garbage_before_them_is_collected() -> None:
    class Cycle:
        other: object

    before = gc.get_freeze_count()
    garbage = Cycle()
    garbage.other = garbage  # a cycle only a collection frees
    kept = [Cycle() for _ in range(1000)]
    gone = weakref.ref(garbage)
    del garbage
    try:
        frozen = freeze_startup()
        assert frozen >= before + len(kept)
        walked = {id(o) for o in gc.get_objects()}
        ours = {id(o) for o in kept}
        assert not walked & ours  # frozen: no longer walked by a collection
        assert gone() is None, "a cycle left by the start-up was frozen instead of collected"
    finally:
        gc.unfreeze()


def test_what_the_servers_warm_up_made_is_frozen_before_it_says_done(monkeypatch: pytest.MonkeyPatch) -> None:
    # Frozen only at start-up, before the warm-up ran, its objects (tens of thousands: kernels loaded,
    # tables read ahead) were walked by the first full collections after ready, under the first requests.
    made: list[object] = []

    def warming(*_args: object, **_kwargs: object) -> int:
        made.extend([i] for i in range(1000))  # lists: objects the collector walks
        return 0

    monkeypatch.setattr(warm_up, "warm_up", warming)
    try:
        done = warm_up.WarmUp(Settings()).start()
        assert done.wait(60)
        assert done.reason() is None
        walked = {id(o) for o in gc.get_objects()}
        assert len(made) == 1000
        assert not walked & {id(o) for o in made}
    finally:
        gc.unfreeze()


@pytest.fixture
def paused() -> Iterator[None]:
    """The collector off as a process's entry leaves it (nimbase.collector.pause_for_startup); on again
    and nothing frozen after the test, whatever it did."""
    pause_for_startup()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_paused_start_up_is_not_collected_until_it_is_frozen(paused: None) -> None:
    assert not gc.isenabled()
    freeze_startup()
    assert gc.isenabled()


def test_a_brief_process_resumes_the_collector_with_its_start_up_frozen_uncollected(paused: None) -> None:
    class Cycle:
        other: object

    left = Cycle()
    left.other = left
    kept = weakref.ref(left)
    del left
    resume()
    assert gc.isenabled()
    assert kept() is not None  # frozen as it was: no collection walked everything once more
    assert id(kept()) not in {id(o) for o in gc.get_objects()}


@pytest.mark.parametrize(
    "args",
    [
        ("value", "nim", "3", "5", "7"),  # the service built here: resumed once it is
        ("value", "nim", "3", "5", "7", "--server", "127.0.0.1:1"),  # a client: resumed at once
        ("jobs",),  # builds nothing: resumed before it runs (here it stops at the missing database)
    ],
)
def test_every_command_turns_the_collector_on_again(
    paused: None, args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nimbase` pauses the collector first (cli.entry); whatever the command, it is on again by the time
    the command answers."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("NIMBASE_SERVER", raising=False)
    monkeypatch.setenv("NIMBASE_VAR_DIR", str(tmp_path))
    from cli.main import main

    main(list(args))
    assert gc.isenabled()


#: In a fresh interpreter (a process has one fork server, whose preload the first user names: one started
#: here would lack the live processes' template for the tests after this one).
FORKED_CHILD = """
import gc
from nimbase import fork_server

def state(conn):
    conn.send((gc.isenabled(), gc.get_freeze_count()))

if __name__ == "__main__":
    forking = fork_server.context(["json"])
    mine, theirs = forking.Pipe()
    child = forking.Process(target=state, args=(theirs,))
    child.start()
    print(*mine.recv())
    child.join()
"""


def test_a_child_of_the_fork_server_runs_with_the_collector_on_and_its_start_up_frozen(
    tmp_path: Path,
) -> None:
    """The fork server imports its preload with the collector off (nimbase.fork_server): its children,
    which inherit its state, must find it on, and what the preload made frozen."""
    script = tmp_path / "forked_child.py"
    script.write_text(FORKED_CHILD)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    enabled, frozen = done.stdout.split()
    assert enabled == "True" and int(frozen) > 0


def test_the_live_processes_template_compiles_with_the_collector_on(
    paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork server imports the template with the collector off; its warm-up compiles every kernel on
    a fresh machine, and one compiling them all grew to 2.7 GB with it off (1.4 GB with it on)."""
    seen: list[bool] = []

    def asking(*_args: object) -> tuple[int, list[tuple[str, str]]]:
        seen.append(gc.isenabled())
        return 0, []

    monkeypatch.setattr(warm_up, "_ask", asking)
    warm_up.warm_up_template(Settings())
    assert seen == [True]
