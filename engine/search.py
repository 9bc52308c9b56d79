"""Bounded memoised search of heap sums: outcomes and remoteness where no formula applies.

Misère sums (other than Nim's) and remoteness have no Sprague-Grundy shortcut, so they are found by
exhaustive search over canonical heap multisets. The search is iterative (deep positions would hit
Python's recursion limit), counts every distinct position it discovers against a state budget,
and checks a deadline, so a live request can never run away.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from engine.component_sum import apply_move
from engine.deadline import Deadline
from engine.errors import LimitExceeded
from engine.positions import Heaps, canonical, quote_position

#: What estimate_states returns when the bound is at least this large.
ESTIMATE_CAP = 2**62
#: Work (heap entries copied or hashed) between two deadline checks: an expansion costs in proportion
#: to the heaps of the position and of each child, so counting expansions let a sum of 100,000 heaps
#: run seconds past its deadline.
_DEADLINE_WORK = 1 << 16
#: Heap entries the positions known to a search may hold, per position of its state budget: a position
#: of many heaps weighs as many small ones (100,000 heaps of 1 reach 100,000 positions of up to 100,000
#: heaps each, gigabytes held).
HEAPS_PER_STATE = 16
#: Above this many tokens the partition bound exceeds ESTIMATE_CAP (p(400) > 2^62).
_PARTITION_TOKENS = 400


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Outcome for the player to move, and remoteness (winner hurries, loser delays)."""

    outcome: Literal["P", "N"]
    remoteness: int


class HeapRules(Protocol):
    """What the search reads of a heap game (`kinds.heaps.base.HeapGame` is one): its rules, no more."""

    @property
    def game_id(self) -> str: ...
    @property
    def misere(self) -> bool: ...
    @property
    def splits(self) -> bool:
        """Whether a move may leave two or more heaps (the bound then counts partitions)."""
        ...

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """The heaps one move can leave in place of a heap of size n (each sorted, zeros dropped)."""
        ...


class LoopyGame(RuntimeError):
    """A position was reached again while being solved: the game is not acyclic (a rules bug)."""


def _children(game: HeapRules, pos: Heaps) -> Iterator[Heaps]:
    last = -1
    for index, h in enumerate(pos):
        if h == last:
            continue
        last = h
        for option in game.heap_options(h):
            yield apply_move(pos, index, option)


def _limit_error(game: HeapRules, pos: Heaps, max_states: int) -> LimitExceeded:
    text = quote_position(" ".join(map(str, pos)))
    return LimitExceeded(
        f"solving {game.game_id!r} position {text} needs more than {max_states} positions, or their "
        f"{max_states * HEAPS_PER_STATE} heaps (the live search state budget)"
    )


def solve(
    game: HeapRules, heaps: Heaps, *, max_states: int, deadline: float | Deadline | None = None
) -> SearchResult:
    """Outcome and remoteness of a sum by exhaustive memoised search.

    Normal play: a position with no move is P. Misère (`game.misere`): it is N. Remoteness is 0 there;
    an N-position has 1 + the least remoteness of its P-options, a P-position 1 + the largest of all.
    Raises LimitExceeded past `max_states` distinct positions, DeadlineExceeded past `deadline`
    (a time.monotonic() value, or a `Deadline`, which also stops the search when the client has gone).
    """
    stop = Deadline(deadline) if isinstance(deadline, float | int) else deadline
    root = canonical(heaps)
    terminal_is_p = not game.misere
    solved: dict[Heaps, tuple[bool, int]] = {}
    known: set[Heaps] = {root}
    if max_states < 1:
        raise _limit_error(game, root, max_states)

    held = len(root)
    work = 0
    next_check = 0  # the first child checks: a request may arrive with its deadline gone

    def check_deadline() -> None:
        nonlocal next_check
        if stop is not None and work >= next_check:
            next_check = work + _DEADLINE_WORK
            stop.check(
                lambda: (
                    f"solving {game.game_id!r} position "
                    f"{quote_position(' '.join(map(str, root)))} ({len(known)} positions visited)"
                )
            )

    def expand(pos: Heaps) -> list[Heaps]:
        nonlocal held, work
        kids: list[Heaps] = []
        local: set[Heaps] = set()
        for child in _children(game, pos):
            work += len(child)
            check_deadline()
            if child in local:
                continue
            local.add(child)
            kids.append(child)
            if child not in known:
                known.add(child)
                held += len(child)
                if len(known) > max_states or held > max_states * HEAPS_PER_STATE:
                    raise _limit_error(game, root, max_states)
        return kids

    on_stack: set[Heaps] = {root}
    stack_pos: list[Heaps] = [root]
    stack_kids: list[list[Heaps]] = [expand(root)]
    stack_next: list[int] = [0]
    while stack_pos:
        kids = stack_kids[-1]
        i = stack_next[-1]
        while i < len(kids) and kids[i] in solved:
            i += 1
        if i < len(kids):
            stack_next[-1] = i + 1
            child = kids[i]
            if child in on_stack:
                raise LoopyGame(f"{game.game_id!r}: position {child!r} repeats along a line of play")
            on_stack.add(child)
            stack_pos.append(child)
            stack_kids.append(expand(child))
            stack_next.append(0)
            continue
        pos = stack_pos.pop()
        stack_kids.pop()
        stack_next.pop()
        on_stack.discard(pos)
        solved[pos] = _evaluate(kids, solved, terminal_is_p)
    is_p, remoteness = solved[root]
    return SearchResult(outcome="P" if is_p else "N", remoteness=remoteness)


def _evaluate(
    kids: list[Heaps], solved: dict[Heaps, tuple[bool, int]], terminal_is_p: bool
) -> tuple[bool, int]:
    """(is P, remoteness) of a position whose options are all solved."""
    if not kids:
        return terminal_is_p, 0
    best_win: int | None = None
    longest = 0
    for kid in kids:
        kid_p, kid_r = solved[kid]
        if kid_p:
            if best_win is None or kid_r < best_win:
                best_win = kid_r
        elif kid_r > longest:
            longest = kid_r
    if best_win is not None:
        return False, 1 + best_win
    return True, 1 + longest


@functools.cache
def _partitions_upto(tokens: int) -> int:
    """How many multisets of positive integers sum to at most `tokens` (remembered: some 5 ms of Python
    for the largest, asked before every live search of a sum, under _PARTITION_TOKENS of them)."""
    p = [1] + [0] * tokens
    for part in range(1, tokens + 1):
        for t in range(part, tokens + 1):
            p[t] += p[t - part]
    return sum(p)


def estimate_states(game: HeapRules, heaps: Heaps) -> int:
    """A cheap upper bound on the positions `solve` may visit (capped at ESTIMATE_CAP).

    Moves that shrink one heap: the m heaps of size h reach at most C(h+m, m) multisets, times
    over the sizes. Moves that split heaps (`game.splits`): multisets of at most the token total.
    """
    if len(heaps) == 1 and not game.splits:  # one heap h reaches at most the h + 1 heaps up to it
        return min(heaps[0] + 1, ESTIMATE_CAP)
    pos = canonical(heaps)
    if game.splits:
        tokens = sum(pos)
        if tokens >= _PARTITION_TOKENS:
            return ESTIMATE_CAP
        return min(_partitions_upto(tokens), ESTIMATE_CAP)
    bound = 1
    counts: dict[int, int] = {}
    for h in pos:
        counts[h] = counts.get(h, 0) + 1
    for h, m in counts.items():
        if min(h, m) > 62 or h >= ESTIMATE_CAP:
            return ESTIMATE_CAP
        bound *= math.comb(h + m, min(h, m))
        if bound >= ESTIMATE_CAP:
            return ESTIMATE_CAP
    return bound
