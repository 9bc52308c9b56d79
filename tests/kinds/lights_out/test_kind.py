"""Lights Out (seed 002): the seed's matrices, example, distance counts, relations and theorems; every
board of small shapes against a breadth-first search from the rules; the polynomial method against
elimination; and parsing.

The seed's facts are in tests/data/lights_out.json (the `lights_out` section of the literature
reference); the 3 x 3 neighbourhood matrices the JSON does not repeat (T12, T21, K12, K21, P12, P21 and
the plane's C11, C12, C22) are copied below from the seed's sections 2.1 and 4.1.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, LimitExceeded, NotApplicable
from engine.kind import Context
from kinds.lights_out import solver as solver_module
from kinds.lights_out.boards import GraphRef, format_board, parse_lights_out_id
from kinds.lights_out.kernels.gf2 import eliminate, int_to_words
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.records import LightsOutPress, LightsOutValue
from kinds.lights_out.settings import ELIMINATIONS
from kinds.lights_out.shape import (
    FAMILY,
    TOPOLOGIES,
    Shape,
    grid_neighbourhoods,
    grid_neighbourhoods_reference,
)
from kinds.lights_out.solver import eliminate_shape, solver_bytes
from kinds.lights_out.stats import ShapeStatistics, StatsKernel, nullity_by_polynomial
from kinds.lights_out.stored import encode_elimination, solver_of
from tests.engine.contexts import StoredWords, engine_context, kind_settings
from tests.facts import load_facts
from tests.kinds.lights_out.boards import apply, bfs_distances, graph_kind, kind, solver_for, upload

FACTS = load_facts("lights_out")["lights_out"]

#: The seed's 3 x 3 flip sets (sections 2.1 and 4.1), as boards.
SEED_MATRICES = {
    ("plane", "11"): "110/100/000",
    ("plane", "12"): "111/010/000",
    ("plane", "22"): "010/111/010",
    ("torus", "11"): "111/100/100",
    ("torus", "12"): "111/010/010",
    ("torus", "21"): "100/111/100",
    ("klein", "11"): "111/100/001",
    ("klein", "12"): "111/010/010",
    ("klein", "21"): "100/111/100",
    ("projective", "11"): "110/100/001",
    ("projective", "12"): "111/010/010",
    ("projective", "21"): "100/111/100",
}


# -- shapes and the seed's matrices -----------------------------------------------------------------


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_neighbourhoods_match_the_gluing_rules(topology: str) -> None:
    for rows, cols in itertools.product(range(1, 7), repeat=2):
        indptr, indices = grid_neighbourhoods(rows, cols, topology)
        reference = grid_neighbourhoods_reference(rows, cols, topology)
        for i, cells in enumerate(reference):
            got = indices[indptr[i] : indptr[i + 1]].tolist()
            assert got == sorted(r * cols + c for r, c in cells), (rows, cols, topology, i)


def test_the_seeds_3x3_matrices() -> None:
    for (topology, press), board in SEED_MATRICES.items():
        game = kind(f"lights-out:3x3:{topology}")
        assert game.format(game.flip_set(game.parse_press(press))) == board, (topology, press)
    for key, board in FACTS["neighbourhoods_3x3"].items():
        topology, press = key.split("_")
        game = kind(f"lights-out:3x3:{topology}")
        assert game.format(game.flip_set(game.parse_press(press))) == board
    torus = kind("lights-out:3x3:torus")
    for i, j in itertools.product(range(3), repeat=2):  # "row i and column j are 1, the others 0"
        expected = "/".join(
            "111" if r == i else "".join("1" if c == j else "0" for c in range(3)) for r in range(3)
        )
        assert torus.format(torus.flip_set(3 * i + j)) == expected


def test_a_cell_next_to_another_through_two_sides_flips_once(ctx: Context) -> None:
    flips = {  # (game, press): its flip set
        ("lights-out:2x2:torus", "11"): "11/10",  # (1,2) is left and right of (1,1), (2,1) above and below
        ("lights-out:2x2:projective", "11"): "11/11",  # (2,2) is left of and above (1,1)
        ("lights-out:1x1:klein", "11"): "1",
        ("lights-out:1x3:torus", "11"): "111",  # one row: the cell is its own vertical neighbour
        ("lights-out:3x2:moebius", "11"): "11/10/01",
        ("lights-out:3x2:moebius", "21"): "10/11/10",  # (2,2) is left and right of (2,1)
    }
    for (spec, press), board in flips.items():
        game = kind(spec)
        assert game.format(game.flip_set(game.parse_press(press))) == board, spec
    # exercise 4.3: on the 2 x 2 torus every board is solvable
    assert _always_solvable(kind("lights-out:2x2:torus"), ctx)


def test_relations_among_torus_klein_and_projective_moves(ctx: Context) -> None:
    assert FACTS["torus_3x3_relation"].startswith("T12+T21+T23+T32 = 0")
    relations = {
        "torus": ("12", "21", "23", "32"),
        "klein": ("11", "21", "31", "22"),
        "projective": ("12", "21", "23", "32"),
    }
    for topology, presses in relations.items():
        game = kind(f"lights-out:3x3:{topology}")
        assert apply(game, 0, presses) == 0, topology
        stats = ShapeStatistics(game.shape).shape_stats()
        assert stats["nullity"] > 0 and stats["rank"] < 9  # not always solvable
    m0 = "000/011/011"  # the seed's M0 = T12 + T13
    torus = kind("lights-out:3x3:torus")
    assert torus.format(apply(torus, 0, ("12", "13"))) == m0
    answer = torus.solve(torus.parse(m0), ctx)
    assert answer.solvable and answer.remoteness == 2
    # The seed also writes M0 = P12 + P13, which its own P11 contradicts: the projective plane maps to
    # itself under the left-right mirror, which takes P11 = 110/100/001 to P13 = 011/001/100, and then
    # P12 + P13 = 100/011/110. With the seed's P11, P12 and P21, M0 is not solvable there.
    projective = kind("lights-out:3x3:projective")
    assert projective.format(projective.flip_set(projective.parse_press("13"))) == "011/001/100"
    assert projective.format(apply(projective, 0, ("12", "13"))) == "100/011/110"
    assert not projective.solve(projective.parse(m0), ctx).solvable


# -- the 3 x 3 plane board ----------------------------------------------------------------------------


def test_the_seeds_example_2_1(ctx: Context) -> None:
    example = FACTS["grid_3x3"]["example"]
    game = kind("lights-out:3x3")
    board = game.parse(example["board"])
    answer = game.solve(board, ctx)
    assert answer.solvable and answer.searched
    assert answer.solution is not None and set(answer.solution) == set(example["presses"])
    assert answer.remoteness == len(example["presses"])
    assert apply(game, board, answer.solution) == 0
    assert answer.value(game.game_id, game.format(board)).as_dict() == {
        "game": "lights-out:3x3",
        "position": "000/011/011",
        "solvable": True,
        "solution": ["12", "21", "22", "23", "32", "33"],
        "remoteness": 6,
        "source": "live",
    }


def test_3x3_distance_counts_and_diameter(ctx: Context) -> None:
    game = kind("lights-out:3x3")
    stats = ShapeStatistics(game.shape).shape_stats()
    assert FACTS["grid_3x3"]["always_solvable"] and stats["nullity"] == 0
    assert stats["distance_counts"] == FACTS["grid_3x3"]["distance_counts_from_all_white"]
    assert stats["rank"] == 9 and stats["diameter"] == 9
    # exercise 3.1: the farthest board needs all nine presses
    far = game.solve(game.parse("101/010/101"), ctx)
    assert far.remoteness == 9


# -- every board of small shapes against breadth-first search -------------------------------------


SMALL_SHAPES = [(r, c) for r, c in itertools.product(range(1, 4), repeat=2)] + [(2, 4), (4, 2), (3, 4)]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_every_board_of_small_shapes_against_bfs(ctx: Context, topology: str) -> None:
    for rows, cols in SMALL_SHAPES:
        game = kind(f"lights-out:{rows}x{cols}:{topology}")
        _check_against_bfs(game, ctx)


def _check_against_bfs(game: LightsOut, ctx: Context) -> None:
    n = game.shape.cells
    distances = bfs_distances(game)
    flips = [game.flip_set(i) for i in range(n)]
    stats = ShapeStatistics(game.shape).shape_stats()
    assert 2 ** stats["rank"] == len(distances)
    histogram = [0] * (max(distances.values()) + 1)
    for d in distances.values():
        histogram[d] += 1
    assert stats["distance_counts"] == histogram, game.game_id
    assert stats["diameter"] == len(histogram) - 1
    for board in range(1 << n):
        answer = game.solve(board, ctx)
        assert answer.solvable == (board in distances)
        if answer.solvable:
            assert answer.remoteness == distances[board], (game.game_id, game.format(board))
            assert answer.solution is not None and apply(game, board, answer.solution) == 0
        moves = game.press_values(board, ctx)
        assert sorted(m.index for m in moves) == list(range(n))
        for move in moves:
            after = board ^ flips[move.index]
            assert move.answer.solvable == (after in distances)
            assert move.answer.remoteness == distances.get(after)
        ranked = [(m.answer.remoteness or 0, m.index) for m in moves]
        assert ranked == sorted(ranked)


def test_small_graphs_against_bfs(ctx: Context) -> None:
    rng = random.Random(8)
    for n in range(1, 9):
        for _ in range(4):
            edges = [(a, b) for a, b in itertools.combinations(range(n), 2) if rng.random() < 0.4]
            _check_against_bfs(graph_kind(n, edges), ctx)


# -- graphs: paths, cycles, complete graphs, Aksenov ------------------------------------------------


def _always_solvable(game: LightsOut, ctx: Context) -> bool:
    return solver_for(game.shape, ctx).nullity == 0


def test_paths_and_cycles(ctx: Context) -> None:
    assert FACTS["path_L_n_always_solvable_iff"] == "n != 3k+2"
    assert FACTS["cycle_C_n_always_solvable_iff"] == "n != 2 and n != 3k"
    for n in range(1, 61):
        path = graph_kind(n, [(i, i + 1) for i in range(n - 1)], name=f"L{n}")
        assert _always_solvable(path, ctx) == (n % 3 != 2), n
        if n >= 3:
            cycle = graph_kind(n, [(i, (i + 1) % n) for i in range(n)], name=f"C{n}")
            assert _always_solvable(cycle, ctx) == (n % 3 != 0), n
    # C_2 is one edge (two vertices joined once, however many times it is listed): not always solvable
    assert not _always_solvable(graph_kind(2, [(0, 1), (1, 0)]), ctx)


def test_complete_graphs(ctx: Context) -> None:
    assert FACTS["complete_graph"] == "only the all-white and all-black boards are solvable"
    for n in range(1, 9):
        game = graph_kind(n, list(itertools.combinations(range(n), 2)))
        solvable = {board for board in range(1 << n) if game.solve(board, ctx).solvable}
        assert solvable == {0, (1 << n) - 1}
    big = graph_kind(40, list(itertools.combinations(range(40), 2)))
    assert ShapeStatistics(big.shape).shape_stats()["rank"] == 1  # 2 solvable boards


def test_aksenov_first_theorem(ctx: Context) -> None:
    assert FACTS["aksenov_1"].startswith("if m x n on the torus is always solvable")
    # Sides of at least 2: on a torus of one row a cell is its own vertical neighbour, which the proof's
    # five presses (a0, b, b, c, c) do not allow for; e.g. 1 x 4 is always solvable and 2 x 8 is not.
    assert _always_solvable(kind("lights-out:1x4:torus"), ctx)
    assert not _always_solvable(kind("lights-out:2x8:torus"), ctx)
    for m, n in itertools.product(range(2, 11), repeat=2):
        if _always_solvable(kind(f"lights-out:{m}x{n}:torus"), ctx):
            assert _always_solvable(kind(f"lights-out:{2 * m}x{2 * n}:torus"), ctx), (m, n)
    for k in range(1, 8):
        assert _always_solvable(kind(f"lights-out:{2**k}x{2**k}:torus"), ctx), k
        assert _always_solvable(kind(f"lights-out:{2**k - 1}x{2**k - 1}"), ctx), k
        assert nullity_by_polynomial(2**k - 1) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 1.0), st.integers(0, 2**32))
def test_aksenov_second_theorem(n: int, p: float, seed: int) -> None:
    """On every finite graph the all-black board is solvable."""
    ctx = engine_context(StoredWords())
    rng = random.Random(seed)
    edges = [(a, b) for a, b in itertools.combinations(range(n), 2) if rng.random() < p]
    game = graph_kind(n, edges)
    answer = game.solve((1 << n) - 1, ctx)
    assert answer.solvable
    assert answer.solution is not None and apply(game, (1 << n) - 1, answer.solution) == 0


# -- larger boards --------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.sampled_from(TOPOLOGIES), st.integers(0, 2**32))
def test_random_shapes_against_the_dense_press_matrix(rows: int, cols: int, topology: str, seed: int) -> None:
    ctx = engine_context(StoredWords())
    shape = Shape.grid(rows, cols, topology)
    game = LightsOut(shape)
    n = shape.cells
    dense = eliminate(shape.press_matrix(), n)
    assert solver_for(shape, ctx).rank == dense.rank
    rng = random.Random(seed)
    for board in (
        rng.getrandbits(n),
        apply(game, 0, [game.press_name(i) for i in rng.sample(range(n), n // 3)]),
    ):
        answer = game.solve(board, ctx)
        assert answer.solvable == (dense.solve(int_to_words(board, n)) is not None)
        if answer.solution is not None:
            assert apply(game, board, answer.solution) == 0


def test_graphs_too_wide_to_eliminate(ctx: Context) -> None:
    rng = random.Random(12)
    n = 300
    edges = [(a, b) for a, b in itertools.combinations(range(n), 2) if rng.random() < 0.05]
    game = graph_kind(n, edges, name="wide")
    with pytest.raises(LimitExceeded):
        eliminate_shape(game.shape, max_unknowns=10)
    assert game.solve((1 << n) - 1, ctx).solvable  # within the default limit it is eliminated


def test_elimination_agrees_with_the_dense_press_matrix(ctx: Context) -> None:
    for topology in TOPOLOGIES:
        for rows, cols in [(4, 4), (5, 5), (5, 7), (8, 6), (9, 9), (1, 12), (12, 2)]:
            shape = Shape.grid(rows, cols, topology)
            dense = eliminate(shape.press_matrix(), shape.cells)
            assert solver_for(shape, ctx).rank == dense.rank, (rows, cols, topology)


@pytest.mark.parametrize("spec", ["lights-out:20x20", "lights-out:31x17:klein", "lights-out:256x256:torus"])
def test_random_boards_are_solved(ctx: Context, spec: str) -> None:
    game = kind(spec)
    rng = random.Random(9)
    n = game.shape.cells
    for _ in range(3):
        presses = rng.sample(range(n), 40)
        board = 0
        for i in presses:
            board = game.press(board, i)
        answer = game.solve(board, ctx)
        assert answer.solvable and answer.solution is not None
        assert apply(game, board, answer.solution) == 0
        if answer.remoteness is not None:
            assert answer.remoteness == len(answer.solution) <= 40


def test_20x20_best_moves(ctx: Context) -> None:
    game = kind("lights-out:20x20")
    assert solver_for(game.shape, ctx).nullity == 0
    board = random.Random(10).getrandbits(400)
    answer = game.solve(board, ctx)
    assert answer.remoteness is not None and answer.solution is not None
    moves = game.press_values(board, ctx, limit=5)
    assert len(moves) == 5
    assert moves[0].answer.remoteness == answer.remoteness - 1
    assert game.press_name(moves[0].index) in answer.solution
    assert game.press_name(moves[0].index) == moves[0].press


def test_past_the_search_limit_a_solution_comes_without_remoteness(ctx: Context) -> None:
    game = kind("lights-out:5x5")
    board = apply(game, 0, ("11", "23", "55", "34"))
    exact = game.solve(board, ctx)
    rough = game.solve(board, ctx, max_nullity=0)
    assert exact.searched and exact.remoteness is not None
    assert not rough.searched and rough.remoteness is None and rough.note is not None
    assert rough.solution is not None and apply(game, board, rough.solution) == 0
    assert "remoteness" not in rough.value(game.game_id, game.format(board)).as_dict()
    moves = game.press_values(board, ctx, max_nullity=0)
    assert all(m.answer.remoteness is None and not m.answer.searched for m in moves)
    assert {m.press for m in moves[: len(rough.solution)]} == set(rough.solution)


def test_unsolvable_board(ctx: Context) -> None:
    game = kind("lights-out:4x4")
    board = game.parse("1000/0000/0000/0000")
    answer = game.solve(board, ctx)
    assert not answer.solvable and answer.solution is None and answer.remoteness is None
    assert all(not m.answer.solvable for m in game.press_values(board, ctx))


def test_a_stored_elimination_is_used() -> None:
    shape = Shape.grid(7, 5, "klein")
    tables = StoredWords()
    tables.words[(shape.game_id, "elimination")] = encode_elimination(eliminate_shape(shape))
    ctx = engine_context(tables)
    assert (FAMILY, shape) not in ctx.kept.keeper(ELIMINATIONS)
    assert solver_of(shape, ctx).source == "table"
    assert (FAMILY, shape) in ctx.kept.keeper(ELIMINATIONS)
    game = LightsOut(shape)
    board = apply(game, 0, ("1,1", "7,5", "4,3"))
    answer = game.solve(board, ctx)
    assert answer.solvable and answer.solution is not None and apply(game, board, answer.solution) == 0


def test_the_kept_eliminations_stay_within_their_bytes(ctx: Context) -> None:
    """Least recently used dropped first past the keeper's budget (NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES,
    read as the service reads it); one larger than the whole budget serves its request and is not kept."""
    shapes = [Shape.grid(n, n) for n in (20, 21, 22, 23)]
    weights = [solver_bytes(solver_for(shape, ctx)) for shape in shapes]
    budget = weights[0] + weights[1] + weights[2]
    small = budgeted(ctx, budget)
    keeper = small.kept.keeper(ELIMINATIONS)
    assert keeper.max_bytes == budget
    for shape in shapes[:3]:
        solver_for(shape, small)
    assert all((FAMILY, shape) in keeper for shape in shapes[:3]) and keeper.kept_bytes == sum(weights[:3])
    solver_for(shapes[0], small)  # now the most recently used
    solver_for(shapes[3], small)
    # 21x21 goes first; 22x22 too if what is left still passes the budget.
    fits = weights[0] + weights[2] + weights[3] <= budget
    assert [(FAMILY, shape) in keeper for shape in shapes] == [True, False, fits, True]
    assert keeper.kept_bytes == sum(
        w for shape, w in zip(shapes, weights, strict=True) if (FAMILY, shape) in keeper
    )
    assert keeper.kept_bytes <= budget
    tiny = budgeted(ctx, 1)  # smaller than any elimination: nothing is kept
    assert solver_for(shapes[1], tiny).shape == shapes[1]
    assert (FAMILY, shapes[1]) not in tiny.kept.keeper(ELIMINATIONS)
    assert tiny.kept.keeper(ELIMINATIONS).kept_bytes == 0


def budgeted(ctx: Context, elimination_bytes: int) -> Context:
    """`ctx` with fresh keepers whose eliminations' budget is set by its variable."""
    return engine_context(
        ctx.tables, settings=kind_settings(NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES=str(elimination_bytes))
    )


def test_p_positions_do_not_apply() -> None:
    game = kind("lights-out:3x3")
    with pytest.raises(NotApplicable):
        game.p_position(0)


# -- parsing ----------------------------------------------------------------------------------------------


def test_ids() -> None:
    assert kind("lights-out:3x3").game_id == "lights-out:3x3"
    assert kind("lights-out:3x3:plane").game_id == "lights-out:3x3"
    assert kind("lights-out:003x04:torus").game_id == "lights-out:3x4:torus"
    ref = parse_lights_out_id("graph:petersen", "lights-out:graph:petersen")
    assert isinstance(ref, GraphRef) and ref.game_id == "lights-out:graph:petersen"
    bad = [
        None,
        "",
        "3",
        "3x",
        "x3",
        "3X3",
        "0x3",
        "3x0",
        "100001x1",
        "3x3:sphere",
        "3x3:",
        "-3x3",
        "3x3x3",
        "graph:",
        "graph:a b",
    ]
    for params in bad:
        text = f"lights-out:{params}" if params is not None else "lights-out"
        with pytest.raises(InvalidGameId) as error:
            parse_lights_out_id(params, text)
        assert repr(text) in str(error.value) or text in str(error.value)


def test_boards() -> None:
    game = kind("lights-out:2x3")
    assert game.format(game.parse("010/001")) == "010/001"
    assert game.parse("100/000") == 1 and game.parse("000/001") == 1 << 5
    cases = {
        "010/01": "has 2 cells",
        "010/0011": "has 4 cells",
        "010": "has 1 rows",
        "010/001/000": "has 3 rows",
        "010/0a1": "character 'a'",
        "010 001": "character ' '",
        "": "has 1 rows",
        "010/٠01": "character",
    }
    for text, message in cases.items():
        with pytest.raises(InvalidPosition) as error:
            game.parse(text)
        assert message in str(error.value), text
    assert format_board(Shape.grid(2, 3), 0b100001) == "100/001"


def test_press_names() -> None:
    small, large = kind("lights-out:3x3"), kind("lights-out:10x12")
    assert small.press_name(1) == "12" and small.parse_press("12") == 1 and small.parse_press("1,2") == 1
    assert large.press_name(13) == "2,2" and large.parse_press("10,12") == 119
    for game, text in ((small, "44"), (small, "1"), (large, "12"), (large, "0,1"), (large, "1,x")):
        with pytest.raises(InvalidArgument):
            game.parse_press(text)
    g = graph_kind(3, [(0, 1)])
    assert g.press_name(2) == "v2" and g.parse_press("v1") == 1


def test_graphs() -> None:
    game = upload("tri", ["a", "b", "c"], [["a", "b"], ["b", "c"], ["c", "b"]])
    assert game.game_id == "lights-out:graph:tri"
    assert game.format(game.flip_set(game.parse_press("b"))) == "111"
    assert game.format(game.flip_set(game.parse_press("a"))) == "110"
    assert game.parse("101") == 0b101
    for text in ("10", "1011", "1/1", "102"):
        with pytest.raises(InvalidPosition):
            game.parse(text)
    bad: list[tuple[list[str], list[list[str]], str]] = [
        (["a", "b"], [["a", "z"]], "unknown vertex 'z'"),
        (["a", "b"], [["a", "a"]], "self-loop"),
        (["a", "b", "a"], [], "duplicate vertex name 'a'"),
        (["a", "b"], [["a", "b", "a"]], "not a pair"),
        ([], [], "has no vertex"),
    ]
    for vertices, edges, message in bad:
        with pytest.raises(InvalidArgument) as error:
            upload("g", vertices, edges)
        assert message in str(error.value)
    with pytest.raises(InvalidArgument):
        upload("a b", ["a"], [])


# -- the kind's records and the stored elimination ------------------------------------------------------


def test_answers_are_values_without_an_outcome(ctx: Context) -> None:
    game = kind("lights-out:3x3")
    example = FACTS["grid_3x3"]["example"]
    value = game.solve(game.parse(example["board"]), ctx).value(game.game_id, example["board"])
    record = value.kind
    assert isinstance(record, LightsOutValue) and record.solvable is True
    assert value.outcome is None and value.grundy is None
    assert value.remoteness == 6 and set(record.solution or ()) == set(example["presses"])
    assert value.as_dict() == {
        "game": "lights-out:3x3",
        "position": example["board"],
        "solvable": True,
        "solution": list(record.solution or ()),
        "remoteness": 6,
        "source": "live",
    }


def test_presses_rank_by_remoteness_and_unsolvable_last() -> None:
    from engine.moves import move_rank
    from engine.values import MoveValue, Value

    def press(name: str, solvable: bool, remoteness: int | None) -> MoveValue:
        return MoveValue(name, Value("g", "", None, None, remoteness, "live"), LightsOutPress(solvable))

    moves = [press("a", False, None), press("b", True, None), press("c", True, 3), press("d", True, 1)]
    assert [m.move for m in sorted(moves, key=move_rank)] == ["d", "c", "b", "a"]


@pytest.mark.parametrize("spec", ["lights-out:3x3", "lights-out:7x5:klein", "lights-out:16x16:torus"])
def test_an_encoded_elimination_reads_back(spec: str) -> None:
    from kinds.lights_out.stored import EliminationKernel, decode_elimination, encode_elimination

    game = kind(spec)
    elimination = eliminate_shape(game.shape)
    words = encode_elimination(elimination)
    arrays = decode_elimination(words)
    assert set(arrays) == set(elimination.to_arrays())
    for name, array in elimination.to_arrays().items():
        assert np.array_equal(arrays[name], array), name
    kernel = EliminationKernel(game.shape)
    assert np.array_equal(kernel.extend(np.zeros(0, np.uint32), len(words)), words)
    padded = kernel.extend(words[:10], len(words) + 7)  # an automatic job may ask for more: zeros
    assert np.array_equal(padded[: len(words)], words) and not padded[len(words) :].any()
    assert decode_elimination(padded).keys() == arrays.keys()
    with pytest.raises(ValueError):
        decode_elimination(words[: len(words) // 2])
    assert len(words) <= game.plan_job(0).values and game.plan_job(0).family == "elimination"


@pytest.mark.parametrize(
    "game",
    [
        kind("lights-out:1x1"),
        kind("lights-out:19x19"),  # nullity 16 of k = 19
        kind("lights-out:31x31:torus"),
        kind("lights-out:64x65:projective"),
        graph_kind(40, list(itertools.combinations(range(40), 2))),  # nullity 39: every unknown free
        graph_kind(3, []),
    ],
    ids=lambda game: game.game_id,
)
def test_planning_a_job_eliminates_nothing_and_counts_enough_words(
    game: LightsOut, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("planning eliminated")

    with monkeypatch.context() as patch:  # the plan counts from the shape's size and chase only
        patch.setattr(solver_module, "chase_eliminate", forbidden)
        elimination_plan = game.plan_job(0)
        stats_plan = game.plan_job(0, family="stats")
    assert len(encode_elimination(eliminate_shape(game.shape))) <= elimination_plan.values
    if game.shape.cells <= 25:
        assert len(StatsKernel(game.shape).words()) <= stats_plan.values
