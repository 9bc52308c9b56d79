"""A batch of misère sums answered in one pass: every position's text parsed, folded in the quotient and
written in canonical form by one numba kernel over the batch's bytes.

Parsing dominated a batch of long sums (a 1,000-heap sum is 7 kB of text: `parse_heaps`, a sort and
`format` per position cost far more than its 1,000 table lookups). Here the batch's texts are joined
and encoded once, and `parse_fold_kernel` walks the bytes: each heap is read, mapped to its element
(the pretending function, or its certified period past the bound) and folded as it is read (the monoid
is commutative: the order of the heaps does not matter). A text that is canonical already (heaps
ascending, no zero heap, no leading zero, single spaces) is its own canonical form; any other is sorted
(insertion sort for a few heaps, else a byte-wise radix sort) and written to the output buffer.

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
from kinds.heaps.misere.monoid import Quotient

I8 = NDArray[np.int8]
I64 = NDArray[np.int64]
#: Item statuses: answered, or left to the per-position path.
OK = 0
SLOW = 1
#: The longest token the kernel reads (below 10^18 < 2^63); longer ones go the per-position way.
MAX_DIGITS = 18
#: Sorting: insertion sort up to this many heaps, a radix sort past it, RADIX_BITS bits a pass.
INSERTION_UPTO = 32
RADIX_BITS = 11
RADIX = 1 << RADIX_BITS


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
def _sort(heaps: NDArray[np.int64], count: int, scratch: NDArray[np.int64]) -> None:
    """heaps[:count] ascending, in place (non-negative values)."""
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
        if heaps[i] > top:
            top = heaps[i]
    buckets = np.zeros(RADIX, dtype=np.int64)
    source = heaps
    target = scratch
    shift = 0
    while (top >> shift) > 0:
        buckets[:] = 0
        for i in range(count):
            buckets[(source[i] >> shift) & (RADIX - 1)] += 1
        total = 0
        for b in range(RADIX):
            c = buckets[b]
            buckets[b] = total
            total += c
        for i in range(count):
            b = (source[i] >> shift) & (RADIX - 1)
            target[buckets[b]] = source[i]
            buckets[b] += 1
        source, target = target, source
        shift += RADIX_BITS
    if source is not heaps:
        heaps[:count] = source[:count]


#: "00" to "99" as bytes: `_write` makes two digits a division.
PAIRS = np.frombuffer("".join(f"{n:02d}" for n in range(100)).encode(), dtype=np.uint8).copy()


@numba.njit(cache=True, nogil=True)
def _write(heaps: NDArray[np.int64], count: int, out: NDArray[np.uint8], at: int) -> int:
    """heaps[:count] (positive) as decimal text joined by single spaces, written from out[at]; the end.
    Unsigned arithmetic, the length first, then two digits a division, from the right."""
    for i in range(count):
        if i:
            out[at] = 32
            at += 1
        x = np.uint64(heaps[i])
        length = 1
        power = np.uint64(10)
        while length < 19 and x >= power:
            length += 1
            power *= np.uint64(10)
        at += length
        pos = at
        while x >= 100:
            q = x // np.uint64(100)
            r = np.int64(x - q * np.uint64(100))
            pos -= 2
            out[pos] = PAIRS[2 * r]
            out[pos + 1] = PAIRS[2 * r + 1]
            x = q
        if x >= 10:
            out[pos - 2] = PAIRS[2 * np.int64(x)]
            out[pos - 1] = PAIRS[2 * np.int64(x) + 1]
        else:
            out[pos - 1] = 48 + np.int64(x)
    return at


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
    SLOW."""
    items = len(starts)
    status = np.zeros(items, dtype=np.int8)
    element = np.zeros(items, dtype=np.int32)
    canonical = np.zeros(items, dtype=np.int8)
    top = np.zeros(items, dtype=np.int64)
    out = np.empty(len(data), dtype=np.uint8)
    spans = np.zeros(items + 1, dtype=np.int64)
    widest = 0
    for i in range(items):
        if ends[i] - starts[i] > widest:
            widest = ends[i] - starts[i]
    heaps = np.empty(widest // 2 + 1, dtype=np.int64)
    scratch = np.empty(widest // 2 + 1, dtype=np.int64)
    bound = len(phi) - 1
    inverse = 1.0 / period if period > 0 else 0.0
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
        largest = 0
        in_order = True
        # canonical as given: digits first and last, heaps apart by single spaces, no zero heap or
        # leading zero, heaps ascending
        plain = end > start
        last_heap = -1
        bad = False
        pos = start
        while pos < end:
            c = data[pos]
            if 48 <= c <= 57:
                first = pos
                value = c - 48
                pos += 1
                while pos < end:
                    c = data[pos]
                    if c < 48 or c > 57:
                        break
                    value = value * 10 + (c - 48)
                    pos += 1
                tokens += 1
                if pos - first > MAX_DIGITS or tokens > max_heaps:  # zero heaps count, as for the parser
                    bad = True
                    break
                if value == 0 or (data[first] == 48):
                    plain = False  # a zero heap, or a leading zero
                if value == 0:
                    continue
                if value < last_heap:
                    in_order = False
                    if largest < last_heap:
                        largest = last_heap
                last_heap = value
                heaps[count] = value
                count += 1
                if value <= bound:
                    x = phi[value]
                elif period > 0:
                    x = phi[preperiod + _residue(value - preperiod, period, inverse)]
                else:
                    bad = True
                    break
                z = table[z, x]
            elif c == 32 or c == 9 or c == 10 or c == 13:
                if c != 32 or pos == start or pos == end - 1 or data[pos - 1] == 32:
                    plain = False
                pos += 1
            else:
                bad = True
                break
        if bad:
            status[i] = SLOW
            spans[i + 1] = at
            continue
        element[i] = z
        top[i] = largest if largest > last_heap else last_heap
        plain = plain and in_order
        if plain or (count == 0 and end == start):
            canonical[i] = 1
            spans[i + 1] = at
            continue
        if not in_order:
            _sort(heaps, count, scratch)
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
    """`parse_fold_kernel` over `texts` (a text that is not ASCII is SLOW without being looked at)."""
    ascii_ok = [t.isascii() for t in texts]
    plain = list(texts) if all(ascii_ok) else [t if ok else "" for t, ok in zip(texts, ascii_ok, strict=True)]
    data = np.frombuffer("\n".join(plain).encode("ascii"), dtype=np.uint8)
    lengths = np.array(list(map(len, plain)), dtype=np.int64)
    starts = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum(lengths[:-1] + 1, out=starts[1:])
    ends = starts + lengths
    preperiod, period = (0, 0) if q.period is None else (q.period.preperiod, q.period.period)
    status, element, top, canonical, out, spans = parse_fold_kernel(
        data, starts, ends, q.table, q.phi, preperiod, period, MAX_HEAPS, MAX_POSITION_CHARS
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
