"""Games defined by their rules (issue 22); prints figures (python -m bench.bench_rules [--help]).

- Tic-tac-toe solved from a cold worker: a fresh interpreter runs each tier's job the worker's way (the
  tier's kernel given the stored bytes of the tiers it waits for); target 1 s.
- Connect Four on the board given (by default 5 x 5, the largest a worker solves well within the hour)
  solved by a fresh interpreter the worker's way, every tier's job in turn: its time (wall clock and
  CPU), its peak memory (the process's maximum resident set) and its solve rate, numba rules; beside the
  same board's rules as plain Python in the same run (the solver calling the methods; on the last tiers,
  for a bounded time), and the solver alone on the numba rules (no stored bytes read or written);
  target 5 M positions a second on one core. Each rate is given by the wall clock and by the CPU time
  (on a shared machine the first counts the others' load).
- Bytes a stored position (deflated tiers over positions): tic-tac-toe, Connect Four, Dots and Boxes.
- GetValue on a stored game: a position parsed and valued from its stored tier once the tier is kept
  (the service's path without the transport); target 1 ms.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from typing import Any, cast

from bench.common import figure
from engine.deadline import Deadline
from engine.games.registry import kind_settings, parse_game_id
from engine.keep import Keepers
from engine.kind import Allowance, Context
from engine.rules.kind import RulesGame, TierKernel, tier_family
from engine.rules.solve import positions as tier_codes
from engine.rules.solve import solve_tier
from engine.rules.tables import TierTable, merged
from engine.stored_bytes import StoredBytes, encode_words
from nimbase.settings import Limits

COLD = """
import time
started = time.perf_counter()
from engine.games.registry import parse_game_id
from engine.rules.kind import tier_family
imported = time.perf_counter()
game = parse_game_id("tictactoe")
stored = {}
for tier in game.rules.tiers():
    kernel = game.kernel_for(tier_family(tier))
    kernel.give({name: stored[name.family] for name in kernel.needs()})
    stored[tier_family(tier)] = kernel.make()
print(imported - started, time.perf_counter() - imported)
"""

LARGEST = """
import resource, sys
from bench.bench_rules import solve_jobs
from engine.games.registry import parse_game_id
stored, positions, wall, cpu = solve_jobs(parse_game_id(sys.argv[1]))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(positions, wall, cpu, peak, sum(map(len, stored.values())))
"""


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
    solved = subprocess.run(
        [sys.executable, "-c", LARGEST, board], capture_output=True, text=True, check=True
    ).stdout.split()
    positions, wall, cpu, peak, stored_bytes = int(solved[0]), *map(float, solved[1:])
    figure(f"{board} numba rules, a fresh worker's jobs: positions", positions, "positions")
    figure(f"{board} numba rules, a fresh worker's jobs: solve time", wall, "s")
    figure(f"{board} numba rules, a fresh worker's jobs: CPU time", cpu, "s")
    figure(f"{board} numba rules, a fresh worker's jobs: peak memory (max RSS)", peak / 2**20, "MB")
    figure(f"{board} numba rules: solve rate (wall clock)", positions / wall, "positions/s")
    figure(f"{board} numba rules: solve rate (CPU)", positions / cpu, "positions/s")
    figure(f"{board}: stored bytes a position", stored_bytes / positions, "bytes")
    game = cast(RulesGame, parse_game_id(board))
    positions, seconds, cpu = rate(game)
    figure(
        f"{board} numba rules, the solver alone: solve rate (wall clock)", positions / seconds, "positions/s"
    )
    figure(f"{board} numba rules, the solver alone: solve rate (CPU)", positions / cpu, "positions/s")
    plain = RulesGame(type(game.rules)(game.rules.width, game.rules.height, compiled=False))  # type: ignore[attr-defined]
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
