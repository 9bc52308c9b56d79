"""How one block of a chess table's values is written (kinds.chess.blocks holds the blocks and their index).

Format 5 (written now): as format 4, with three flags in the form byte, each block written in the form
of the four that zstd writes in fewest bytes (tried at a fast level, the chosen one written at LEVEL):

- `RANKED`: the second metric's planes hold its rank beside the slot's DTM value (kinds.chess.ranks,
  stored once per material with the block index), mostly zeros: given DTM, the second metric says
  little (a tenth of its own entropy over KBNvKN);
- `SWAPPED`: the block, whole 64 x 64 squares of the last two men, written with those two men's
  squares swapped (the last man's square varying slowest of the two): in some materials the last man
  says less of the value than the one before.

Together they take two fifths off format 4's bytes on KBNvKN (bench.bench_chess_stored). The chosen form
is written with level 15's parameters searching a quarter as far (`_packer`), and a pawnless table's
(`delta`) with matches of six bytes or more: 0.2 % more bytes than level 15 over the 4-man set (at most
2.4 %, KBNvK; KQRvKR's the same to 0.1 %) in two thirds of its time on pawnless tables, nine tenths on
pawn tables; this compression is the greater part of the write.

Format 4 (written before; still read): a form byte, then the block's four byte planes (low and high
bytes of DTM's code, then of the second metric's) compressed by zstd, which takes about 15 % off
deflate's bytes on the same planes at the level used and inflates a block faster. DTM's code is dense
where it can be (in format 5 too):

- `DENSE`: a win in d plies (d odd) is d + 1, a loss in d plies (d even, value -(d + 1)) is d + 1, a draw
  0: every code is used, so DTM of up to 254 plies fits the low plane (zigzag's codes leave half of their
  values unused, as DTM's parity is known from its sign);
- `ZIGZAG`: the zigzag code, for a block holding any value outside DTM's encoding (kept exact whatever the
  values: a block is written densely only when it decodes to the same values).

The second metric is DTZ (with pawns) or DTM - DTZ (without), zigzag-coded, as in format 3.

Format 3 (blocks written before): the same planes, zigzag-coded, deflated; still read.
"""

from __future__ import annotations

import zlib

import numpy as np
import zstandard
from numpy.typing import NDArray

from kinds.chess.format import _unzigzag, _zigzag
from kinds.chess.kernels import planes
from kinds.chess.ranks import BadRanks, Ranks

I16 = NDArray[np.int16]
U16 = NDArray[np.uint16]

#: The forms of a format-4 block's DTM code (its first byte).
ZIGZAG = 0
DENSE = 1
#: Format 5's flags in the form byte: the last two men's squares swapped within the block; the second
#: metric's planes holding its rank beside DTM (else its zigzag code, as in format 4).
SWAPPED = 2
RANKED = 4
#: zstd's level of the trials choosing a format-5 block's form (the chosen one is written by `_packer`):
#: it picks the same form as LEVEL nearly always, at a fraction of its time.
TRIAL_LEVEL = 3
#: The last two men's squares: the slots a swap permutes together.
_SQUARES = 64
#: zstd's level: 15 is within 1 % of 19's bytes here at well under half its time.
LEVEL = 15
#: Format 5's departures from LEVEL's parameters: log2 of the matches searched at a position (level 15:
#: 6), and the least match of a pawnless table's blocks (level 15: 3). Pawnless blocks lose about 0.5 %
#: of their bytes (KBNvKN; KQvKR 1.3 %, KQRvKR none) for a third of the time; pawn tables need the short
#: matches (6 costs them 3-5 %) and lose about 0.3 % for a tenth of the time (KRvKP, KQvKP, KPvKP).
SEARCH_LOG = 4
PAWNLESS_MIN_MATCH = 6


class BadBlock(ValueError):
    """A block's bytes that do not decode to its slots (the caller names the block)."""


def _dense(dtm: I16) -> U16 | None:
    """DTM's dense codes, None when a value is no DTM value (a win of even plies, a loss of odd ones)."""
    if np.count_nonzero(dtm & 1) + np.count_nonzero(dtm == 0) != len(dtm):  # wins odd, losses -(d + 1)
        return None  # with d even: odd too
    u = dtm.astype(np.uint16)  # wrapping: -v for a loss v (v + 1 of a win fits too)
    return np.where(dtm > 0, u + np.uint16(1), np.negative(u))


def _undense(codes: U16) -> I16:
    c = codes.astype(np.int32)
    return np.where((c & 1) == 1, -c, np.where(c > 0, c - 1, 0)).astype(np.int16)


def _planes(first: U16, second: U16) -> bytes:
    k = len(first)
    out = np.empty(4 * k, np.uint8)
    for at, c in enumerate((first, second)):
        np.copyto(out[2 * at * k : (2 * at + 1) * k], c, casting="unsafe")  # the low byte
        np.copyto(out[(2 * at + 1) * k : (2 * at + 2) * k], c >> 8, casting="unsafe")
    return out.tobytes()


def _second(dtm: I16, dtz: I16, delta: bool) -> I16:
    return (dtm.astype(np.int32) - dtz).astype(np.int16) if delta else dtz


def encode(dtm: I16, dtz: I16, delta: bool, level: int = LEVEL) -> bytes:
    """A block's stored bytes in format 4."""
    dense = _dense(dtm)
    form, first = (ZIGZAG, _zigzag(dtm)) if dense is None else (DENSE, dense)
    packer = zstandard.ZstdCompressor(level=level, write_content_size=False, write_checksum=False)
    return bytes([form]) + packer.compress(_planes(first, _zigzag(_second(dtm, dtz, delta))))


def encode_deflated(dtm: I16, dtz: I16, delta: bool, level: int = 6) -> bytes:
    """A block's stored bytes in format 3 (deflated zigzag planes): how blocks were written before."""
    return zlib.compress(_planes(_zigzag(dtm), _zigzag(_second(dtm, dtz, delta))), level)


def _swap(codes: U16) -> U16:
    """The codes of a block of whole 64 x 64 squares with its last two men's squares swapped (its own
    inverse)."""
    return np.ascontiguousarray(codes.reshape(-1, _SQUARES, _SQUARES).transpose(0, 2, 1)).reshape(-1)


def _packer(delta: bool, size: int) -> zstandard.ZstdCompressor:
    """The compressor of a format-5 block's `size` bytes of planes (`delta`: a pawnless table's)."""
    min_match = {"min_match": PAWNLESS_MIN_MATCH} if delta else {}
    params = zstandard.ZstdCompressionParameters.from_level(
        LEVEL, source_size=size, search_log=SEARCH_LOG, write_content_size=0, write_checksum=0, **min_match
    )
    return zstandard.ZstdCompressor(compression_params=params)


def encode_ranked(dtm: I16, dtz: I16, delta: bool, ranks: Ranks) -> bytes:
    """A block's stored bytes in format 5 (`ranks`: the whole table's, which hold every pair of it)."""
    dense = _dense(dtm)
    form, first = (ZIGZAG, _zigzag(dtm)) if dense is None else (DENSE, dense)
    second = _zigzag(_second(dtm, dtz, delta))
    trial = zstandard.ZstdCompressor(level=TRIAL_LEVEL, write_content_size=False, write_checksum=False)
    forms = {form: (first, second), form | RANKED: (first, ranks.rank(dtm, second))}
    if len(dtm) % (_SQUARES * _SQUARES) == 0 and len(dtm):
        forms.update({f | SWAPPED: (_swap(a), _swap(b)) for f, (a, b) in list(forms.items())})
    planes = {f: _planes(*codes) for f, codes in forms.items()}
    sizes = {f: len(trial.compress(data)) for f, data in planes.items()}
    best = min(sizes, key=lambda f: (sizes[f], f))
    return bytes([best]) + _packer(delta, len(planes[best])).compress(planes[best])


def decode(data: bytes, k: int, delta: bool, version: int, ranks: Ranks | None = None) -> tuple[I16, I16]:
    """DTM and DTZ of a block of `k` slots stored in format `version` (3, 4, or 5 with the table's
    `ranks`); BadBlock when not."""
    if version == 5:
        assert ranks is not None
        return _decode_ranked(data, k, delta, ranks)
    if version == 3:
        try:
            raw = zlib.decompress(data)
        except zlib.error as error:
            raise BadBlock(f"does not inflate ({error})") from None
        form = ZIGZAG
    else:
        if not data or data[0] not in (ZIGZAG, DENSE):
            raise BadBlock(f"has no known form (byte {data[:1]!r})")
        form = data[0]
        try:
            raw = zstandard.ZstdDecompressor().decompress(data[1:], max_output_size=4 * k)
        except zstandard.ZstdError as error:
            raise BadBlock(f"does not inflate ({error})") from None
    if len(raw) != 4 * k:
        raise BadBlock(f"holds {len(raw)} bytes, not {4 * k}")
    planes = np.frombuffer(raw, dtype=np.uint8).reshape(4, k).astype(np.uint16)
    first = planes[0] | planes[1] << 8
    dtm = _undense(first) if form == DENSE else _unzigzag(first)
    second = _unzigzag(planes[2] | planes[3] << 8)
    dtz = (dtm.astype(np.int32) - second).astype(np.int16) if delta else second
    return dtm, dtz


def _inflated(data: bytes, k: int) -> bytes:
    """The four planes of a zstd block of `k` slots (4k bytes)."""
    try:
        raw = zstandard.ZstdDecompressor().decompress(data, max_output_size=4 * k)
    except zstandard.ZstdError as error:
        raise BadBlock(f"does not inflate ({error})") from None
    if len(raw) != 4 * k:
        raise BadBlock(f"holds {len(raw)} bytes, not {4 * k}")
    return raw


def _ranked_form(data: bytes, k: int) -> int:
    """A format-5 block's form byte; BadBlock where it names no form (or a swap its slots cannot take)."""
    form = data[0] if data else -1
    if not 0 <= form <= DENSE | SWAPPED | RANKED or (form & SWAPPED and k % (_SQUARES * _SQUARES)):
        raise BadBlock(f"has no known form (byte {data[:1]!r})")
    return form


#: `planes.decode_planes`' inconsistencies, as `Ranks.second` names them.
_PLANE_ERRORS = {
    planes.DTM_UNRANKED: "a DTM value the ranks do not hold",
    planes.RANK_PAST: "a rank past its DTM value's pairs",
}


def _decode_ranked(data: bytes, k: int, delta: bool, ranks: Ranks) -> tuple[I16, I16]:
    """A format-5 block decoded by the compiled kernel (kinds.chess.kernels.planes), in one pass."""
    form = _ranked_form(data, k)
    raw = np.frombuffer(_inflated(data[1:], k), dtype=np.uint8)
    dtm, dtz = np.empty(k, np.int16), np.empty(k, np.int16)
    status = planes.decode_planes(
        raw,
        k,
        bool(form & DENSE),
        bool(form & SWAPPED),
        bool(form & RANKED),
        delta,
        ranks.least,
        ranks.counts,
        ranks.starts,
        ranks.seconds,
        dtm,
        dtz,
    )
    if status != planes.DONE:
        raise BadBlock(_PLANE_ERRORS[status])
    return dtm, dtz


def decode_ranked_reference(data: bytes, k: int, delta: bool, ranks: Ranks) -> tuple[I16, I16]:
    """`_decode_ranked` in numpy, a step at a time: the plain reference the tests compare the kernel with."""
    form = _ranked_form(data, k)
    planes_ = np.frombuffer(_inflated(data[1:], k), dtype=np.uint8).reshape(4, k).astype(np.uint16)
    first, codes = planes_[0] | planes_[1] << 8, planes_[2] | planes_[3] << 8
    if form & SWAPPED:
        first, codes = _swap(first), _swap(codes)
    dtm = _undense(first) if form & DENSE else _unzigzag(first)
    try:
        second = _unzigzag(ranks.second(dtm, codes) if form & RANKED else codes)
    except BadRanks as bad:
        raise BadBlock(str(bad)) from None
    dtz = (dtm.astype(np.int32) - second).astype(np.int16) if delta else second
    return dtm, dtz


def load_kernels() -> None:
    """Compile (or load from numba's cache) the decoding kernel, on a block of one slot."""
    ranks = Ranks(0, np.ones(1, np.uint32), np.zeros(1, np.uint16))
    raw = np.frombuffer(bytes(4), dtype=np.uint8)
    one = np.empty(1, np.int16)
    args = (ranks.least, ranks.counts, ranks.starts, ranks.seconds, one, one.copy())
    planes.decode_planes(raw, 1, True, False, True, True, *args)
