"""The sequence caches are bounded by bytes, and keyed by (game, family).

Against the test PostgreSQL: `SequenceTables` over a real `SequenceStore`, with tables stored through a
real job lease. Live prefixes of several games are grown under a small byte budget (the cache stays
within it and every answer stays right, checked against the kernels' plain-Python references); an item
larger than the whole budget still answers its request; and two families of one game are cached apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from engine.errors import LimitExceeded
from engine.kind import SequenceKernel, SequenceSource
from engine.periods import Period
from engine.registry import parse_game_id
from kinds.heaps.base import HeapGame
from nimbase.settings import DEFAULT_CACHE, CacheSettings, Limits, Settings
from service.calls import GetValue
from service.core import Nimbase
from service.gate import DatabaseGate
from service.jobs import QueuedWork, Wanted
from service.sequences.tables import SequenceTables
from storage.jobs import JobQueue
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceStore

LIMITS = Limits(live_values=1 << 16)
#: Games whose single-heap values are computed live here: periodic ones (a 1,024-value prefix
#: certifies them) and Grundy's game (no period: its prefix grows to the heap asked for).
GAMES = ("subtraction:1,4", "subtraction:1,3,4", "subtraction:2,5,7", "octal:0.77", "grundy")
#: Heaps asked of each game: well past the 1,024 values of a first live step.
STOP = 2000
#: g(n) of subtraction:1,3,4 is PERIOD_134[n % 7] (period 7 from 0).
PERIOD_134 = np.array([0, 1, 0, 1, 2, 3, 2], dtype=np.uint32)


@cache
def reference(game: str, stop: int = STOP) -> list[int]:
    """g(0..stop-1) by the kernel's plain-Python reference (no numpy, no live growth)."""
    kernel = source(game).kernel()
    assert kernel is not None
    return kernel.reference(stop)


def tables(
    engine: sa.Engine,
    live_bytes: int = DEFAULT_CACHE.live_bytes,
    chunk_bytes: int = DEFAULT_CACHE.chunk_bytes,
) -> SequenceTables:
    return SequenceTables(
        SequenceStore(engine), DatabaseGate(), LIMITS, live_bytes=live_bytes, chunk_bytes=chunk_bytes
    )


def source(game: str) -> SequenceSource:
    kind = parse_game_id(game)
    assert isinstance(kind, HeapGame)
    return kind


def store(engine: sa.Engine, game_id: str, family: str, values: NDArray[np.uint32]) -> None:
    """Store `values` as the table of (game_id, family), through a job lease as a worker would."""
    queue = JobQueue(engine)
    queue.submit(game_id, family, len(values))
    job = queue.claim("memory-bounds-test", lease_seconds=30)
    assert job is not None and (job.game_id, job.family) == (game_id, family)
    SequenceStore(engine).write_extension(
        job_id=job.id,
        worker_id="memory-bounds-test",
        game_id=game_id,
        family=family,
        start=0,
        values=values,
        period=None,
        done=len(values),
        total=len(values),
        finish=True,
    )


def subtraction_remoteness(moves: tuple[int, ...], n: int) -> int:
    """Remoteness of one heap (normal play) by its definition: the winner hurries, the loser delays."""
    grundy: list[int] = []
    remote: list[int] = []
    for h in range(n + 1):
        children = [h - s for s in moves if s <= h]
        seen = {grundy[c] for c in children}
        grundy.append(next(g for g in range(len(children) + 1) if g not in seen))
        to_p = [remote[c] for c in children if grundy[c] == 0]
        remote.append(0 if not children else 1 + (min(to_p) if to_p else max(remote[c] for c in children)))
    return remote[n]


# ---- (a) a small budget holds -------------------------------------------------------------------


def test_live_prefixes_of_many_games_stay_within_a_small_budget(clean_db: sa.Engine) -> None:
    """Five games grown live need more than 16 KiB in all (four 4 KiB prefixes and Grundy's 8 KB): the
    cache evicts to stay within it, and every answer, evicted or not, is the reference's."""
    budget = 16 << 10
    sequences = tables(clean_db, live_bytes=budget)
    for _ in range(2):  # the second round asks again for what was evicted
        for game in GAMES:
            values, _ = sequences.values(source(game), 0, STOP)
            assert values.tolist() == reference(game), game
            assert 0 < sequences.cached_bytes()["live"] <= budget
    assert sequences.value(source("subtraction:1,3,4"), 10**12) == (int(PERIOD_134[10**12 % 7]), "period")
    assert sequences.value(source("subtraction:1,3,4"), 1234)[0] == reference("subtraction:1,3,4")[1234]


def test_a_cached_prefix_is_weighed_again_with_its_remoteness(clean_db: sa.Engine) -> None:
    """Remoteness (8 bytes a value) computed over a cached prefix (4 bytes a value) counts in its size."""
    sequences = tables(clean_db)
    game = source("subtraction:1,3,4")
    assert sequences.value(game, 100) == (reference("subtraction:1,3,4")[100], "live")
    prefix = sequences.cached_bytes()["live"]
    assert prefix > 0 and prefix % 4 == 0
    assert sequences.remoteness(game, 100, None) == subtraction_remoteness((1, 3, 4), 100)
    assert sequences.cached_bytes()["live"] == prefix * 3


def test_stored_chunks_stay_within_their_budget(clean_db: sa.Engine) -> None:
    """Three stored chunks read through a cache of one and a bit: each read answers from the table."""
    values = PERIOD_134[np.arange(2 * CHUNK_VALUES + 5) % 7]
    store(clean_db, "subtraction:1,3,4", "heap", values)
    budget = CHUNK_VALUES * 4 + 1000
    sequences = tables(clean_db, chunk_bytes=budget)
    game = source("subtraction:1,3,4")
    for _ in range(2):
        got, used = sequences.values(game, 0, len(values))
        assert used == "table" and np.array_equal(got, values)
        assert 0 < sequences.cached_bytes()["chunks"] <= budget
    ns = np.array([3 * CHUNK_VALUES // 2, 7, 2 * CHUNK_VALUES + 4, CHUNK_VALUES], dtype=np.int64)
    assert sequences.lookup_array(game, ns).tolist() == PERIOD_134[ns % 7].tolist()


# ---- (b) one item larger than its whole budget --------------------------------------------------


def test_a_live_prefix_larger_than_the_budget_still_answers(clean_db: sa.Engine) -> None:
    """A budget below one first live step (1,024 values, 4 KiB): the prefixes that exceed it answer
    their requests and are not kept (only a few short ones fit), and nothing is missed."""
    budget = 1000
    sequences = tables(clean_db, live_bytes=budget)
    for game in ("grundy", "subtraction:2,5,7"):
        values, _ = sequences.values(source(game), 0, STOP)
        assert values.tolist() == reference(game)
        assert sequences.cached_bytes()["live"] <= budget
        found = sequences.lookup_many(source(game), [5, 1999, 1000])
        assert set(found) == {5, 1999, 1000}
        for n, answer in found.items():
            assert not isinstance(answer, Exception) and answer[0] == reference(game)[n]
    assert sequences.value(source("subtraction:2,5,7"), 10**15)[1] == "period"
    assert sequences.remoteness(source("subtraction:2,5,7"), 1000, None) == subtraction_remoteness(
        (2, 5, 7), 1000
    )
    assert sequences.cached_bytes()["live"] <= budget


def test_a_chunk_larger_than_the_budget_still_answers(clean_db: sa.Engine) -> None:
    values = PERIOD_134[np.arange(CHUNK_VALUES + 10) % 7]
    store(clean_db, "subtraction:1,3,4", "heap", values)
    sequences = tables(clean_db, chunk_bytes=1000)
    got, used = sequences.values(source("subtraction:1,3,4"), CHUNK_VALUES - 5, CHUNK_VALUES + 10)
    assert used == "table" and np.array_equal(got, values[CHUNK_VALUES - 5 :])
    assert sequences.value(source("subtraction:1,3,4"), 100) == (int(PERIOD_134[100 % 7]), "table")
    assert sequences.cached_bytes()["chunks"] <= 1000


def test_the_service_takes_its_budgets_from_the_settings(clean_db: sa.Engine) -> None:
    service = Nimbase(Settings(limits=LIMITS, cache=CacheSettings(live_bytes=1000)), clean_db)
    assert service.get_value(GetValue("grundy", "1999")).grundy == reference("grundy")[1999]
    assert service.tables.cached_bytes()["live"] == 0


# ---- (c) families of one game are sequences of their own ------------------------------------------


class ResidueKernel(SequenceKernel):
    """v(n) = n mod k: a different sequence for each family `f_k`, never certified (always grown)."""

    certifies = False

    def __init__(self, k: int) -> None:
        self.k = k
        self.family = f"f_{k}"

    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        out = (np.arange(stop) % self.k).astype(np.uint32)
        assert np.array_equal(out[: len(prefix)], prefix[:stop])
        return out

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        return None

    def reference(self, stop: int) -> list[int]:
        return [n % self.k for n in range(stop)]


@dataclass(frozen=True)
class ResidueFamily:
    """One family `f_k` of a toy game with several one-parameter families (a SequenceSource)."""

    game_id: str
    k: int
    live_limit: int | None = 500

    @property
    def family(self) -> str:
        return f"f_{self.k}"

    def formula_value(self, n: int) -> int | None:
        return None

    def formula_period(self) -> Period | None:
        return None

    def kernel(self) -> SequenceKernel:
        return ResidueKernel(self.k)


TOY = "bicolor-toy"


def test_two_families_of_one_game_are_cached_apart(clean_db: sa.Engine) -> None:
    queued: list[tuple[str, str]] = []

    def queue_work(game_id: str, family: str, wanted: Wanted) -> QueuedWork | None:
        queued.append((game_id, family))
        return None

    sequences = SequenceTables(SequenceStore(clean_db), DatabaseGate(), LIMITS, queue_work=queue_work)
    three, five = ResidueFamily(TOY, 3), ResidueFamily(TOY, 5)
    for _ in range(2):  # live, then from each family's own cached prefix
        for family in (three, five):
            values, used = sequences.values(family, 0, 400)
            assert used == "live" and values.tolist() == family.kernel().reference(400)
    assert sequences.value(three, 399) == (0, "live") and sequences.value(five, 399) == (4, "live")
    assert sequences.cached_bytes()["live"] == 2 * 400 * 4

    # Past the live limit each family names itself, and queues work for itself.
    with pytest.raises(LimitExceeded, match=r"value 600 of family 'f_5' of 'bicolor-toy' is beyond"):
        sequences.value(five, 600)
    assert queued == [(TOY, "f_5")]

    # A table stored for one family answers that family only; forgetting the game re-reads every family.
    store(clean_db, TOY, "f_3", np.array(three.kernel().reference(1000), dtype=np.uint32))
    sequences.forget(TOY)
    assert sequences.value(three, 900) == (0, "table") and sequences.stored_size(TOY, "f_3") == 1000
    assert sequences.value(five, 450) == (0, "live") and sequences.stored_size(TOY, "f_5") == 0
    assert sequences.stored_size(TOY, "heap") == 0
    store(clean_db, TOY, "f_5", np.array(five.kernel().reference(700), dtype=np.uint32))
    sequences.forget(TOY)
    assert sequences.value(five, 650) == (0, "table")
    assert sequences.lookup_array(three, np.array([999, 1], dtype=np.int64)).tolist() == [0, 1]


def test_heap_games_are_the_heap_family() -> None:
    for game in (*GAMES, "nim"):
        assert source(game).family == "heap"
