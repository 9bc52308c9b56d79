"""Stored bytes of chess tables by blocks: format 5 (written now: zstd, the second metric ranked beside
DTM, blocks swapped where it pays; kinds.chess.block_codec) against format 4 (zstd, as written before),
the same values in the same run, and what they say of the whole 3-5-man set beside issue 33's target
(Nalimov's DTM alone, 7.4 GB, for DTM and DTZ50 together).

Per material: bytes an index slot and a position (a slot naming a legal position in its canonical slot)
in either format, and the CPU time to write the blocks. Then the sums over the materials measured, and
the whole set: the 3- and 4-man tables measured (with `--men 4`; else the 3-man ones and the 4-man
slots at the rate of the 4-man tables measured) plus the set's 5-man slots at the bytes a slot of the
5-man tables measured: an extrapolation, not a measurement of the set, which is not built (and, as the
5-man tables measured have no pawns, it reads the pawn tables, most of the set's slots, at their rate).
Per material also format 5's bytes of each side to move's values alone (kinds.chess.sides: the other
side found by a one-ply search, as Syzygy does), and the set's bytes under each rule choosing the side
stored: side A, side B, or whichever writes smaller.

The tables come from bench.chess_cache (solved once and kept on disk; a 5-man one takes many minutes).

    python -m bench.bench_chess_stored [--men 4] [--more KQvKR KBNvKN KQRvKR ...]
    python -m bench.bench_chess_stored --probe KQvKR [--queries 300]
    python -m bench.bench_chess_stored --read KQRvKR

`--probe` measures instead what a probe costs in the service layer (no transport), GetValue and
BestMove p50 of positions of each side to move, the tables stored in format 5 and in format 6 (the
side not stored searched one ply), in the same run (a fresh database holding each form). `--read`
measures the CPU time of a whole read of a table in format 5 and in format 6 (its side not stored
rebuilt from its sub-tables): what a solve pays for each sub-table it reads.

By default the 3-man set and KQvKR (which the other chess benches solve too); `--men 4` measures every
4-man table, solving those not kept yet.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
from numpy.typing import NDArray

from bench.bench_chess_answers import latencies
from bench.bench_chess_blocks import bench_settings, blocked, stored
from bench.chess_cache import solved_bytes
from bench.common import figure
from kinds.chess.blocks import HEADER_BYTES, BlockIndex, to_blocks, to_side_blocks, values_from_bytes
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material, materials_of, parse_material, solve_order
from kinds.chess.sides import one_side, side_of
from kinds.chess.tables import board_of_slot
from service.calls import BestMove, GetValue
from service.core import Nimbase
from storage.database import create_engine

#: Nalimov's DTM alone for the 3-5-man set (issue 33's target for DTM and DTZ50 together), in bytes.
NALIMOV_BYTES = 7.4e9
#: Slots a valid mask is computed for at a time.
PIECE = 1 << 24


def positions(material: Material) -> int:
    n = material.slots
    return sum(int(ix.valid_mask(material.spec, lo, min(n, lo + PIECE)).sum()) for lo in range(0, n, PIECE))


#: The formats compared: as written before, as written now.
FORMATS = (4, 5)


#: The rules choosing the side to move stored alone, as columns of a measurement after formats 4 and 5.
SIDES = ("side A to move", "side B to move", "the smaller side to move")


def measure(material: Material, tables: dict[str, bytes]) -> NDArray[np.float64]:
    """Format 4's and format 5's bytes of the material's table, printed with their rates, then format
    5's bytes of each side to move's values alone (kinds.chess.sides: the other side found by a one-ply
    search) and of the smaller of the two."""
    values = ChessValues.from_bytes(solved_bytes(material.name, tables))
    sizes = []
    for version in FORMATS:
        started = time.process_time()
        data = to_blocks(values, version=version)
        sizes.append(len(data))
        figure(
            f"{material.name} write format {version}",
            (time.process_time() - started) / len(values) * 1e9,
            "ns/slot",
        )
    count = positions(material)
    for version, size in zip(FORMATS, sizes, strict=True):
        figure(f"{material.name} format {version}", size / len(values), "bytes/slot")
        figure(f"{material.name} format {version}", size / max(count, 1), "bytes/position")
    figure(f"{material.name} format 5 / format 4", sizes[1] / sizes[0], "")
    for side in (0, 1):
        sizes.append(len(to_blocks(one_side(values, material.spec, side))))
    sizes.append(min(sizes[2:4]))
    for rule, size in zip(SIDES, sizes[2:], strict=True):
        figure(f"{material.name} format 5, {rule} alone", size, "bytes")
        figure(f"{material.name} format 5, {rule} alone", size / max(count, 1), "bytes/position")
    figure(f"{material.name} format 5, the smaller side / both", sizes[4] / sizes[1], "")
    return np.array(sizes, dtype=np.float64)


def side_positions(material: Material, count: int, seed: int = 3) -> dict[int, list[str]]:
    """FENs of `count` random legal positions of `material` for each side to move (0: side A), either
    colouring."""
    rng = random.Random(seed)
    found: dict[int, list[str]] = {0: [], 1: []}
    while min(len(fens) for fens in found.values()) < count:
        slot = rng.randrange(material.slots)
        board = board_of_slot(material, slot)
        side = found[side_of(material.spec, slot)]
        if board is not None and len(side) < count:
            side.append((board.mirror() if rng.random() < 0.5 else board).fen())
    return found


def timed_probes(service: Nimbase, game: str, fens: list[str], what: str) -> None:
    """GetValue p50 of `fens` first asked and asked again, and BestMove p50 of 50 of them."""
    first = latencies(lambda fen: service.get_value(GetValue(game, fen)), fens)[0]
    warm = latencies(lambda fen: service.get_value(GetValue(game, fen)), fens)[0]
    best = latencies(lambda fen: service.best_move(BestMove(game, fen)), fens[:50])[0]
    figure(f"{what}: GetValue p50, first asked", statistics.median(first) * 1e3, "ms")
    figure(f"{what}: GetValue p50, asked again", statistics.median(warm) * 1e3, "ms")
    figure(f"{what}: BestMove p50", statistics.median(best) * 1e3, "ms")


def probes(name: str, count: int) -> None:
    """GetValue and BestMove p50 in the service layer (no transport) of positions of each side to move,
    the table and those it reads stored in format 5 (both sides) and in format 6 (one side: the other's
    positions searched one ply), the same positions in the same run."""
    material = parse_material(name)
    reads = solve_order([material])
    kept = {solved_bytes(m.name): m for m in reads}  # the kept bytes of each table (format 2), by content

    def side_blocks(data: bytes) -> bytes:
        return to_side_blocks(ChessValues.from_bytes(data), kept[data])

    stored_side = BlockIndex(
        (head := side_blocks(solved_bytes(name)))[:HEADER_BYTES], lambda a, b: head[a:b]
    ).side
    fens = side_positions(material, count)
    figure(f"{name} format 6 stores side", float(stored_side or 0), "(0: A, 1: B)")
    for version, encode in ((5, blocked), (6, side_blocks)):
        with stored(name, encode) as url:
            engine = create_engine(url)
            try:
                service = Nimbase(bench_settings(), engine)
                game = f"chess:{name}"
                service.get_value(GetValue(game, fens[0][0]))  # the index and the kernels, read once
                for side in (0, 1):
                    what = f"{name} format {version}, side {'AB'[side]} to move"
                    if version == 6:
                        what += " (stored)" if side == stored_side else " (searched)"
                    timed_probes(service, game, fens[side], what)
            finally:
                engine.dispose()


def whole_reads(name: str) -> None:
    """CPU time of a whole read of the material's table (what a solve pays for each sub-table it reads,
    kinds.chess.blocks.values_from_bytes) in format 5 and in format 6 (the side not stored rebuilt by
    the one-ply search from the sub-tables' values, given in memory), per slot of the table."""
    material = parse_material(name)
    values = ChessValues.from_bytes(solved_bytes(name))
    subs = {sub.name: ChessValues.from_bytes(solved_bytes(sub.name)) for sub in material.sub_materials()}
    for version, data in ((5, to_blocks(values)), (6, to_side_blocks(values, material))):
        started = time.process_time()
        read = values_from_bytes(data, subs)
        took = time.process_time() - started
        assert np.array_equal(read.dtm, values.dtm) and np.array_equal(read.dtz, values.dtz)
        figure(f"{name} whole read, format {version}", took, "s CPU")
        figure(f"{name} whole read, format {version}", took / len(values) * 1e9, "ns/slot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--men", type=int, default=3, help="every material of up to this many men (3 or 4)")
    parser.add_argument("--more", nargs="*", default=["KQvKR"], help="other materials measured too")
    parser.add_argument("--probe", help="only the probes' cost of this material's positions, by side to move")
    parser.add_argument("--queries", type=int, default=300, help="positions of each side probed (--probe)")
    parser.add_argument("--read", help="only the whole reads' cost of this material's table, format 5 and 6")
    args = parser.parse_args()
    if args.probe:
        probes(parse_material(args.probe).name, args.queries)
        return
    if args.read:
        whole_reads(parse_material(args.read).name)
        return
    tables: dict[str, bytes] = {}
    small = [m for m in materials_of(args.men) if m.men >= 3]
    measured: dict[str, NDArray[np.float64]] = {}
    for material in small:
        measured[material.name] = measure(material, tables)
    slots = sum(m.slots for m in small)
    totals = sum(measured.values(), np.zeros(2 + len(SIDES)))
    for version, total in zip(FORMATS, totals[:2], strict=True):
        figure(f"3-{args.men}-man set format {version} (measured)", total / slots, "bytes/slot")
    for material in [parse_material(name) for name in args.more]:
        if material.name not in measured:
            measured[material.name] = measure(material, tables)
    every = [m for m in materials_of(5) if m.men >= 3]
    rates = {}
    for men in (4, 5):
        done = [m for m in every if m.men == men and m.name in measured]
        if done:
            total = sum((measured[m.name] for m in done), np.zeros(2 + len(SIDES)))
            rates[men] = total / sum(m.slots for m in done)
            figure(f"{men}-man tables measured ({len(done)}) format 4", rates[men][0], "bytes/slot")
            figure(f"{men}-man tables measured ({len(done)}) format 5", rates[men][1], "bytes/slot")
            for rule, rate in zip(SIDES, rates[men][2:], strict=True):
                figure(f"{men}-man tables measured, {rule} alone", rate, "bytes/slot")
    if 5 not in rates or 4 not in rates:
        return
    whole = np.zeros(2 + len(SIDES))
    for material in every:
        known = measured.get(material.name)
        whole += known if known is not None else rates[material.men] * material.slots
    set_slots = sum(m.slots for m in every)
    fives = sum(m.men == 5 and m.name in measured for m in every)
    for version, total in zip(FORMATS, whole[:2], strict=True):
        figure(f"3-5-man set format {version} (extrapolated from {fives} 5-man)", total / 1e9, "GB")
        figure(f"3-5-man set format {version} (extrapolated)", total / set_slots, "bytes/slot")
    for rule, total in zip(SIDES, whole[2:], strict=True):
        figure(f"3-5-man set format 5, {rule} alone (extrapolated from {fives} 5-man)", total / 1e9, "GB")
    figure("Nalimov's DTM, the target", NALIMOV_BYTES / 1e9, "GB")
    figure("Nalimov's DTM, the target", NALIMOV_BYTES / set_slots, "bytes/slot")


if __name__ == "__main__":
    main()
