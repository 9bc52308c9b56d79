"""Shape statistics (GetStats): rank, nullity, distance counts and diameter, live or by a stats job."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    LimitExceeded,
    NotApplicable,
)
from engine.kind import Context
from engine.stored_bytes import BytesKernel
from engine.values import Source
from kinds.lights_out.chebyshev_f2 import plane_nullity
from kinds.lights_out.kernels.gf2 import (
    ChaseElimination,
)
from kinds.lights_out.kernels.stats import (
    MAX_TYPE_NULLITY,
    coset_leader_counts,
    type_walk_work,
)
from kinds.lights_out.shape import MAX_BOARD_SIDE, Shape
from kinds.lights_out.solver import MAX_CHASE_BITS, chase_plan, eliminate_shape
from kinds.lights_out.stored import (
    ELIMINATION,
    STATS,
    EliminationKernel,
    ShapeStats,
    solver_of,
    stats_bytes,
    stats_from_bytes,
    stats_record,
    stored_stats,
)

I64 = NDArray[np.int64]


#: Shape statistics: distance counts listed for shapes of at most this many cells (the list has one
#: entry per distance, each up to 2^cells), and at most this much work for them (`type_walk_work`
#: operations: about 0.4 s at the walk rate bench.bench_lights_out prints).
STATS_DISTANCE_CELLS = 1024
STATS_WORK = 2**27
#: The most a stats job's walk may do, in `type_walk_work`'s operations (2^k per step, and the counts'
#: modular products and sums; steps x 2^k alone varied 30-fold in speed between shapes, these 3-fold).
#: Measured on a 2-core machine: 1.6e8 to 4.4e8 operations a second for k = 2 to 8 (lights-out:5x11,
#: 39x49:torus and 4x14 the slowest), 0.9e8 with the cores shared by about eight busy processes. 2^37
#: (1.4e11) then takes at most 26 minutes (14 at 1.6e8): a job stays well within the hour, with room
#: for the elimination and the counts' reconstruction.
STATS_JOB_WORK = 2**37
#: A stats job lists the distance counts of shapes of at most this many cells (their text is about
#: 0.2 cells^2 bytes, 3.5 MB here, and each count has fewer than the 4,300 digits Python turns into
#: text by default); past it, it stores rank, nullity and the diameter.
STATS_JOB_CELLS = 4096
#: Whole numbers JSON and gRPC's Struct (doubles) hold exactly: GetStats gives larger ones as text.
EXACT_JSON_BITS = 53


class StatsKernel(BytesKernel):
    """What a worker runs for the family "stats" of a shape: rank, nullity, diameter and distance counts
    within the job's limits (`ShapeStatistics.job_stats`, with the walk's progress), as `stats_bytes`."""

    family = STATS

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        return stats_bytes(self.shape, ShapeStatistics(self.shape).job_stats(progress=progress))


class EliminationStatsKernel(EliminationKernel):
    """The family "elimination" of a shape (`EliminationKernel`), with the statistics GetStats would make
    of it stored beside it: rank, nullity, and the distance counts and diameter within the live limits
    (with the `note` saying why where they are absent), as `stats_bytes` writes them."""

    stores_stats = True

    def summarise(self, elimination: ChaseElimination) -> dict[str, Any] | None:
        statistics = ShapeStatistics(self.shape)
        stats = statistics.elimination_stats(elimination, STATS_DISTANCE_CELLS, STATS_WORK)
        body: dict[str, Any] = json.loads(stats_bytes(self.shape, stats))
        if stats["distance_counts"] is None:
            body["note"] = statistics.counts_note(elimination, stats["diameter"] is not None)
        return body


class ShapeStatistics:
    """The statistics of one shape: GetStats' answer (`stats`), and what a stats job stores (`job_stats`)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.game_id = shape.game_id

    def stats(self, ctx: Context) -> dict[str, object]:
        """GetStats: rank, nullity, solvable_boards, distance_counts, diameter, and `method` (how rank
        and nullity were found: "elimination" or "polynomial") with its `source`. Numbers past 2^53 (what
        JSON numbers and gRPC's Struct hold exactly) are given as text: `solvable_boards` as "2^rank",
        each distance count in decimal.

        The statistics a stats job stored come first (`source` "table", with whatever counts and
        diameter it stored, past the live limits); else they are made now, the counts and diameter
        within the live limits, and where the counts are absent a `note` says why and whether a stats
        job would store them."""
        ctx.tables.may_compute()
        if self.by_polynomial():
            return self.stats_answer(self.shape_stats(), "formula")
        stored = stored_stats(self.shape, ctx)
        if stored is not None:
            return self.stats_answer(stored, "table")
        beside = self.stored_beside(ctx)
        if beside is not None:
            return beside
        elimination, source = self.live_elimination(ctx)
        stats = self.elimination_stats(elimination, STATS_DISTANCE_CELLS, STATS_WORK)
        answer = self.stats_answer(stats, source)
        if stats["distance_counts"] is None:
            answer["note"] = self.counts_note(elimination, stats["diameter"] is not None)
        return answer

    def stored_beside(self, ctx: Context) -> dict[str, object] | None:
        """GetStats from the statistics stored beside the shape's stored elimination by its job
        (`EliminationStatsKernel`): what the live answer from that elimination is, without it; None where
        none are stored (or they are another shape's or layout's)."""
        beside = ctx.tables.stored_stats(self.game_id, ELIMINATION)
        if beside is None:
            return None
        try:
            stats = stats_from_bytes(self.shape, json.dumps(beside).encode())
        except ValueError:
            return None
        answer = self.stats_answer(stats, "table")
        answer.pop("note", None)
        if isinstance(beside.get("note"), str):
            answer["note"] = beside["note"]
        return answer

    def live_elimination(self, ctx: Context) -> tuple[ChaseElimination, Source]:
        """The elimination live statistics come from, and where it came from: the shape's kept one (the
        stored one, if there is one: `solver_of`) where its boards are valued, else one made now."""
        if self.valued():
            kept = solver_of(self.shape, ctx)
            return kept.value.elimination, kept.source
        return self.made_elimination(), "live"

    def stats_answer(self, stats: ShapeStats, source: Source) -> dict[str, object]:
        """The GetStats answer of `stats` (large numbers as text), a stored job's or made now."""
        rank = stats["rank"]
        counts = stats["distance_counts"]
        answer: dict[str, object] = {
            "game": self.game_id,
            "rank": rank,
            "nullity": stats["nullity"],
            "solvable_boards": (1 << rank) if rank <= EXACT_JSON_BITS else f"2^{rank}",
            "distance_counts": None
            if counts is None
            else [c if c <= 1 << EXACT_JSON_BITS else str(c) for c in counts],
            "diameter": stats["diameter"],
            "method": stats["method"],
            "source": source,
        }
        if counts is None and source == "table":
            answer["note"] = f"distance counts are listed for shapes of at most {STATS_JOB_CELLS} cells"
        return answer

    def counts_note(self, elimination: ChaseElimination, diameter_known: bool) -> str:
        """Why a live answer lists no distance counts, and what a stats job would store instead."""
        try:
            counts_listed = self.stats_job_work(elimination)
        except LimitExceeded as refusal:
            return f"distance counts are beyond the live limits, and {refusal}"
        job = f'a worker job of the family "{STATS}" computes and stores'
        if counts_listed:
            return (
                f"distance counts are listed live for shapes of at most {STATS_DISTANCE_CELLS} cells whose "
                f"walk is within {STATS_WORK:,} operations; {job} them"
            )
        diameter = "" if diameter_known else f"; {job} the diameter"
        return f"distance counts are listed for shapes of at most {STATS_JOB_CELLS} cells{diameter}"

    def shape_stats(
        self, *, distance_cells: int = STATS_DISTANCE_CELLS, max_work: int = STATS_WORK
    ) -> ShapeStats:
        """GetStats' statistics: rank, nullity (the solvable boards are 2^rank), distance_counts (boards
        at each fewest-press distance from 0, or None where not computed) and diameter (the largest
        distance, or None), plus `method` ('elimination' or 'polynomial')."""
        s = self.shape
        if self.by_polynomial():
            nullity = plane_nullity(s.rows, s.cols)
            # every board has one solution when the nullity is 0: pressing every cell is the farthest
            return stats_record(
                s.cells - nullity, nullity, None, s.cells if nullity == 0 else None, "polynomial"
            )
        return self.elimination_stats(self.made_elimination(), distance_cells, max_work)

    def elimination_stats(
        self, elimination: ChaseElimination, distance_cells: int, max_work: int
    ) -> ShapeStats:
        """The statistics from the elimination: the walk for the counts (shapes of at most
        `distance_cells` cells) and the diameter where the walk is within `max_work` operations
        (`type_walk_work`: the live walk cannot be stopped, so its bound must hold for its true cost)."""
        n = self.shape.cells
        counts: list[int] | None = None
        diameter: int | None = None
        basis = elimination.null_basis
        counts_wanted = n <= distance_cells
        if type_walk_work(basis, n, counts_wanted=counts_wanted) <= max_work:
            counts, diameter = coset_leader_counts(basis, n, counts_wanted=counts_wanted)
        return stats_record(n - elimination.nullity, elimination.nullity, counts, diameter, "elimination")

    def job_stats(
        self,
        *,
        max_work: int = STATS_JOB_WORK,
        count_cells: int = STATS_JOB_CELLS,
        progress: Callable[[int, int], None] | None = None,
    ) -> ShapeStats:
        """What a stats job stores: rank, nullity, the diameter and (shapes of at most `count_cells`
        cells) the distance counts, whatever the live limits, with the walk's progress. NotApplicable
        for plane boards past 256 x 256 (rank and nullity by the polynomial method only), LimitExceeded
        where the walk would exceed `max_work` (`type_walk_work`) or the elimination the live one's
        limits. The elimination is made for the job (a worker keeps none)."""
        self.refuse_polynomial()
        elimination = self.made_elimination()
        counts_listed = self.stats_job_work(elimination, max_work, count_cells)
        n = self.shape.cells
        counts, diameter = coset_leader_counts(
            elimination.null_basis, n, counts_wanted=counts_listed, progress=progress
        )
        return stats_record(n - elimination.nullity, elimination.nullity, counts, diameter, "elimination")

    def stats_job_work(
        self,
        elimination: ChaseElimination,
        max_work: int = STATS_JOB_WORK,
        count_cells: int = STATS_JOB_CELLS,
    ) -> bool:
        """Whether a stats job lists the distance counts (the shape has at most `count_cells` cells);
        LimitExceeded, quoting the shape, where its walk exceeds `max_work`."""
        n = self.shape.cells
        k = elimination.nullity
        if k > MAX_TYPE_NULLITY:
            raise LimitExceeded(
                f"the walk for the statistics of {self.game_id} is beyond a stats job: its null space has "
                f"dimension {k}, past the {MAX_TYPE_NULLITY} the walk handles"
            )
        counts_listed = n <= count_cells
        work = type_walk_work(elimination.null_basis, n, counts_wanted=counts_listed)
        if work > max_work:
            raise LimitExceeded(
                f"the walk for the statistics of {self.game_id} (nullity {k}) is beyond a stats job: about "
                f"2^{work.bit_length() - 1} operations, more than the {max_work:,} a stats job does"
            )
        return counts_listed

    def by_polynomial(self) -> bool:
        """Whether rank and nullity come from the polynomial method (plane boards past 256 x 256)."""
        s = self.shape
        return s.graph is None and s.topology == "plane" and max(s.rows, s.cols) > MAX_BOARD_SIDE

    def refuse_polynomial(self) -> None:
        if self.by_polynomial():
            raise NotApplicable(
                f"{self.game_id}: rank and nullity of plane boards past {MAX_BOARD_SIDE} x {MAX_BOARD_SIDE} "
                "come from the polynomial method only; it gives no null space for a stats job to walk"
            )

    def made_elimination(self) -> ChaseElimination:
        """The shape's elimination, made now for the caller (not kept); for grids past the boards valued
        live, where cells x 2 min(R, C), what its chase may need, is within MAX_CHASE_BITS."""
        if not self.valued():
            self.check_stats_elimination()
        return eliminate_shape(self.shape)

    def valued(self) -> bool:
        """Whether the shape's boards are valued (graphs, grids up to 256 x 256): it keeps its elimination."""
        s = self.shape
        return s.graph is not None or max(s.rows, s.cols) <= MAX_BOARD_SIDE

    def check_stats_elimination(self) -> None:
        """LimitExceeded, quoting the shape, where the elimination `made_elimination` makes would be
        refused, found without eliminating: a chase too wide (`chase_plan`), or for grids past the
        boards valued live, cells x 2 min(R, C) past MAX_CHASE_BITS."""
        s = self.shape
        if self.valued():
            chase_plan(s)
            return
        if s.cells * 2 * min(s.rows, s.cols) > MAX_CHASE_BITS:
            raise LimitExceeded(
                f"the rank of {s.game_id} needs an elimination too large to run live (cells x "
                f"2 min(R, C) at most {MAX_CHASE_BITS}); plane boards of any size have it by the "
                "polynomial method"
            )


def nullity_by_polynomial(n: int, cols: int | None = None) -> int:
    """Nullity of the n x n (or n x cols) plane board by the polynomial method
    (kinds.lights_out.chebyshev_f2)."""
    return plane_nullity(n, cols)
