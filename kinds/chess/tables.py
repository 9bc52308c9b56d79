"""`chess:MATERIAL`: endgame tables of every material of up to five men, pawns included.

A table holds every position of its material, either side to move, with two metrics for the side to
move: DTM in plies (Rivier's coefficient: checkmate is a loss in 0, a mate in n moves a win in 2n - 1
plies, the loser delaying as long as it can; no fifty-move rule), and DTZ with the fifty-move rule's
outcome, the Syzygy way (kinds.chess.probe). Stalemate is a draw; there is no castling; en
passant is played (a position with a capturable en passant square is valued from its moves, as Syzygy
does: the table holds positions without the right). Positions are FENs (python-chess reads, checks and
writes them, and gives SAN).

Materials (kinds.chess.material) are named the usual tablebase way, the stronger side first
(`KQvKR`); a table covers both colourings. Positions are indexed with the stronger side as White by a
perfect index (kinds.chess.kernels.index) and solved by kinds.chess.solve, captures and
promotions read from the sub-tables, solved first. Values are stored by compressed blocks
(kinds.chess.blocks; kinds.chess.format reads tables stored whole before blocks).

`ChessTable` is a solved table as data and lookups, on boards checked once (`checked_board`):
`probe(board)` (kinds.chess.probe's record), `value(board)`, `moves(board)` (every legal move,
best first, in UCI with its SAN and the FEN it leads to), `stats()`; the kind serving it is
kinds.chess.kind' `ChessGame`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping

import chess
import numpy as np
from numpy.typing import NDArray

from engine.errors import LimitExceeded
from engine.moves import move_rank
from engine.values import MoveValue, Outcome, Source, Value
from kinds.chess.blocks import BlockedValues, ReadRange, ReadRanges, to_side_blocks
from kinds.chess.fen import MAX_SYZYGY_MEN, MAX_TABLE_MEN, check_material, parse_fen
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kernels.lookup import best_many, children_many, probe_many
from kinds.chess.kernels.movegen import MAX_MOVES
from kinds.chess.kernels.values import NONE, after, better, dtm_plies, dtz_plies, wdl, zeroing
from kinds.chess.material import MAX_MEN, Material, materials_of, parse_material, solve_order
from kinds.chess.probe import ChessProbe
from kinds.chess.records import ChessMove
from kinds.chess.solve import solve_material

I64 = NDArray[np.int64]
#: The table of a material (a request's lookup of tables: kept, stored or solved live).
TableOf = Callable[[Material], "ChessTable"]

__all__ = [
    "MAX_MEN",
    "ChessTable",
    "Material",
    "all_materials",
    "board_material",
    "board_of_slot",
    "board_squares",
    "canonical_fen",
    "checked_board",
    "parse_material",
    "slot_of_board",
    "solve_material",
    "solve_order",
]

#: Longest FEN text looked at (a FEN of these materials is under 70 characters).


def all_materials() -> list[Material]:
    """Every material of up to four men, each after the ones it leads to (five-man tables are asked for
    one by one: `materials_of(5)` lists them)."""
    return materials_of(4)


# -- positions -----------------------------------------------------------------------------------------


def canonical_fen(board: chess.Board) -> str:
    return f"{board.board_fen()} {'w' if board.turn else 'b'} - - 0 1"


#: The men besides the kings, strongest first.
_KINDS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
#: Materials kept by the men of each side: every pair of sides of up to five men besides the kings (3,003)
#: fits, so the materials of every table and Syzygy file stay, and no board can grow it past this.
MATERIALS_KEPT = 4096


@functools.lru_cache(maxsize=MATERIALS_KEPT)
def _material_of(white: tuple[int, ...], black: tuple[int, ...]) -> tuple[Material, bool]:
    """`Material.of`, kept (every answer looks its moves' materials up; the cache is thread-safe)."""
    return Material.of(white, black)


def board_material(board: chess.Board) -> tuple[Material, bool]:
    """The board's canonical material and whether its side A is Black."""
    white, black = (
        tuple(kind for kind in _KINDS for _ in range(chess.popcount(board.pieces_mask(kind, colour))))
        for colour in (chess.WHITE, chess.BLACK)
    )
    return _material_of(white, black)


def board_squares(material: Material, board: chess.Board, flip: bool) -> list[int]:
    """The squares of a board of `material` (`flip`: its side A is Black) as the index orders them: the
    kings, then the material's men in its order, side A as White (ranks mirrored when it is Black), then
    zeros up to the index's width."""
    a_colour = chess.BLACK if flip else chess.WHITE
    xor = 56 if flip else 0
    ka = board.king(a_colour)
    kb = board.king(not a_colour)
    assert ka is not None and kb is not None
    squares = [ka ^ xor, kb ^ xor]
    left: dict[tuple[int, int], list[int]] = {}
    for kind, owner in material.pieces:
        found = left.get((kind, owner))
        if found is None:
            colour = a_colour if owner == 0 else (not a_colour)
            found = left[kind, owner] = list(chess.scan_forward(board.pieces_mask(kind, colour)))
        squares.append(found.pop(0) ^ xor)
    return squares + [0] * (2 + ix.MAX_PIECES - len(squares))


def slot_of_board(material: Material, board: chess.Board) -> int:
    """The slot of a legal board of `material` (either colouring, either side to move; its en passant
    square is not looked at)."""
    found, flip = board_material(board)
    if found != material:
        raise ValueError(f"the board is {found.name}, not {material.name}")
    return _slot(material, board, flip)


def _slot(material: Material, board: chess.Board, flip: bool) -> int:
    squares = board_squares(material, board, flip)
    stm = 0 if board.turn == (chess.BLACK if flip else chess.WHITE) else 1
    return int(
        ix.canonical(material.spec, np.array(squares, dtype=np.int64), stm, np.empty(5, dtype=np.int64))
    )


def checked_board(material: Material, text: str) -> chess.Board:
    """The position a FEN names, checked (kinds.chess.fen: InvalidPosition quoting it when
    malformed, illegal, with castling rights or of another material than `material`), with its en
    passant square and clocks."""
    board = parse_fen(text, MAX_SYZYGY_MEN if material.men > MAX_TABLE_MEN else MAX_TABLE_MEN)
    return check_material(material, board_material(board)[0].name, board, text)


def board_of_slot(material: Material, slot: int) -> chess.Board | None:
    """The position of a slot (side A as White), None for a slot naming no position."""
    spec = material.spec
    sq = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    kinds = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    owners = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    n = ix.men_of(spec, kinds, owners)
    stm = ix.valid(spec, slot, sq, kinds, owners, np.empty(5, dtype=np.int64))
    if stm < 0:
        return None
    board = chess.Board(None)
    for k in range(n):
        board.set_piece_at(int(sq[k]), chess.Piece(int(kinds[k]), bool(owners[k] == 0)))
    board.turn = bool(stm == 0)
    return board


def _board(material: Material, squares: I64, stm: int) -> chess.Board:
    """The position of men on `squares` as the index orders them (side A as White), `stm` to move."""
    board = chess.Board(None)
    men = [(chess.KING, 0), (chess.KING, 1), *material.pieces]
    for square, (kind, owner) in zip(squares.tolist(), men, strict=False):
        board.set_piece_at(square, chess.Piece(kind, owner == 0))
    board.turn = stm == 0
    return board


def _leaves(board: chess.Board, move: chess.Move) -> bool:
    """Whether a move leaves the table (a capture, a promotion) or may leave an en passant square (a
    double step): those `children_many` leaves to a search by board."""
    return (
        board.is_capture(move)
        or move.promotion is not None
        or (board.pawns >> move.from_square & 1 == 1 and abs(move.to_square - move.from_square) == 16)
    )


def _has_en_passant(board: chess.Board) -> bool:
    return board.ep_square is not None and board.has_legal_en_passant()


# -- the solved table ----------------------------------------------------------------------------------


#: Slots counted at a time by `ChessTable.stats`.
STATS_PIECE = 1 << 24


class ChessTable:
    """One material's solved table as data: the probe and value of a board of its material (or of one
    its moves lead to, from `tables`, the tables its captures and promotions lead to where they are
    known), the moves of a board, best first, and the whole table's statistics. Boards come checked
    (`checked_board`, parsed once per request by the kind, kinds.chess.kind' `ChessGame`)."""

    def __init__(
        self,
        material: Material,
        packed: ChessValues | BlockedValues,
        tables: Mapping[str, ChessTable] | None = None,
        source: Source = "table",
        stats: dict[str, object] | None = None,
    ) -> None:
        if len(packed) != material.slots:
            raise ValueError(f"a table of {material.name} has {material.slots} slots, not {len(packed)}")
        self.material = material
        self.game_id = material.game_id
        #: The values per slot (DTM and DTZ): in memory, or a stored table's blocks read as probed.
        self.values = packed
        self.tables = tables if tables is not None else {}
        self.source: Source = source
        #: The whole table's statistics once counted (shared by the table's readers, `reading`).
        self._stats: dict[str, object] = {} if stats is None else stats

    @property
    def packed(self) -> ChessValues:
        """Every slot's values in memory (a blocked table's blocks all read: whole-table readers only; a
        table of one side to move rebuilt from the sub-tables in `tables`)."""
        return self.packed_with(None)

    def packed_with(self, others: TableOf | None) -> ChessValues:
        """`packed`, a table of one side to move (block format 6) rebuilt from the whole values of the
        sub-tables `others` gives (else `tables`; LimitExceeded naming one missing)."""
        values = self.values
        if isinstance(values, ChessValues):
            return values
        return values.whole(_SubValues(self, others))

    @property
    def nbytes(self) -> int:
        """What the table itself keeps in memory: its values, or a blocked table's index."""
        return self.values.nbytes

    def reading(self, read: ReadRange, read_many: ReadRanges | None = None) -> ChessTable:
        """This table with a stored blocked table's blocks read through `read` and `read_many` (a request's
        own readers; the index, the block cache and the statistics are shared); an in-memory table as it
        is."""
        values = self.values
        if isinstance(values, ChessValues):
            return self
        return ChessTable(
            self.material, values.reading(read, read_many), self.tables, self.source, self._stats
        )

    def to_bytes(self) -> bytes:
        """What a worker stores, by blocks of one side to move (kinds.chess.blocks' format 6)."""
        return to_side_blocks(self.packed, self.material)

    def slot(self, board: chess.Board) -> int:
        """The board's slot in this table (the board must be of its material and legal)."""
        return slot_of_board(self.material, board)

    def board_of_slot(self, slot: int) -> chess.Board | None:
        """The position of a slot (side A as White), None for a slot naming no position."""
        return board_of_slot(self.material, slot)

    def _table_of(self, board: chess.Board) -> ChessTable:
        return self._table_for(board_material(board)[0])

    def _table_for(self, material: Material) -> ChessTable:
        if material == self.material:
            return self
        table = self.tables.get(material.name)
        if table is None:
            raise LimitExceeded(
                f"the table of {material.name}, which moves of {self.game_id!r} lead to, is not solved yet"
            )
        return table

    def encoded(self, board: chess.Board, others: TableOf | None = None) -> tuple[int, int]:
        """(DTM, DTZ) of a legal board of this material or one its moves lead to, in
        kinds.chess.kernels.values' encoding; a capturable en passant square is played (the capture
        leads into another material's table: `others` gives it, else `tables`); a side to move the
        table does not store (block format 6) is searched one ply (`encoded_rows`)."""
        if not _has_en_passant(board):
            material, flip = board_material(board)
            table = self if material == self.material or others is None else others(material)
            owner = table._table_for(material)
            values = owner.values
            slot = _slot(material, board, flip)
            if isinstance(values, ChessValues) or values.holds(slot):
                return values.lookup(slot)
            squares = np.array([board_squares(material, board, flip)], dtype=np.int64)
            stm = np.array([0 if board.turn == (chess.BLACK if flip else chess.WHITE) else 1], dtype=np.int64)
            found = owner._searched_rows(values, squares, stm, others, self)
            return int(found[0, 0]), int(found[0, 1])
        # A capturable en passant square: the best move's values, one ply on.
        moves = list(board.legal_moves)
        if not moves:
            return (-1, -1) if board.is_check() else (0, 0)
        best_m, best_z = -32768, -32768
        for move in moves:
            zeroing_move = board.is_zeroing(move)
            board.push(move)
            try:
                vm, vz = self.encoded(board, others)
            finally:
                board.pop()
            best_m = better(best_m, after(vm))
            best_z = better(best_z, zeroing(vz) if zeroing_move else after(vz))
        return best_m, best_z

    def probe(self, board: chess.Board, others: TableOf | None = None) -> ChessProbe:
        """DTM, DTZ and the fifty-move rule's outcome of a legal board (kinds.chess.probe), the
        halfmove clock taken as 0 (`others`: as `encoded` takes it)."""
        vm, vz = self.encoded(board, others)
        return ChessProbe(wdl(vz), dtz_plies(vz), dtm_plies(vm), True)

    def probe_many(self, boards: list[chess.Board]) -> list[ChessProbe]:
        return [self.probe(board) for board in boards]

    def encoded_rows(self, squares: I64, stms: I64, others: TableOf | None = None) -> I64 | None:
        """(DTM, DTZ) per row of positions of this table's material as the index sees them
        (`board_squares`, side to move per row: 0 side A), in one numba call; None when a row names no
        position of the table. A row of the side a table of one side to move does not store is searched
        one ply: its children in the table valued at once from their values (their blocks read once for
        every row), its captures, promotions and double steps board by board (`encoded`; `others`: as
        it takes it)."""
        out = np.empty((squares.shape[0], 2), dtype=np.int64)
        values = self.values
        if isinstance(values, ChessValues):
            done = probe_many(self.material.spec, squares, stms, values.dtm, values.dtz, out)
            return out if done == squares.shape[0] else None
        # By blocks: the slots first, then each block they fall in read once.
        image = np.empty(2 + ix.MAX_PIECES, dtype=np.int64)
        slots = np.array(
            [ix.canonical(self.material.spec, squares[i], stms[i], image) for i in range(squares.shape[0])],
            dtype=np.int64,
        )
        if (slots < 0).any():
            return None
        held = np.array([values.holds(slot) for slot in slots.tolist()], dtype=np.bool_)
        if held.all():
            out[:, 0], out[:, 1] = values.lookup_slots(slots)
            return out
        out[held, 0], out[held, 1] = values.lookup_slots(slots[held])
        searched = np.flatnonzero(~held)
        out[searched] = self._searched_rows(values, squares[searched], stms[searched], others)
        return out

    def _searched_rows(
        self,
        values: BlockedValues,
        squares: I64,
        stms: I64,
        others: TableOf | None,
        via: ChessTable | None = None,
    ) -> I64:
        """`encoded_rows` of rows of the side `values` does not store, one ply on (the moves leaving the
        table valued by `via`'s `encoded`, else this table's)."""
        rows = squares.shape[0]
        children = np.empty(rows * MAX_MOVES, dtype=np.int64)
        zeroes = np.empty(rows * MAX_MOVES, dtype=np.bool_)
        starts = np.empty(rows + 1, dtype=np.int64)
        leaves = np.empty(rows, dtype=np.bool_)
        count = children_many(self.material.spec, squares, stms, children, zeroes, starts, leaves)
        found = np.empty((rows, 2), dtype=np.int64)
        dtm, dtz = values.lookup_slots(children[:count])  # each of the stored side's blocks read once
        best_many(dtm, dtz, zeroes[:count], starts, found)
        for i in np.flatnonzero(leaves).tolist():
            board = _board(self.material, squares[i], int(stms[i]))
            moves = [move for move in board.legal_moves if _leaves(board, move)]
            if not moves and int(found[i, 0]) == NONE:
                found[i] = (-1, -1) if board.is_check() else (0, 0)  # no move at all
            for move in moves:  # each zeroes the clock
                board.push(move)
                try:
                    vm, vz = (via or self).encoded(board, others)
                finally:
                    board.pop()
                found[i, 0] = better(int(found[i, 0]), after(vm))
                found[i, 1] = better(int(found[i, 1]), zeroing(vz))
        return found

    def value(self, board: chess.Board) -> Value:
        """The value of a legal board of this table's material or of one its moves lead to (LimitExceeded
        naming the table when that one is not in `tables`): outcome and DTM."""
        table = self._table_of(board)
        vm, _ = self.encoded(board)
        outcome: Outcome = "N" if vm > 0 else ("P" if vm < 0 else "D")
        return Value(
            table.game_id,
            canonical_fen(board),
            outcome,
            None,
            abs(dtm_plies(vm)) if vm else None,
            table.source,
        )

    def moves(self, board: chess.Board) -> list[MoveValue]:
        """Every legal move of a legal board of this table's material, best first (fastest win, then
        draws, then slowest loss): `move` in UCI, fields `uci`, `san`; the value's position is the FEN
        reached. The board is left as it was."""
        board = board.copy(stack=False)
        moves: list[MoveValue] = []
        for move in list(board.legal_moves):
            san = board.san(move)
            uci = move.uci()
            board.push(move)
            try:
                value = self.value(board)
            finally:
                board.pop()
            zeroing, conversion = board.is_zeroing(move), board.is_capture(move) or move.promotion is not None
            moves.append(MoveValue(uci, value, ChessMove(uci, san, zeroing, conversion)))
        moves.sort(key=move_rank)
        return moves

    def stats(self, others: TableOf | None = None) -> dict[str, object]:
        """wins, losses, draws, longest_win and longest_loss (plies) over every position of the table,
        either side to move, each counted once (up to the board's symmetries), with a position of each
        longest line, its size and where it came from (`others`: as `packed_with` takes it)."""
        if not self._stats:
            self._stats.update(self._count(others))
        return dict(self._stats)

    def _count(self, others: TableOf | None) -> dict[str, object]:
        """The statistics, counted a piece of STATS_PIECE slots at a time: the temporaries of a whole
        five-man table with a pawn (a mask, remoteness in 32 bits, slot numbers in 64) took more memory
        than its values, and a worker's job more than its cap."""
        packed = self.packed_with(others)
        dtm, n = packed.dtm, len(packed)
        counted = {"positions": 0, "wins": 0, "losses": 0, "draws": 0}
        longest = {"win": (-1, -1), "loss": (-1, -1)}  # remoteness, and the first slot reaching it
        for lo in range(0, n, STATS_PIECE):
            hi = min(n, lo + STATS_PIECE)
            part, once = dtm[lo:hi], ix.valid_mask(self.material.spec, lo, hi)
            wins, losses = (part > 0) & once, (part < 0) & once
            counted["positions"] += int(once.sum())
            counted["wins"] += int(wins.sum())
            counted["losses"] += int(losses.sum())
            counted["draws"] += int(((part == 0) & once).sum())
            for key, mask, sign in (("win", wins, 1), ("loss", losses, -1)):
                if mask.any():
                    remoteness = sign * part[mask].astype(np.int32) - (sign < 0)
                    at = int(np.argmax(remoteness))
                    if int(remoteness[at]) > longest[key][0]:
                        longest[key] = (int(remoteness[at]), lo + int(np.flatnonzero(mask)[at]))
        out: dict[str, object] = {
            "game": self.game_id,
            "material": self.material.name,
            "positions": counted["positions"],
            "index_slots": n,
            "bytes": packed.nbytes,
            "wins": counted["wins"],
            "losses": counted["losses"],
            "draws": counted["draws"],
            "longest_win": max(longest["win"][0], 0),
            "longest_loss": max(longest["loss"][0], 0),
            "source": self.source,
        }
        for key in ("win", "loss"):
            if longest[key][1] >= 0:
                board = self.board_of_slot(longest[key][1])
                assert board is not None
                out[f"longest_{key}_position"] = canonical_fen(board)
        return out


class _SubValues(Mapping[str, ChessValues]):
    """The whole values of a table's sub-tables by material name (a rebuild of its side not stored
    reads them): from `others` where given, else the table's `tables`."""

    def __init__(self, table: ChessTable, others: TableOf | None) -> None:
        self._table = table
        self._others = others

    def __getitem__(self, name: str) -> ChessValues:
        material = parse_material(name)
        others = self._others
        found = others(material) if others is not None else self._table._table_for(material)
        return found.packed_with(others)

    def __iter__(self) -> Iterator[str]:
        return iter(sub.name for sub in self._table.material.sub_materials())

    def __len__(self) -> int:
        return len(self._table.material.sub_materials())
