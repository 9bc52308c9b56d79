"""Answers through the live processes' pipe (service.isolation): a batch whose slots hold errors that
pickle cannot rebuild by itself (`Pending` takes its job too) arrives whole (issue 23: the soak's
StreamBatches of a game past its stored table answered INTERNAL, and the pool lost the process)."""

from __future__ import annotations

import pickle

import pytest

from engine.errors import InvalidPosition
from service.isolation import pack_answer, unpack_answer
from service.jobs import JobView, Pending

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
