"""Answers through the live processes' pipe (service.isolation): a batch whose slots hold errors that
pickle cannot rebuild by itself (`Pending` takes its job too) arrives whole (issue 23: the soak's
StreamBatches of a game past its stored table answered INTERNAL, and the pool lost the process)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from engine.errors import InvalidPosition
from service.jobs import JobView, Pending
from service.live_child import pack_answer, unpack_answer

JOB = JobView(7, "octal:0.6", "heap", 1 << 22, False, "queued", 0, 1 << 22, None, "2024-01-01", None, None)


def test_a_batch_with_pending_slots_crosses_the_pipe() -> None:
    answer = [3, Pending("computing 'octal:0.6' would take long", JOB), InvalidPosition("bad 'x'")]
    with pytest.raises(TypeError):  # what the pipe did before: the whole answer lost
        pickle.loads(pickle.dumps(answer))
    back = unpack_answer(pickle.loads(pickle.dumps(pack_answer(answer))))
    assert isinstance(back, list) and back[0] == 3
    assert type(back[1]) is Pending and back[1].job == JOB and str(back[1]) == str(answer[1])
    assert type(back[2]) is InvalidPosition and str(back[2]) == "bad 'x'"


def test_other_answers_are_sent_as_they_are() -> None:
    for answer in ([1, 2, 3], {"a": 1}, "text", None):
        assert pack_answer(answer) is answer and unpack_answer(answer) is answer


def test_a_live_process_imports_only_the_standard_library_before_it_lowers_its_priority() -> None:
    """A spawned process imports its target's module at the server's priority: service.live_child must
    not bring the game kinds, numba or the service with it (about 1.5 s of CPU a process replaced)."""
    code = "import sys, service.live_child; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    heavy = {"engine", "numpy", "numba", "nimbase", "pydantic", "sqlalchemy", "storage", "grpc"}
    assert {name.partition(".")[0] for name in loaded.split()} & heavy == set()
    assert {name for name in loaded.split() if name.startswith("service.")} == {"service.live_child"}
