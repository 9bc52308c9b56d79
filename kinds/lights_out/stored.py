"""What Lights Out stores through a worker's job: a shape's elimination, and its statistics."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray

from engine.keep import Kept
from engine.kind import Context
from engine.stored_bytes import BytesKernel, decode_words, encode_words, read_stored
from engine.stored_bytes import words_for as stored_words_for
from kinds.lights_out.kernels.gf2 import (
    ChaseElimination,
    words_for,
)
from kinds.lights_out.settings import ELIMINATIONS, STATISTICS
from kinds.lights_out.shape import FAMILY, Shape
from kinds.lights_out.solver import ShapeSolver, eliminate_shape, solver_bytes

I64 = NDArray[np.int64]


#: The stored family holding a shape's elimination (a worker's job), as uint32 words.
ELIMINATION = "elimination"
#: The stored family holding a shape's statistics (a worker's job): JSON (`stats_bytes`) as uint32 words.
STATS = "stats"
#: Layout of the stored statistics (read back only when it matches).
STATS_VERSION = 1

# -- the stored elimination (a worker's job) ---------------------------------------------------------


def elimination_bytes(elimination: ChaseElimination) -> bytes:
    """The elimination's arrays in numpy's .npz form (no pickles)."""
    buffer = io.BytesIO()
    np.savez(buffer, **elimination.to_arrays())  # type: ignore[arg-type]
    return buffer.getvalue()


def encode_elimination(elimination: ChaseElimination) -> NDArray[np.uint32]:
    """The elimination as uint32 words for the sequence storage (engine.stored_bytes: its byte count,
    then its .npz bytes)."""
    return encode_words(elimination_bytes(elimination))


#: Bytes `elimination_words_bound` allows for the .npz's headers: 1 KiB for each of (at most) 16 arrays
#: (`ChaseElimination.to_arrays` has 10; each takes a .npy header of about 128 bytes and zip entries of
#: about 200).
_NPZ_HEADER_BYTES = 16 * 1024


def elimination_words_bound(cells: int, entries: int, k: int) -> int:
    """At most how many words `encode_elimination` takes for a shape of `cells` cells whose flip sets
    hold `entries` cells in all and whose chase leaves `k` free unknowns (`chase_plan`; the nullity is
    at most k): the arrays of `ChaseElimination.to_arrays` (int64 or packed uint64: the flip sets, the
    order, definitions and unknowns, the k x k residual elimination, the null basis) and their headers.
    What a job's plan counts, without eliminating."""
    int64s = (cells + 1) + entries + 2 * cells + k + 2 + k
    packed = 2 * k * words_for(k) + k * words_for(cells)
    return stored_words_for(8 * (int64s + packed) + _NPZ_HEADER_BYTES)


def decode_elimination(words: NDArray[np.uint32]) -> dict[str, NDArray[np.generic]]:
    """The arrays `encode_elimination` stored (ValueError when they are not there whole)."""
    return _elimination_arrays(decode_words(words, "a stored elimination"))


def _elimination_arrays(data: bytes) -> dict[str, NDArray[np.generic]]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as stored_arrays:
            return {name: stored_arrays[name] for name in stored_arrays.files}
    except (OSError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"a stored elimination does not read: {error}") from error


class EliminationKernel(BytesKernel):
    """What a worker runs for the family "elimination" of a shape: the shape's elimination, encoded
    (`encode_elimination`); the whole of it is made at the first step and kept for the next ones."""

    family = ELIMINATION

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape
        self._stats: dict[str, Any] | None = None

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        elimination = eliminate_shape(self.shape)
        self._stats = self.summarise(elimination)
        return elimination_bytes(elimination)

    def summarise(self, elimination: ChaseElimination) -> dict[str, Any] | None:
        """The shape's statistics to store beside its elimination (JSON), made from it; None: none."""
        return None

    def object_stats(self) -> dict[str, Any] | None:
        return self._stats


def load_stored(shape: Shape, ctx: Context) -> ShapeSolver | None:
    """The shape's stored elimination as a solver, if the tables hold one that reads. One that does not
    read (damaged, another version's) is left aside: the shape is eliminated live."""
    return read_stored(
        shape.game_id,
        ELIMINATION,
        ctx,
        "a stored elimination",
        lambda data: ShapeSolver(shape, ChaseElimination.from_arrays(_elimination_arrays(data))),
    )


# -- the stored statistics (a worker's job) ----------------------------------------------------------


def stats_bytes(shape: Shape, stats: ShapeStats) -> bytes:
    """What a stats job stores: JSON naming the shape (and a graph's digest: an upload of another graph
    under the name does not read it), with the distance counts as decimal text (they pass 2^64)."""
    counts = stats["distance_counts"]
    body = {
        "version": STATS_VERSION,
        "game": shape.game_id,
        "digest": None if shape.graph is None else shape.graph.digest,
        "rank": stats["rank"],
        "nullity": stats["nullity"],
        "diameter": stats["diameter"],
        "distance_counts": None if counts is None else [str(c) for c in counts],
    }
    return json.dumps(body, separators=(",", ":")).encode()


def stats_from_bytes(shape: Shape, data: bytes) -> ShapeStats:
    """The statistics `stats_bytes` stored for `shape`; ValueError when they are another layout's or
    shape's, or do not add up (rank + nullity = cells, the counts summing to 2^rank)."""
    body = json.loads(data)
    if not isinstance(body, dict) or body.get("version") != STATS_VERSION:
        raise ValueError("stored statistics of another layout")
    digest = None if shape.graph is None else shape.graph.digest
    if body.get("game") != shape.game_id or body.get("digest") != digest:
        raise ValueError(f"stored statistics of another shape than {shape.game_id}")
    rank, nullity, diameter = body.get("rank"), body.get("nullity"), body.get("diameter")
    texts = body.get("distance_counts")
    if type(rank) is not int or type(nullity) is not int or rank < 0 or nullity < 0:
        raise ValueError("stored statistics without a rank and a nullity")
    if rank + nullity != shape.cells:
        raise ValueError(f"stored rank {rank} and nullity {nullity} do not add up to {shape.cells} cells")
    if diameter is not None and type(diameter) is not int:
        raise ValueError("stored statistics with a diameter that is not a whole number")
    counts: list[int] | None = None
    if texts is not None:
        if not isinstance(texts, list) or not all(
            isinstance(t, str) and t.isascii() and t.isdigit() for t in texts
        ):
            raise ValueError("stored distance counts are not decimal text")
        counts = [int(t) for t in texts]
        if sum(counts) != 1 << rank or diameter != len(counts) - 1:
            raise ValueError("stored distance counts do not add up to the solvable boards and diameter")
    return stats_record(rank, nullity, counts, diameter, "elimination")


def load_stored_stats(shape: Shape, ctx: Context) -> ShapeStats | None:
    """The statistics a stats job stored for the shape, if the tables hold them whole and they read
    (others, damaged or another version's, are left aside: the statistics are made live)."""
    return read_stored(
        shape.game_id, STATS, ctx, "stored statistics", lambda data: stats_from_bytes(shape, data)
    )


def stats_record(
    rank: int, nullity: int, counts: list[int] | None, diameter: int | None, method: str
) -> ShapeStats:
    return {
        "rank": rank,
        "nullity": nullity,
        "distance_counts": counts,
        "diameter": diameter,
        "method": method,
    }


def stats_words_bound(cells: int, rank: int, counts_listed: bool) -> int:
    """At most how many words a shape's stored statistics take (what a stats job's plan counts): each
    count has at most the digits of 2^rank."""
    size = 512
    if counts_listed:
        size += (cells + 1) * (rank * 30103 // 100_000 + 4)
    return stored_words_for(size)


class ShapeStats(TypedDict):
    """GetStats of a shape (None: not known, left out of the answer; `solvable_boards`, 2^rank, is
    derived where the answer is made: `LightsOut._stats_answer`)."""

    rank: int
    nullity: int
    #: Boards at each fewest-press distance from 0 (exact, possibly past 2^64), or None.
    distance_counts: list[int] | None
    #: The largest distance (seed 002, exercise 3.1), or None.
    diameter: int | None
    #: "elimination" or "polynomial".
    method: str


def solver_of(shape: Shape, ctx: Context) -> Kept[ShapeSolver]:
    """The shape's solver, with where its elimination came from (`ELIMINATIONS`): kept, else
    the stored one (`ctx.tables`, looked for again every STORED_RECHECK_SECONDS while the kept one was
    made live), else eliminated now. The work leaves the event loop first (the elimination, the walk)."""
    ctx.tables.may_compute()
    kept = ctx.kept.keeper(ELIMINATIONS).get(
        (FAMILY, shape),
        ctx.deadline,
        what=f"eliminating {shape.game_id}",
        read=lambda: load_stored(shape, ctx),
        make=lambda: ShapeSolver(shape, eliminate_shape(shape)),
        weigh=solver_bytes,
    )
    ctx.deadline.check(lambda: f"eliminating {shape.game_id}")
    return kept


def stored_stats(shape: Shape, ctx: Context) -> ShapeStats | None:
    """The statistics a stats job stored for the shape (`STATISTICS`: kept once read), if
    the tables hold them whole and they read (others, damaged or another version's, are left aside: the
    statistics are made live)."""
    kept = ctx.kept.keeper(STATISTICS).stored(
        (STATS, shape), lambda: load_stored_stats(shape, ctx), stats_weight
    )
    return None if kept is None else kept.value


def stats_weight(stats: ShapeStats) -> int:
    """What kept statistics weigh: their counts as text, and the record (1 KiB)."""
    counts = stats["distance_counts"] or []
    return 1024 + sum(c.bit_length() // 3 + 64 for c in counts)
