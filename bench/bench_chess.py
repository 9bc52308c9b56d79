"""Chess table benchmarks (issue 20); prints figures (python -m bench.bench_chess [--help]).

Each solve is measured beside the previous solver (the kernels before moves and un-moves were made fast:
`bench/chess_previous.py` at bench.at_commit.BEFORE_LAYOUT, run from a temporary worktree of that commit)
in the same run, and in CPU time (user CPU too) besides wall time: the machine may be shared, CPU time
is the figure to compare.

- KQvKR: the dedicated retrograde (kinds.chess.solve) beside the previous one and the generic
  CSR path (engine.kernels.retrograde over the material's whole move graph) (target 2 s);
- every 3- and 4-man material, pawns included, solved the way one worker's jobs solve them, each from
  the stored bytes of those it reads (target 3 minutes in all), with the longest win of each; the
  previous solver on the same materials (--no-previous: not);
- a five-man pawnless material (KQRvKR: target 3 minutes, 4 GB) and KRPvKR (target 6 minutes; its
  promotions need four five-man tables first, solved as their jobs would be; --no-pawn: not, some 15
  minutes less): wall and CPU time, peak memory, stored bytes per position, the longest win; the
  previous solver too with --previous-five (long);
- GetValue and BestMove per position on a stored table;
- how long every material to five men would take on one worker and on N (bench.chess_fleet), at the
  rates of this run's five-man solves.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import resource
import time
from collections.abc import Mapping

import numba
import numpy as np
from numpy.typing import NDArray

from bench.at_commit import BEFORE_LAYOUT, run_at
from bench.chess_fleet import Rates, estimate_lines
from bench.common import figure
from engine.kernels import retrograde as R
from kinds.chess.format import ChessValues, InflatingTables
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.kernels.values import NONE
from kinds.chess.kind import TableKernel
from kinds.chess.material import Material, materials_of, parse_material, solve_order
from kinds.chess.solve import solve_material
from kinds.chess.tables import ChessTable, board_of_slot, checked_board

I64 = NDArray[np.int64]


@numba.njit(cache=True)
def _edges(
    spec: I64, n: int, fill: bool, degree: NDArray[np.int32], counts: I64, rev: NDArray[np.int32]
) -> None:
    """The in-material moves of every slot as a reverse CSR (the generic path's graph): first pass
    out-degrees and in-degree counts, second pass (`fill`) the predecessors at counts[child]++."""
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    child = np.empty(5, np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, np.int64)
    m = ix.men_of(spec, kinds, owners)
    for v in range(n):
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            continue
        count = mg.legal_moves(sq, kinds, owners, m, stm, moves)
        for e in range(count):
            j = moves[4 * e]
            if moves[4 * e + 3] >= 0 or moves[4 * e + 2] != 0 or kinds[j] == mg.PAWN:
                continue
            for k in range(m):
                child[k] = sq[k]
            child[j] = moves[4 * e + 1]
            c = ix.canonical(spec, child, 1 - stm, image)
            if fill:
                rev[counts[c]] = v
                counts[c] += 1
            else:
                degree[v] += 1
                counts[c] += 1


def csr_solve(material: Material, tables: dict[str, ChessValues]) -> tuple[float, float]:
    """The generic path on `material` (pawnless): its move graph built whole as a CSR, exits summed up
    as known external moves, solved by engine.kernels.retrograde; returns the seconds it took (wall,
    CPU)."""
    t0, c0 = time.perf_counter(), time.process_time()
    spec, n = material.spec, material.slots
    subs = material.sub_materials()
    bases, at = {}, 0
    for sub in subs:
        bases[sub] = at
        at += sub.slots
    child_dtm = np.concatenate([tables[s.name].dtm for s in subs])
    child_dtz = np.concatenate([tables[s.name].dtz for s in subs])
    deg = np.empty(n, np.uint8)
    exm = np.empty(n, np.int16)
    exz = np.empty(n, np.int16)
    own = np.zeros(n, np.int16)
    retro.prepare(spec, 0, n, material.exit_rows(bases), child_dtm, child_dtz, own, own, deg, exm, exz)
    degree = np.zeros(n, np.int32)
    counts = np.zeros(n, np.int64)
    _edges(spec, n, False, degree, counts, np.zeros(0, np.int32))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    counts[:] = indptr[:-1]
    rev = np.empty(int(indptr[-1]), np.int32)
    _edges(spec, n, True, degree, counts, rev)
    e = exm.astype(np.int32)
    has = (e != NONE) & ~((deg == 0) & ((e == -1) | (e == 0)))
    win = has & (e > 0)
    lose = has & (e < 0)
    ext = R.ExternalMoves(
        has.astype(np.int32),
        np.where(win, e - 1, -1).astype(np.int32),
        lose.astype(np.int32),
        np.where(lose, -e - 2, 0).astype(np.int32),
    )
    terminal = np.where((deg == 0) & (e == -1), -1, 0).astype(np.int8)
    R.solve_reverse(indptr, rev, degree, terminal, ext)
    return time.perf_counter() - t0, time.process_time() - c0


def user_cpu() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def solve_timed(
    material: Material, tables: Mapping[str, ChessValues]
) -> tuple[ChessValues, float, float, float]:
    """The values of `material` and the seconds it took: wall, CPU, user CPU."""
    wall, cpu, user = time.perf_counter(), time.process_time(), user_cpu()
    values = solve_material(material, tables)
    return values, time.perf_counter() - wall, time.process_time() - cpu, user_cpu() - user


#: The previous solver timed on each of NAMES at its commit, each material's sub-tables solved first
#: (untimed), printed as JSON: name -> [wall, CPU, user CPU, digest of the values].
_PREVIOUS = """
import hashlib, json, resource, time
from bench.chess_previous import solve_previous
from engine.games.chess_material import parse_material, solve_order
from engine.games.chess_solve import solve_material
def user():
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime
solve_material(parse_material("KvK"), {})
solve_previous(parse_material("KvK"), {})
tables, out = {}, {}
for name in NAMES:
    material = parse_material(name)
    for sub in solve_order(material.sub_materials()):
        if sub.name not in tables:
            tables[sub.name] = solve_material(sub, tables)
    wall, cpu, u = time.perf_counter(), time.process_time(), user()
    values = solve_previous(material, tables)
    took = [time.perf_counter() - wall, time.process_time() - cpu, user() - u]
    tables.setdefault(name, values)
    out[name] = [*took, hashlib.sha256(values.dtm.tobytes() + values.dtz.tobytes()).hexdigest()]
print(json.dumps(out))
"""


def previous_solves(names: list[str]) -> dict[str, tuple[float, float, float, str]]:
    """The previous solver on each material, at its commit: wall, CPU, user CPU, digest of the values."""
    found = json.loads(run_at(BEFORE_LAYOUT, f"NAMES = {names!r}\n{_PREVIOUS}").splitlines()[-1])
    return {name: (wall, cpu, user, digest) for name, (wall, cpu, user, digest) in found.items()}


def digest(values: ChessValues) -> str:
    """What `previous_solves` gives of the values, to compare them."""
    return hashlib.sha256(values.dtm.tobytes() + values.dtz.tobytes()).hexdigest()


def times(what: str, wall: float, cpu: float, user: float) -> None:
    figure(f"{what} (wall)", wall, "s")
    figure(f"{what} (CPU)", cpu, "s")
    figure(f"{what} (user CPU)", user, "s")


def longest_win(values: ChessValues) -> int:
    return int(values.dtm.max(initial=0))


def bench_kqvkr() -> dict[str, ChessValues]:
    material = parse_material("KQvKR")
    tables: dict[str, ChessValues] = {}
    for sub in solve_order(material.sub_materials()):
        tables[sub.name] = solve_material(sub, tables)
    values, wall, cpu, user = solve_timed(material, tables)
    tables[material.name] = values
    times("chess KQvKR: solve, DTM and DTZ", wall, cpu, user)
    *took, before = previous_solves([material.name])[material.name]
    times(f"chess KQvKR: the previous solver, this run (at {BEFORE_LAYOUT})", *took)
    same = before == digest(values)
    figure("chess KQvKR: the same values as the previous solver (1 yes)", int(same), "")
    csr_wall, csr_cpu = csr_solve(material, tables)
    figure("chess KQvKR: the generic CSR path, DTM only, this run (wall)", csr_wall, "s")
    figure("chess KQvKR: the generic CSR path, DTM only, this run (CPU)", csr_cpu, "s")
    figure("chess KQvKR: target", 2.0, "s")
    figure("chess KQvKR: longest win (published: mate in 35, 69 plies)", longest_win(values), "plies")
    return tables


def make_table(material: Material, stored: Mapping[str, bytes]) -> bytes:
    """`material`'s stored bytes made as a worker's job makes them, from the stored bytes it reads."""
    kernel = TableKernel(material)
    kernel.give({need: stored[need.game_id.partition(":")[2]] for need in kernel.needs()})
    return kernel.make()


def bench_small(previous: bool) -> dict[str, bytes]:
    """Every 3- and 4-man material as one worker's jobs make them: each job given the stored bytes of
    the tables it reads, its own stored as bytes. The figures of each table are taken after the timing."""
    stored: dict[str, bytes] = {}
    wall, cpu, user = time.perf_counter(), time.process_time(), user_cpu()
    for material in materials_of(4):
        stored[material.name] = make_table(material, stored)
    took = time.perf_counter() - wall, time.process_time() - cpu, user_cpu() - user
    for material in materials_of(4):
        values = ChessValues.from_bytes(stored[material.name])
        positions = int(ix.valid_mask(material.spec, 0, material.slots).sum())
        figure(f"chess {material.name}: longest win", longest_win(values), "plies")
        figure(
            f"chess {material.name}: stored bytes per position",
            len(stored[material.name]) / max(1, positions),
            "B",
        )
    times("chess: every 3- and 4-man material by one worker", *took)
    figure("chess: every 3- and 4-man material: target", 180.0, "s")
    if previous:
        solves = previous_solves([material.name for material in materials_of(4)])
        spent = [0.0, 0.0, 0.0]
        for wall, cpu, user, _ in solves.values():
            spent = [spent[0] + wall, spent[1] + cpu, spent[2] + user]
        times(
            f"chess: every 3- and 4-man material, the previous solver, this run (at {BEFORE_LAYOUT})", *spent
        )
    return stored


def bench_five(name: str, stored: dict[str, bytes], target: float, previous: bool) -> float:
    """Solves and probes a five-man material; its solve's CPU seconds a slot."""
    material = parse_material(name)
    tables = InflatingTables(stored)
    values, wall, cpu, user = solve_timed(material, tables)
    rate = cpu / material.slots
    times(f"chess {name}: solve", wall, cpu, user)
    figure(f"chess {name}: target", target, "s")
    figure(
        "peak RSS of this process so far", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, "GB"
    )
    positions = int(ix.valid_mask(material.spec, 0, material.slots).sum())
    data = values.to_bytes()
    figure(f"chess {name}: stored bytes per position (DTM + DTZ, deflated)", len(data) / positions, "B")
    figure(f"chess {name}: longest win", longest_win(values), "plies")
    stored[name] = data
    if previous:
        *took, _ = previous_solves([name])[name]
        times(f"chess {name}: the previous solver, this run (at {BEFORE_LAYOUT})", *took)
    table = ChessTable(material, values)
    rng = random.Random(5)
    boards: list[str] = []
    while len(boards) < 200:
        board = board_of_slot(material, rng.randrange(material.slots))
        if board is not None:
            boards.append(board.fen())
    t0 = time.perf_counter()
    for fen in boards:
        table.probe(checked_board(material, fen))
    figure(
        f"chess {name}: probe per position (FEN parsed and checked)",
        (time.perf_counter() - t0) / len(boards) * 1e3,
        "ms",
    )
    return rate


def bench_fleet(pawnless: float, pawnful: float) -> None:
    """How long every material to five men would take on one worker and on N, at this run's rates."""
    for label, value, unit in estimate_lines(Rates(pawnless, pawnful)):
        figure(f"chess: {label}", value, unit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--five", default="KQRvKR", help="the five-man pawnless material ('' for none)")
    parser.add_argument("--no-pawn", action="store_true", help="not KRPvKR (its solve and its sub-tables')")
    parser.add_argument("--no-previous", action="store_true", help="not the previous solver on 3-4 men")
    parser.add_argument("--previous-five", action="store_true", help="the previous solver on five men too")
    args = parser.parse_args()
    solve_material(parse_material("KvK"), {})  # load (or compile) the kernels
    bench_kqvkr()
    stored = bench_small(not args.no_previous)
    pawnless = pawnful = math.nan
    if args.five:
        pawnless = bench_five(args.five, stored, 180.0, args.previous_five)
    if not args.no_pawn:
        for sub in solve_order(parse_material("KRPvKR").sub_materials()):
            if sub.name not in stored:
                wall, cpu, user = time.perf_counter(), time.process_time(), user_cpu()
                stored[sub.name] = make_table(sub, stored)
                took = time.perf_counter() - wall, time.process_time() - cpu, user_cpu() - user
                times(f"chess {sub.name}: its job (a sub-table of KRPvKR)", *took)
        pawnful = bench_five("KRPvKR", stored, 360.0, args.previous_five)
    if not math.isnan(pawnless):
        bench_fleet(pawnless, pawnless if math.isnan(pawnful) else pawnful)


if __name__ == "__main__":
    main()
