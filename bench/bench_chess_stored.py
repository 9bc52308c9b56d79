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
For 5-man tables also format 5's bytes of each side to move's blocks, and what storing the smaller side
alone would leave (the other side found by a one-ply search, as Syzygy does: the next step, not a
stored form).

The tables come from bench.chess_cache (solved once and kept on disk; a 5-man one takes many minutes).

    python -m bench.bench_chess_stored [--men 4] [--more KQvKR KBNvKN KQRvKR ...]

By default the 3-man set and KQvKR (which the other chess benches solve too); `--men 4` measures every
4-man table, solving those not kept yet.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.chess_cache import solved_bytes
from bench.common import figure
from kinds.chess.blocks import HEADER_BYTES, BlockIndex, to_blocks
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material, materials_of, parse_material

#: Nalimov's DTM alone for the 3-5-man set (issue 33's target for DTM and DTZ50 together), in bytes.
NALIMOV_BYTES = 7.4e9
#: Slots a valid mask is computed for at a time.
PIECE = 1 << 24


def positions(material: Material) -> int:
    n = material.slots
    return sum(int(ix.valid_mask(material.spec, lo, min(n, lo + PIECE)).sum()) for lo in range(0, n, PIECE))


#: The formats compared: as written before, as written now.
FORMATS = (4, 5)


def by_side(material: Material, data: bytes) -> tuple[float, float] | None:
    """Bytes a slot of the blocks of a blocked table holding side A to move and side B to move (None
    when a block holds both): what storing one side to move alone, the other found by a one-ply search
    (as Syzygy does), would leave; not a stored form, a measure of the next step."""
    index = BlockIndex(data[:HEADER_BYTES], lambda start, stop: data[start:stop])
    side = ix.block_size(material.spec) // 2  # slots of one side to move in a pawn configuration
    if side % (1 << index.shift):
        return None
    sizes, slots = np.zeros(2), np.zeros(2)
    for block in range(index.blocks):
        first = block << index.shift
        stm = (first // side) % 2
        sizes[stm] += int(index.offsets[block + 1] - index.offsets[block])
        slots[stm] += min(1 << index.shift, material.slots - first)
    return sizes[0] / slots[0], sizes[1] / slots[1]


def measure(material: Material, tables: dict[str, bytes]) -> tuple[float, float, float]:
    """Format 4's and format 5's bytes of the material's table, printed with their rates, and format 5's
    bytes of its smaller side to move alone (by side to move for 5-man tables; else format 5's)."""
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
    sides = by_side(material, data) if material.men == 5 else None
    if sides is None:
        return sizes[0], sizes[1], sizes[1]
    figure(f"{material.name} format 5, side A to move", sides[0], "bytes/slot")
    figure(f"{material.name} format 5, side B to move", sides[1], "bytes/slot")
    figure(f"{material.name} format 5, the smaller side alone", min(sides) / 2, "bytes/slot")
    return sizes[0], sizes[1], min(sides) / 2 * len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--men", type=int, default=3, help="every material of up to this many men (3 or 4)")
    parser.add_argument("--more", nargs="*", default=["KQvKR"], help="other materials measured too")
    args = parser.parse_args()
    tables: dict[str, bytes] = {}
    small = [m for m in materials_of(args.men) if m.men >= 3]
    measured: dict[str, np.ndarray] = {}
    for material in small:
        measured[material.name] = np.array(measure(material, tables))
    slots = sum(m.slots for m in small)
    totals = sum(measured.values(), np.zeros(3))
    for version, total in zip(FORMATS, totals[:2], strict=True):
        figure(f"3-{args.men}-man set format {version} (measured)", total / slots, "bytes/slot")
    for material in [parse_material(name) for name in args.more]:
        if material.name not in measured:
            measured[material.name] = np.array(measure(material, tables))
    every = [m for m in materials_of(5) if m.men >= 3]
    rates = {}
    for men in (4, 5):
        done = [m for m in every if m.men == men and m.name in measured]
        if done:
            rates[men] = sum((measured[m.name] for m in done), np.zeros(3)) / sum(m.slots for m in done)
            figure(f"{men}-man tables measured ({len(done)}) format 4", rates[men][0], "bytes/slot")
            figure(f"{men}-man tables measured ({len(done)}) format 5", rates[men][1], "bytes/slot")
    if 5 not in rates or 4 not in rates:
        return
    whole = np.zeros(3)
    for material in every:
        known = measured.get(material.name)
        whole += known if known is not None else rates[material.men] * material.slots
    set_slots = sum(m.slots for m in every)
    fives = sum(m.men == 5 and m.name in measured for m in every)
    for version, total in zip(FORMATS, whole[:2], strict=True):
        figure(f"3-5-man set format {version} (extrapolated from {fives} 5-man)", total / 1e9, "GB")
        figure(f"3-5-man set format {version} (extrapolated)", total / set_slots, "bytes/slot")
    alone = f"3-5-man set format 5, the smaller side to move alone (extrapolated from {fives} 5-man)"
    figure(alone, whole[2] / 1e9, "GB")
    figure("Nalimov's DTM, the target", NALIMOV_BYTES / 1e9, "GB")
    figure("Nalimov's DTM, the target", NALIMOV_BYTES / set_slots, "bytes/slot")


if __name__ == "__main__":
    main()
