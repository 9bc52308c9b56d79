"""Five-man chess tables against published statistics (python -m bench.bench_chess_truth [MATERIAL ...]).

Each material named (default: KBNvKN and KNNvKN, pawnless and a few minutes each) is solved here, its
sub-tables read from the benches' cache (bench.chess_cache, solved once), and its longest wins printed
beside the figures others computed from their own tables (`tests/data/chess_longest_wins.json`, sources
in `tests/data/README.md`), each line saying whether they agree:

- DTM: GetStats' longest win or loss (plies, either side to move, either side winning) beside the
  longest mate of the Gaviota tables, and beside Conrady's longest Nalimov mate where he gives one;
- DTZ with the fifty-move rule: the longest win of each side, either side to move, and the longest
  cursed one, beside the Syzygy generator's statistics;
- every position a source gives with a longest win, probed in the solved table, beside its published
  depth.

`make test` checks every 3- and 4-man material the same way (tests/kinds/chess/test_published.py); a
five-man solve takes minutes, so they are compared here. The exit status is 1 when a figure differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import chess

from bench.chess_cache import solved_bytes
from kinds.chess.format import InflatingTables
from kinds.chess.material import Material, parse_material
from kinds.chess.solve import solve_material
from kinds.chess.tables import ChessTable, board_material
from tests.facts import load_facts
from tests.kinds.chess.longest import longest, named

DEFAULT = ("KBNvKN", "KNNvKN")


def line(what: str, ours: int | None, published: int | None, note: str = "") -> bool:
    """One comparison per line; True when they agree (a figure published as none agrees with 0)."""
    agree = (ours or 0) == (published or 0)
    shown = "-" if published is None else str(published)
    verdict = "agree" if agree else "DIFFERS"
    print(f"{what:<62} ours {ours!s:>5}  published {shown:>5}  {verdict}{'  ' + note if note else ''}")
    return agree


def solve(material: Material) -> ChessTable:
    kept: dict[str, bytes] = {}
    for sub in material.sub_materials():
        solved_bytes(sub.name, kept)
    wall, cpu = time.perf_counter(), time.process_time()
    values = solve_material(material, InflatingTables(kept))
    took = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{material.name}: solved in {took[0]:.1f} s wall, {took[1]:.1f} s CPU", flush=True)
    return ChessTable(material, values)


def winner_to_move(board: chess.Board, winner: str) -> bool:
    flip = board_material(board)[1]
    return (board.turn == (chess.BLACK if flip else chess.WHITE)) == (winner == "a")


def compare(table: ChessTable, facts: dict[str, Any]) -> bool:
    name = table.material.name
    ok = True
    stats = table.stats()
    win, loss = stats["longest_win"], stats["longest_loss"]
    assert isinstance(win, int) and isinstance(loss, int)
    gaviota = facts["longest_dtm"].get(name, {}).get("plies")
    ok &= line(f"{name} DTM longest win or loss (GetStats), Gaviota", max(win, loss), gaviota, "plies")
    print(f"{'':<8}longest win {win} plies: {stats.get('longest_win_position', '-')}")
    print(f"{'':<8}longest loss {loss} plies: {stats.get('longest_loss_position', '-')}")
    for fact in facts["longest_by_conrady"]:
        if fact["material"] == name:
            ok &= line(f"{name} DTM longest, Conrady (Nalimov)", max(win, loss), fact["plies"], "plies")
    mask = named(table.material)
    dtm = longest(table.material, table.packed, "dtm", mask)
    for side in ("a", "b"):
        print(f"{'':<8}DTM side {side.upper()} to move: win {dtm.win[side]}, loss {dtm.loss[side]} plies")
    dtz = longest(table.material, table.packed, "dtz", mask)
    syzygy = facts["longest_dtz"].get(name, {})
    for side in ("a", "b"):
        for key, ours in ((f"win_{side}", dtz.winner(side)), (f"cursed_win_{side}", dtz.cursed_winner(side))):
            published = syzygy.get(key, {}).get("plies")
            cursed = "cursed " if "cursed" in key else ""
            what = f"{name} DTZ longest {cursed}win of side {side.upper()}, Syzygy"
            ok &= line(what, ours, published, "plies")
    for fact in facts["mates_by_side"]:
        if fact["material"] == name:
            board = chess.Board(fact["position"])
            sign = 1 if fact["to_move"] == fact["winner"] else -1
            ok &= line(f"{name} DTM of {fact['position']}", table.probe(board).dtm, sign * fact["plies"])
    for key, fact in syzygy.items():
        if key.startswith(("win_", "cursed_win_")):
            board = chess.Board(fact["position"])
            sign = 1 if winner_to_move(board, key[-1]) else -1
            ok &= line(f"{name} DTZ of {fact['position']}", table.probe(board).dtz, sign * fact["plies"])
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("materials", nargs="*", default=list(DEFAULT), help="five-man materials, e.g. KRvKNN")
    args = parser.parse_args()
    facts = load_facts("chess_longest_wins")
    ok = True
    for text in args.materials:
        ok &= compare(solve(parse_material(text)), facts)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
