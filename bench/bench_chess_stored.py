"""Stored bytes of chess tables by blocks: format 4 (zstd, dense DTM codes, kinds.chess.block_codec)
against format 3 (deflated blocks, as written before), the same values in the same run.

Per material: bytes an index slot and a position (a slot naming a legal position in its canonical slot)
in either format, and the CPU time to write the blocks. Then the sums over the materials measured, and
what they say of the whole 3-5-man set: an extrapolation (the set's 5-man slots at the bytes a slot of
the 5-man tables measured here), not a measurement of the set, which is not built.

The tables come from bench.chess_cache (solved once and kept on disk; a 5-man one takes many minutes).

    python -m bench.bench_chess_stored [--men 4] [--more KQvKR KBNvKN ...]

By default the 3-man set and KQvKR (which the other chess benches solve too); `--men 4` measures every
4-man table, solving those not kept yet.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.chess_cache import solved_bytes
from bench.common import figure
from kinds.chess.blocks import to_blocks
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


def measure(material: Material, tables: dict[str, bytes]) -> tuple[int, int]:
    """Format 3's and format 4's bytes of the material's table, printed with their rates."""
    values = ChessValues.from_bytes(solved_bytes(material.name, tables))
    sizes = []
    for version in (3, 4):
        started = time.process_time()
        sizes.append(len(to_blocks(values, version=version)))
        figure(
            f"{material.name} write format {version}",
            (time.process_time() - started) / len(values) * 1e9,
            "ns/slot",
        )
    count = positions(material)
    for version, size in zip((3, 4), sizes, strict=True):
        figure(f"{material.name} format {version}", size / len(values), "bytes/slot")
        figure(f"{material.name} format {version}", size / max(count, 1), "bytes/position")
    figure(f"{material.name} format 4 / format 3", sizes[1] / sizes[0], "")
    return sizes[0], sizes[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--men", type=int, default=3, help="every material of up to this many men (3 or 4)")
    parser.add_argument("--more", nargs="*", default=["KQvKR"], help="other materials measured too")
    args = parser.parse_args()
    tables: dict[str, bytes] = {}
    small = [m for m in materials_of(args.men) if m.men >= 3]
    totals = np.zeros(2)
    for material in small:
        totals += measure(material, tables)
    slots = sum(m.slots for m in small)
    figure(f"3-{args.men}-man set format 3 (measured)", totals[0] / slots, "bytes/slot")
    figure(f"3-{args.men}-man set format 4 (measured)", totals[1] / slots, "bytes/slot")
    more = [parse_material(name) for name in args.more if parse_material(name) not in small]
    fives = [m for m in more if m.men == 5]
    five = np.zeros(2)
    for material in more:
        sizes = measure(material, tables)
        if material.men == 5:
            five += sizes
    if not fives:
        return
    rate = five / sum(m.slots for m in fives)
    set_slots = sum(m.slots for m in materials_of(5) if m.men == 5)
    for version, per_slot in zip((3, 4), rate, strict=True):
        figure(
            f"5-man set format {version} (extrapolated from {len(fives)} table(s))",
            per_slot * set_slots / 1e9,
            "GB",
        )
    figure("Nalimov's DTM, the target", NALIMOV_BYTES / 1e9, "GB")


if __name__ == "__main__":
    main()
