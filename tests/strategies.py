"""Hypothesis strategies for hostile input: positions and game ids an attacker or a clumsy client sends.

Each strategy mixes well-formed parts with what broke or could break a parser: integers beyond 2^63
and beyond Python's 4,300-digit conversion limit, Unicode digits (which `\\d`, `isdigit` and `int()`
accept), NULs, very long texts, empty parts (`3,`, `,5`, `1  ,2`), signs, underscores and Unicode
whitespace. They make no promise about validity: tests assert only that every answer is a value or
a clean client error.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: The games the fuzzing tests ask about: every kind of parser (heaps, pairs, sets, octal codes).
GAMES = ("nim", "subtraction:1,3,4", "octal:0.77", "grundy", "wythoff")

#: Digits that are not ASCII: Arabic-Indic, extended Arabic-Indic, Devanagari, fullwidth, and
#: superscripts (`isdigit()` is true for those, yet `int()` refuses them).
UNICODE_DIGITS = "٠١٢٣٤٥٦٧٨٩" + "۰۱۲۳۴۵۶۷۸۹" + "०१२३४५६७८९" + "０１２３４５６７８９" + "¹²³"
#: Whitespace that is not a separator of positions (ASCII blanks only are), besides the ASCII ones.
WHITESPACE = (" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\u00a0", "\u2003", "\u3000", "\u200b")
#: Characters that must never reach `int()` unnoticed.
ODD_CHARACTERS = ("\x00", "+", "-", "_", ".", "e", "x", ",", ";", "/", "\ufeff", "\U0001f600")

MAX_INT64 = 2**63 - 1

#: Heaps and piles that are valid (small ones, so that answers stay cheap, and the largest).
small_numbers = st.integers(min_value=0, max_value=64).map(str)
edge_numbers = st.sampled_from(
    [str(MAX_INT64), str(MAX_INT64 - 1), "0", "00", "0" * 30 + "7", str(10**18), str(2**62)]
)

#: Integers just beyond 2^63-1 and far beyond, as decimal text.
beyond_int64 = st.one_of(
    st.integers(min_value=MAX_INT64 + 1, max_value=2**64 + 5).map(str),
    st.integers(min_value=2**64, max_value=10**60).map(str),
)
#: Decimals longer than Python converts by default (4,300 digits), leading zeros or not.
beyond_int_conversion = st.builds(
    lambda digit, count, zeros: "0" * zeros + digit * count,
    st.sampled_from("1579"),
    st.integers(min_value=4_301, max_value=6_000),
    st.sampled_from([0, 1, 5_000]),
)
huge_numbers = st.one_of(beyond_int64, beyond_int_conversion)

#: A number written with at least one non-ASCII digit.
unicode_numbers = st.builds(
    lambda head, digit, tail: head + digit + tail,
    st.sampled_from(["", "1", "12"]),
    st.sampled_from(UNICODE_DIGITS),
    st.sampled_from(["", "3", "٣"]),
)
#: A number with a sign, an underscore, a NUL, a decimal point or another odd character in it.
odd_numbers = st.builds(
    lambda before, odd, after: before + odd + after,
    st.sampled_from(["", "1", "3"]),
    st.sampled_from(ODD_CHARACTERS),
    st.sampled_from(["", "0", "5", "000"]),
)

#: One number of a position: mostly hostile, sometimes valid.
numbers = st.one_of(small_numbers, edge_numbers, huge_numbers, unicode_numbers, odd_numbers)


def _join(parts: list[str], separators: list[str]) -> str:
    """parts[0] sep parts[1] sep ... with the separators cycled."""
    out = parts[0]
    for index, part in enumerate(parts[1:]):
        out += separators[index % len(separators)] + part
    return out


#: Heap positions: numbers joined by (possibly odd) whitespace.
heap_positions = st.builds(
    _join,
    st.lists(numbers, min_size=1, max_size=6),
    st.lists(st.sampled_from(WHITESPACE), min_size=1, max_size=3),
)

#: One Wythoff pair, or what a client thinks is one: empty parts, spaces around the comma, triples.
pairs = st.one_of(
    st.builds(lambda a, b: f"{a},{b}", numbers, numbers),
    st.sampled_from(["3,", ",5", "1  ,2", "1, 2", ",", ",,", "1,2,3", "3,,5", "3;5", "(3,5)"]),
)
pair_positions = st.builds(
    _join,
    st.lists(pairs, min_size=1, max_size=5),
    st.lists(st.sampled_from(WHITESPACE), min_size=1, max_size=3),
)

#: Long texts: many valid heaps or pairs, a long run of one character, or long random text. They stay
#: below 64 KiB once percent-encoded, the longest URL an HTTP client sends.
long_texts = st.one_of(
    st.builds(
        lambda n, heap: " ".join([heap] * n), st.integers(1_000, 8_000), st.sampled_from(["1", "7", "3,5"])
    ),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["9", " ", ",", "\x00", "٣", "a"]), st.integers(1_000, 9_000)
    ),
    st.text(st.characters(codec="utf-8"), min_size=200, max_size=2_000),
)

#: Any short text at all (no lone surrogates: they cannot be sent as UTF-8).
any_text = st.text(st.characters(codec="utf-8"), max_size=40)

#: Positions of any game: heaps, pairs, empty ones, long ones and random text.
positions = st.one_of(
    heap_positions,
    pair_positions,
    st.sampled_from(["", "0", " ", "\x00", "3 ", " 3", "\t3\n"]),
    long_texts,
    any_text,
)


def positions_for(game: str) -> st.SearchStrategy[str]:
    """Positions aimed at `game`'s parser half of the time (pairs for Wythoff, heaps otherwise)."""
    return st.one_of(pair_positions if game.startswith("wythoff") else heap_positions, positions)


#: What an answered position may hold: ASCII digits, blanks and (for pairs) commas, nothing else.
ANSWERABLE_CHARACTERS = frozenset("0123456789 \t\r\n,")


def _set(elements: list[str]) -> str:
    return "subtraction:" + ",".join(elements)


#: Game ids: the fuzzed games, and mangled ids of every family (huge or Unicode set elements, empty
#: elements, signs, NULs, odd suffixes, long ids).
game_ids = st.one_of(
    st.sampled_from(GAMES),
    st.lists(numbers, min_size=1, max_size=4).map(_set),
    st.sampled_from(
        [
            "subtraction:",
            "subtraction:1,",
            "subtraction:,1",
            "subtraction:1,,3",
            "subtraction:0",
            "subtraction:+1",
            "subtraction:-1",
            "subtraction:1_0",
            "subtraction: 1",
            "subtraction:1,3,4:misere\x00",
            "subtraction:1,3,4:",
            "octal:0.٧٧",
            "octal:０.77",
            "octal:0.77\x00",
            "octal:0.7_7",
            "octal:" + "7" * 40,
            "nim:misere ",
            "nim\x00",
            "NIM",
            "wythoff:1",
            "grundy:٣",
            ":",
            "",
        ]
    ),
    st.builds(lambda n: "subtraction:" + "1" * n, st.integers(1_000, 5_000)),
    st.builds(lambda n: "subtraction:" + ",".join(["1"] * n), st.integers(100, 3_000)),
    any_text,
)
