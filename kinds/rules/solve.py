"""Solving one tier of a game defined by its rules, given the solved tiers its moves lead to.

1. The tier's positions (`Rules.tier_positions`, or the numba scan of every code) and their moves are
   expanded into a graph: a move to a position of the tier is an edge, a move to a solved later tier is
   an external move with a known value, a move anywhere else breaks the rules (RulesError naming the
   position and the move: a tier going the wrong way, a move to an illegal code).
2. Win/loss games: the retrograde kernel (engine.kernels.retrograde.solve_reverse) finds wins and losses
   with their remoteness, external moves applied at their level and finished ties counted as draws (a
   tie is no win for either side). Every other position is drawn; among them, those from which a tie can
   be reached through drawn positions are ties, with 1 + the least remoteness of the ties their moves
   reach (a breadth-first pass from the finished ties, in order of remoteness); the rest are endless
   draws (no remoteness). Cycles are allowed.
3. Score games (acyclic: RulesError naming the tier otherwise): positions in topological order, each
   worth the best of gain + (the margin of the position reached, negated when the turn passes); the
   remoteness is 1 + the least among the moves reaching that margin.

Numba rules (`Rules.kernels`) are expanded by compiled loops calling the rules' own kernels; plain rules
by Python calls. Both then share the same compiled solve.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numba
import numpy as np

from engine.kernels.retrograde import ExternalMoves, reverse_csr, solve_reverse, topological_order
from kinds.rules.exits import count_exit, no_exits, store_exits
from kinds.rules.fused import direct, expander, not_over, scanner
from kinds.rules.tables import DRAW, I8, I32, I64, LOSS, TIE, WIN, TierTable
from nimbase_rules import NOT_OVER, Rules, RulesError

Progress = Callable[[int, int], None]

#: Win/loss tiers of plain rules of at most this many positions are solved by the plain reference
#: (`_solve_wl_plain`): a small game (tic-tac-toe) is then solved without loading a compiled kernel, which
#: alone costs a fresh process about a second (numba rules have loaded theirs: they take the kernels).
PLAIN_POSITIONS = 4096


# -- the tier's positions and moves ---------------------------------------------------------------------


#: Moves the expansion buffers at once (16 bytes each) before it counts them in a pass of its own.
ONE_PASS_MOVES = 1 << 24


@numba.njit(nogil=True)  # takes the rules' functions, which cannot be cached on disk: compiled per process
def _expand(codes: I64, max_moves: int, moves, canonical, end):  # type: ignore[no-untyped-def]
    n = codes.shape[0]
    to = np.empty(max_moves, np.int64)
    info = np.empty(max_moves, np.int64)
    indptr = np.zeros(n + 1, np.int64)
    ends = np.full(n, NOT_OVER, np.int64)
    if n * max_moves <= ONE_PASS_MOVES:  # one call of the rules a position, the arrays cut to size
        child = np.empty(n * max_moves, np.int64)
        flags = np.empty(n * max_moves, np.int64)
        for i in range(n):
            k = moves(codes[i], to, info)
            if k == 0:
                ends[i] = end(codes[i])
            for j in range(k):
                child[indptr[i] + j] = canonical(to[j])
                flags[indptr[i] + j] = info[j]
            indptr[i + 1] = indptr[i] + k
        return indptr, child[: indptr[n]].copy(), flags[: indptr[n]].copy(), ends
    for i in range(n):
        indptr[i + 1] = indptr[i] + moves(codes[i], to, info)
    child = np.empty(indptr[n], np.int64)
    flags = np.empty(indptr[n], np.int64)
    for i in range(n):
        k = moves(codes[i], to, info)
        if k == 0:
            ends[i] = end(codes[i])
        for j in range(k):
            child[indptr[i] + j] = canonical(to[j])
            flags[indptr[i] + j] = info[j]
    return indptr, child, flags, ends


#: The last tiers' positions enumerated, by (rules class, game id, tier): a tier's job enumerates its own
#: tier and the tier its moves lead to, which the job before (that tier's) has just enumerated.
_RECENT: OrderedDict[tuple[type, str, int], I64] = OrderedDict()
RECENT_TIERS = 2
_RECENT_LOCK = threading.Lock()


def positions(rules: Rules, tier: int) -> I64:
    """The tier's canonical legal codes, ascending (the arrays are shared: not to be written)."""
    key = (type(rules), rules.game_id, tier)
    found = _RECENT.get(key)
    if found is not None:
        return found
    kernels = rules.kernels()
    codes: I64
    if kernels is not None and type(rules).tier_positions is Rules.tier_positions:
        codes = scanner(kernels)(rules.size, tier)
    else:
        given = rules.tier_positions(tier)
        if isinstance(given, np.ndarray):
            codes = np.ascontiguousarray(given, dtype=np.int64)
        else:
            codes = np.fromiter(given, np.int64)
    with _RECENT_LOCK:  # requests' threads enumerate too
        _RECENT[key] = codes
        while len(_RECENT) > RECENT_TIERS:
            _RECENT.popitem(last=False)
    return codes


def expand(rules: Rules, codes: I64) -> tuple[I64, I64, I64, I64]:
    """(indptr, child codes (canonical), move info `gain << 1 | again`, end values (NOT_OVER where the
    position has moves)) of the positions `codes`."""
    kernels = rules.kernels()
    if kernels is not None:
        return _expand(codes, rules.max_moves, kernels.moves, kernels.canonical, kernels.end)  # type: ignore[no-any-return]
    indptr = [0]
    child: list[int] = []
    info: list[int] = []
    ends = np.full(codes.shape[0], NOT_OVER, np.int64)
    for i, code in enumerate(codes.tolist()):
        moves = rules.moves(code)
        if not moves:
            ends[i] = rules.end(code)
        for move in moves:
            child.append(rules.canonical(move.to))
            info.append(move.gain << 1 | int(move.again))
        indptr.append(len(child))
    return (
        np.array(indptr, np.int64),
        np.array(child, np.int64),
        np.array(info, np.int64),
        ends,
    )


# -- solving ---------------------------------------------------------------------------------------


def solve_tier(
    rules: Rules,
    tier: int,
    later: TierTable,
    progress: Progress | None = None,
    plain_positions: int = PLAIN_POSITIONS,
) -> TierTable:
    """The tier solved; `later` holds (at least) every position its moves lead to outside it. Win/loss
    tiers of plain rules of at most `plain_positions` positions are solved by the plain reference; those
    of numba rules by the batched expansion (kinds.rules.fused)."""
    codes = positions(rules, tier)
    kernels = rules.kernels()
    if kernels is not None and not rules.score_game:
        table = _solve_wl_kernels(rules, tier, codes, later)
        if progress is not None:
            progress(len(codes), len(codes))
        return table
    indptr, child, info, ends = expand(rules, codes)
    if not rules.score_game:
        small = codes.shape[0] <= plain_positions and rules.kernels() is None
        solve = _solve_wl_plain if small else _solve_wl_fused
        table = solve(rules, tier, codes, indptr, child, info, ends, later)
        if progress is not None:
            progress(len(codes), len(codes))
        return table
    where = np.searchsorted(codes, child)
    inside = (where < codes.shape[0]) & (codes[np.minimum(where, max(codes.shape[0] - 1, 0))] == child)
    if codes.shape[0] == 0:
        inside = np.zeros(child.shape[0], bool)
    ext_at = np.searchsorted(later.codes, child)
    outside = ~inside
    found = outside & (ext_at < later.codes.shape[0])
    found[found] = later.codes[ext_at[found]] == child[found]
    lost = np.flatnonzero(outside & ~found)
    source = np.repeat(np.arange(codes.shape[0]), np.diff(indptr))
    if lost.size:
        e = int(lost[0])
        raise RulesError(
            f"{rules.game_id}: a move of position {_name(rules, int(codes[source[e]]))} (tier {tier}) "
            f"leads to code {int(child[e])}, which is neither in its tier nor in a later solved tier "
            "(an illegal code, or a tier going the wrong way)"
        )
    table = _solve_score(rules, tier, codes, indptr, child, info, ends, where, inside, ext_at, later)
    if progress is not None:
        progress(len(codes), len(codes))
    return table


def _solve_wl_fused(
    rules: Rules, tier: int, codes: I64, indptr: I64, child: I64, info: I64, ends: I64, later: TierTable
) -> TierTable:
    """A win/loss tier: its moves sorted into the tier's graph and the values of the later tiers they
    reach in one compiled pass (no array per move beyond the graph's), then the retrograde passes."""
    n = codes.shape[0]
    _check_ends(rules, codes, ends, (WIN, LOSS, TIE))
    in_indptr = np.zeros(n + 1, np.int64)
    in_indices = np.empty(child.shape[0], np.int32)
    count = np.zeros(n, np.int32)
    lost_min = np.full(n, -1, np.int32)
    won_count = np.zeros(n, np.int32)
    won_max = np.full(n, -1, np.int32)
    tie_min = np.full(n, -1, np.int32)
    bad = _classify(
        codes, indptr, child, info, later.codes, later.result, later.remoteness,
        in_indptr, in_indices, count, lost_min, won_count, won_max, tie_min,
    )  # fmt: skip
    if bad >= 0:
        v = int(np.searchsorted(indptr, bad, side="right") - 1)
        if info[bad] != 0:
            raise RulesError(
                f"{rules.game_id}: a move of position {_name(rules, int(codes[v]))} scores or keeps the "
                "turn, which only score games' moves may"
            )
        raise RulesError(
            f"{rules.game_id}: a move of position {_name(rules, int(codes[v]))} (tier {tier}) leads to code "
            f"{int(child[bad])}, which is neither in its tier nor in a later solved tier (an illegal code, "
            "or a tier going the wrong way)"
        )
    return _retrograde(
        tier, codes, ends, in_indptr, in_indices[: in_indptr[n]], count, lost_min, won_count, won_max, tie_min
    )


def _solve_wl_kernels(rules: Rules, tier: int, codes: I64, later: TierTable) -> TierTable:
    """A win/loss tier of numba rules: expanded and sorted into its graph in one compiled pass
    (kinds.rules.fused), then the retrograde passes."""
    kernels = rules.kernels()
    assert kernels is not None
    n = codes.shape[0]
    in_indptr = np.zeros(n + 1, np.int64)
    ends = not_over(n)
    # written for every position by the expansion (kinds.rules.exits.store_exits) unless it fails
    count = np.empty(n, np.int32)
    lost_min = np.empty(n, np.int32)
    won_count = np.empty(n, np.int32)
    won_max = np.empty(n, np.int32)
    tie_min = np.empty(n, np.int32)
    in_indices, bad, code, info = expander(kernels)(
        codes, rules.max_moves, later.codes, later.result, later.remoteness,
        in_indptr, ends, count, lost_min, won_count, won_max, tie_min,
    )  # fmt: skip
    if bad >= 0:
        where = _name(rules, int(codes[bad]))
        if info != 0:
            raise RulesError(
                f"{rules.game_id}: a move of position {where} scores or keeps the turn, which only score "
                "games' moves may"
            )
        raise RulesError(
            f"{rules.game_id}: a move of position {where} (tier {tier}) leads to code {int(code)}, which is "
            "neither in its tier nor in a later solved tier (an illegal code, or a tier going the wrong way)"
        )
    _check_ends(rules, codes, ends, (WIN, LOSS, TIE))
    return _retrograde(tier, codes, ends, in_indptr, in_indices, count, lost_min, won_count, won_max, tie_min)


def _retrograde(
    tier: int,
    codes: I64,
    ends: I64,
    in_indptr: I64,
    in_indices: I32,
    count: I32,
    lost_min: I32,
    won_count: I32,
    won_max: I32,
    tie_min: I32,
) -> TierTable:
    """The tier's graph and external moves solved: wins and losses, then ties and endless draws (in one
    pass where no move stays in the tier)."""
    if in_indices.shape[0] == 0:
        result = np.empty(codes.shape[0], np.int8)
        rem = np.empty(codes.shape[0], np.int32)
        direct(ends, count, lost_min, won_count, won_max, tie_min, result, rem)
        return TierTable(tier, codes, result, rem, None)
    terminal = np.where(ends == WIN, 1, np.where(ends == LOSS, -1, 0)).astype(np.int8)
    rev_indptr, rev_indices = reverse_csr(in_indptr, in_indices)
    degree = np.diff(in_indptr).astype(np.int32)
    outcome, remoteness = solve_reverse(
        rev_indptr, rev_indices, degree, terminal, ExternalMoves(count, lost_min, won_count, won_max)
    )
    return _with_ties(tier, codes, outcome, remoteness, ends, tie_min, rev_indptr, rev_indices)


def _solve_wl_plain(
    rules: Rules, tier: int, codes: I64, indptr: I64, child: I64, info: I64, ends: I64, later: TierTable
) -> TierTable:
    """The plain reference of `_solve_wl_fused` (no compiled kernel): the naive fixed point by levels.

    Level k decides a win where a move reaches a loss decided at k - 1 (in the tier, or of a later tier),
    a loss where every move reaches a win and the slowest at k - 1; then, among the drawn positions, a
    tie at level k where a move reaches a tie at k - 1. What is never decided is an endless draw."""
    n = codes.shape[0]
    _check_ends(rules, codes, ends, (WIN, LOSS, TIE))
    index = {c: i for i, c in enumerate(codes.tolist())}
    at = np.searchsorted(later.codes, child)
    moves: list[list[tuple[int, int, int]]] = []  # per position: (index in the tier or -1, result, rem)
    for v in range(n):
        mine = []
        for e in range(int(indptr[v]), int(indptr[v + 1])):
            c = int(child[e])
            i = index.get(c, -1)
            j = int(at[e])
            if info[e] != 0 or (i < 0 and (j >= later.codes.shape[0] or int(later.codes[j]) != c)):
                what = "scores or keeps the turn" if info[e] != 0 else f"leads to code {c}, in no solved tier"
                raise RulesError(
                    f"{rules.game_id}: a move of position {_name(rules, int(codes[v]))} (tier {tier}) {what}"
                )
            mine.append((i, 0, 0) if i >= 0 else (-1, int(later.result[j]), int(later.remoteness[j])))
        moves.append(mine)
    result = [DRAW] * n
    rem = [-1] * n
    for v in range(n):
        if not moves[v] and ends[v] in (WIN, LOSS):
            result[v], rem[v] = int(ends[v]), 0
    top = int(later.remoteness.max(initial=0)) + 2
    k = 0
    while True:
        k += 1
        decided = []
        for v in range(n):
            if result[v] != DRAW or not moves[v]:
                continue
            seen = [(result[i], rem[i]) if i >= 0 else (r, m) for i, r, m in moves[v]]
            if any(r == LOSS and m == k - 1 for r, m in seen):
                decided.append((v, WIN))
            elif all(r == WIN and m <= k - 1 for r, m in seen) and max(m for _, m in seen) == k - 1:
                decided.append((v, LOSS))
        for v, r in decided:
            result[v], rem[v] = r, k
        if not decided and k > top:  # nothing at level k, nor later: no move reaches a level >= k
            break
    tie = [0 if not moves[v] and ends[v] == TIE else -1 for v in range(n)]
    k = 0
    while True:
        k += 1
        found = [
            v
            for v in range(n)
            if result[v] == DRAW
            and tie[v] < 0
            and any(
                (i >= 0 and result[i] == DRAW and tie[i] == k - 1) or (i < 0 and r == TIE and m == k - 1)
                for i, r, m in moves[v]
            )
        ]
        for v in found:
            tie[v] = k
        if not found and k > top:
            break
    out = np.array(result, np.int8)
    rems = np.array(rem, np.int32)
    ties = np.array(tie, np.int32) >= 0
    out[ties] = TIE
    rems[ties] = np.array(tie, np.int32)[ties]
    return TierTable(tier, codes, out, rems, None)


@numba.njit(cache=True, nogil=True)
def _find(sorted_codes: I64, code: int) -> int:
    lo = 0
    hi = sorted_codes.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < sorted_codes.shape[0] and sorted_codes[lo] == code else -1


@numba.njit(cache=True, nogil=True)
def _classify(
    codes: I64,
    indptr: I64,
    child: I64,
    info: I64,
    later_codes: I64,
    later_result: I8,
    later_rem: I32,
    in_indptr: I64,
    in_indices: I32,
    count: I32,
    lost_min: I32,
    won_count: I32,
    won_max: I32,
    tie_min: I32,
) -> int:
    """Each move of each position: to a position of the tier (an edge of its graph), or to one of a later
    tier (its value counted per position: the least remoteness of lost ones, the number and greatest
    remoteness of won ones, the least of ties); the first move that scores or reaches neither, or -1."""
    k = 0
    for v in range(codes.shape[0]):
        exits = no_exits()
        for e in range(indptr[v], indptr[v + 1]):
            if info[e] != 0:
                return e
            c = child[e]
            j = _find(later_codes, c)  # first: in a tiered game most moves leave the tier
            if j < 0:
                i = _find(codes, c)
                if i < 0:
                    return e
                in_indices[k] = i
                k += 1
                continue
            exits = count_exit(exits, later_result[j], later_rem[j])
        store_exits(v, exits, count, lost_min, won_count, won_max, tie_min)
        in_indptr[v + 1] = k
    return -1


def _with_ties(
    tier: int,
    codes: I64,
    outcome: I8,
    remoteness: I32,
    ends: I64,
    tie_min: I32,
    rev_indptr: I64,
    rev_indices: I32,
) -> TierTable:
    """The drawn positions sorted into ties (with their remoteness) and endless draws."""
    n = codes.shape[0]
    tie_rem = np.full(n, -1, np.int32)
    seeds = np.flatnonzero((outcome == 0) & (ends == TIE)).astype(np.int32)
    has_ext = np.flatnonzero((outcome == 0) & (tie_min >= 0)).astype(np.int32)
    ev_level = (tie_min[has_ext] + 1).astype(np.int32)
    order = np.argsort(ev_level, kind="stable")
    _ties(rev_indptr, rev_indices, outcome, tie_rem, seeds, has_ext[order], ev_level[order])
    result = np.where(outcome == 1, WIN, np.where(outcome == -1, LOSS, DRAW)).astype(np.int8)
    result[tie_rem >= 0] = TIE
    remoteness = np.where(tie_rem >= 0, tie_rem, remoteness).astype(np.int32)
    return TierTable(tier, codes, result, remoteness, None)


def _name(rules: Rules, code: int) -> str:
    try:
        return repr(rules.format(code))
    except Exception:  # rules broken enough not to write their own position
        return f"code {code}"


def _check_ends(rules: Rules, codes: I64, ends: I64, allowed: tuple[int, ...] | None) -> None:
    over = ends != NOT_OVER
    bad = np.zeros_like(over)
    if allowed is not None:
        bad = over.copy()
        for value in allowed:
            bad &= ends != value
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise RulesError(
            f"{rules.game_id}: finished position {_name(rules, int(codes[i]))} has value {int(ends[i])}, "
            "not WIN, LOSS or TIE"
        )


@numba.njit(cache=True, nogil=True)
def _ties(
    rev_indptr: I64, rev_indices: I32, outcome: I8, tie_rem: I32, seeds: I32, ev_vertex: I32, ev_level: I32
) -> None:
    """Breadth-first from the finished ties (level 0) and the moves to ties of later tiers (events at
    their level), through drawn positions only: the first level reaching a position is its remoteness."""
    n = outcome.shape[0]
    queue = np.empty(n, np.int32)
    head = 0
    tail = 0
    for s in seeds:
        tie_rem[s] = 0
        queue[tail] = s
        tail += 1
    ev = 0
    while True:
        if ev < ev_vertex.shape[0] and (head == tail or ev_level[ev] <= tie_rem[queue[head]] + 1):
            v = ev_vertex[ev]
            if tie_rem[v] < 0:
                tie_rem[v] = ev_level[ev]
                queue[tail] = v
                tail += 1
            ev += 1
            continue
        if head == tail:
            break
        u = queue[head]
        head += 1
        for e in range(rev_indptr[u], rev_indptr[u + 1]):
            p = rev_indices[e]
            if outcome[p] == 0 and tie_rem[p] < 0:
                tie_rem[p] = tie_rem[u] + 1
                queue[tail] = p
                tail += 1


def _solve_score(
    rules: Rules,
    tier: int,
    codes: I64,
    indptr: I64,
    child: I64,
    info: I64,
    ends: I64,
    where: I64,
    inside: np.ndarray,
    ext_at: I64,
    later: TierTable,
) -> TierTable:
    n = codes.shape[0]
    source = np.repeat(np.arange(n), np.diff(indptr))
    in_indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(source[inside], minlength=n), out=in_indptr[1:])
    order = topological_order(in_indptr, where[inside].astype(np.int32))
    if order is None:
        raise RulesError(f"{rules.game_id}: tier {tier} has a cycle, which a score game may not have")
    ext_margin = np.zeros(child.shape[0], np.int32)
    ext_rem = np.zeros(child.shape[0], np.int32)
    outside = ~inside
    if later.margin is None and np.any(outside):
        raise RulesError(f"{rules.game_id}: tier {tier} moves into tiers solved without margins")
    if np.any(outside):
        assert later.margin is not None
        ext_margin[outside] = later.margin[ext_at[outside]]
        ext_rem[outside] = later.remoteness[ext_at[outside]]
    margin = np.zeros(n, np.int32)
    remoteness = np.zeros(n, np.int32)
    _score_run(order, indptr, where, inside, info, ends, ext_margin, ext_rem, margin, remoteness)
    result = np.sign(margin).astype(np.int8)
    return TierTable(tier, codes, result, remoteness, margin)


@numba.njit(cache=True, nogil=True)
def _score_run(
    order: I32,
    indptr: I64,
    where: I64,
    inside: np.ndarray,
    info: I64,
    ends: I64,
    ext_margin: I32,
    ext_rem: I32,
    margin: I32,
    remoteness: I32,
) -> None:
    for k in range(order.shape[0]):
        v = order[k]
        if indptr[v] == indptr[v + 1]:
            margin[v] = ends[v]
            remoteness[v] = 0
            continue
        best = -(1 << 30)
        best_rem = 1 << 30
        for e in range(indptr[v], indptr[v + 1]):
            if inside[e]:
                m = margin[where[e]]
                r = remoteness[where[e]]
            else:
                m = ext_margin[e]
                r = ext_rem[e]
            value = (info[e] >> 1) + (m if info[e] & 1 else -m)
            if value > best or (value == best and r < best_rem):
                best = value
                best_rem = r
        margin[v] = best
        remoteness[v] = best_rem + 1


def solve_all(
    rules: Rules, progress: Progress | None = None, check: Callable[[], None] | None = None
) -> dict[int, TierTable]:
    """Every tier, in order (what a request small enough has solved live)."""
    from kinds.rules.tables import merged

    solved: dict[int, TierTable] = {}
    tiers = rules.tiers()
    for k, tier in enumerate(tiers):
        if check is not None:
            check()
        later = merged([solved[t] for t in rules.tier_moves_to(tier) if t in solved])
        solved[tier] = solve_tier(rules, tier, later)
        if progress is not None:
            progress(k + 1, len(tiers))
    return solved
