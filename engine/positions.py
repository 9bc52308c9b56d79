"""Parsing and canonical formatting of heap positions, and the bounded decimals every parser reads.

A position is a multiset of heap sizes; its canonical form is sorted ascending with zero heaps
dropped, so that equal positions have equal text (caches, tables and tests all rely on it).
Parsing is strict (ASCII digits and ASCII blanks only) because `int()` alone would accept `+3`,
`1_000`, ` 3` and non-ASCII digits (`٣`), and raises ValueError past 4,300 digits; and fast because
batch requests carry 100,000-heap positions. `parse_decimal` is the same check for one number, shared
by every other parser (Wythoff piles and rows, subtraction sets), so none of them calls `int()` on
text it has not bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.errors import InvalidPosition, NimbaseError

Heaps = tuple[int, ...]

#: Largest heap any position may hold (fits a signed 64-bit integer everywhere).
MAX_HEAP = 2**63 - 1
#: Most heaps (or components) one position may hold.
MAX_HEAPS = 100_000

#: Longest position text accepted; 100,000 heaps of 19 digits plus separators fit.
MAX_POSITION_CHARS = 2_000_000
#: How much of a long position an error message quotes.
_QUOTE_CHARS = 200

#: How much of one long number or token an error message quotes.
_QUOTE_TOKEN_CHARS = 40
#: Integers up to this many bits are quoted whole (2^128 has 39 digits).
_QUOTE_INT_BITS = 128

#: What separates the numbers of a position: ASCII blanks only (Unicode spaces such as U+00A0, which
#: str.split() would also split at, are refused like any other character).
SEPARATORS = " \t\r\n"
_BAD_CHAR = re.compile(r"[^0-9 \t\r\n]")
_MAX_HEAP_DIGITS = len(str(MAX_HEAP))


def quote_position(text: str) -> str:
    """The position as error messages quote it (long ones shortened so messages stay readable)."""
    if len(text) <= _QUOTE_CHARS:
        return repr(text)
    return repr(text[:_QUOTE_CHARS]) + f"... ({len(text)} characters)"


def quote_token(text: str) -> str:
    """One number or token as error messages quote it: its first 40 characters when longer."""
    if len(text) <= _QUOTE_TOKEN_CHARS:
        return repr(text)
    return repr(text[:_QUOTE_TOKEN_CHARS]) + f"... ({len(text)} characters)"


def quote_int(value: int) -> str:
    """An integer a request carried, as error messages quote it: whole when short, else its first
    digits; str() of one over 4,300 digits raises, so such an integer is only described."""
    if value.bit_length() <= _QUOTE_INT_BITS:
        return str(value)
    try:
        digits = str(value)
    except ValueError:
        return f"{'-' if value < 0 else ''}(an integer of {value.bit_length()} bits)"
    return f"{digits[:_QUOTE_TOKEN_CHARS]}... ({len(digits.lstrip('-'))} digits)"


def parse_decimal(
    text: str,
    *,
    what: str,
    where: str = "",
    limit: int = MAX_HEAP,
    error: type[NimbaseError] = InvalidPosition,
) -> int:
    """A non-negative ASCII decimal (leading zeros allowed) at most `limit`, else `error` quoting it.

    The text is checked for ASCII digits and its length bounded before `int()` sees it, so signs,
    underscores, spaces, Unicode digits and numbers too long to convert are all refused the same way.
    Messages read "`what` 'text' is ...`where`", e.g. "set element '' is not a non-negative decimal
    integer in game id 'subtraction:1,'"; `error` is the class the caller's input calls for.
    """
    if not (text.isascii() and text.isdigit()):
        raise error(f"{what} {quote_token(text)} is not a non-negative decimal integer{where}")
    digits = text.lstrip("0")
    if len(digits) > len(str(limit)) or (digits and int(digits) > limit):
        raise error(f"{what} {quote_token(text)} is above the limit of {limit}{where}")
    return int(digits) if digits else 0


def token_at(text: str, index: int) -> str:
    """The token of `text` (between SEPARATORS) that contains position `index`, to quote it."""
    start = index
    while start > 0 and text[start - 1] not in SEPARATORS:
        start -= 1
    end = index
    while end < len(text) and text[end] not in SEPARATORS:
        end += 1
    return text[start:end]


def canonical(heaps: Iterable[int]) -> Heaps:
    """Heaps sorted ascending with zeros dropped."""
    return tuple(sorted(h for h in heaps if h))


def check_length(text: str) -> None:
    """Refuse a position text longer than any position may be (before anything else looks at it)."""
    if len(text) > MAX_POSITION_CHARS:
        raise InvalidPosition(
            f"position is {len(text)} characters long, more than the limit of {MAX_POSITION_CHARS}: "
            f"{quote_position(text)}"
        )


def parse_heaps(text: str, *, max_heap: int = MAX_HEAP, max_heaps: int = MAX_HEAPS) -> Heaps:
    """Parse whitespace-separated heap sizes into the canonical tuple; "" and "0" are empty."""
    if len(text) < _MAX_HEAP_DIGITS and text.isascii() and text.isdigit():
        # One heap below 10^18: by far the commonest position in bulk lookups.
        single = int(text)
        if single <= max_heap:
            return (single,) if single else ()
    check_length(text)
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        token = token_at(text, bad.start())
        raise InvalidPosition(
            f"heap {quote_token(token)} is not a non-negative decimal integer "
            f"in position {quote_position(text)}"
        )
    tokens = text.split()
    if len(tokens) > max_heaps:
        raise InvalidPosition(
            f"position has {len(tokens)} heaps, more than the limit of {max_heaps}: {quote_position(text)}"
        )
    # Tokens of at most 19 digits (every heap below 10^19) convert directly: the characters were
    # checked above, and bulk positions hold 100,000 of them. Longer ones go through the bounded parser.
    where = f" in position {quote_position(text)}"
    heaps = [
        int(tok)
        if len(tok) <= _MAX_HEAP_DIGITS
        else parse_decimal(tok, what="heap", where=where, limit=max_heap)
        for tok in tokens
    ]
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


def format_heaps(heaps: Iterable[int]) -> str:
    """The canonical text of a position: heaps ascending, zeros dropped, joined by one space."""
    return " ".join(map(str, canonical(heaps)))
