"""Lights Out game ids and boards as text: `lights-out:RxC[:TOPOLOGY]`, `lights-out:graph:NAME`, 0/1 rows."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    InvalidGameId,
    InvalidPosition,
    LimitExceeded,
)
from engine.graphs import check_graph_name
from engine.positions import check_length, parse_decimal, quote_position, quote_token
from kinds.lights_out.shape import (
    FAMILY,
    GLUING,
    MAX_BOARD_SIDE,
    MAX_SIDE,
    TOPOLOGIES,
    Shape,
)

I64 = NDArray[np.int64]


_SIZE = re.compile(r"([0-9]+)x([0-9]+)")
_BOARD_CHARS = re.compile(r"[^01/]")

# -- game ids and boards --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraphRef:
    """`lights-out:graph:NAME`: the shape is the uploaded graph NAME, which the caller loads
    (`LightsOut.for_uploaded`)."""

    name: str

    @property
    def game_id(self) -> str:
        return f"{FAMILY}:graph:{self.name}"


def parse_lights_out_id(params: str | None, text: str) -> Shape | GraphRef:
    """The shape a `lights-out:...` game id names (params: what follows `lights-out:`).

    InvalidGameId, quoting the id, for a missing or malformed size, sizes of 0 or above 100,000, or an
    unknown topology."""
    if not params:
        raise InvalidGameId(
            f"game id {quote_token(text)} needs a shape: 'lights-out:RxC', 'lights-out:RxC:TOPOLOGY' "
            f"(TOPOLOGY one of {', '.join(TOPOLOGIES)}) or 'lights-out:graph:NAME'"
        )
    if params.startswith("graph:"):
        try:
            return GraphRef(check_graph_name(params[len("graph:") :], error=InvalidGameId))
        except InvalidGameId as exc:
            raise InvalidGameId(f"game id {quote_token(text)}: {exc}") from None
    size, glued, topology = params.partition(":")
    match = _SIZE.fullmatch(size)
    if match is None:
        raise InvalidGameId(
            f"game id {quote_token(text)}: shape {quote_token(size)} is not 'RxC' (rows x columns, "
            "e.g. 'lights-out:5x5')"
        )
    where = f" in game id {quote_token(text)}"
    rows, cols = (
        parse_decimal(part, what=what, where=where, limit=MAX_SIDE, error=InvalidGameId)
        for part, what in ((match.group(1), "row count"), (match.group(2), "column count"))
    )
    if rows == 0 or cols == 0:
        raise InvalidGameId(f"game id {quote_token(text)}: a board needs at least one row and one column")
    if not glued:
        topology = "plane"
    if topology not in GLUING:
        raise InvalidGameId(
            f"game id {quote_token(text)}: unknown topology {quote_token(topology)} "
            f"(known: {', '.join(TOPOLOGIES)})"
        )
    return Shape.grid(rows, cols, topology)


#: A board: bit i is cell i (row-major; the vertex order for graphs), 1 = black.
Board = int


def parse_board(shape: Shape, text: str) -> Board:
    """The board `text` names on `shape`; InvalidPosition quoting it when malformed or of another size,
    LimitExceeded on shapes past 256 x 256 (their boards are not valued live)."""
    check_length(text)
    if shape.graph is not None:
        n = shape.cells
        bad = _BOARD_CHARS.search(text)
        if bad is not None or "/" in text:
            char = text[bad.start()] if bad is not None else "/"
            raise InvalidPosition(
                f"character {char!r} in {quote_position(text)}: a board of {shape.game_id} is one 0 or 1 "
                "per vertex"
            )
        if len(text) != n:
            raise InvalidPosition(
                f"board {quote_position(text)} has {len(text)} cells, but graph {shape.graph.name!r} has "
                f"{n} vertices"
            )
        return int(text[::-1], 2)
    if shape.rows > MAX_BOARD_SIDE or shape.cols > MAX_BOARD_SIDE:
        raise LimitExceeded(
            f"boards of {shape.game_id} are beyond the live limit: positions are valued on boards of up to "
            f"{MAX_BOARD_SIDE} x {MAX_BOARD_SIDE} (GetStats answers for the shape)"
        )
    bad = _BOARD_CHARS.search(text)
    if bad is not None:
        raise InvalidPosition(
            f"character {text[bad.start()]!r} in board {quote_position(text)}: rows are 0 (white) and 1 "
            "(black) joined by '/'"
        )
    rows = text.split("/")
    if len(rows) != shape.rows:
        raise InvalidPosition(
            f"board {quote_position(text)} has {len(rows)} rows, but {shape.game_id} has {shape.rows}"
        )
    for i, row in enumerate(rows):
        if len(row) != shape.cols:
            raise InvalidPosition(
                f"row {i + 1} {quote_token(row)} of board {quote_position(text)} has {len(row)} cells, "
                f"but {shape.game_id} has {shape.cols} columns"
            )
    return int("".join(rows)[::-1], 2)


def format_board(shape: Shape, board: Board) -> str:
    """The canonical text of a board."""
    n = shape.cells
    if board < 0 or board >> n:
        raise ValueError(f"board {board} has bits past the {n} cells of {shape.game_id}")
    flat = format(board, f"0{n}b")[::-1]
    if shape.graph is not None:
        return flat
    c = shape.cols
    return "/".join(flat[i : i + c] for i in range(0, n, c))
