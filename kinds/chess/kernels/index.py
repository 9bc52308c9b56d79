"""The perfect index of chess endgames of up to five men, pawns included (numba, with plain references).

A material's men besides the kings are ordered non-pawns first, then pawns, each side A (the stronger,
White in the index) before side B, strongest first; identical men (same type and side) are adjacent.
Its spec (int64[8]) is [m, pawns, t0, o0, t1, o1, t2, o2]: m men besides the kings, `pawns` of them
pawns, man i of type t_i (python-chess's: pawn 1 ... queen 5) owned by o_i (0 = A, 1 = B).

    slot = ((pawn_config * 2 + side_to_move) * kings + king_pair) * 64**pieces + piece squares

- pawn_config: the pawns' squares, the first pawn on files a-d of ranks 2-7 (24 places), the others
  anywhere on ranks 2-7 (48): the left-right mirror is the only symmetry pawns allow;
- king_pair: without pawns the 462 placements under the board's eight symmetries (the A king in the
  a1-d1-d4 triangle: kinds.chess.kernels.movegen's KK_INDEX); with pawns the raw 64 x 64;
- the other pieces' squares, 64 each.

Pawn configurations come first so that a pawn structure's positions are one contiguous block (a
"slice", solved as a unit: every move inside a slice moves a king or a piece, never a pawn). A slot is
valid when it names a legal position (men on distinct squares, the side not to move not in check) and
is its position's least slot among the symmetric images with identical men in ascending squares
(`canonical`); other slots are never read.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.kernels import movegen as mg

I64 = NDArray[np.int64]
PAWN = mg.PAWN
#: Most men besides the kings.
MAX_PIECES = 3
#: Length of a material's spec.
SPEC = 2 + 2 * MAX_PIECES
#: Squares a leading pawn may take (files a-d of ranks 2-7), and any other pawn (ranks 2-7).
LEAD_PAWN = 24
PAWN_SQUARES = 48


def _square_images() -> I64:
    """images[t, s]: square s under symmetry t (movegen's `_transform`, for every square at once, in numpy:
    calling the kernel from Python at import would load numba's typing context in every process)."""
    s = np.arange(64, dtype=np.int64)
    images = np.empty((8, 64), dtype=np.int64)
    for t in range(8):
        image = ((s & 7) << 3) | (s >> 3) if t & 4 else s.copy()
        if t & 1:
            image ^= 7
        if t & 2:
            image ^= 56
        images[t] = image
    return images


def _pawnless_transforms() -> tuple[I64, NDArray[np.bool_]]:
    """Per king pair (ka * 64 + kb): the symmetry bringing it into KK_INDEX's domain (-1: kings clash),
    and whether its transpose is in the domain too (both kings on the a1-h8 diagonal)."""
    images = _square_images()
    a, b = images[:, :, None], images[:, None, :]  # [t, ka, kb]
    inside = mg.KK_INDEX[a * 64 + b] >= 0
    first = inside.argmax(axis=0)  # the least symmetry that lands inside, where one does
    found = inside.any(axis=0)
    ka, kb = np.indices((64, 64))
    a_image, b_image = images[first, ka], images[first, kb]
    diagonal = ((a_image & 7) == (a_image >> 3)) & ((b_image & 7) == (b_image >> 3))
    transform = np.where(found, first, -1).astype(np.int64).reshape(4096)
    ambiguous = (found & diagonal).reshape(4096)
    return transform, ambiguous


KK_TRANSFORM, KK_AMBIGUOUS = _pawnless_transforms()
#: Square s under symmetry t at t * 64 + s (movegen's `_transform` as one table read).
SQUARE_IMAGE = _square_images().reshape(-1)
KK_INDEX_64 = mg.KK_INDEX.astype(np.int64)
#: KK_INDEX_64 less the pairs on the a1-h8 diagonal both (-1 there too): the pairs whose own image is
#: canonical whatever the other men.
KK_PLAIN = np.where(KK_AMBIGUOUS, -1, KK_INDEX_64)


def _plain_squares() -> NDArray[np.uint64]:
    """At k * 64 + s: the board of the squares king k (0 or 1) may stand on, the other king on s, with
    the pair in KK_PLAIN (in the domain, not ambiguous): a king's move there is a step of the slot."""
    plain = (KK_PLAIN >= 0).reshape(64, 64)  # [a, b]
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    out = np.zeros(128, dtype=np.uint64)
    for s in range(64):
        out[s] = np.bitwise_or.reduce(np.where(plain[:, s], weights, np.uint64(0)))
        out[64 + s] = np.bitwise_or.reduce(np.where(plain[s, :], weights, np.uint64(0)))
    return out


#: `_plain_squares`: where a pawnless king's move changes the slot by a step (`king_step`).
KK_PLAIN_TO = _plain_squares()


def _pair_codes() -> I64:
    """Per king pair (ka * 64 + kb), all `pawnless_slot` reads of it in one number (one table read
    instead of a chain of four): the symmetry t bringing it into KK_INDEX's domain, the index of its
    image there, and whether it is ambiguous, as t | index << 3 | ambiguous << 12; -1 where the kings
    clash."""
    ka, kb = np.indices((64, 64)).reshape(2, 4096)
    t = np.maximum(KK_TRANSFORM, 0)
    images = SQUARE_IMAGE.reshape(8, 64)
    index = KK_INDEX_64[images[t, ka] * 64 + images[t, kb]]
    codes = t | index << 3 | KK_AMBIGUOUS.astype(np.int64) << 12
    return np.where(KK_TRANSFORM < 0, -1, codes).astype(np.int64)


#: `_pair_codes`.
KK_CODE = _pair_codes()


@numba.njit(cache=True, nogil=True, inline="always")
def pieces_size(spec: I64) -> int:
    return int(1 << (6 * (spec[0] - spec[1])))


@numba.njit(cache=True, nogil=True, inline="always")
def kings_size(spec: I64) -> int:
    return 4096 if spec[1] else mg.KK_PAWNLESS


@numba.njit(cache=True, nogil=True)
def block_size(spec: I64) -> int:
    """Slots of one pawn configuration, either side to move (a slice)."""
    return 2 * kings_size(spec) * pieces_size(spec)


@numba.njit(cache=True, nogil=True)
def configs(spec: I64) -> int:
    """Pawn configurations (1 without pawns)."""
    p = spec[1]
    if p == 0:
        return 1
    return int(LEAD_PAWN * PAWN_SQUARES ** (p - 1))


@numba.njit(cache=True, nogil=True)
def size(spec: I64) -> int:
    return configs(spec) * block_size(spec)


@numba.njit(cache=True, nogil=True, inline="always")
def _sort_identical(spec: I64, sq: I64) -> None:
    m = spec[0]
    for _ in range(2):
        for i in range(m - 1):
            same = spec[2 + 2 * i] == spec[4 + 2 * i] and spec[3 + 2 * i] == spec[5 + 2 * i]
            if same and sq[2 + i] > sq[3 + i]:
                sq[2 + i], sq[3 + i] = sq[3 + i], sq[2 + i]


@numba.njit(cache=True, nogil=True, inline="always")
def _ascending(spec: I64, sq: I64) -> bool:
    """Whether identical men stand in ascending order of squares."""
    for i in range(spec[0] - 1):
        same = spec[2 + 2 * i] == spec[4 + 2 * i] and spec[3 + 2 * i] == spec[5 + 2 * i]
        if same and sq[2 + i] > sq[3 + i]:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def encode(spec: I64, sq: I64, stm: int) -> int:
    """The slot of men on `sq` (kings A, B, then the others in spec order) as they stand, -1 when past
    the index's domain (kings outside it, a pawn on a back rank or a leading pawn on files e-h)."""
    m = spec[0]
    p = spec[1]
    if p:
        kk = sq[0] * 64 + sq[1]
    else:
        kk = mg.KK_INDEX[sq[0] * 64 + sq[1]]
        if kk < 0:
            return -1
    config = 0
    for i in range(m - p, m):
        s = sq[2 + i]
        if s < 8 or s > 55:
            return -1
        if i == m - p:
            if (s & 7) > 3:
                return -1
            config = ((s >> 3) - 1) * 4 + (s & 7)
        else:
            config = config * PAWN_SQUARES + s - 8
    rest = 0
    for i in range(m - p):
        rest = rest * 64 + sq[2 + i]
    return int(((config * 2 + stm) * kings_size(spec) + kk) * pieces_size(spec) + rest)


@numba.njit(cache=True, nogil=True, inline="always")
def decode(spec: I64, slot: int, sq: I64) -> int:
    """The men's squares of a slot into `sq` (kings A, B, then the others); returns the side to move."""
    m = spec[0]
    p = spec[1]
    psize = pieces_size(spec)
    ksize = kings_size(spec)
    rest = slot % psize
    slot //= psize
    kk = slot % ksize
    slot //= ksize
    stm = slot % 2
    config = slot // 2
    for i in range(m - p - 1, -1, -1):
        sq[2 + i] = rest % 64
        rest //= 64
    if p:
        sq[0] = kk // 64
        sq[1] = kk % 64
        for i in range(m - 1, m - p, -1):
            sq[2 + i] = config % PAWN_SQUARES + 8
            config //= PAWN_SQUARES
        sq[2 + m - p] = (config // 4 + 1) * 8 + config % 4
    else:
        sq[0] = mg.KK_SQUARES[2 * kk]
        sq[1] = mg.KK_SQUARES[2 * kk + 1]
    return int(stm)


@numba.njit(cache=True, nogil=True, inline="always")
def canonical(spec: I64, sq: I64, stm: int, image: I64) -> int:
    """The least slot among a legal position's symmetric images (`sq` is left as it was; `image` is
    scratch space for 5 squares)."""
    return canonical_moved(spec, sq, stm, image)[0]


@numba.njit(cache=True, nogil=True, inline="always")
def canonical_moved(spec: I64, sq: I64, stm: int, image: I64) -> tuple[int, bool]:
    """`canonical`, and whether the least slot is another image's than the men as they stand (identical
    men sorted): only then may two different placements of the men share the slot."""
    n = 2 + spec[0]
    pawnful = spec[1] > 0
    t = 0
    images = 2
    if not pawnful:
        t = KK_TRANSFORM[sq[0] * 64 + sq[1]]
        if t < 0:
            return -1, False
        images = 2 if KK_AMBIGUOUS[sq[0] * 64 + sq[1]] else 1
    # the images in turn through one encode (the function is inlined where it is hot): with pawns the
    # men as they stand then mirrored, without the kings' symmetry then its transpose (both kings on the
    # a1-h8 diagonal)
    best = -1
    moved = False
    for r in range(images):
        for k in range(n):
            if pawnful:
                image[k] = sq[k] ^ 7 if r else sq[k]
            elif r == 0:
                image[k] = SQUARE_IMAGE[t * 64 + sq[k]]
            else:
                image[k] = ((image[k] & 7) << 3) | (image[k] >> 3)
        _sort_identical(spec, image)
        e = encode(spec, image, stm)
        if r == 0:
            best = e
            moved = t != 0
        elif pawnful:
            if not (best >= 0 and (e < 0 or best <= e)):
                best = e
                moved = True
        elif e >= 0 and e < best:
            best = e
            moved = True
    return best, moved


@numba.njit(cache=True, nogil=True, inline="always")
def pawnless_moved(spec: I64, sq: I64, k: int, f: int, stm: int) -> tuple[int, bool]:
    """`canonical_moved` of a pawnless position's men `sq` with man k on f instead, `stm` to move
    (`pawnless_slot`)."""
    m = spec[0]
    a = f if k == 0 else sq[0]
    b = f if k == 1 else sq[1]
    p0 = (f if k == 2 else sq[2]) if m > 0 else 0
    p1 = (f if k == 3 else sq[3]) if m > 1 else 0
    p2 = (f if k == 4 else sq[4]) if m > 2 else 0
    return pawnless_slot(spec, a, b, p0, p1, p2, stm)


@numba.njit(cache=True, nogil=True, inline="always")
def pawnless_slot(spec: I64, a: int, b: int, p0: int, p1: int, p2: int, stm: int) -> tuple[int, bool]:
    """`canonical_moved` of a pawnless position given as scalars (kings on a and b, the pieces on p0,
    p1, p2 as far as the material has them), as table reads on scalars (no image array to fill, sort
    and encode): the kings' one symmetry decides, and where it puts both kings on the a1-h8 diagonal
    the pieces' image or its transpose (the same kings' index), whichever packs less;
    (-1, False) for kings that touch or clash."""
    code = KK_CODE[a * 64 + b]
    if code < 0:
        return -1, False
    t = code & 7
    kk = (code >> 3) & 511
    at = t * 64
    q0 = SQUARE_IMAGE[at + p0]
    q1 = SQUARE_IMAGE[at + p1]
    q2 = SQUARE_IMAGE[at + p2]
    rest = _packed(spec, q0, q1, q2)
    moved = t != 0
    if code >> 12:
        tr = 4 * 64  # the transpose (symmetry 4) of the image
        other = _packed(spec, SQUARE_IMAGE[tr + q0], SQUARE_IMAGE[tr + q1], SQUARE_IMAGE[tr + q2])
        if other < rest:
            rest = other
            moved = True
    return int((stm * mg.KK_PAWNLESS + kk) * pieces_size(spec) + rest), moved


@numba.njit(cache=True, nogil=True, inline="always")
def _packed(spec: I64, q0: int, q1: int, q2: int) -> int:
    """The pieces' digits of a pawnless slot with the pieces on q0, q1, q2 (as far as the material has
    them), identical men sorted."""
    m = spec[0]
    same01 = m > 1 and spec[2] == spec[4] and spec[3] == spec[5]
    same12 = m > 2 and spec[4] == spec[6] and spec[5] == spec[7]
    for _ in range(2):
        if same01 and q0 > q1:
            q0, q1 = q1, q0
        if same12 and q1 > q2:
            q1, q2 = q2, q1
    if m == 0:
        return 0
    if m == 1:
        return int(q0)
    if m == 2:
        return int((q0 << 6) | q1)
    return int((q0 << 12) | (q1 << 6) | q2)


@numba.njit(cache=True, nogil=True, inline="always")
def men_of(spec: I64, kinds: I64, owners: I64) -> int:
    """Kinds and owners of the men (kings first) into the arrays; returns how many men."""
    kinds[0] = mg.KING
    kinds[1] = mg.KING
    owners[0] = 0
    owners[1] = 1
    for i in range(spec[0]):
        kinds[2 + i] = spec[2 + 2 * i]
        owners[2 + i] = spec[3 + 2 * i]
    return int(2 + spec[0])


@numba.njit(cache=True, nogil=True, inline="always")
def valid(spec: I64, slot: int, sq: I64, kinds: I64, owners: I64, image: I64) -> int:
    """The side to move of a slot naming a legal position in its canonical slot, else -1 (`sq` holds
    the men's squares, `kinds` and `owners` must hold `men_of`; `image` is scratch)."""
    stm = decode(spec, slot, sq)
    n = 2 + spec[0]
    occ = np.uint64(0)
    for k in range(n):
        bit = np.uint64(1) << np.uint64(sq[k])
        if occ & bit:
            return -1
        occ |= bit
    if (mg.KING_ATT[sq[0]] >> np.uint64(sq[1])) & np.uint64(1):
        return -1
    if spec[1] == 1 or (spec[1] == 0 and not KK_AMBIGUOUS[sq[0] * 64 + sq[1]]):
        # the kings of a pawnless slot are in KK_INDEX's domain, a lone pawn is on files a-d (its
        # mirror image past the index): the own image is the least unless identical men stand in
        # descending order
        if not _ascending(spec, sq):
            return -1
    elif spec[1] == 0:
        m = spec[0]
        p0 = sq[2] if m > 0 else 0
        p1 = sq[3] if m > 1 else 0
        p2 = sq[4] if m > 2 else 0
        if pawnless_slot(spec, sq[0], sq[1], p0, p1, p2, stm)[0] != slot:
            return -1
    elif canonical(spec, sq, stm, image) != slot:
        return -1
    if mg.attacked(sq[1 - stm], stm, sq, kinds, owners, n, -1, occ):
        return -1
    return stm


@numba.njit(cache=True, nogil=True, inline="always")
def run_decided(spec: I64, sq: I64) -> bool:
    """Whether `valid_run` decides the run of the men `sq`: the material has a piece (the index's
    last digit) and the men's order alone decides canonicity (`valid`'s own shortcut)."""
    if spec[0] == spec[1]:
        return False
    return spec[1] == 1 or (spec[1] == 0 and not KK_AMBIGUOUS[sq[0] * 64 + sq[1]])


@numba.njit(cache=True, nogil=True, inline="always")
def valid_run(spec: I64, sq: I64, stm: int, kinds: I64, owners: I64) -> np.uint64:
    """`valid` of the 64 slots a run of the index's last digit holds (the last piece on each square in
    turn, the other men on `sq`, `stm` to move; `run_decided` must hold) as one board: bit x set when
    the slot with the last piece on x names a position. One pass over the other men instead of 64:
    squares they hold, identical men's order, and the checks on the king not to move, each a board
    (a line piece checking it unless the last piece blocks, the last piece's own checks)."""
    n = 2 + spec[0]
    last = 1 + spec[0] - spec[1]  # the last piece's man
    occ = np.uint64(0)
    for k in range(n):
        if k == last:
            continue
        b = mg.bit(sq[k])
        if occ & b:
            return np.uint64(0)
        occ |= b
    if (mg.KING_ATT[sq[0]] >> np.uint64(sq[1])) & np.uint64(1):
        return np.uint64(0)
    out = ~occ
    for i in range(spec[0] - 1):
        same = spec[2 + 2 * i] == spec[4 + 2 * i] and spec[3 + 2 * i] == spec[5 + 2 * i]
        if not same:
            continue
        if 3 + i == last:
            out &= ~((mg.bit(sq[2 + i]) << np.uint64(1)) - np.uint64(1))  # squares above its twin's
        elif 2 + i != last and sq[2 + i] > sq[3 + i]:
            return np.uint64(0)
    target = sq[1 - stm]
    for a in range(n):
        if a == last or owners[a] != stm:
            continue
        kind = kinds[a]
        if mg.BISHOP <= kind <= mg.QUEEN:
            if mg._attacks(kind, stm, sq[a], target, occ):
                out &= mg.BETWEEN[sq[a] * 64 + target]
        elif mg._attacks(kind, stm, sq[a], target, occ):
            return np.uint64(0)
    if owners[last] == stm:
        out &= ~mg.attacks_of(kinds[last], 1 - stm, target, occ)
    return out


@numba.njit(cache=True, nogil=True)
def step(spec: I64, sq: I64, k: int) -> int:
    """How much the slot of a canonical position changes per square man k moves, when moving man k
    (not a king, not a pawn) keeps the position canonical whatever the square; 0 when it may not (the
    man has an identical twin, or the kings or pawns are symmetric themselves)."""
    if self_symmetric(spec, sq):
        return 0
    return step_base(spec, k)


@numba.njit(cache=True, nogil=True)
def step_base(spec: I64, k: int) -> int:
    """`step` of man k where the kings or pawns are not symmetric themselves (the material alone
    decides it: solvers read it once per man)."""
    m = spec[0]
    p = spec[1]
    i = k - 2
    if i < 0 or i >= m - p:
        return 0
    kind = spec[2 + 2 * i]
    owner = spec[3 + 2 * i]
    if i > 0 and spec[2 * i] == kind and spec[1 + 2 * i] == owner:
        return 0
    if i + 1 < m and spec[4 + 2 * i] == kind and spec[5 + 2 * i] == owner:
        return 0
    return int(1 << (6 * (m - p - 1 - i)))


@numba.njit(cache=True, nogil=True, inline="always")
def self_symmetric(spec: I64, sq: I64) -> bool:
    """Whether a symmetry maps the kings (without pawns) or the pawns onto themselves: then moving a
    piece may change which image is canonical."""
    if spec[1] == 0:
        return bool(KK_AMBIGUOUS[sq[0] * 64 + sq[1]])
    return pawns_symmetric(spec, sq)


@numba.njit(cache=True, nogil=True, inline="always")
def pawns_symmetric(spec: I64, sq: I64) -> bool:
    """Whether the pawns are their own mirror image (then the kings and pieces decide the canonical
    image)."""
    m = spec[0]
    p = spec[1]
    for a in range(m - p, m):
        found = False
        for b in range(m - p, m):
            if sq[2 + b] == sq[2 + a] ^ 7 and spec[3 + 2 * b] == spec[3 + 2 * a]:
                found = True
        if not found:
            return False
    return True


#: The squares of the a1-h8 and a8-h1 diagonals: the only squares a symmetry other than the identity
#: leaves in place (the transpose and the anti-transpose).
LONG_DIAGONALS = np.uint64(sum(1 << (9 * i) for i in range(8)) | sum(1 << (7 * i + 7) for i in range(8)))


@numba.njit(cache=True, nogil=True, inline="always")
def distinct_images(spec: I64, still: int) -> bool:
    """Whether the positions reached from one position by moving (or un-moving) men other than a king
    standing still on `still` all have distinct slots: two of them share one only through a symmetry
    other than the identity that leaves that king in place, which pawns (the mirror alone) never
    allow, and the board's symmetries only for a king on a long diagonal."""
    return spec[1] > 0 or not (LONG_DIAGONALS >> np.uint64(still)) & np.uint64(1)


#: `king_step` of a move that may change the position's symmetry.
NO_STEP = -(1 << 62)


@numba.njit(cache=True, nogil=True, inline="always")
def king_step(spec: I64, sq: I64, k: int, f: int, symmetric: bool) -> int:
    """What the slot of a canonical position changes by when king k (0 or 1) goes to f, the other side
    then to move, where the moved position's men as they stand are its canonical image; NO_STEP where
    they may not be (`canonical`). `symmetric`: the pawns' `pawns_symmetric` (ignored without pawns).

    Without pawns the kings decide: the new pair must be in KK_INDEX's domain and not on the a1-h8
    diagonal both. With pawns, the pawns decide unless they are symmetric."""
    a = f if k == 0 else sq[0]
    b = f if k == 1 else sq[1]
    if spec[1]:
        if symmetric:
            return NO_STEP
        step = (a * 64 + b) - (sq[0] * 64 + sq[1])
    else:
        new = KK_PLAIN[a * 64 + b]
        if new < 0:
            return NO_STEP
        step = new - KK_INDEX_64[sq[0] * 64 + sq[1]]
    return int(step * pieces_size(spec))


@numba.njit(cache=True, nogil=True, inline="always")
def turn_step(spec: I64, stm: int) -> int:
    """What the slot of a position changes by when the other side is to move instead of `stm`."""
    return int((1 - 2 * stm) * kings_size(spec) * pieces_size(spec))


@numba.njit(cache=True, nogil=True)
def valid_mask(spec: I64, lo: int, hi: int) -> NDArray[np.bool_]:
    """Whether each slot lo..hi-1 names a position (`valid`): counting these counts each position
    once."""
    out = np.zeros(hi - lo, dtype=np.bool_)
    sq = np.empty(2 + MAX_PIECES, dtype=np.int64)
    kinds = np.empty(2 + MAX_PIECES, dtype=np.int64)
    owners = np.empty(2 + MAX_PIECES, dtype=np.int64)
    image = np.empty(2 + MAX_PIECES, dtype=np.int64)
    men_of(spec, kinds, owners)
    for slot in range(lo, hi):
        out[slot - lo] = valid(spec, slot, sq, kinds, owners, image) >= 0
    return out


# -- plain references (the tests compare the numba functions with these) ---------------------------


def transform_reference(square: int, t: int) -> int:
    file, rank = square & 7, square >> 3
    if t & 4:
        file, rank = rank, file
    if t & 1:
        file = 7 - file
    if t & 2:
        rank = 7 - rank
    return rank * 8 + file


def canonical_reference(spec: I64, sq: list[int], stm: int) -> int:
    """`canonical` by trying every symmetry the material allows in plain Python."""
    m, p = int(spec[0]), int(spec[1])
    best = -1
    for t in range(2 if p else 8):
        image = [transform_reference(s, t) for s in sq]
        groups: dict[tuple[int, int], list[int]] = {}
        for i in range(m):
            groups.setdefault((int(spec[2 + 2 * i]), int(spec[3 + 2 * i])), []).append(image[2 + i])
        men = [s for key in groups for s in sorted(groups[key])]
        image = image[:2] + men
        if p:
            kk = image[0] * 64 + image[1]
            pawns = image[2 + m - p :]
            if any(s < 8 or s > 55 for s in pawns) or (pawns[0] & 7) > 3:
                continue
            config = ((pawns[0] >> 3) - 1) * 4 + (pawns[0] & 7)
            for s in pawns[1:]:
                config = config * PAWN_SQUARES + s - 8
            kings = 4096
        else:
            kk = int(mg.KK_INDEX[image[0] * 64 + image[1]])
            if kk < 0:
                continue
            config, kings = 0, mg.KK_PAWNLESS
        rest = 0
        for s in image[2 : 2 + m - p]:
            rest = rest * 64 + s
        slot = ((config * 2 + stm) * kings + kk) * 64 ** (m - p) + rest
        if best < 0 or slot < best:
            best = slot
    return best
