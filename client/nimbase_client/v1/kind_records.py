"""The fields each kind adds to a value or a move, one TypedDict per kind record of nimbase.proto.

Generated from the .proto by proto/generate_kind_records.py (`make proto`): do not edit. The text under
each field is the comment of the .proto field; `ValueKinds` and `MoveKinds` are every field a kind may
add, flat as the JSON answers have them (`nimbase_client.records` adds them to its Value and Move).
"""

from __future__ import annotations

from typing import NotRequired

from nimbase_client.typed_dict import TypedDict

__all__ = [
    "BicolorMove",
    "BicolorValue",
    "ChessMove",
    "ChessValue",
    "GraphValue",
    "HeapMove",
    "LightsOutPress",
    "LightsOutValue",
    "MisereValue",
    "MoveKinds",
    "ScoreMove",
    "ScoreValue",
    "ToyMove",
    "ToyValue",
    "ValueKinds",
    "WythoffMove",
]


class BicolorValue(TypedDict):
    """bicolor-nim: G- beside G (`grundy`)."""

    grundy_black: int
    """bicolor-nim only: G-, the size of the black heap that, added to the position, makes it a P-position
    (`grundy` is G, the same with a white heap). Unsigned: it reaches 2^63 (a heap of 2^63-1 white stones)."""


class LightsOutValue(TypedDict):
    """One-player puzzles (Lights Out), which have no outcome (`outcome` is then empty): whether the board can
    be solved, and how (`remoteness` is the fewest presses, where they were searched for)."""

    solvable: bool
    """One-player puzzles only: whether the board can be solved."""

    solution: NotRequired[list[str]]
    """One-player puzzles only, when `solvable`: presses that solve the board (the fewest, when `remoteness`
    is given; empty when it is solved already). Lights Out names a press by its cell, row then column from 1:
    `RC` (`23`) on boards of at most 9 x 9, else `r,c` (`12,3`); on graphs the vertex."""

    note: NotRequired[str]
    """A remark on the answer, e.g. why a solvable board's `remoteness` is absent (its null space is too large
    to search within the live limits)."""


class GraphValue(TypedDict):
    """Game graphs: why a loopy position has no `grundy`."""

    note: str
    """Game graphs: why a loopy position has no `grundy` (its generalised Sprague-Grundy value is
    infinite)."""


class ToyValue(TypedDict):
    """The toy kind (game id `toy`): the example kind of the tests, a small explicit game table served end to
    end by one module and one registry entry; no production server lists it."""

    parity: str
    """Toy game only (tests): "even" or "odd", the parity of the position's Grundy value."""


class ChessValue(TypedDict):
    """Chess endgames: a position's metrics, lila's category and the game-end flags, as lila-tablebase names
    them."""

    dtz: NotRequired[int]
    """Chess: plies to the next capture or pawn move under best play (the winner keeping the fifty-move rule),
    positive when the side to move wins, negative when it loses, 0 for a draw (Syzygy's DTZ; a checkmated side
    has -1); absent where the table has no DTZ."""

    precise_dtz: NotRequired[int]
    """Chess: `dtz` where it is exact; absent where it may be one ply off (Syzygy stores some DTZ values
    rounded)."""

    dtm: NotRequired[int]
    """Chess: plies to mate under best play, positive when the side to move wins, negative when it loses (0
    when mated, and for a draw); absent where the table has no DTM (Syzygy files)."""

    category: str
    """Chess: lila's category for the side to move, from DTZ and the FEN's halfmove clock: "win", "cursed-win"
    (won, but not within the fifty-move rule), "draw", "blessed-loss", "loss" (and lila's "syzygy-win" or
    "syzygy-loss" where a rounded DTZ leaves it open)."""

    checkmate: bool
    """Chess: the side to move is checkmated."""

    stalemate: bool
    """Chess: the side to move is stalemated."""

    insufficient_material: bool
    """Chess: neither side has the material to mate."""


class ScoreValue(TypedDict):
    """Score games defined by their rules (Dots and Boxes): the margin with best play (`outcome` follows its
    sign: "N" ahead, "P" behind, "D" level)."""

    margin: int
    """Score games: the points the player to move scores beyond the opponent from here on, with best play on
    both sides (negative when behind)."""


class MisereValue(TypedDict):
    """Misère heap games (`octal:CODE:misere`, `grundy:misere`): the position's element of the game's misère
    quotient (Plambeck and Siegel)."""

    element: int
    """Misère heap games: the element of the game's misère quotient the position maps to (the product of its
    heaps' elements; 0 is the empty position), as GetStats' quotient numbers it."""


class ValueKinds(TypedDict, total=False):
    """Every field a kind may add to a value, flat (each kind gives its own)."""

    grundy_black: int
    """bicolor-nim only: G-, the size of the black heap that, added to the position, makes it a P-position
    (`grundy` is G, the same with a white heap). Unsigned: it reaches 2^63 (a heap of 2^63-1 white stones)."""

    solvable: bool
    """One-player puzzles only: whether the board can be solved."""

    solution: list[str]
    """One-player puzzles only, when `solvable`: presses that solve the board (the fewest, when `remoteness`
    is given; empty when it is solved already). Lights Out names a press by its cell, row then column from 1:
    `RC` (`23`) on boards of at most 9 x 9, else `r,c` (`12,3`); on graphs the vertex."""

    note: str
    """A remark on the answer, e.g. why a solvable board's `remoteness` is absent (its null space is too large
    to search within the live limits). Game graphs: why a loopy position has no `grundy` (its generalised
    Sprague-Grundy value is infinite)."""

    parity: str
    """Toy game only (tests): "even" or "odd", the parity of the position's Grundy value."""

    dtz: int
    """Chess: plies to the next capture or pawn move under best play (the winner keeping the fifty-move rule),
    positive when the side to move wins, negative when it loses, 0 for a draw (Syzygy's DTZ; a checkmated side
    has -1); absent where the table has no DTZ."""

    precise_dtz: int
    """Chess: `dtz` where it is exact; absent where it may be one ply off (Syzygy stores some DTZ values
    rounded)."""

    dtm: int
    """Chess: plies to mate under best play, positive when the side to move wins, negative when it loses (0
    when mated, and for a draw); absent where the table has no DTM (Syzygy files)."""

    category: str
    """Chess: lila's category for the side to move, from DTZ and the FEN's halfmove clock: "win", "cursed-win"
    (won, but not within the fifty-move rule), "draw", "blessed-loss", "loss" (and lila's "syzygy-win" or
    "syzygy-loss" where a rounded DTZ leaves it open)."""

    checkmate: bool
    """Chess: the side to move is checkmated."""

    stalemate: bool
    """Chess: the side to move is stalemated."""

    insufficient_material: bool
    """Chess: neither side has the material to mate."""

    margin: int
    """Score games: the points the player to move scores beyond the opponent from here on, with best play on
    both sides (negative when behind)."""

    element: int
    """Misère heap games: the element of the game's misère quotient the position maps to (the product of its
    heaps' elements; 0 is the empty position), as GetStats' quotient numbers it."""


class HeapMove(TypedDict):
    """Heap games (nim, subtraction, octal, Grundy's game): the heap a move takes from, and what it leaves."""

    heap: int
    """Heap games: the size of the heap moved in."""

    to: list[int]
    """Heap games: the heaps it leaves ([] when the heap vanishes, two when it splits)."""


class WythoffMove(TypedDict):
    """Wythoff: the pair a move takes from, and the pair it becomes."""

    pair: list[int]
    """Wythoff: the pair moved in, as [a, b]."""

    to: list[int]
    """Wythoff: the pair it becomes, [c, d] ([0, 0] when both piles are emptied)."""


class BicolorMove(TypedDict):
    """bicolor-nim: the heap a move takes from, what it becomes, the stones of each colour taken, and the G-
    of the position reached."""

    colored_heap: list[int]
    """bicolor-nim: the heap moved in, as [white, black]."""

    to: list[int]
    """bicolor-nim: the heap it becomes, [white, black] ([0, 0] when it is taken whole)."""

    white_taken: int
    """bicolor-nim: white stones the move takes."""

    black_taken: int
    """bicolor-nim: black stones the move takes."""

    grundy_black: NotRequired[int]
    """Of the position reached. bicolor-nim only: G-, the size of the black heap that, added to the position,
    makes it a P-position (`grundy` is G, the same with a white heap). Unsigned, up to 2^63."""


class LightsOutPress(TypedDict):
    """A press of a one-player puzzle (the move is a press; `outcome` is empty)."""

    solvable: bool
    """Of the position reached. One-player puzzles only: whether the board can be solved (`remoteness`: the
    fewest presses then, where searched)."""


class ChessMove(TypedDict):
    """Chess endgames (`move` is the UCI text too; `position` is the FEN it leads to)."""

    uci: str
    """Chess: the move in UCI notation (from and to squares, and the piece promoted to), e.g. "e7e8q"."""

    san: str
    """Chess: the move in Standard Algebraic Notation, e.g. "Ra8#" or "e8=Q+"."""

    zeroing: bool
    """Chess: the move is a capture or a pawn move (it resets the halfmove clock)."""

    conversion: bool
    """Chess: the move is a capture or a promotion (it changes the material)."""


class ToyMove(TypedDict):
    """A move of the toy kind (tests only)."""

    children: int
    """Toy game only (tests): how many moves the position reached has."""


class ScoreMove(TypedDict):
    """A move of a score game: the margin it gets the player making it."""

    margin: int
    """Score games: the margin the player making the move gets by it (its points, plus the margin of the
    position reached when the same player moves again, minus it when the turn passes)."""


class MoveKinds(TypedDict, total=False):
    """Every field a kind may add to a move, flat (each kind gives its own)."""

    heap: int
    """Heap games: the size of the heap moved in."""

    to: list[int]
    """Heap games: the heaps it leaves ([] when the heap vanishes, two when it splits). Wythoff: the pair it
    becomes, [c, d] ([0, 0] when both piles are emptied). bicolor-nim: the heap it becomes, [white, black]
    ([0, 0] when it is taken whole)."""

    pair: list[int]
    """Wythoff: the pair moved in, as [a, b]."""

    colored_heap: list[int]
    """bicolor-nim: the heap moved in, as [white, black]."""

    white_taken: int
    """bicolor-nim: white stones the move takes."""

    black_taken: int
    """bicolor-nim: black stones the move takes."""

    grundy_black: int
    """Of the position reached. bicolor-nim only: G-, the size of the black heap that, added to the position,
    makes it a P-position (`grundy` is G, the same with a white heap). Unsigned, up to 2^63."""

    solvable: bool
    """Of the position reached. One-player puzzles only: whether the board can be solved (`remoteness`: the
    fewest presses then, where searched)."""

    uci: str
    """Chess: the move in UCI notation (from and to squares, and the piece promoted to), e.g. "e7e8q"."""

    san: str
    """Chess: the move in Standard Algebraic Notation, e.g. "Ra8#" or "e8=Q+"."""

    zeroing: bool
    """Chess: the move is a capture or a pawn move (it resets the halfmove clock)."""

    conversion: bool
    """Chess: the move is a capture or a promotion (it changes the material)."""

    children: int
    """Toy game only (tests): how many moves the position reached has."""

    margin: int
    """Score games: the margin the player making the move gets by it (its points, plus the margin of the
    position reached when the same player moves again, minus it when the turn passes)."""
