"""The service's calls declared once (service.calls): each request type names a method that `Calls`
declares and `Nimbase` answers itself, so no call falls through to `answer` and back."""

from __future__ import annotations

import inspect
import pickle

from service import calls
from service.calls import Admin, Call, Calls, GetValue, SubmitJob, Timed
from service.core import Nimbase

REQUESTS = [
    kind
    for kind in vars(calls).values()
    if inspect.isclass(kind) and issubclass(kind, Call) and kind not in (Call, Timed, Admin)
]


def test_every_request_names_a_method_of_calls_that_nimbase_answers_itself() -> None:
    assert len(REQUESTS) == 19
    for kind in REQUESTS:
        assert kind.method in vars(Calls), kind
        assert kind.method in vars(Nimbase), kind


def test_a_request_travels_whole_and_takes_another_deadline() -> None:
    asked = GetValue("nim", "3 5", deadline=12.5)
    assert pickle.loads(pickle.dumps(asked.until(None))) == GetValue("nim", "3 5")
    assert asked.until(3.0).deadline == 3.0 and asked.deadline == 12.5


def test_a_token_is_never_shown() -> None:
    assert "s3cret" not in repr(SubmitJob("nim", 10, token="s3cret"))
