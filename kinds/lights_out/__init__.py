"""Lights Out (seed 002, "le jeu reversi"): pressing a cell flips it and its neighbours; the goal is the
all-white board.

Boards and presses are vectors of F2^n (n cells; 1 = black); press j adds its flip set N[j] (the cell
and its neighbours, each once however many sides they share), so a board b is solved by the presses x
with A x = b, A the press matrix (column j = N[j]; A is symmetric). Solutions form a coset x0 + N of
the null space N; the fewest presses (`remoteness`) is the least weight in it.

Shapes:
- `lights-out:RxC[:TOPOLOGY]`, R rows and C columns, 1 to 100,000 each (positions: up to 256 x 256).
  Sides are glued as in seed 002 section 4.1, (left-right, top-bottom): plane (free, free), cylinder
  (kept, free), moebius (reversed, free), torus (kept, kept), klein (kept, reversed), projective
  (reversed, reversed). Kept: (r, 1) is next to (r, C), and (1, c) to (R, c); reversed: (r, 1) is
  next to (R + 1 - r, C), and (1, c) to (R, C + 1 - c). The 3 x 3 flip sets are the seed's T, K, P.
- `lights-out:graph:NAME`, an uploaded undirected graph (up to 100,000 vertices; edges naming unknown
  vertices, self-loops and duplicate vertex names are refused, an edge given twice counts once).

Positions: rows of 0/1 joined by `/` (`000/011/011`), top row first; for graphs one 0/1 per vertex in
the graph's vertex order. That text is also the canonical form.

Presses are named by their cell, rows and columns numbered from 1 as in the seed: `RC` (two digits,
e.g. `12` for row 1, column 2) on boards of at most 9 rows and 9 columns, `r,c` (e.g. `12,3`) on
larger ones; `parse_press` also reads `r,c` on small boards. On graphs a press is its vertex's name.

The elimination of a shape (kinds.lights_out.kernels.gf2.chase_eliminate) is done once per shape and kept (the
service's keeper, `settings.ELIMINATIONS`, which storage can fill: `stored.solver_of`): its cells
are chased in the order that needs the fewest free unknowns (row or column order for the plane, rows or
columns folded in pairs (1, R), (2, R - 1), ... where the gluing joins far rows or columns,
breadth-first for graphs), which leaves a k x k system, k <= 2 min(R, C). Solving a board is then two
O(cells) chases and a k x k product. The fewest presses is a Gray-code walk over the null space
(2^nullity steps, on the cells some null vector presses) where it fits `SEARCH_NULLITY` and
`SEARCH_WORK`; past them the answer is a solution lightened greedily, `remoteness` absent and `searched`
false, with a `note` saying so. The same walk gives every press's remoteness for BestMove
(`press_values`).

Shape statistics (GetStats) come from the elimination (rank, nullity, and the distance counts by
kinds.lights_out.kernels.stats), made for the purpose and not kept for grids past 256 x 256 while
cells x 2 min(R, C) fits `MAX_CHASE_BITS`; plane boards past 256 x 256 use the polynomial method
(kinds.lights_out.chebyshev_f2): rank and nullity for any side up to 100,000. Live, the distance counts
are listed for shapes of at most `STATS_DISTANCE_CELLS` cells and, with the diameter, within
`STATS_WORK`; past that a `note` says so. A worker job of the family "stats" (`StatsKernel`,
`LightsOut.job_stats`) goes much further: the walk within `STATS_JOB_WORK` (about half an hour of
work; the counts listed up to `STATS_JOB_CELLS` cells), stored as JSON (`stats_bytes`), which GetStats
reads first (`source: "table"`). Plane boards past 256 x 256 have no null space to walk: refused.

`LightsOut` is the shapes' GameKind: answers carry no outcome but `solvable`, `solution` (press names)
and `remoteness` (the fewest presses, or absent with a `note`); BestMove lists presses; IsPPosition does
not apply (FAILED_PRECONDITION). `lights-out:graph:NAME` parses to a `NeedsGraph` that the service binds
to the uploaded graph (`LightsOut.for_uploaded`, edges read as undirected). A worker job stores a
shape's elimination as the family "elimination" (the default; `plan_job`, `EliminationKernel`: numpy's
.npz bytes of `ChaseElimination.to_arrays` as uint32 words, engine.stored_bytes), which the kind reads
through `ctx.tables` before eliminating live, and again every `STORED_RECHECK_SECONDS` (`StoredLook`)
while the one it keeps was made live (a job may have stored one since); answers from a stored one say
`source: "table"`, others `"live"`. The family "stats" stores the shape's statistics (above).

Modules: `shape` (shapes, graphs, flip sets), `boards` (game ids and boards as text), `solver` (the
elimination and what solving boards needs of it), `stored` (what a job stores: eliminations, statistics),
`stats` (GetStats and the stats job), `kind` (`LightsOut`, the GameKind), `settings` (the budgets of
what it keeps).
"""

from kinds.lights_out.kind import ENTRY, LightsOut
from kinds.lights_out.settings import SETTINGS

__all__ = ["ENTRY", "SETTINGS", "LightsOut"]
