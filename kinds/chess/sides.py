"""One side to move of a chess table: which slots hold it, and its values alone (block format 6).

The index (kinds.chess.kernels.index) puts the side to move above the kings and pieces:

    slot = ((pawn_config * 2 + side_to_move) * kings + king_pair) * 64**pieces + squares

so each pawn configuration's slice is two halves of `half(spec)` slots, side A to move then side B. A
table stored with one side to move holds the halves of that side, one after the other (`one_side`):
slot s of that side is its `compact(spec, s)`-th value. The other side's values follow from these by a
one-ply search (kinds.chess.kernels.oneply; a position's value is its best move's), as Syzygy does for
WDL, so a table stores about half its slots.

Which side: the one whose values write in fewer bytes (`smaller_side`), or a rule fixed by material.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from kinds.chess import solve
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import oneply, retro
from kinds.chess.material import Material
from kinds.chess.solve import MissingTargets, slice_order

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]


def half(spec: I64) -> int:
    """Slots of one side to move in one pawn configuration (half a slice)."""
    return int(ix.block_size(spec)) // 2


def side_of(spec: I64, slot: int) -> int:
    """The side to move of a slot (0: side A)."""
    return (slot // half(spec)) % 2


def compact(spec: I64, slot: int) -> int:
    """Where slot `slot`'s value is among its side to move's values alone."""
    h = half(spec)
    return (slot // (2 * h)) * h + slot % h


def compact_slots(spec: I64, slots: I64) -> I64:
    """`compact` of each slot of `slots`."""
    h = half(spec)
    out: I64 = (slots // (2 * h)) * h + slots % h
    return out


def one_side(values: ChessValues, spec: I64, side: int) -> ChessValues:
    """The values of the slots with `side` to move alone, in slot order (a copy)."""
    h = half(spec)
    configs = len(values) // (2 * h)

    def pick(metric: I16) -> I16:
        return np.ascontiguousarray(metric.reshape(configs, 2, h)[:, side, :]).reshape(-1)

    return ChessValues(pick(values.dtm), pick(values.dtz), values.delta)


def with_side(stored: ChessValues, spec: I64, side: int) -> ChessValues:
    """A whole table's arrays holding `stored` (side `side`'s values alone) in its slots, the other
    side's slots zero (to be filled by the one-ply search)."""
    h = half(spec)
    configs = len(stored) // h
    dtm = np.zeros((configs, 2, h), dtype=np.int16)
    dtz = np.zeros((configs, 2, h), dtype=np.int16)
    dtm[:, side, :] = stored.dtm.reshape(configs, h)
    dtz[:, side, :] = stored.dtz.reshape(configs, h)
    return ChessValues(dtm.reshape(-1), dtz.reshape(-1), stored.delta)


def rebuild(
    material: Material, stored: ChessValues, side: int, tables: Mapping[str, ChessValues]
) -> ChessValues:
    """The whole table of `material` from `side`'s values alone (`one_side`), the other side's found by
    the one-ply search (kinds.chess.kernels.oneply), slice by slice in the solver's order, each
    sub-table (whole: `tables[name]`) read while the slices reading it are rebuilt, as the solve reads
    them (kinds.chess.solve: with two pawns, the promotions into tables with a pawn valued first, one
    such table at a time, for the other side's halves alone); the same arrays the solver gave, slots
    naming no position included."""
    spec = material.spec
    values = with_side(stored, spec, side)
    block = int(ix.block_size(spec))
    order = slice_order(material)
    kept = solve.promotion_exits(material, order, tables, lambda: None, 1 - side)
    none = np.zeros(0, np.int16)
    wanted = solve._wanted(material, order, 1 - side)  # the tables that side's moves lead to
    loaded: list[Material] | None = None
    child_dtm = child_dtz = np.zeros(1, np.int16)
    rows = np.zeros((1, retro.ROW), np.int64)
    for at, config in enumerate(order):
        if wanted[at] != loaded:
            loaded = wanted[at]
            child_dtm = child_dtz = np.zeros(1, np.int16)  # the tables no longer read, let go first
            child_dtm, child_dtz, rows = solve._children(material, loaded, tables)
        lo = config * block + (1 - side) * (block // 2)
        kept_m, kept_z = kept.pop(config, (none, none))
        errors = oneply.fill_side(
            spec, lo, lo + block // 2, rows, child_dtm, child_dtz, values.dtm, values.dtz, kept_m, kept_z
        )
        if errors:
            raise MissingTargets(f"{material.name}: {errors} moves lead to positions no table holds")
    return values
