"""Bicolor Nim (seed 001): the kernels against a brute force from the rules, the seed's tables and
values, the periods and their certificate, and parsing.

The brute force (tests.kinds.bicolor.oracle) knows only the rules and the definitions of G and G-; every
value the engine gives is checked against it, and every other check is against the engine's plain
reference (`values_reference`, `family_reference`) or against the seed's tables (tests/data).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument, InvalidPosition
from kinds.bicolor.kernels.boxes import (
    arithmetic_period,
    box_index,
    box_values,
    certify_family,
    family_reference,
    family_table,
    single_heap,
    values_reference,
)
from kinds.bicolor.kind import FamilySpec, parse_family, parse_heaps
from tests.facts import load_facts
from tests.kinds.bicolor import oracle

Heap = tuple[int, int]
Heaps = tuple[Heap, ...]

FACTS = load_facts("bicolor_nim")
TABLES: dict[str, dict[str, list[int | None]]] = FACTS["tables"]
#: Long enough for every certificate below (f_6 and g_6, T = 720, are certified from about 7,950 on).
CERTIFY_STOP = 20_000

#: One memo for every call of the plain reference, so random examples share their sub-positions.
REFERENCE_MEMO: dict[Heaps, tuple[int, int, int]] = {}


def box_last(heaps: Heaps) -> tuple[int, int, int]:
    """(G, G-, remoteness) of `heaps` from the box kernel: its last cell."""
    g, m, r = box_values(heaps)
    return int(g[-1]), int(m[-1]), int(r[-1])


def family_name(kind: str, n: int) -> str:
    """The API name of the table `kind`, row n of tests/data/bicolor_nim.json (`f^(2)` -> `f^(2)_4`)."""
    return f"{kind}_{n}"


def table(spec: FamilySpec, stop: int) -> np.ndarray:
    return family_table(spec.fixed, spec.second_white, spec.minus, stop)


def family_values(name: str, stop: int) -> list[int]:
    return [int(v) for v in table(parse_family(name), stop)[-1]]


def check_values(position: Heaps) -> None:
    """The oracle, the plain reference and the box kernel agree on G, G-, remoteness and outcome."""
    expected = oracle.values(position)
    assert values_reference(position, REFERENCE_MEMO) == expected, position
    assert box_last(position) == expected, position
    assert (oracle.outcome(position) == "P") == (expected[0] == 0), position


# -- values of positions ----------------------------------------------------------------------------

SMALL_HEAPS = [(w, b) for w in range(4) for b in range(4)]


def test_every_position_of_two_heaps_of_up_to_three_and_three_stones() -> None:
    positions = {oracle.canon(pair) for pair in itertools.combinations_with_replacement(SMALL_HEAPS, 2)}
    assert len(positions) == 1 + 15 + 15 * 16 // 2  # the empty board, single heaps, pairs
    for position in sorted(positions):
        check_values(position)


def test_every_sub_position_in_a_box() -> None:
    """Each cell of the box is the value of its own sub-position (box_index finds it)."""
    heaps: Heaps = ((1, 2), (3, 1), (2, 0))
    g, m, r = box_values(heaps)
    ranges = [[(x, y) for x in range(w + 1) for y in range(b + 1)] for w, b in heaps]
    for sub in itertools.product(*ranges):
        cell = box_index(heaps, tuple(sub))
        assert (int(g[cell]), int(m[cell]), int(r[cell])) == oracle.values(oracle.canon(sub)), sub


HEAP = st.tuples(st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(heaps=st.lists(HEAP, min_size=1, max_size=3))
def test_random_positions_of_up_to_three_heaps(heaps: list[Heap]) -> None:
    position = oracle.canon(heaps)
    check_values(position)
    # the box kernel takes its heaps in any order, empty ones included: the last cell is the position
    assert box_last(tuple(heaps)) == oracle.values(position)


@settings(max_examples=40, deadline=None)
@given(
    heaps=st.one_of(
        st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=3),
        st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=4, max_size=4),
    )
)
def test_box_kernel_against_the_reference_on_bigger_positions(heaps: list[Heap]) -> None:
    position = oracle.canon(heaps)
    assert box_last(position) == values_reference(position, REFERENCE_MEMO)


def test_single_heaps_in_closed_form() -> None:
    for white in range(12):
        for black in range(12):
            assert single_heap(white, black) == oracle.values(oracle.canon([(white, black)])), (white, black)
    assert single_heap(0, 0) == (0, 1, 0) == oracle.values(())  # the seed's conventions


def test_single_heaps_by_the_rules() -> None:
    """The closed form's cases, each read off the rules: a lone black stone loses (its only move empties
    the board without white), a heap with a white stone is won at once by taking it all."""
    assert not oracle.wins(((0, 1),)) and oracle.remoteness(((0, 1),)) == 1
    assert oracle.wins(((0, 2),)) and oracle.remoteness(((0, 2),)) == 2  # leave one black stone
    assert oracle.wins(((1, 4),)) and oracle.remoteness(((1, 4),)) == 1


# -- the seed's tables ------------------------------------------------------------------------------

#: Each family as tests/data/bicolor_nim.json defines it, written here from those definitions (not from
#: parse_family): (heaps, use G-) of the position whose value is F_n(p), m being the `f^(m)` index.
DEFINITIONS: dict[str, Callable[[int, int, int], tuple[Heaps, bool]]] = {
    "f": lambda n, p, m: (((0, n), (0, p)), False),
    "g": lambda n, p, m: (((n, 0), (p, 0)), True),
    "h": lambda n, p, m: (((n, 0), (0, p)), False),
    "h'": lambda n, p, m: (((p, 0), (0, n)), False),
    "f'": lambda n, p, m: (((n, 1), (p, 0)), False),
    "g'": lambda n, p, m: (((n, 1), (p, 0)), True),
    "f^(m)": lambda n, p, m: (((n, m), (p, 0)), False),
}


def by_definition(kind: str, n: int, p: int) -> int:
    """F_n(p) of the table `kind` by the oracle, from the family's definition."""
    m = int(kind[3:-1]) if kind.startswith("f^(") else 0
    heaps, minus = DEFINITIONS["f^(m)" if m else kind](n, p, m)
    position = oracle.canon(heaps)
    return oracle.G_minus(position) if minus else oracle.G(position)


ROWS = [(kind, int(n), row) for kind, rows in TABLES.items() for n, row in rows.items()]


def test_the_tables_are_all_there() -> None:
    assert sorted(TABLES) == sorted(["f", "g", "h", "h'", "f'", "g'", *(f"f^({m})" for m in range(1, 7))])
    assert all(len(row) == 21 for _, _, row in ROWS)
    nulls = [(kind, n, p) for kind, n, row in ROWS for p, v in enumerate(row) if v is None]
    assert nulls == [("g", 0, 0)]


@pytest.mark.parametrize(("kind", "n", "row"), ROWS, ids=[family_name(k, n) for k, n, _ in ROWS])
def test_seed_table_by_both_kernels_and_the_oracle(kind: str, n: int, row: list[int | None]) -> None:
    """Every table of the seed: family_table's last row, family_reference, and the oracle from the
    family's definition. The one null, g_0(0) = G-(empty board), is 1 here: the seed's convention
    (a lone black stone is lost by the player to move)."""
    spec = parse_family(family_name(kind, n))
    kernel = [int(v) for v in table(spec, len(row))[-1]]
    reference = family_reference(spec.fixed, spec.second_white, spec.minus, len(row))
    defined = [by_definition(kind, n, p) for p in range(len(row))]
    assert kernel == reference == defined
    known = [p for p, v in enumerate(row) if v is not None]
    assert [kernel[p] for p in known] == [row[p] for p in known]
    if (kind, n) == ("g", 0):
        assert row[0] is None and kernel[0] == 1 == oracle.G_minus(())


def test_parse_family_maps_names_to_the_definitions() -> None:
    """The mapping itself, name by name, and the definitions by the oracle for small n and p."""
    assert parse_family("f_3") == FamilySpec("f_3", (0, 3), False, False)
    assert parse_family("g_2") == FamilySpec("g_2", (2, 0), True, True)
    assert parse_family("h_4") == FamilySpec("h_4", (4, 0), False, False)
    assert parse_family("h'_1") == FamilySpec("h'_1", (0, 1), True, False)
    assert parse_family("f'_0") == FamilySpec("f'_0", (0, 1), True, False)
    assert parse_family("g'_3") == FamilySpec("g'_3", (3, 1), True, True)
    assert parse_family("f^(2)_4") == FamilySpec("f^(2)_4", (4, 2), True, False)
    assert parse_family("f^(1)_5") == parse_family("f'_5")  # f^(1) is f'
    for n in range(4):
        for p in range(6):
            assert family_values(f"f_{n}", p + 1)[p] == oracle.G(oracle.canon([(0, n), (0, p)]))
            assert family_values(f"g_{n}", p + 1)[p] == oracle.G_minus(oracle.canon([(n, 0), (p, 0)]))
            assert family_values(f"h_{n}", p + 1)[p] == oracle.G(oracle.canon([(n, 0), (0, p)]))
            assert family_values(f"h'_{n}", p + 1)[p] == oracle.G(oracle.canon([(p, 0), (0, n)]))
            assert family_values(f"f'_{n}", p + 1)[p] == oracle.G(oracle.canon([(n, 1), (p, 0)]))
            assert family_values(f"g'_{n}", p + 1)[p] == oracle.G_minus(oracle.canon([(n, 1), (p, 0)]))
            assert family_values(f"f^(3)_{n}", p + 1)[p] == oracle.G(oracle.canon([(n, 3), (p, 0)]))


# -- the seed's further values ----------------------------------------------------------------------

F2_4 = "f^(2)_4"
F3_3 = "f^(3)_3"


def test_seed_values_at_44() -> None:
    further = FACTS["further_values_from_the_seed"]
    assert family_values(F2_4, 45)[44] == further["f^(2)_4(44)"] == 49
    assert family_values(F3_3, 45)[44] == further["f^(3)_3(44)"] == 41
    assert oracle.G(((4, 2), (44, 0))) == 49 and oracle.G(((3, 3), (44, 0))) == 41


def test_f2_4_and_f3_3_differ_at_41_unlike_the_seed_says() -> None:
    """The seed: "f^(2)_4(p) == f^(3)_3(p) for all p <= 43". From the rules they differ at p = 41:
    f^(2)_4(41) = 46 and f^(3)_3(41) = 44.

    The evidence, by exhaustive search from the rules (tests.kinds.bicolor.oracle.wins, about 30,000
    positions, a second or two): (4w2b, 41w, 46w) and (3w3b, 41w, 44w) are P-positions. G is unique
    (if P + n and P + n' white stones, n < n', were both P-positions, taking n' - n stones from the
    white heap would move from one to the other), so they fix both values; and (4w2b, 41w, 44w) is an
    N-position. The two agree below 41 and differ again at 44 (49 against 41, the seed's own values).
    """
    assert not oracle.wins(oracle.canon([(4, 2), (41, 0), (46, 0)]))
    assert not oracle.wins(oracle.canon([(3, 3), (41, 0), (44, 0)]))
    assert oracle.wins(oracle.canon([(4, 2), (41, 0), (44, 0)]))
    assert FACTS["further_values_from_the_seed"]["f^(2)_4(p) == f^(3)_3(p) for all p <= 43"] is True
    f2_4, f3_3 = family_values(F2_4, 45), family_values(F3_3, 45)
    assert (f2_4[41], f3_3[41]) == (46, 44)
    assert [p for p in range(45) if f2_4[p] != f3_3[p]] == [41, 44]
    assert f2_4 == [oracle.G(oracle.canon([(4, 2), (p, 0)])) for p in range(45)]
    assert f3_3 == [oracle.G(oracle.canon([(3, 3), (p, 0)])) for p in range(45)]


# -- periods ----------------------------------------------------------------------------------------

#: Our certified (T, m) of each family the seed prints a period for (stop = CERTIFY_STOP).
OUR_PERIODS: dict[str, list[tuple[int, int]]] = {
    "f": [(1, 0), (3, 0), (9, 5), (36, 10), (144, 25), (720, 25)],
    "g": [(1, 3), (3, 3), (9, 5), (36, 7), (144, 8), (720, 17)],
    "h": [(1, 3), (3, 4), (9, 5), (36, 7), (144, 8), (720, 14)],
    "h'": [(2, 1), (2, 0), (4, 0), (4, 6), (6, 8), (24, 9)],
    "f'": [(2, 1), (4, 0), (4, 6), (8, 0), (2, 9), (8, 18), (24, 14), (16, 0), (16, 15)],
}

CLAIMS = FACTS["period_claims_as_printed_in_the_seed"]
PERIOD_CASES = [
    (kind, n, (claim_t, claim_m), ours)
    for kind, ours_list in OUR_PERIODS.items()
    for n, claim_t, claim_m, ours in zip(
        CLAIMS[kind]["p"], CLAIMS[kind]["T"], CLAIMS[kind]["m"], ours_list, strict=True
    )
]


def breaks(values: np.ndarray, period: int, preperiod: int) -> list[int]:
    """Every p >= preperiod (within the values) where F(p + T) = F(p) + T fails."""
    failing = values[preperiod + period :] != values[preperiod : len(values) - period] + period
    return [preperiod + int(p) for p in np.flatnonzero(failing)]


@pytest.mark.parametrize(
    ("kind", "n", "claim", "ours"), PERIOD_CASES, ids=[f"{k}_{n}" for k, n, _, _ in PERIOD_CASES]
)
def test_certified_periods(kind: str, n: int, claim: tuple[int, int], ours: tuple[int, int]) -> None:
    """Our certified (T, m), and the least: the relation fails at m - 1, and no smaller T holds even over
    the second half of the values."""
    values = table(parse_family(f"{kind}_{n}"), CERTIFY_STOP)
    assert certify_family(values) == (*ours, True)
    period, preperiod = ours
    row = values[-1]
    assert breaks(row, period, preperiod) == []
    if preperiod > 0:
        assert breaks(row, period, preperiod - 1) == [preperiod - 1]
    assert all(breaks(row, smaller, CERTIFY_STOP // 2) for smaller in range(1, period))


#: Where the seed's printed (T, m) differs from ours, and why (see test_seed_period_claims).
SEED_DIFFERENCES = {
    # the seed's m is too small: the relation fails at these p >= the seed's m
    ("f", 3): ("fails", [3, 4]),
    ("f", 5): ("fails", [22, 23, 24]),
    ("f", 6): ("fails", [24]),
    ("g", 6): ("fails", [16]),
    # the seed's m holds but is not the least: ours is smaller
    ("h", 3): ("smaller m", [5]),
    ("h'", 6): ("smaller m", [9]),
    # the seed's T holds (a multiple of ours) but is not the least: ours is smaller
    ("f'", 4): ("smaller T", [2]),
    ("f'", 8): ("smaller T", [16]),
}


#: (p, F(p), F(p + T)) where F(p + T) = F(p) + T fails for the seed's m (quoted in the docstring below).
FAILING_VALUES = {
    ("f", 3): (3, 0, 10),
    ("f", 5): (22, 18, 163),
    ("f", 6): (24, 21, 740),
    ("g", 6): (16, 12, 733),
}


@pytest.mark.parametrize(
    ("kind", "n", "claim", "ours"), PERIOD_CASES, ids=[f"{k}_{n}" for k, n, _, _ in PERIOD_CASES]
)
def test_seed_period_claims(kind: str, n: int, claim: tuple[int, int], ours: tuple[int, int]) -> None:
    """The seed's printed (T, m) against ours, with the values that show each difference.

    - f_3 (seed m = 1): F(3) = 0 but F(12) = 10, not 9; F(4) = 1 but F(13) = 11 (the seed's own table).
    - f_5, f_6, g_6: the relation fails at the p listed, at or after the seed's m (f_5: F(22) = 18,
      F(166) = 163, not 162; f_6: F(24) = 21, F(744) = 740, not 741; g_6: F(16) = 12, F(736) = 733,
      not 732).
    - h_3 (seed m = 8), h'_6 (seed m = 10): true, but the relation already holds from 5 (resp. 9).
    - f'_4 (seed T = 8), f'_8 (seed T = 48): true, but T = 2 (resp. 16) already holds from the same m.
    The seed's `a` row for h ([3, 4, 4, 7, 8, 17]) is not explained there and is not checked.
    """
    row = table(parse_family(f"{kind}_{n}"), CERTIFY_STOP)[-1]
    claim_t, claim_m = claim
    if claim == ours:
        assert (kind, n) not in SEED_DIFFERENCES
        return
    why, evidence = SEED_DIFFERENCES[(kind, n)]
    if why == "fails":
        assert claim_t == ours[0] and claim_m < ours[1]
        assert breaks(row, claim_t, claim_m) == evidence
        assert evidence[-1] == ours[1] - 1
        p, f_p, f_p_t = FAILING_VALUES[(kind, n)]
        assert (int(row[p]), int(row[p + claim_t])) == (f_p, f_p_t) and f_p_t != f_p + claim_t
    elif why == "smaller m":
        assert claim_t == ours[0] and evidence == [ours[1]] and ours[1] < claim_m
        assert breaks(row, claim_t, claim_m) == [] == breaks(row, *ours)
    else:
        assert claim_m == ours[1] and evidence == [ours[0]] and claim_t % ours[0] == 0
        assert breaks(row, claim_t, claim_m) == [] == breaks(row, *ours)


def test_f3_fails_the_seed_period_in_the_seed_table_and_by_the_rules() -> None:
    f3 = TABLES["f"]["3"]
    assert (f3[3], f3[12], f3[4], f3[13]) == (0, 10, 1, 11)
    assert oracle.G(oracle.canon([(0, 3), (0, 3)])) == 0 and oracle.G(oracle.canon([(0, 3), (0, 12)])) == 10


def test_arithmetic_period_on_synthetic_rows() -> None:
    p = np.arange(60, dtype=np.int64)
    assert arithmetic_period(p) == (1, 0)
    assert arithmetic_period(p ^ 1) == (2, 0)
    assert arithmetic_period(p ^ 1, start=5) == (2, 5)
    with_preperiod = (p ^ 1).copy()
    with_preperiod[:2] = [100, 50]
    assert arithmetic_period(with_preperiod) == (2, 2)
    assert arithmetic_period(p + 3 * (p % 3 == 0)) == (3, 0)
    assert arithmetic_period((p ^ 1)[:21]) is None  # fewer than 11 repetitions of T = 2, T = 1 fails
    assert arithmetic_period((p ^ 1)[:22]) == (2, 0)
    assert arithmetic_period(p * p) is None
    assert arithmetic_period(p % 3) is None  # plain periodicity is not arithmetic: the saltus is T


def test_certificate_refused_on_a_short_table() -> None:
    short = table(parse_family("f'_8"), 200)
    assert certify_family(short) == (16, 15, False)
    assert certify_family(table(parse_family("f'_8"), 300)) == (16, 15, True)
    assert certify_family(table(parse_family("f_4"), 100)) is None  # no period shows yet


# -- parsing ----------------------------------------------------------------------------------------


def test_parse_heaps_canonical() -> None:
    assert parse_heaps("4b 2w1b 3w") == ((0, 4), (2, 1), (3, 0))
    assert parse_heaps(" 2w  0w0b 1b\t") == ((0, 1), (2, 0))
    assert parse_heaps("0w0b") == () == parse_heaps("")
    assert parse_heaps("1w1b 1w1b 0w") == ((1, 1), (1, 1))
    assert parse_heaps("007w") == ((7, 0),)


@pytest.mark.parametrize("text", ["2x", "w", "-1w", "3w3w", "1b2w", "b", "3", "2w 1x", "1" * 20 + "w"])
def test_parse_heaps_refuses(text: str) -> None:
    with pytest.raises(InvalidPosition) as refused:
        parse_heaps(text)
    assert refused.value.code == "INVALID_ARGUMENT"
    assert repr(text) in str(refused.value)


@pytest.mark.parametrize("name", ["x_3", "f_", "f^(a)_2", "f", "f_-1", "h''_2", "f^()_2", "F_3"])
def test_parse_family_refuses(name: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_family(name)
    assert refused.value.code == "INVALID_ARGUMENT" and repr(name) in str(refused.value)


@pytest.mark.parametrize("text", ["9223372036854775807w", "9223372036854775807b", "300000w", "5w7b"])
def test_best_moves_of_a_huge_heap_are_listed_without_listing_every_move(text: str) -> None:
    """A heap of 2^63-1 stones has as many moves: BestMove with a limit values only what it lists (it
    once built every move first and grew until the kernel killed the server)."""
    from engine.registry import parse_game_id
    from kinds.bicolor.kernels.boxes import move_count, successors
    from tests.engine.contexts import engine_context

    game = parse_game_id("bicolor-nim")
    ctx = engine_context()
    position = game.parse(text)
    result = game.best_moves(position, 2, ctx)
    assert 1 <= len(result.moves) <= 2
    reached = {move.value.position for move in result.moves}
    assert len(reached) == len(result.moves)
    # the count used for ranking is the number of moves `successors` gives (checked where it can be listed)
    for small in ("3w2b", "2w 2w 1b", "4b 1w1b"):
        heaps = game.parse(small)
        assert move_count(heaps) == sum(1 for _ in successors(heaps))


def test_a_lone_heaps_winning_moves_are_the_ones_the_ranking_finds() -> None:
    """The closed-form winning moves of a single heap (used for heaps too large to scan) are exactly the
    moves to P-positions that valuing every move finds."""
    from engine.registry import parse_game_id
    from tests.engine.contexts import engine_context

    game = parse_game_id("bicolor-nim")
    ctx = engine_context()
    for white in range(7):
        for black in range(7):
            if white + black == 0:
                continue
            heaps = game.parse(f"{white}w{black}b")
            every = game.best_moves(heaps, None, ctx).moves
            to_p = sorted(m.move for m in every if m.value.outcome == "P")
            wins = game._single_heap_wins(heaps[0])  # type: ignore[attr-defined]
            assert sorted(move[0] for move in wins) == to_p, (white, black)


def test_the_kinds_own_box_budget_reaches_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """NIMBASE_LIMITS_BICOLOR_LIVE_BOX_BYTES, read as the service reads it: past it a position is searched
    instead of boxed, to the same answer, and GetStats says the budget in force."""
    from engine.registry import parse_game_id
    from kinds.bicolor import kind as bicolor
    from kinds.bicolor.kernels.boxes import box_bytes
    from tests.engine.contexts import DictMemo, StoredWords, engine_context, kind_settings

    game = parse_game_id("bicolor-nim")
    position = game.parse("2w1b 2w 1w2b")
    small = kind_settings(NIMBASE_LIMITS_BICOLOR_LIVE_BOX_BYTES=str(box_bytes(position) - 1))
    boxed = engine_context(StoredWords(), memo=DictMemo())
    searched = engine_context(StoredWords(), memo=DictMemo(), settings=small)
    expected = game.value(position, boxed)
    monkeypatch.setattr(bicolor, "box_values", None)  # not called past the budget
    assert game.value(position, searched) == expected
    assert game.stats(boxed)["live_box_bytes"] == 256 << 20
    assert game.stats(searched)["live_box_bytes"] == box_bytes(position) - 1
