"""Parsing and canonical formatting of heap positions.

A position is a multiset of heap sizes; its canonical form is sorted ascending with zero heaps
dropped, so that equal positions have equal text (caches, tables and tests all rely on it).
Parsing is strict (ASCII digits and whitespace only) because `int()` alone would accept `+3`,
`1_000` and non-ASCII digits, and fast because batch requests carry 100,000-heap positions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.errors import InvalidPosition

Heaps = tuple[int, ...]

#: Largest heap any position may hold (fits a signed 64-bit integer everywhere).
MAX_HEAP = 2**63 - 1
#: Most heaps (or components) one position may hold.
MAX_HEAPS = 100_000

#: Longest position text accepted; 100,000 heaps of 19 digits plus separators fit.
MAX_POSITION_CHARS = 2_000_000
#: How much of a long position an error message quotes.
_QUOTE_CHARS = 200

_BAD_CHAR = re.compile(r"[^0-9 \t\r\n]")
_MAX_HEAP_DIGITS = len(str(MAX_HEAP))


def quote_position(text: str) -> str:
    """The position as error messages quote it (long ones shortened so messages stay readable)."""
    if len(text) <= _QUOTE_CHARS:
        return repr(text)
    return repr(text[:_QUOTE_CHARS]) + f"... ({len(text)} characters)"


def _token_at(text: str, index: int) -> str:
    """The whitespace-delimited token of `text` that contains position `index`."""
    start = index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = index
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def canonical(heaps: Iterable[int]) -> Heaps:
    """Heaps sorted ascending with zeros dropped."""
    return tuple(sorted(h for h in heaps if h))


def parse_heaps(text: str, *, max_heap: int = MAX_HEAP, max_heaps: int = MAX_HEAPS) -> Heaps:
    """Parse whitespace-separated heap sizes into the canonical tuple; "" and "0" are empty."""
    if len(text) < _MAX_HEAP_DIGITS and text.isascii() and text.isdigit():
        # One heap below 10^18: by far the commonest position in bulk lookups.
        single = int(text)
        if single <= max_heap:
            return (single,) if single else ()
    if len(text) > MAX_POSITION_CHARS:
        raise InvalidPosition(
            f"position is {len(text)} characters long, more than the limit of {MAX_POSITION_CHARS}: "
            f"{quote_position(text)}"
        )
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        token = _token_at(text, bad.start())
        raise InvalidPosition(
            f"heap {token!r} is not a non-negative decimal integer in position {quote_position(text)}"
        )
    tokens = text.split()
    if len(tokens) > max_heaps:
        raise InvalidPosition(
            f"position has {len(tokens)} heaps, more than the limit of {max_heaps}: {quote_position(text)}"
        )
    heaps = [int(tok) if len(tok) <= _MAX_HEAP_DIGITS else _long_heap(tok, text, max_heap) for tok in tokens]
    if heaps and max(heaps) > max_heap:
        big = max(heaps)
        raise InvalidPosition(
            f"heap {big} is above the limit of {max_heap} in position {quote_position(text)}"
        )
    heaps.sort()
    first = 0
    while first < len(heaps) and heaps[first] == 0:
        first += 1
    return tuple(heaps[first:])


def _long_heap(token: str, text: str, max_heap: int) -> int:
    """A token with more digits than any allowed heap: fine only with leading zeros."""
    digits = token.lstrip("0")
    if len(digits) > _MAX_HEAP_DIGITS:
        raise InvalidPosition(
            f"heap {token[:40]!r}{'...' if len(token) > 40 else ''} is above the limit of {max_heap} "
            f"in position {quote_position(text)}"
        )
    return int(digits) if digits else 0


def format_heaps(heaps: Iterable[int]) -> str:
    """The canonical text of a position: heaps ascending, zeros dropped, joined by one space."""
    return " ".join(map(str, canonical(heaps)))
