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

By default the 3-man set and KQvKR (which the other chess benches solve too); `--men 4` measures every
4-man table, solving those not kept yet.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numpy.typing import NDArray

from bench.chess_cache import solved_bytes
from bench.common import figure
from kinds.chess.blocks import to_blocks
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material, materials_of, parse_material
from kinds.chess.sides import one_side

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--men", type=int, default=3, help="every material of up to this many men (3 or 4)")
    parser.add_argument("--more", nargs="*", default=["KQvKR"], help="other materials measured too")
    args = parser.parse_args()
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
