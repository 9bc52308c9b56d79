"""Games defined by their rules (issue 22); prints figures (python -m bench.bench_rules [--help]).

- Tic-tac-toe solved from a cold worker: a fresh interpreter runs each tier's job the worker's way (the
  tier's kernel given the stored bytes of the tiers it waits for); target 1 s.
- Connect Four on the board given (by default 5 x 5) solved by a fresh interpreter the worker's way,
  every tier's job in turn (the board's kernels compiled on disk first by another process, as a worker
  has them after its first job): its time (wall clock and CPU), its peak memory (the process's maximum
  resident set) and its solve rate, numba rules; beside the same board's rules as plain Python in the
  same run (the solver calling the methods; on the last tiers, for a bounded time), and the solver alone
  on the numba rules (no stored bytes read or written); target 5 M positions a second on one core. The
  solver alone runs on the batched expansion (kinds.rules.fused.expand_wl_batched, what workers run), and in
  the same run the previous one, a position at a time, at its commit (bench.at_commit: `solve_tier(...,
  batched=False)` there, from a temporary worktree). Each rate is given by the wall clock and by the CPU time
  (on a shared machine the first counts the others' load).
- The largest Connect Four board one worker solves within an hour: measured for the board given; for
  larger boards an estimate (printed as one), from the positions each board has (estimated by sampling
  each tier's candidates: exact counts of pieces by column and colours, the rules' legality tested on a
  sample), the measured board's CPU rate and memory a position, against this machine's memory.
- Bytes a stored position (deflated tiers over positions): tic-tac-toe, Connect Four, Dots and Boxes.
- GetValue on a stored game: a position parsed and valued from its stored tier once the tier is kept
  (the service's path without the transport); target 1 ms.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Any, cast

import numba
import numpy as np

from bench.at_commit import BEFORE_LAYOUT, run_at
from bench.common import figure
from engine.deadline import Deadline
from engine.keep import Keepers
from engine.kind import Allowance, Context
from engine.registry import kind_settings, parse_game_id
from engine.stored_bytes import StoredBytes, encode_words
from kinds.rules.kind import RulesGame, TierKernel, tier_family
from kinds.rules.solve import positions as tier_codes
from kinds.rules.solve import solve_tier
from kinds.rules.tables import TierTable, merged
from nimbase.settings import Limits
from nimbase_rules.games.connect4 import Connect4, _canonical, _legal

COLD = """
import time
started = time.perf_counter()
from engine.registry import parse_game_id
from kinds.rules.kind import tier_family
imported = time.perf_counter()
game = parse_game_id("tictactoe")
stored = {}
for tier in game.rules.tiers():
    kernel = game.kernel_for(tier_family(tier))
    kernel.give({name: stored[name.family] for name in kernel.needs()})
    stored[tier_family(tier)] = kernel.make()
print(imported - started, time.perf_counter() - imported)
"""

#: The board's kernels and the solver's loops over them compiled (kept on disk): its last tier's job.
WARM = """
import sys
from engine.registry import parse_game_id
from kinds.rules.kind import tier_family
game = parse_game_id(sys.argv[1])
game.kernel_for(tier_family(game.rules.tiers()[0])).make()
"""

LARGEST = """
import resource, sys
from bench.bench_rules import solve_jobs
from engine.registry import parse_game_id
from kinds.rules.solve import positions as tier_codes
game = parse_game_id(sys.argv[1])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
stored, positions, wall, cpu = solve_jobs(game)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
counts = [len(tier_codes(game.rules, t)) for t in game.rules.tiers()]
pair = max(a + b for a, b in zip(counts, [0, *counts]))
print(positions, wall, cpu, peak, sum(map(len, stored.values())), base, pair)
"""

#: The boards the hour's estimate tries (w, h >= 4, the code within 63 bits), by cells.
HOUR = 3600.0


@numba.njit(cache=True)
def _tier_estimate(width: int, height: int, t: int, samples: int, seed: int) -> tuple[float, float]:
    """(estimated canonical legal positions with t pieces, candidates): the candidates (heights by column
    summing to t, t // 2 of the pieces o) counted exactly, the share the rules keep (legal, one of each
    pair of mirror images) measured on `samples` of them drawn uniformly."""
    np.random.seed(seed)
    radix = (1 << (height + 1)) - 1
    ways = np.zeros((width + 1, t + 1))  # ways[c, r]: heights of columns c.. summing to r
    ways[width, 0] = 1.0
    for c in range(width - 1, -1, -1):
        for r in range(t + 1):
            for h in range(min(height, r) + 1):
                ways[c, r] += ways[c + 1, r - h]
    if ways[0, t] == 0:
        return 0.0, 0.0
    binomial = 1.0
    for i in range(t // 2):
        binomial = binomial * (t - i) / (i + 1)
    candidates = ways[0, t] * binomial
    kept = 0
    cells = np.arange(t)
    heights = np.zeros(width, np.int64)
    for _ in range(samples):
        left = t
        for c in range(width):  # heights drawn uniformly among those summing to t
            pick = np.random.random() * ways[c, left]
            h = 0
            while h < min(height, left) and pick >= ways[c + 1, left - h]:
                pick -= ways[c + 1, left - h]
                h += 1
            heights[c] = h
            left -= h
        np.random.shuffle(cells)
        is_o = np.zeros(t, np.bool_)
        is_o[cells[: t // 2]] = True
        code = 0
        power = 1
        k = 0
        for col in range(width):
            b = 0
            for j in range(heights[col]):
                if is_o[k]:
                    b |= 1 << j
                k += 1
            code += ((1 << heights[col]) - 1 + b) * power
            power *= radix
        if _legal(code, width, height) and _canonical(code, width, height) == code:
            kept += 1  # half of the asymmetric ones (the smaller of each pair), each symmetric one
    return candidates * kept / samples, candidates


def estimate_positions(width: int, height: int, samples: int = 4000) -> list[float]:
    """Each tier's estimated positions (canonical legal), tier 0 first."""
    return [_tier_estimate(width, height, t, samples, 22 + t)[0] for t in range(width * height + 1)]


def largest_in_an_hour(
    rate: float, bytes_each: float, base: float, memory: float, board: tuple[int, int]
) -> None:
    """Prints the estimator against the measured board, then each larger board's estimated positions,
    CPU hours and peak memory, and the largest that fits the hour and the memory (an estimate)."""
    counts = estimate_positions(*board)
    figure(
        f"connect4:{board[0]}x{board[1]} positions, estimated by sampling (check)", sum(counts), "positions"
    )
    best = board
    boards = sorted(
        (
            (w, h)
            for w in range(4, 10)
            for h in range(4, 10)
            if w * h > board[0] * board[1] and w * (h + 1) <= 62
        ),
        key=lambda b: (b[0] * b[1], b),
    )
    for w, h in boards:
        counts = estimate_positions(w, h, 1000)
        total = sum(counts)
        pair = max(a + b for a, b in zip(counts, [0.0, *counts], strict=False))
        hours = total / rate / HOUR
        peak = base + bytes_each * pair
        figure(f"connect4:{w}x{h} estimate: positions", total, "positions")
        figure(f"connect4:{w}x{h} estimate: one worker's CPU time", hours, "h")
        figure(f"connect4:{w}x{h} estimate: peak memory", peak / 2**20, "MB")
        if hours <= 1 and peak <= memory and w * h >= best[0] * best[1]:
            best = (w, h)
    name = "measured" if best == board else "estimate"
    figure(
        f"largest Connect Four board one worker solves within an hour ({name}): connect4:{best[0]}x{best[1]}",
        best[0] * best[1],
        "cells",
    )


class _Stored:
    """The tables' side of reading stored tiers: words by (game, family), as a worker stored them."""

    def __init__(self, words: dict[tuple[str, str], Any]) -> None:
        self.words = words

    def may_block(self) -> None:
        pass

    def may_compute(self) -> None:
        pass

    def stored_size(self, game_id: str, family: str) -> int:
        return len(self.words.get((game_id, family), ()))

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        words = self.words.get((game_id, family), ())
        return int(words[index]) if index < len(words) else None

    def stored_stats(self, game_id: str, family: str) -> None:
        return None

    def stored_stats_of(self, game_id: str, families: list[str]) -> dict[str, None]:
        return dict.fromkeys(families)

    def known_prefix(self, source: StoredBytes, deadline: float) -> tuple[Any, str]:
        return self.words[(source.game_id, source.family)], "table"

    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> Exception:
        raise RuntimeError(message)


def solve_jobs(game: RulesGame) -> tuple[dict[str, bytes], int, float, float]:
    """Every tier solved as its job would be: (stored bytes by family, positions, seconds, CPU seconds)."""
    stored: dict[str, bytes] = {}
    cpu = time.process_time()
    started = time.perf_counter()
    for tier in game.rules.tiers():
        kernel = cast(TierKernel, game.kernel_for(tier_family(tier)))
        kernel.give({name: stored[name.family] for name in kernel.needs()})
        stored[tier_family(tier)] = kernel.make()
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    count = sum(len(tier_codes(game.rules, tier)) for tier in game.rules.tiers())
    return stored, count, seconds, cpu


def rate(game: RulesGame, budget: float | None = None) -> tuple[int, float, float]:
    """(positions, seconds, CPU seconds) solving the tiers in order, the solver alone (no stored bytes),
    stopping past `budget` seconds."""
    rules = game.rules
    solved: dict[int, TierTable] = {}
    positions = 0
    cpu = time.process_time()
    started = time.perf_counter()
    for tier in rules.tiers():
        later = merged([solved[t] for t in rules.tier_moves_to(tier) if t in solved])
        solved = {t: solved[t] for t in rules.tier_moves_to(tier) if t in solved}
        solved[tier] = solve_tier(rules, tier, later)
        positions += len(solved[tier])
        if budget is not None and time.perf_counter() - started > budget:
            break
    return positions, time.perf_counter() - started, time.process_time() - cpu


#: `rate` by the previous expansion, a position at a time, as its commit ran it (its `batched` flag).
RATE_BEFORE = """
import time
from engine.games.registry import parse_game_id
from engine.rules.solve import solve_tier
from engine.rules.tables import merged
def run(rules):
    solved, positions = {}, 0
    cpu, started = time.process_time(), time.perf_counter()
    for tier in rules.tiers():
        later = merged([solved[t] for t in rules.tier_moves_to(tier) if t in solved])
        solved = {t: solved[t] for t in rules.tier_moves_to(tier) if t in solved}
        solved[tier] = solve_tier(rules, tier, later, batched=False)
        positions += len(solved[tier])
    return positions, time.perf_counter() - started, time.process_time() - cpu
run(parse_game_id("connect4:4x4").rules)
print(*run(parse_game_id(BOARD).rules))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--board", default="5x5", help="Connect Four board solved (WxH)")
    parser.add_argument("--plain-seconds", type=float, default=30.0, help="time given to the plain rules")
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()

    cold = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, check=True)
    imports, solve = (float(x) for x in cold.stdout.split())
    figure("tic-tac-toe from a cold worker: imports (s)", imports, "s")
    figure("tic-tac-toe from a cold worker: every tier's job (s)", solve, "s")

    board = f"connect4:{args.board}"
    subprocess.run([sys.executable, "-c", WARM, board], check=True)
    solved = subprocess.run(
        [sys.executable, "-c", LARGEST, board], capture_output=True, text=True, check=True
    ).stdout.split()
    positions, wall, cpu, peak, stored_bytes, base, pair = int(solved[0]), *map(float, solved[1:])
    figure(f"{board} numba rules, a fresh worker's jobs: positions", positions, "positions")
    figure(f"{board} numba rules, a fresh worker's jobs: solve time", wall, "s")
    figure(f"{board} numba rules, a fresh worker's jobs: CPU time", cpu, "s")
    figure(f"{board} numba rules, a fresh worker's jobs: peak memory (max RSS)", peak / 2**20, "MB")
    figure(f"{board} numba rules: solve rate (wall clock)", positions / wall, "positions/s")
    figure(f"{board} numba rules: solve rate (CPU)", positions / cpu, "positions/s")
    figure(f"{board}: stored bytes a position", stored_bytes / positions, "bytes")
    jobs_rate = positions / cpu
    bytes_each = (peak - base) / pair
    game = cast(RulesGame, parse_game_id(board))
    rate(cast(RulesGame, parse_game_id("connect4:4x4")))  # compiled before timing
    found = run_at(BEFORE_LAYOUT, f"BOARD = {board!r}\n{RATE_BEFORE}").split()
    before = (int(found[-3]), float(found[-2]), float(found[-1]))
    for path, (positions, seconds, cpu) in (
        ("batched", rate(game)),
        (f"previous, a position at a time (at {BEFORE_LAYOUT})", before),
    ):
        figure(
            f"{board} the solver alone, {path}: solve rate (wall clock)", positions / seconds, "positions/s"
        )
        figure(f"{board} the solver alone, {path}: solve rate (CPU)", positions / cpu, "positions/s")
    figure("target: solve rate of numba rules (CPU, one core)", 5e6, "positions/s")
    width, height = (int(x) for x in args.board.split("x"))
    memory = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    figure(f"{board} memory a position (peak over the largest two tiers)", bytes_each, "bytes")
    figure("this machine's memory", memory / 2**20, "MB")
    largest_in_an_hour(jobs_rate, bytes_each, base, memory, (width, height))
    plain = RulesGame(Connect4(width, height, compiled=False))
    positions, seconds, cpu = rate(plain, args.plain_seconds)
    figure(
        f"{board} plain Python rules: solve rate (last tiers, wall clock)", positions / seconds, "positions/s"
    )
    figure(f"{board} plain Python rules: solve rate (last tiers, CPU)", positions / cpu, "positions/s")

    words: dict[tuple[str, str], Any] = {}
    for game_id in ("tictactoe", "connect4:4x4", "dots-and-boxes:2x3"):
        g = cast(RulesGame, parse_game_id(game_id))
        stored, count, _, _ = solve_jobs(g)
        figure(f"{game_id}: stored bytes a position", sum(map(len, stored.values())) / count, "bytes")
        for family, data in stored.items():
            words[(game_id, family)] = encode_words(data)

    settings = kind_settings({"NIMBASE_LIMITS_RULES_LIVE_CODES": "1"})
    ctx = Context(
        tables=cast(Any, _Stored(words)),
        limits=Limits(),
        deadline=Deadline(time.monotonic() + 600),
        memo=cast(Any, None),
        allowance=Allowance(10**6),
        kept=Keepers(settings),
        settings=settings,
    )
    g = cast(RulesGame, parse_game_id("connect4:4x4"))
    texts = [g.format(int(c)) for t in g.rules.tiers() for c in g.rules.tier_positions(t)][::7][
        : args.queries
    ]
    for text in texts:  # every tier read and kept once
        g.value(g.parse(text), ctx)
    started = time.perf_counter()
    for text in texts:
        assert g.value(g.parse(text), ctx).source == "table"
    figure(
        "connect4:4x4 GetValue on the stored game (engine)",
        (time.perf_counter() - started) / len(texts) * 1e3,
        "ms",
    )


if __name__ == "__main__":
    main()
