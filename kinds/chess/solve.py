"""Solving one chess material: its pawn structures in the order pawn moves allow, each by
kinds.chess.kernels.retro, captures and promotions read from its sub-tables' values.

Every pawn move is zeroing and irreversible and moves a pawn forward, so slices (one pawn configuration
each, both sides to move) are solved from the most advanced structure back: the structures a pawn
move reaches are solved before it. Within a slice only kings and pieces move.

A solve hands out checkpoint records as it goes (kinds.chess.checkpoint: each slice solved and,
without pawns, the one slice's stages) and resumes from them, so a stopped solve loses at most the
stage in flight.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

import chess
import numpy as np
from numpy.typing import NDArray

from kinds.chess import checkpoint as ck
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import promotions, retro
from kinds.chess.kernels.values import NONE
from kinds.chess.material import Material

#: Slots per `prepare` call between progress reports.
CHUNK = 1 << 20
#: Highest level a value may take (int16).
MAX_LEVEL = 32000


class MissingTargets(RuntimeError):
    """A move led to a position no table held (the sub-tables given were not this material's)."""


def slice_order(material: Material) -> list[int]:
    """The pawn configurations to solve, most advanced first; configurations with clashing pawns or
    whose mirror image is the canonical one are left out (they hold no position)."""
    spec = material.spec
    block = int(ix.block_size(spec))
    pieces = material.pieces
    m, p = len(pieces), int(spec[1])
    if p == 0:
        return [0]
    sq = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    keyed: list[tuple[int, int]] = []
    for config in range(int(ix.configs(spec))):
        ix.decode(spec, config * block, sq)
        pawns = [int(s) for s in sq[2 + m - p : 2 + m]]
        if len(set(pawns)) < p:
            continue
        image = sq.copy()
        image[2 + m - p : 2 + m] ^= 7
        image[0], image[1] = 3, 63  # kings out of the way: only the pawn configuration is compared
        mirrored = ix.canonical(spec, image, 0, np.empty(5, dtype=np.int64))
        if mirrored >= 0 and mirrored // block < config:
            continue
        advance = sum((s >> 3) if pieces[m - p + i][1] == 0 else 7 - (s >> 3) for i, s in enumerate(pawns))
        keyed.append((-advance, config))
    keyed.sort()
    return [config for _, config in keyed]


def solve_material(
    material: Material,
    tables: Mapping[str, ChessValues],
    progress: Callable[[int, int], None] | None = None,
    checkpoint: Callable[[bytes], None] | None = None,
    resume: bytes | Sequence[bytes] = b"",
) -> ChessValues:
    """`material`'s DTM and DTZ; `tables` holds (at least) the values of every material its captures
    and promotions lead to, each read (`tables[name]`) when the first slice that needs it comes and not
    kept past the last (a mapping that inflates stored bytes when asked holds no more in memory).
    progress(done, total) counts slots, three passes each (moves, DTM, DTZ).
    Slots naming no position hold the values of the slot before them (they deflate to nothing).

    checkpoint(record) is given a record as each stage ends (kinds.chess.checkpoint), and
    `resume` (records joined, or in a sequence) restores those stages instead of solving them again,
    each inflated straight into the arrays the solve holds anyway when its stage comes, so a resumed
    solve needs no more memory than an uninterrupted one (beyond the records, deflated)."""
    spec = material.spec
    order = slice_order(material)
    wanted = _wanted(material, order)
    loaded: list[Material] | None = None
    child_dtm = child_dtz = np.zeros(1, np.int16)
    rows = np.zeros((1, retro.ROW), np.int64)
    n = material.slots
    dtm = np.zeros(n, dtype=np.int16)
    dtz = np.zeros(n, dtype=np.int16)
    block = int(ix.block_size(spec))
    stages = len(order) == 1  # one slice (no pawns): checkpoints within it too
    restored = _restored(resume, order)
    total = 3 * block * len(order)
    done = 0
    deg = np.empty(block, dtype=np.uint8)
    exm = np.empty(block, dtype=np.int16)
    exz = np.empty(block, dtype=np.int16)

    def report(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    # a slice solved counts its three passes, a stage restored within one its pass
    back = sum(3 if ck.SLICE in kinds else len(kinds) for kinds in restored.values())
    if back:
        report(back * block)  # the stages restored, at once
    unsolved = [config for config in order if ck.SLICE not in restored.get(config, {})]
    kept = promotion_exits(material, unsolved, tables, lambda: report(0))
    for at, config in enumerate(order):
        lo = config * block
        found = restored.get(config, {})
        if ck.SLICE in found:
            ck.unpack_into(found.pop(ck.SLICE), block, (dtm[lo : lo + block], dtz[lo : lo + block]))
            continue
        if wanted[at] != loaded:
            loaded = wanted[at]
            child_dtm = child_dtz = np.zeros(1, np.int16)  # the tables no longer read, let go first
            child_dtm, child_dtz, rows = _children(material, loaded, tables)
        if ck.PREPARED in found:
            ck.unpack_into(found.pop(ck.PREPARED), block, (deg, exm, exz))
        else:
            for a in range(lo, lo + block, CHUNK):
                b = min(lo + block, a + CHUNK)
                errors = retro.prepare(
                    spec,
                    a,
                    b,
                    rows,
                    child_dtm,
                    child_dtz,
                    dtm,
                    dtz,
                    deg[a - lo :],
                    exm[a - lo :],
                    exz[a - lo :],
                )
                if errors:
                    raise MissingTargets(f"{material.name}: {errors} moves lead to positions no table holds")
                report(b - a)
            if config in kept:
                promotions.merge_exits(deg, exm, exz, *kept.pop(config))
            if stages and checkpoint is not None:
                checkpoint(ck.pack(ck.PREPARED, config, (deg, exm, exz)))
        if ck.DTM in found:
            ck.unpack_into(found.pop(ck.DTM), block, (dtm[lo : lo + block],))
        else:
            spare = deg.copy()
            retro.retro(spec, lo, lo + block, dtm, spare, exm, MAX_LEVEL)
            del spare
            if stages and checkpoint is not None:
                checkpoint(ck.pack(ck.DTM, config, (dtm[lo : lo + block],)))
            report(block)
        retro.retro(spec, lo, lo + block, dtz, deg, exz, MAX_LEVEL)
        retro.fill_invalid(dtm, dtz, lo, deg)
        if checkpoint is not None:
            checkpoint(ck.pack(ck.SLICE, config, (dtm[lo : lo + block], dtz[lo : lo + block])))
        report(block)
    return ChessValues(dtm, dtz, delta=not material.pawnful)


@functools.cache
def deferred_subs(material: Material) -> frozenset[Material]:
    """The tables with a pawn that `material`'s promotions alone lead to (a material with two pawns:
    KQPvKP's KQQvKP, ..., KQPvKQ, ...): their moves are valued in a pass of their own, one table at a
    time (kinds.chess.kernels.promotions), not held together for the first slices."""
    exits = material.exits()
    captured = {sub for _c, pm, _p, sub, _f, _m in exits if pm < 0}
    return frozenset(
        sub for _c, pm, _p, sub, _f, _m in exits if pm >= 0 and sub.pawnful and sub not in captured
    )


def _promoting(material: Material, order: list[int], side: int | None = None) -> dict[Material, list[int]]:
    """For each deferred table, the slices of `order` a pawn promotes from into it (its seventh rank):
    any pawn's, or only those of `side`'s pawns (0: side A), which move with `side` to move."""
    deferred = deferred_subs(material)
    if not deferred:
        return {}
    spec = material.spec
    block = int(ix.block_size(spec))
    sq = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    out: dict[Material, list[int]] = {sub: [] for sub in deferred}
    pieces = material.pieces
    exits = [
        (pm, sub)
        for _c, pm, _p, sub, _f, _m in material.exits()
        if sub in deferred and (side is None or pieces[pm][1] == side)
    ]
    for config in order:
        ix.decode(spec, config * block, sq)
        seventh = [
            t == chess.PAWN and int(sq[2 + i]) >> 3 == (6 if o == 0 else 1) for i, (t, o) in enumerate(pieces)
        ]
        for sub in {sub for pm, sub in exits if seventh[pm]}:
            out[sub].append(config)
    return out


def promotion_exits(
    material: Material,
    order: list[int],
    tables: Mapping[str, ChessValues],
    check: Callable[[], None],
    side: int | None = None,
) -> dict[int, tuple[NDArray[np.int16], NDArray[np.int16]]]:
    """The best values of the promotions into the deferred tables, by slice of `order` (the slices a
    pawn promotes from), each table read alone and let go before the next (`check()` between pieces):
    for each such slice its slots' (NONE where none), or with `side` given those of its half with
    `side` to move alone (what kinds.chess.sides' rebuild of that side searches)."""
    promoting = _promoting(material, order, side)
    block = int(ix.block_size(material.spec))
    start, length = (0, block) if side is None else (side * (block // 2), block // 2)
    kept: dict[int, tuple[NDArray[np.int16], NDArray[np.int16]]] = {}
    m = len(material.pieces)
    for sub in sorted(promoting, key=lambda sub: sub.name):
        configs = promoting[sub]
        if not configs:
            continue
        child_dtm, child_dtz, rows = _children(material, [sub], tables)
        for c, pm, promo, reached, _flip, _perm in material.exits():
            if reached != sub or pm < 0:  # this pass values the promotions into `sub` alone
                rows[retro.exit_row(m, c, pm, promo - 1 if promo else 0), 0] = 0
        for config in configs:
            if config not in kept:
                kept[config] = (np.full(length, NONE, np.int16), np.full(length, NONE, np.int16))
            exm, exz = kept[config]
            lo = config * block + start
            for a in range(lo, lo + length, CHUNK):
                b = min(lo + length, a + CHUNK)
                errors = promotions.promotion_exits(
                    material.spec, a, b, rows, child_dtm, child_dtz, exm[a - lo :], exz[a - lo :]
                )
                if errors:
                    raise MissingTargets(
                        f"{material.name}: {errors} promotions lead to positions {sub.name} lacks"
                    )
                check()
        del child_dtm, child_dtz
    return kept


@functools.cache
def promotion_exit_slots(material: Material, side: int | None = None) -> int:
    """The slots whose promotions' best values the solve keeps apart (`promotion_exits`), or a rebuild
    of side `side` (half slices): what its memory grows with beside `held_sub_slots`, for a material
    with two pawns."""
    promoting = _promoting(material, slice_order(material), side)
    configs = set().union(*promoting.values()) if promoting else set()
    block = int(ix.block_size(material.spec))
    return len(configs) * (block if side is None else block // 2)


@functools.cache
def held_sub_slots(material: Material, side: int | None = None) -> int:
    """The most sub-table slots a solve of `material` holds at once (the concatenated values `_children`
    makes for a slice and the slices after it), or a rebuild of its side `side` (kinds.chess.sides):
    what its memory grows with beyond its own table."""
    wanted = _wanted(material, slice_order(material), side)
    return max((sum(sub.slots for sub in subs) for subs in wanted), default=0)


def _wanted(material: Material, order: list[int], side: int | None = None) -> list[list[Material]]:
    """Per slice of `order`, the sub-materials it and the slices after it read: a promotion's only
    where a pawn stands on its seventh rank, so a five-man table a pawn's promotions lead to is loaded
    for the slices that promote and let go after the last of them; with `side` given, those the moves
    of `side` (0: side A) alone lead to (a rebuild of that side to move, kinds.chess.sides)."""
    spec = material.spec
    block = int(ix.block_size(spec))
    sq = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    pieces = material.pieces
    exits = [
        exit
        for exit in material.exits()
        if side is None or (pieces[exit[1]][1] if exit[1] >= 0 else 1 - pieces[exit[0]][1]) == side
    ]
    deferred = deferred_subs(material)
    reads: list[frozenset[Material]] = []
    by_seventh: dict[tuple[bool, ...], frozenset[Material]] = {}  # what a slice reads, by its promoters
    for config in order:
        ix.decode(spec, config * block, sq)
        seventh = tuple(
            t == chess.PAWN and int(sq[2 + i]) >> 3 == (6 if o == 0 else 1) for i, (t, o) in enumerate(pieces)
        )
        found = by_seventh.get(seventh)
        if found is None:
            found = by_seventh[seventh] = frozenset(
                sub for _c, pm, _p, sub, _f, _m in exits if (pm < 0 or seventh[pm]) and sub not in deferred
            )
        reads.append(found)
    out: list[list[Material]] = []
    later: set[Material] = set()
    subs = material.sub_materials()
    held: list[Material] = []
    for found in reversed(reads):
        if not found <= later:
            later |= found
            held = [sub for sub in subs if sub in later]
        out.append(held)
    return out[::-1]


def _children(
    material: Material, subs: list[Material], tables: Mapping[str, ChessValues]
) -> tuple[NDArray[np.int16], NDArray[np.int16], NDArray[np.int64]]:
    """The values of `subs` one after the other (each table read from `tables` once, copied and let
    go), and the exit rows reading them (exits into other materials unusable)."""
    bases: dict[Material, int] = {}
    at = 0
    for sub in subs:
        bases[sub] = at
        at += sub.slots
    child_dtm = np.zeros(max(1, at), np.int16)
    child_dtz = np.zeros(max(1, at), np.int16)
    for sub in subs:
        values = tables[sub.name]
        child_dtm[bases[sub] : bases[sub] + sub.slots] = values.dtm
        child_dtz[bases[sub] : bases[sub] + sub.slots] = values.dtz
        del values
    rows = material.exit_rows({sub: bases.get(sub, 0) for sub in material.sub_materials()})
    m = len(material.pieces)
    deferred = deferred_subs(material)
    for c, pm, promo, sub, _flip, _perm in material.exits():
        if sub not in bases:
            rows[retro.exit_row(m, c, pm, promo - 1 if promo else 0), 0] = (
                retro.DEFERRED if sub in deferred else 0
            )
    return child_dtm, child_dtz, rows


def _restored(resume: bytes | Sequence[bytes], order: list[int]) -> dict[int, dict[int, bytes | memoryview]]:
    """The records of `resume` by slice and kind, still deflated (their headers read; each is inflated
    when its stage comes); CorruptCheckpoint for a slice the solve has not."""
    found: dict[int, dict[int, bytes | memoryview]] = {}
    slices = set(order)
    records = ck.split(resume) if isinstance(resume, bytes | bytearray | memoryview) else resume
    for data in records:
        kind, config = ck.kind_of(data)
        if config not in slices:
            raise ck.CorruptCheckpoint(f"a checkpoint of slice {config}, which this material has not")
        found.setdefault(config, {})[kind] = data
    return found
