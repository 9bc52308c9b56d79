"""The chess solver's bitboard kernels against plain walks: sliding attacks and bit scans
(kinds.chess.kernels.movegen), and `predecessors` (kinds.chess.kernels.retro) against the square by
square un-move walk it replaced, on every position of small materials and on slices of larger ones.
python-chess checks both on sampled positions (tests/kinds/chess/test_tables.py)."""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.material import parse_material

I64 = NDArray[np.int64]

_DF = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
_DR = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)


def _slides_walk(kind: int, s: int, occ: int) -> int:
    out = 0
    for d in range(8):
        if (d >= 4 and kind == mg.ROOK) or (d < 4 and kind == mg.BISHOP):
            continue
        x, y = (s & 7) + int(_DF[d]), (s >> 3) + int(_DR[d])
        while 0 <= x < 8 and 0 <= y < 8:
            out |= 1 << (y * 8 + x)
            if (occ >> (y * 8 + x)) & 1:
                break
            x, y = x + int(_DF[d]), y + int(_DR[d])
    return out


def test_square_of_every_bit() -> None:
    for s in range(64):
        assert mg.square_of(np.uint64(1) << np.uint64(s)) == s


def test_slides_match_a_walk() -> None:
    rng = random.Random(20)
    for _ in range(400):
        occ = 0
        for _ in range(rng.randrange(0, 12)):
            occ |= 1 << rng.randrange(64)
        for s in range(64):
            for kind in (mg.BISHOP, mg.ROOK, mg.QUEEN):
                assert int(mg.slides(kind, s, np.uint64(occ))) == _slides_walk(kind, s, occ), (kind, s, occ)


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _walked(spec: I64, slot: int, sq: I64, kinds: I64, owners: I64, stm: int, out: I64, work: I64) -> int:
    """`predecessors` as it was first written: each man's un-moves walked square by square, each
    origin tested for a check with `_attacks`."""
    n = 2 + spec[0]
    mover = 1 - stm
    king = sq[stm]
    turn = ix.turn_step(spec, stm)
    occ = np.uint64(0)
    for k in range(n):
        occ |= mg.bit(sq[k])
    top = out.shape[0]
    count = 0
    moved = 0
    symmetric = spec[1] > 0 and ix.pawns_symmetric(spec, sq)
    for k in range(n):
        if owners[k] != mover or kinds[k] == mg.PAWN:
            continue
        kind = kinds[k]
        s = sq[k]
        rest = occ & ~mg.bit(s)
        allowed = mg.evasions(king, mover, sq, kinds, owners, n, k, rest) & ~occ
        if allowed == 0:
            continue
        fast = ix.step(spec, sq, k)
        origins = np.empty(64, np.int64)
        found = 0
        if kind == mg.KING or kind == mg.KNIGHT:
            for t in range(8):
                f = mg.KING_TO[s, t] if kind == mg.KING else mg.KNIGHT_TO[s, t]
                if f < 0:
                    break
                origins[found] = f
                found += 1
        else:
            for d in range(8):
                diagonal = d >= 4
                if (diagonal and kind == mg.ROOK) or (not diagonal and kind == mg.BISHOP):
                    continue
                x = (s & 7) + _DF[d]
                y = (s >> 3) + _DR[d]
                while 0 <= x < 8 and 0 <= y < 8:
                    f = y * 8 + x
                    if (occ >> np.uint64(f)) & np.uint64(1):
                        break
                    origins[found] = f
                    found += 1
                    x += _DF[d]
                    y += _DR[d]
        for o in range(found):
            f = origins[o]
            if not (allowed >> np.uint64(f)) & np.uint64(1):
                continue
            if mg._attacks(kind, mover, f, king, rest):
                continue
            if fast:
                out[count] = slot + turn + (f - s) * fast
                count += 1
                continue
            if kind == mg.KING:
                delta = ix.king_step(spec, sq, k, f, symmetric)
                if delta != ix.NO_STEP:
                    out[count] = slot + turn + delta
                    count += 1
                    continue
            c, mv = retro._moved_slot(spec, sq, n, k, f, mover, work)
            if c < 0:
                continue
            if mv:
                moved += 1
                out[top - moved] = c
            else:
                out[count] = c
                count += 1
    return retro._merge_moved(out, count, moved)


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _mismatches(spec: I64, lo: int, hi: int, stride: int) -> int:
    """Valid slots lo, lo + stride, ... below hi whose predecessors (as sets) differ from the walk's."""
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    work = np.empty(10, np.int64)
    ours = np.empty(retro.MAX_PREDECESSORS, np.int64)
    theirs = np.empty(retro.MAX_PREDECESSORS, np.int64)
    ix.men_of(spec, kinds, owners)
    bad = 0
    for v in range(lo, hi, stride):
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            continue
        a = retro.predecessors(spec, v, sq, kinds, owners, stm, ours, work)
        b = _walked(spec, v, sq, kinds, owners, stm, theirs, work)
        if a != b or not np.array_equal(np.sort(ours[:a]), np.sort(theirs[:b])):
            bad += 1
    return bad


def _walks(*whole: tuple[str, int], sampled: tuple[tuple[str, int], ...]) -> list[object]:
    """The walks over every slot (or a fine stride) of small materials, run with -m slow, then the
    default run's: each of those materials on a stride of its slots from a seeded offset, and the
    larger materials' slices."""
    return [
        pytest.param(name, stride, marks=pytest.mark.slow, id=f"{name}-{stride}") for name, stride in whole
    ] + [pytest.param(name, stride, id=f"{name}-{stride}") for name, stride in sampled]


#: Every slot of the small materials (slow); a sample of each, and slices of the larger, by default.
WALKS = _walks(
    ("KQvK", 1),
    ("KBBvK", 1),
    ("KRvKN", 1),
    ("KRPvK", 5),
    ("KPvKP", 5),
    sampled=(("KQvK", 7), ("KBBvK", 13), ("KRvKN", 17), ("KRPvK", 61), ("KPvKP", 61), ("KQRvKR", 997)),
)


def _offset(name: str, stride: int) -> int:
    """The seeded first slot of a sample (the whole walk when stride is 1)."""
    return random.Random(name).randrange(stride)


@pytest.mark.parametrize(("name", "stride"), [*WALKS, ("KRPvKR", 331)])
def test_predecessors_match_the_walk(name: str, stride: int) -> None:
    spec = parse_material(name).spec
    total = int(ix.size(spec))
    assert _mismatches(spec, _offset(name, stride), total, stride) == 0


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _move_mismatches(spec: I64, lo: int, hi: int, stride: int) -> int:
    """Valid slots whose `_moves` (zeroing rows, then the quiet moves as rows) differ as a set from
    `legal_moves`, or whose zeroing rows are not exactly its captures and pawn moves, or whose quiet
    moves counted only are not as many."""
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    ours = np.empty(4 * mg.MAX_MOVES, np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, np.int64)
    theirs = np.empty(4 * mg.MAX_MOVES, np.int64)
    n = ix.men_of(spec, kinds, owners)
    bad = 0
    for v in range(lo, hi, stride):
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            continue
        zero, calm = retro._moves(sq, kinds, owners, n, stm, ours, quiet, True)
        count = mg.legal_moves(sq, kinds, owners, n, stm, theirs)
        keys = np.empty(zero + calm, np.int64)
        for e in range(zero):
            j, to, promo, cap = ours[4 * e], ours[4 * e + 1], ours[4 * e + 2], ours[4 * e + 3]
            if cap < 0 and promo == 0 and kinds[j] != mg.PAWN:
                bad += 1
            keys[e] = ((j * 64 + to) * 8 + promo) * 8 + cap + 1
        for e in range(calm):
            keys[zero + e] = ((quiet[2 * e] * 64 + quiet[2 * e + 1]) * 8) * 8
        expected = np.empty(count, np.int64)
        for e in range(count):
            j, to, promo, cap = theirs[4 * e], theirs[4 * e + 1], theirs[4 * e + 2], theirs[4 * e + 3]
            expected[e] = ((j * 64 + to) * 8 + promo) * 8 + cap + 1
        if zero + calm != count or not np.array_equal(np.sort(keys), np.sort(expected)):
            bad += 1
        if retro._moves(sq, kinds, owners, n, stm, ours, quiet, False) != (zero, calm):  # counted only
            bad += 1
    return bad


@pytest.mark.parametrize(("name", "stride"), [*WALKS, ("KRPvKP", 331)])
def test_split_moves_match_legal_moves(name: str, stride: int) -> None:
    spec = parse_material(name).spec
    assert _move_mismatches(spec, _offset(name, stride), int(ix.size(spec)), stride) == 0


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _step_mismatches(spec: I64, lo: int, hi: int, stride: int) -> int:
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    bases = retro.step_bases(spec)
    n = ix.men_of(spec, kinds, owners)
    bad = 0
    for v in range(lo, hi, stride):
        if ix.valid(spec, v, sq, kinds, owners, image) < 0:
            continue
        for k in range(n):
            if ix.step(spec, sq, k) != (0 if ix.self_symmetric(spec, sq) else bases[k]):
                bad += 1
    return bad


@pytest.mark.parametrize("name", ["KQvKR", "KBBvK", "KRPvK", "KPPvK", "KRRvKR", "KRPvKP"])
def test_step_bases(name: str) -> None:
    spec = parse_material(name).spec
    assert _step_mismatches(spec, 0, int(ix.size(spec)), 97) == 0


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _valid_mismatches(spec: I64, stride: int) -> int:
    """Slots where `valid` differs from its definition: distinct squares, kings apart, the slot its
    position's `canonical` one, the side not to move not in check (`valid` skips `canonical` where the
    men's order alone decides)."""
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    n = ix.men_of(spec, kinds, owners)
    bad = 0
    for v in range(0, ix.size(spec), stride):
        got = ix.valid(spec, v, sq, kinds, owners, image)
        stm = ix.decode(spec, v, sq)
        occ = np.uint64(0)
        ok = True
        for k in range(n):
            if occ & mg.bit(sq[k]):
                ok = False
            occ |= mg.bit(sq[k])
        ok = ok and not (mg.KING_ATT[sq[0]] >> np.uint64(sq[1])) & np.uint64(1)
        ok = ok and ix.canonical(spec, sq, stm, image) == v
        ok = ok and not mg.attacked(sq[1 - stm], stm, sq, kinds, owners, n, -1, occ)
        if got != (stm if ok else -1):
            bad += 1
    return bad


@pytest.mark.parametrize(
    ("name", "stride"), [("KPvK", 1), ("KRPvK", 3), ("KRvKP", 3), ("KPPvK", 7), ("KQvKR", 3)]
)
def test_valid_matches_its_definition(name: str, stride: int) -> None:
    assert _valid_mismatches(parse_material(name).spec, stride) == 0


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _run_mismatches(spec: I64, stride: int) -> tuple[int, int]:
    """Runs of 64 slots (every `stride`-th) where `valid_run` differs from `valid` slot by slot, and
    how many runs it decided."""
    sq = np.empty(5, np.int64)
    kinds = np.empty(5, np.int64)
    owners = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    ix.men_of(spec, kinds, owners)
    bad = 0
    decided = 0
    for start in range(0, ix.size(spec), 64 * stride):
        stm = ix.decode(spec, start, sq)
        if not ix.run_decided(spec, sq):
            continue
        decided += 1
        run = ix.valid_run(spec, sq, stm, kinds, owners)
        for x in range(64):
            want = ix.valid(spec, start + x, sq, kinds, owners, image) >= 0
            if bool((run >> np.uint64(x)) & np.uint64(1)) != want:
                bad += 1
                break
    return bad, decided


@pytest.mark.parametrize(
    ("name", "stride"),
    [("KQvK", 1), ("KQvKR", 1), ("KRRvK", 1), ("KBNvK", 1), ("KRPvK", 1), ("KRvKP", 1), ("KNNvKN", 13),
     ("KQRvKR", 29), ("KRPvKR", 7), ("KRRvKP", 7)],
)  # fmt: skip
def test_valid_runs_match_valid(name: str, stride: int) -> None:
    bad, decided = _run_mismatches(parse_material(name).spec, stride)
    assert decided > 0
    assert bad == 0


@numba.njit(cache=True)  # compiled once, then loaded by every later run
def _pawnless_mismatches(spec: I64, seed: int, count: int, diagonal: bool) -> tuple[int, int]:
    """Random placements (men on distinct squares, kings apart) with a random man moved to a random
    empty square, the new kings both on the long diagonal or not (`diagonal`; there two images share
    the kings' index): how many `ix.pawnless_moved` differ from `canonical_moved`, and how many were
    tried."""
    np.random.seed(seed)
    n = 2 + spec[0]
    sq = np.empty(5, np.int64)
    moved = np.empty(5, np.int64)
    image = np.empty(5, np.int64)
    bad = 0
    tried = 0
    while tried < count:
        occ = np.uint64(0)
        for k in range(n):
            s = 9 * np.random.randint(8) if diagonal and k < 2 else np.random.randint(64)
            while occ & mg.bit(s):
                s = 9 * np.random.randint(8) if diagonal and k < 2 else np.random.randint(64)
            sq[k] = s
            occ |= mg.bit(s)
        k = np.random.randint(n)
        f = 9 * np.random.randint(8) if diagonal and k < 2 else np.random.randint(64)
        if occ & mg.bit(f):
            continue
        for i in range(n):
            moved[i] = sq[i]
        moved[k] = f
        if (mg.KING_ATT[moved[0]] >> np.uint64(moved[1])) & np.uint64(1):
            continue
        if ix.KK_AMBIGUOUS[moved[0] * 64 + moved[1]] != diagonal:
            continue
        stm = np.random.randint(2)
        tried += 1
        if ix.pawnless_moved(spec, sq, k, f, stm) != ix.canonical_moved(spec, moved, stm, image):
            bad += 1
    return bad, tried


@pytest.mark.parametrize("name", ["KvK", "KQvK", "KQvKR", "KRRvK", "KQRvKR", "KNNvKN", "KBBvKB", "KRRvKR"])
def test_pawnless_moved_matches_canonical_moved(name: str) -> None:
    spec = parse_material(name).spec
    for diagonal in (False, True):
        bad, tried = _pawnless_mismatches(spec, 33, 200_000, diagonal)
        assert (bad, tried) == (0, 200_000)
    rng = random.Random(33)
    for turn in range(600):  # and the plain reference, on its own (every other placement's kings on
        men = rng.sample(range(64), 2 + int(spec[0]))  # the long diagonal)
        if turn % 2:
            men[:2] = [9 * s for s in rng.sample(range(8), 2)]
            if len(set(men)) < len(men):
                continue
        if int(mg.KING_ATT[men[0]]) >> men[1] & 1:
            continue
        stm = rng.randrange(2)
        sq = np.array(men + [0] * (5 - len(men)), np.int64)
        slot, _ = ix.pawnless_moved(spec, sq, 0, men[0], stm)
        assert slot == ix.canonical_reference(spec, men, stm)


def test_long_diagonals_are_the_squares_a_symmetry_leaves() -> None:
    for s in range(64):
        fixed = any(ix.transform_reference(s, t) == s for t in range(1, 8))
        assert bool(int(ix.LONG_DIAGONALS) >> s & 1) == fixed
    pawnless, pawnful = parse_material("KQRvKR").spec, parse_material("KRPvKR").spec
    assert [s for s in range(64) if not ix.distinct_images(pawnless, s)] == [
        s for s in range(64) if s % 9 == 0 or (s % 7 == 0 and 0 < s < 63)
    ]
    assert all(ix.distinct_images(pawnful, s) for s in range(64))


def test_plain_squares_are_where_a_king_steps_the_slot() -> None:
    """KK_PLAIN_TO holds a square exactly where a king moved there, the other king on its square,
    makes a pair in the pawnless index's domain and off the a1-h8 diagonal both (`king_step`'s
    condition), for either king."""
    for k in range(2):
        for other in range(64):
            for f in range(64):
                pair = f * 64 + other if k == 0 else other * 64 + f
                expected = int(mg.KK_INDEX[pair]) >= 0 and not ix.KK_AMBIGUOUS[pair]
                assert bool(int(ix.KK_PLAIN_TO[k * 64 + other]) >> f & 1) == expected, (k, other, f)


def test_pair_codes_hold_the_pairs_symmetry_and_index() -> None:
    """KK_CODE packs, per king pair, the symmetry bringing it into KK_INDEX's domain, its image's
    index there and whether it is ambiguous (both kings on the a1-h8 diagonal), -1 for kings that
    clash."""
    for a in range(64):
        for b in range(64):
            code = int(ix.KK_CODE[a * 64 + b])
            t = int(ix.KK_TRANSFORM[a * 64 + b])
            if t < 0:
                assert code == -1
                continue
            image = ix.transform_reference(a, t) * 64 + ix.transform_reference(b, t)
            assert code & 7 == t
            assert (code >> 3) & 511 == int(mg.KK_INDEX[image]) >= 0
            assert code >> 12 == int(ix.KK_AMBIGUOUS[a * 64 + b])


@pytest.mark.parametrize("name", ["KQvKR", "KRRvK", "KBBvKB", "KQRvKR"])
def test_king_repeats_count_the_repeated_children(name: str) -> None:
    """`prepare`'s count of repeated children (a pawnless position whose other king stands on a long
    diagonal, its kings' pair plain) against the distinct slots of its children placed one by one by
    the index's plain reference, where it tells the count (-1: the caller places every child, as
    where a king's child of another image has the same kings' index)."""
    spec = parse_material(name).spec
    sq, kinds, owners, image = (np.zeros(5, np.int64) for _ in range(4))
    moves = np.empty(4 * mg.MAX_MOVES, np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, np.int64)
    kids = np.empty(mg.MAX_MOVES, np.int64)
    n = ix.men_of(spec, kinds, owners)
    rng = random.Random(33)
    told = untold = 0
    while told < 300:
        v = rng.randrange(int(ix.size(spec)))
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0 or ix.distinct_images(spec, sq[1 - stm]) or ix.KK_AMBIGUOUS[sq[0] * 64 + sq[1]]:
            continue
        _zero, calm = retro._moves(sq, kinds, owners, n, stm, moves, quiet, True)
        repeats = retro._king_repeats(spec, sq, v, stm, ix.turn_step(spec, stm), quiet, calm, kids)
        if repeats < 0:
            untold += 1
            continue
        children = set()
        for e in range(calm):
            child = [int(s) for s in sq[:n]]
            child[int(quiet[2 * e])] = int(quiet[2 * e + 1])
            children.add(ix.canonical_reference(spec, child, 1 - stm))
        assert repeats == calm - len(children), (name, v)
        told += 1
    assert untold > 0  # the sample holds positions it leaves to the caller too
