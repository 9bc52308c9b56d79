"""Rank and nullity of Lights Out on R x C plane boards by polynomials over F2 (Sutner's method).

The press matrix of the R x C board is A = T_R (x) I + I (x) (T_C + I), T_m the adjacency matrix of a
path of m vertices. Its characteristic polynomial over F2 is p_m, the Chebyshev-like polynomial

    p_0 = 1, p_1 = x, p_{m+1} = x p_m + p_{m-1},

(expand det(x I + T_m) along its last row), and T_m is cyclic (its minimal polynomial is p_m), as is
T_m + I with characteristic polynomial p_m(x + 1). For two cyclic matrices X, Y the solutions Z of
X Z = Z Y form a space of dimension deg gcd(char X, char Y) (Frobenius), and A's kernel is that space
for X = T_R, Y = T_C + I. Hence

    nullity(R x C plane) = deg gcd(p_R(x), p_C(x + 1)),   rank = R C - nullity,

which the tests check against elimination on every board up to 256 x 256 where both run.

Polynomials are Python ints (bit i = coefficient of x^i): adding is XOR, multiplying by x a shift.
- p_n by doubling, O(n log n) bit operations in all: over F2 squaring is a Frobenius map, and the
  transfer matrix gives p_{2m+1} = x p_m^2 and p_{2m} = (p_m + p_{m-1})^2; a square spreads the bits
  (bit i to bit 2i), done bytewise through a table.
- p(x + 1) by a Taylor shift in log2(deg) passes: after the pass of half-width h every aligned block of
  2h coefficients a + x^h b holds a(x + 1) + b(x + 1) + x^h b(x + 1), because (x + 1)^h = x^h + 1 for h
  a power of two; one pass is `p ^= (p & M_h) >> h` for the mask M_h of the blocks' upper halves.
- the gcd by Euclid's algorithm with shift-and-XOR remainders (Python's big-int XOR and shifts run at
  machine-word speed).
"""

from __future__ import annotations

from functools import lru_cache

#: Largest side accepted (game ids name boards up to 100,000 x 100,000).
MAX_POLYNOMIAL_SIDE = 100_000


def _spread_table() -> tuple[bytes, ...]:
    out = []
    for byte in range(256):
        spread = 0
        for i in range(8):
            if byte >> i & 1:
                spread |= 1 << (2 * i)
        out.append(spread.to_bytes(2, "little"))
    return tuple(out)


_SPREAD = _spread_table()


def degree(p: int) -> int:
    """The degree of p (-1 for the zero polynomial)."""
    return p.bit_length() - 1


def square(p: int) -> int:
    """p(x)^2 = p(x^2) over F2."""
    if p == 0:
        return 0
    data = p.to_bytes((p.bit_length() + 7) // 8, "little")
    return int.from_bytes(b"".join(_SPREAD[byte] for byte in data), "little")


def multiply(a: int, b: int) -> int:
    """a b over F2 (plain shift-and-add: for tests and small polynomials)."""
    out = 0
    while b:
        low = b & -b
        out ^= a << (low.bit_length() - 1)
        b ^= low
    return out


def chebyshev_pair(n: int) -> tuple[int, int]:
    """(p_n, p_{n-1}), with p_{-1} = 0, by doubling."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    if n == 0:
        return 1, 0
    high, low = chebyshev_pair(n >> 1)  # p_m, p_{m-1} for m = n // 2
    if n & 1:  # n = 2m + 1: (x p_m^2, (p_m + p_{m-1})^2)
        return square(high) << 1, square(high ^ low)
    return square(high ^ low), square(low) << 1  # n = 2m: ((p_m + p_{m-1})^2, x p_{m-1}^2)


def chebyshev(n: int) -> int:
    """p_n: p_0 = 1, p_1 = x, p_{m+1} = x p_m + p_{m-1}."""
    return chebyshev_pair(n)[0]


def chebyshev_reference(n: int) -> int:
    """p_n by the recurrence itself (the reference for `chebyshev`)."""
    before, current = 0, 1
    for _ in range(n):
        before, current = current, (current << 1) ^ before
    return current


def _mask(h: int, nbits: int) -> int:
    """Bits i < nbits (rounded up to whole blocks) with i & h != 0, h a power of two."""
    pattern = bytes([{1: 0xAA, 2: 0xCC, 4: 0xF0}[h]]) if h < 8 else bytes(h // 8) + b"\xff" * (h // 8)
    nbytes = (nbits + 7) // 8 + len(pattern)
    repeats = nbytes // len(pattern) + 1
    return int.from_bytes(pattern * repeats, "little")


def shift_by_one(p: int) -> int:
    """p(x + 1) by the Taylor shift over F2 (see the module's docstring)."""
    nbits = p.bit_length()
    h = 1
    while h < nbits:
        p ^= (p & _mask(h, nbits)) >> h
        h <<= 1
    return p


def shift_by_one_reference(p: int) -> int:
    """p(x + 1) term by term: (x + 1)^i has the terms x^j for every j whose bits lie within i's
    (Lucas' theorem)."""
    out = 0
    i = 0
    while p >> i:
        if p >> i & 1:
            j = i
            while True:
                out ^= 1 << j
                if j == 0:
                    break
                j = (j - 1) & i
        i += 1
    return out


def gcd(a: int, b: int) -> int:
    """The gcd of two polynomials over F2 (monic: over F2 every non-zero polynomial is)."""
    while b:
        db = b.bit_length()
        while a.bit_length() >= db:
            a ^= b << (a.bit_length() - db)
        a, b = b, a
    return a


@lru_cache(maxsize=256)
def plane_nullity(rows: int, cols: int | None = None) -> int:
    """The nullity of the press matrix of the rows x cols plane board: deg gcd(p_rows(x), p_cols(x+1))."""
    cols = rows if cols is None else cols
    for side in (rows, cols):
        if not 1 <= side <= MAX_POLYNOMIAL_SIDE:
            raise ValueError(f"board sides must be 1 to {MAX_POLYNOMIAL_SIDE}, got {rows} x {cols}")
    return degree(gcd(chebyshev(rows), shift_by_one(chebyshev(cols))))


def plane_rank(rows: int, cols: int | None = None) -> int:
    """The rank of the press matrix of the rows x cols plane board."""
    cols = rows if cols is None else cols
    return rows * cols - plane_nullity(rows, cols)
