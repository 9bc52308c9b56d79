"""What a live process sends back besides its answer (service.learned): the last entry of each key, within
its byte bound, and nothing at all where the entries do not pickle; kept by the server's caches only where
they add to what those hold."""

from __future__ import annotations

import threading

import numpy as np

from engine.periods import Period
from nimbase.settings import Limits
from service import learned
from service.memo import Memo
from service.sequences.live import Live, LiveSequences
from service.sequences.modes import Modes


def recorded(*entries: learned.Entry) -> list[learned.Entry]:
    journal = learned.Journal()
    journal.record(learned.MEMO, "before", 1)  # not recording: nothing kept
    with journal.recording() as gained:
        for entry in entries:
            journal.record(*entry)
    journal.record(learned.MEMO, "after", 2)
    return gained


def test_the_last_entry_of_each_key_is_sent_within_the_bound() -> None:
    small = Live(np.arange(10, dtype=np.uint32), None, 0)
    grown = Live(np.arange(20, dtype=np.uint32), None, 0)
    huge = Live(np.zeros(learned.MAX_BYTES // 4 + 1, dtype=np.uint32), None, 0)
    gained = recorded(
        (learned.LIVE, ("a", "heap"), small),
        (learned.LIVE, ("a", "heap"), grown),
        (learned.LIVE, ("b", "heap"), huge),
        (learned.MEMO, ("solve", "nim", (1, 3, 5, 7)), 16),
    )
    assert len(gained) == 4
    packed = learned.pack(gained)
    assert packed is not None
    sent = learned.unpack(packed)
    assert [(cache, key) for cache, key, _ in sent] == [
        (learned.LIVE, ("a", "heap")),
        (learned.MEMO, ("solve", "nim", (1, 3, 5, 7))),
    ]
    assert len(sent[0][2].values) == 20  # type: ignore[attr-defined]


def test_entries_that_do_not_pickle_are_not_sent() -> None:
    assert learned.pack([]) is None
    assert learned.pack(recorded((learned.MEMO, "lock", threading.Lock()))) is None


def test_a_prefix_is_adopted_only_where_it_knows_at_least_as_much() -> None:
    live = LiveSequences(Limits(), Modes())

    class Source:
        game_id, family, live_limit = "g", "heap", None

    period = Period(preperiod=0, period=2, saltus=0, certified=True)
    longer = Live(np.arange(100, dtype=np.uint32), None, 100)
    live.adopt(("g", "heap"), longer)
    assert live.cached(Source()) is longer  # type: ignore[arg-type]
    live.adopt(("g", "heap"), Live(np.arange(50, dtype=np.uint32), period, 50))
    assert live.cached(Source()) is longer  # type: ignore[arg-type]
    certified = Live(np.arange(100, dtype=np.uint32), period, 100)
    live.adopt(("g", "heap"), certified)
    assert live.cached(Source()) is certified  # type: ignore[arg-type]


def test_a_memo_entry_is_adopted_unless_one_is_kept() -> None:
    memo = Memo(1 << 20, lambda: None)
    memo.adopt("k", 1)
    memo.adopt("k", 2)
    assert memo.peek("k") == 1
    assert memo.get_or_compute("k", lambda: 3) == 1
