"""A batch of misère sums answered in one pass: every position's text parsed, folded in the quotient and
written in canonical form by one numba kernel over the batch's bytes.

Parsing dominated a batch of long sums (a 1,000-heap sum is 7 kB of text: `parse_heaps`, a sort and
`format` per position cost far more than its 1,000 table lookups). Here the batch's texts are joined
and encoded once, and `parse_fold_kernel` walks the bytes: each heap is read (eight bytes at a time,
`digits`), mapped to its element (the pretending function, or its certified period past the bound) and
folded as it is read (the monoid is commutative: the order of the heaps does not matter). A text that
is canonical already (heaps ascending, no zero heap, no leading zero, single spaces) is its own
canonical form; any other is sorted (insertion sort for a few heaps, else a radix sort) and written to
the output buffer: heaps of up to seven digits are sorted as keys that say where each was read, and
their text copied from there, a word a heap; others are written digit by digit.

What the kernel does not answer it marks for the caller's per-position path (`SLOW`): a character other
than a digit or a space, a token too long for int64, more heaps or characters than a position may have,
a heap past an uncertified bound (the bounded search), a text that is not ASCII (never sent to the
kernel). That path gives each its own error quoting the position, exactly as before.

`parse_fold_reference` is the plain-Python reference the tests compare the kernel with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from engine.positions import MAX_HEAPS, MAX_POSITION_CHARS
from kinds.heaps.misere.digits import SLACK, SMALL, digit_run, digits_value, load8, store8, write_small
from kinds.heaps.misere.monoid import Quotient

I8 = NDArray[np.int8]
I64 = NDArray[np.int64]
#: Item statuses: answered, or left to the per-position path.
OK = 0
SLOW = 1
#: The longest token the kernel reads (below 10^18 < 2^63); longer ones go the per-position way.
MAX_DIGITS = 18
#: A heap of one to seven digits written without a leading zero is also kept as a key: its value, its
#: digits' count and where it starts in its text (OFFSET_BITS: MAX_POSITION_CHARS fit), so that sorted
#: by value its text is copied rather than written again (`_copy`).
OFFSET_BITS = MAX_POSITION_CHARS.bit_length()
OFFSET_MASK = (1 << OFFSET_BITS) - 1
KEY_SHIFT = OFFSET_BITS + 3
#: Sorting: insertion sort up to this many heaps, a radix sort past it, RADIX_BITS bits a pass.
INSERTION_UPTO = 32
RADIX_BITS = 11


@numba.njit(cache=True, nogil=True)
def _residue(x: int, m: int, inverse: float) -> int:
    """x mod m for x >= 0, m >= 1 (`inverse` = 1/m): below 2^52 by a float product and a correction,
    which costs a fraction of an integer division; above it, by the division."""
    if x >= 1 << 52:
        return x % m
    r = x - int(x * inverse) * m
    while r < 0:
        r += m
    while r >= m:
        r -= m
    return r


@numba.njit(cache=True, nogil=True)
def _sort(heaps: NDArray[np.int64], count: int, scratch: NDArray[np.int64], skip: int) -> None:
    """heaps[:count] ascending by their bits from `skip` up, in place (non-negative values; the bits
    below `skip` are carried along). Past INSERTION_UPTO, a least significant digit radix sort: as few
    passes of at most RADIX_BITS bits as the largest heap needs, in digits of equal width (heaps below
    10^6: two passes of 10 bits), every pass's counts taken in one read."""
    if count <= INSERTION_UPTO:
        for i in range(1, count):
            x = heaps[i]
            j = i - 1
            while j >= 0 and heaps[j] > x:
                heaps[j + 1] = heaps[j]
                j -= 1
            heaps[j + 1] = x
        return
    top = 0
    for i in range(count):
        top |= heaps[i] >> skip
    bits = 0
    while (top >> bits) > 0:
        bits += 1
    if bits == 0:
        return
    passes = (bits + RADIX_BITS - 1) // RADIX_BITS
    width = (bits + passes - 1) // passes
    mask = (1 << width) - 1
    counts = np.zeros((passes, 1 << width), dtype=np.int64)
    for i in range(count):
        x = heaps[i]
        for p in range(passes):
            counts[p, (x >> (skip + p * width)) & mask] += 1
    source = heaps
    target = scratch
    for p in range(passes):
        total = 0
        for b in range(1 << width):
            c = counts[p, b]
            counts[p, b] = total
            total += c
        shift = skip + p * width
        for i in range(count):
            x = source[i]
            b = (x >> shift) & mask
            target[counts[p, b]] = x
            counts[p, b] += 1
        source, target = target, source
    if source is not heaps:
        heaps[:count] = source[:count]


#: "00" to "99" as bytes: `_write` makes two digits a division.
PAIRS = np.frombuffer("".join(f"{n:02d}" for n in range(100)).encode(), dtype=np.uint8).copy()


@numba.njit(cache=True, nogil=True)
def _write_large(x: int, out: NDArray[np.uint8], at: int) -> int:
    """x > SMALL in decimal from out[at]; the end. Unsigned arithmetic, the length first, then two
    digits a division, from the right."""
    v = np.uint64(x)
    length = 1
    power = np.uint64(10)
    while length < 19 and v >= power:
        length += 1
        power *= np.uint64(10)
    at += length
    pos = at
    while v >= 100:
        q = v // np.uint64(100)
        r = np.int64(v - q * np.uint64(100))
        pos -= 2
        out[pos] = PAIRS[2 * r]
        out[pos + 1] = PAIRS[2 * r + 1]
        v = q
    if v >= 10:
        out[pos - 2] = PAIRS[2 * np.int64(v)]
        out[pos - 1] = PAIRS[2 * np.int64(v) + 1]
    else:
        out[pos - 1] = 48 + np.int64(v)
    return at


@numba.njit(cache=True, nogil=True)
def _write(heaps: NDArray[np.int64], count: int, out: NDArray[np.uint8], at: int) -> int:
    """heaps[:count] (positive) as decimal text joined by single spaces, written from out[at] (with
    digits.SLACK bytes to spare past the end); the end. A heap of up to eight digits is one word."""
    for i in range(count):
        if i:
            out[at] = 32
            at += 1
        x = heaps[i]
        at = write_small(out, at, x) if x <= SMALL else _write_large(x, out, at)
    return at


@numba.njit(cache=True, nogil=True)
def _copy(
    keys: NDArray[np.int64], count: int, data: NDArray[np.uint8], start: int, out: NDArray[np.uint8], at: int
) -> int:
    """The heaps `keys[:count]` (KEY_SHIFT) point at in data[start:], copied in order joined by single
    spaces from out[at] (with digits.SLACK bytes to spare past the end); the end. Each heap and the
    space after it is one word: loaded where the heap was read, its digits kept, a space put after."""
    for i in range(count):
        key = keys[i]
        run = (key >> OFFSET_BITS) & 7
        word = np.uint64(load8(data, start + (key & OFFSET_MASK)))
        kept = word & ((np.uint64(1) << np.uint64(8 * run)) - np.uint64(1))
        store8(out, at, kept | (np.uint64(32) << np.uint64(8 * run)))
        at += run + 1
    return at - 1 if count else at


@numba.njit(cache=True, nogil=True)
def parse_fold_kernel(
    data: NDArray[np.uint8],
    starts: NDArray[np.int64],
    ends: NDArray[np.int64],
    table: NDArray[np.int32],
    phi: NDArray[np.int32],
    preperiod: int,
    period: int,
    max_heaps: int,
    max_chars: int,
) -> tuple[I8, NDArray[np.int32], I64, I8, NDArray[np.uint8], I64]:
    """For each item data[starts[i]:ends[i]]: its status (OK or SLOW), its element, its largest heap (0
    for none), whether its text is canonical already, and (where it is not) its canonical text, at
    out[spans[i]:spans[i+1]]. `period` 0: the quotient is not certified, and a heap past len(phi)-1 is
    SLOW. Each item is followed by a byte that is not a digit, and the last by digits.SLACK bytes (heaps
    are read eight bytes at a time: digits.load8); every byte is ASCII."""
    items = len(starts)
    status = np.zeros(items, dtype=np.int8)
    element = np.zeros(items, dtype=np.int32)
    canonical = np.zeros(items, dtype=np.int8)
    top = np.zeros(items, dtype=np.int64)
    out = np.empty(len(data) + SLACK, dtype=np.uint8)
    spans = np.zeros(items + 1, dtype=np.int64)
    widest = 0
    for i in range(items):
        if ends[i] - starts[i] > widest:
            widest = ends[i] - starts[i]
        if ends[i] + SLACK > len(data) or 48 <= data[ends[i]] <= 57:
            raise ValueError("an item not followed by a byte that is not a digit, or data without slack")
    if max_chars > OFFSET_MASK:
        raise ValueError("max_chars beyond the keys' offsets")
    heaps = np.empty(widest // 2 + 1, dtype=np.int64)
    keys = np.empty(widest // 2 + 1, dtype=np.int64)
    scratch = np.empty(widest // 2 + 1, dtype=np.int64)
    bound = len(phi) - 1
    inverse = 1.0 / period if period > 0 else 0.0
    mask = period - 1 if period > 0 and period & (period - 1) == 0 else -1  # a period of 2^k
    at = 0
    for i in range(items):
        spans[i] = at
        start = starts[i]
        end = ends[i]
        if end - start > max_chars:
            status[i] = SLOW
            spans[i + 1] = at
            continue
        count = 0
        tokens = 0
        z = 0
        z_odd = 0
        largest = 0
        # canonical as given: digits first and last, heaps apart by single spaces, no zero heap or
        # leading zero, heaps ascending (no descent)
        plain = end > start
        descents = False
        copied = True  # every heap has a key
        last_heap = -1
        bad = False
        pos = start
        while pos < end:
            word = load8(data, pos)
            run = int(digit_run(word))
            if run == 0:  # not a heap
                c = data[pos]
                if c == 32 or c == 9 or c == 10 or c == 13:
                    plain = False  # single spaces between heaps are passed over with the heap before
                    pos += 1
                    continue
                bad = True
                break
            c = np.uint64(word) & np.uint64(0xFF)  # the heap's first digit
            key_at = pos - start
            if run < 8:
                value = int(digits_value(word, run))
                key = (value << KEY_SHIFT) | (run << OFFSET_BITS) | key_at
                pos += run
                # the byte after the heap is in the word: a space is passed over with it (one at the
                # end is not canonical; two are seen as the second is read)
                if (np.uint64(word) >> np.uint64(8 * run)) & np.uint64(0xFF) == 32:
                    pos += 1
                    if pos == end:
                        plain = False
            else:  # eight digits or more: a byte at a time
                first = pos
                value = 0
                while pos < end:
                    d = data[pos]
                    if d < 48 or d > 57:
                        break
                    value = value * 10 + (d - 48)
                    pos += 1
                if pos - first > MAX_DIGITS:
                    bad = True
                    break
                copied = False
                key = 0
            tokens += 1  # zero heaps count toward the limit, as for the parser
            if c == 48:
                plain = False  # a zero heap, or a leading zero
                if value == 0:
                    continue
                copied = False
            descents |= value < last_heap  # no branch: sent unsorted, half of them would miss
            largest = max(largest, value)
            last_heap = value
            heaps[count] = value
            keys[count] = key
            count += 1
            if value <= bound:
                x = phi[value]
            elif mask >= 0:
                x = phi[preperiod + ((value - preperiod) & mask)]
            elif period > 0:
                x = phi[preperiod + _residue(value - preperiod, period, inverse)]
            else:
                bad = True
                break
            if count & 1:  # two products, the table's latency overlapped (commutative)
                z_odd = table[z_odd, x]
            else:
                z = table[z, x]
        if bad or tokens > max_heaps:
            status[i] = SLOW
            spans[i + 1] = at
            continue
        element[i] = table[z, z_odd]
        top[i] = largest
        in_order = not descents
        plain = plain and in_order
        if plain or (count == 0 and end == start):
            canonical[i] = 1
            spans[i + 1] = at
            continue
        if copied:
            if not in_order:
                _sort(keys, count, scratch, KEY_SHIFT)
            at = _copy(keys, count, data, start, out, at)
        else:
            if not in_order:
                _sort(heaps, count, scratch, 0)
            at = _write(heaps, count, out, at)
        spans[i + 1] = at
    return status, element, top, canonical, out[:at], spans


def parse_fold_reference(
    texts: Sequence[str], table: Sequence[Sequence[int]], phi: Sequence[int], preperiod: int, period: int
) -> list[tuple[int, int, int, str | None]]:
    """Plain-Python reference of `parse_fold_kernel`, per text: (status, element, largest heap, canonical
    text or None where the text is canonical already); (SLOW, 0, 0, None) where the kernel leaves it to
    the caller."""
    bound = len(phi) - 1
    found: list[tuple[int, int, int, str | None]] = []
    slow = (SLOW, 0, 0, None)
    for text in texts:
        if len(text) > MAX_POSITION_CHARS or any(c not in "0123456789 \t\r\n" for c in text):
            found.append(slow)
            continue
        tokens = text.split()
        if any(len(t) > MAX_DIGITS for t in tokens):
            found.append(slow)
            continue
        heaps = sorted(int(t) for t in tokens if int(t))
        if len(tokens) > MAX_HEAPS or (heaps and heaps[-1] > bound and period == 0):
            found.append(slow)
            continue
        z = 0
        for h in heaps:
            z = table[z][phi[h] if h <= bound else phi[preperiod + (h - preperiod) % period]]
        canonical = " ".join(map(str, heaps))
        found.append((OK, z, heaps[-1] if heaps else 0, None if canonical == text else canonical))
    return found


@dataclass(frozen=True, slots=True)
class Folded:
    """What `parse_fold` found for a batch: per text its status, its element, its largest heap and its
    canonical text (None where SLOW)."""

    status: NDArray[np.int8]
    element: NDArray[np.int32]
    #: The largest heap of each sum (0 for the empty sum).
    top: NDArray[np.int64]
    positions: list[str | None]


def parse_fold(q: Quotient, texts: Sequence[str]) -> Folded:
    """`parse_fold_kernel` over `texts` in the quotient `q` (a text that is not ASCII is SLOW without
    being looked at)."""
    preperiod, period = (0, 0) if q.period is None else (q.period.preperiod, q.period.period)
    return fold_texts(texts, q.table, q.phi, preperiod, period)


def fold_texts(
    texts: Sequence[str], table: NDArray[np.int32], phi: NDArray[np.int32], preperiod: int, period: int
) -> Folded:
    """`parse_fold` in the quotient given by its table, pretending function and period (0: none)."""
    ascii_ok = [t.isascii() for t in texts]
    plain = list(texts) if all(ascii_ok) else [t if ok else "" for t, ok in zip(texts, ascii_ok, strict=True)]
    # items apart by a byte that is not a digit, the last followed by SLACK of them: every 8-byte read
    # from a position in an item stays in the buffer, and a run of digits ends with its item
    data = np.frombuffer("\n".join([*plain, "\n" * (SLACK - 1)]).encode("ascii"), dtype=np.uint8)
    lengths = np.array(list(map(len, plain)), dtype=np.int64)
    starts = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum(lengths[:-1] + 1, out=starts[1:])
    ends = starts + lengths
    status, element, top, canonical, out, spans = parse_fold_kernel(
        data, starts, ends, table, phi, preperiod, period, MAX_HEAPS, MAX_POSITION_CHARS
    )
    raw = memoryview(out.data)  # each canonical text is decoded straight from the kernel's buffer
    positions: list[str | None] = []
    for i, text in enumerate(texts):
        if not ascii_ok[i]:
            status[i] = SLOW
            positions.append(None)
        elif status[i] != OK:
            positions.append(None)
        elif canonical[i]:
            positions.append(text)
        else:
            positions.append(str(raw[spans[i] : spans[i + 1]], "ascii"))
    return Folded(status, element, top, positions)
