"""`chess:MATERIAL`: endgame tables of every pawnless material with up to four men, and KPvK.

A table holds every position of its material, either side to move, as win / loss / draw for the side
to move with remoteness in plies (Rivier's coefficient: checkmate is a loss in 0, a mate in n moves a
win in 2n - 1 plies, the loser delaying as long as it can). Stalemate is a draw; there is no fifty-move
rule and no castling; positions are FENs (python-chess reads, checks and writes them, and gives SAN).

Materials are named the usual tablebase way, the stronger side first (`KQvKR`); a table covers both
colourings (White K+Q against Black K+R and the reverse). Positions are indexed with the stronger side
as White by a perfect index over the kings' placements under the board's symmetries (462 without pawns,
1806 with, the left-right mirror only) and the other men's squares (engine.kernels.chess_movegen).

Solving is retrograde analysis (engine.kernels.retrograde) over the table's own moves, the numba move
generator listing every slot's moves; a capture or a promotion leaves the material for a smaller or
other table, solved first, whose values enter as known external moves (the tablebase way). Results
are packed one byte per slot (`Packed`, what a query reads), and stored deflated (`ChessTable.to_bytes`,
0.25 to 0.5 bytes per position in the bench; `Packed.from_bytes` reads it back).

`solve_material` solves one material given the tables its captures and promotions lead to; what solves a
material with those tables, in `solve_order`, is the worker's job (engine.games.chess' `TableKernel`),
which the tests run too. `ChessTable` is a solved table as data and lookups, on boards checked once
(`checked_board`): `value(board)`, `moves(board)` (every legal move, best first, in UCI with its SAN
and the FEN it leads to), `stats()`; the kind serving it is engine.games.chess' `ChessGame`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

import chess
import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidGameId, LimitExceeded
from engine.games.chess_fen import check_material, parse_fen
from engine.games.chess_records import ChessMove
from engine.kernels import chess_movegen as mg
from engine.kernels.retrograde import LOSS, WIN, ExternalMoves, Packed, pack, solve_reverse
from engine.moves import move_rank
from engine.positions import quote_position
from engine.values import MoveValue, Outcome, Source, Value

I64 = NDArray[np.int64]

_LETTERS = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}
_ORDER = "QRBNP"
_MATERIAL = re.compile(r"K([QRBNP]*)vK([QRBNP]*)")
#: Most men a table may hold.
MAX_MEN = 4
#: Slots per generator call between progress reports.
CHUNK = 1 << 18
#: Longest FEN text looked at (a FEN of these materials is under 60 characters).
MAX_FEN_CHARS = 120

_OUTCOMES: dict[int, Outcome] = {WIN: "N", LOSS: "P", 0: "D"}


def _side_key(side: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    return len(side), tuple(sorted(side, reverse=True))


def _letters(side: tuple[int, ...]) -> str:
    return "K" + "".join(chess.piece_symbol(t).upper() for t in side)


@dataclass(frozen=True)
class Material:
    """Side A's men besides its king (the stronger side, White in the index) and side B's, each
    strongest first (queen, rook, bishop, knight, pawn)."""

    a: tuple[int, ...]
    b: tuple[int, ...]

    @staticmethod
    def of(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[Material, bool]:
        """The canonical material of sides (a, b), and whether its side A is b."""
        a = tuple(sorted(a, reverse=True))
        b = tuple(sorted(b, reverse=True))
        if _side_key(b) > _side_key(a):
            return Material(b, a), True
        return Material(a, b), False

    @property
    def name(self) -> str:
        return f"{_letters(self.a)}v{_letters(self.b)}"

    @property
    def game_id(self) -> str:
        return f"chess:{self.name}"

    @property
    def men(self) -> int:
        return 2 + len(self.a) + len(self.b)

    @property
    def pawnful(self) -> bool:
        return chess.PAWN in self.a or chess.PAWN in self.b

    @property
    def symmetric(self) -> bool:
        return self.a == self.b

    @property
    def pieces(self) -> list[tuple[int, int]]:
        """(type, owner) of the men besides the kings, in index order (owner 0 = A)."""
        return [(t, 0) for t in self.a] + [(t, 1) for t in self.b]

    @cached_property
    def spec(self) -> I64:
        row = [len(self.pieces), int(self.pawnful), 0, 0, 0, 0]
        for i, (t, o) in enumerate(self.pieces):
            row[2 + 2 * i], row[3 + 2 * i] = t, o
        return np.array(row, dtype=np.int64)

    @property
    def slots(self) -> int:
        return 2 * int(mg.half_size(self.spec))

    def children(self) -> list[tuple[Material, bool, list[int]] | None]:
        """Per capture of man c, then per promotion to knight, bishop, rook, queen: the material the
        move leads to, whether its side A is our B, and which men left become its men (else None)."""
        pieces = self.pieces
        rows: list[tuple[Material, bool, list[int]] | None] = []
        for c in range(len(pieces)):
            rows.append(self._child([p for k, p in enumerate(pieces) if k != c]))
        for promo in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            if self.pawnful:
                rows.append(self._child([(promo if t == chess.PAWN else t, o) for t, o in pieces]))
            else:
                rows.append(None)
        return rows

    @staticmethod
    def _child(left: list[tuple[int, int]]) -> tuple[Material, bool, list[int]] | None:
        a = tuple(t for t, o in left if o == 0)
        b = tuple(t for t, o in left if o == 1)
        material, flip = Material.of(a, b)
        if not supported(material):
            return None
        mapped = [(t, 1 - o if flip else o) for t, o in left]
        perm: list[int] = []
        for man in material.pieces:
            perm.append(next(i for i, p in enumerate(mapped) if p == man and i not in perm))
        return material, flip, perm

    def sub_materials(self) -> list[Material]:
        """The materials its captures and promotions lead to (each once)."""
        out: list[Material] = []
        for row in self.children():
            if row is not None and row[0] not in out:
                out.append(row[0])
        return out


def supported(material: Material) -> bool:
    if material.men > MAX_MEN:
        return False
    return not material.pawnful or material.name == "KPvK"


def parse_material(text: str) -> Material:
    """`KRvK`, `KQvKR`... (either side first, men in any order); InvalidGameId quoting it otherwise."""
    match = _MATERIAL.fullmatch(text)
    if match is None:
        raise InvalidGameId(
            f"chess material {quote_position(text)} is not a material such as 'KRvK' or 'KQvKR' "
            "(K, the side's men among Q R B N P, 'v', then K and the other side's)"
        )
    material, _ = Material.of(
        tuple(_LETTERS[c] for c in match.group(1)), tuple(_LETTERS[c] for c in match.group(2))
    )
    if not supported(material):
        raise InvalidGameId(
            f"chess material {quote_position(text)} is not supported: tables cover every pawnless "
            f"material of up to {MAX_MEN} men, and KPvK"
        )
    return material


def all_materials() -> list[Material]:
    """Every supported material, each after the ones it leads to."""
    pieces = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
    sides: list[tuple[int, ...]] = [()]
    sides += [(p,) for p in pieces]
    sides += [(p, q) for i, p in enumerate(pieces) for q in pieces[i:]]
    found: list[Material] = []
    for a in sides:
        for b in sides:
            material, _ = Material.of(a, b)
            if supported(material) and material not in found:
                found.append(material)
    found.append(parse_material("KPvK"))
    return solve_order(found)


def solve_order(materials: list[Material]) -> list[Material]:
    """`materials` and everything they lead to, each after all it leads to."""
    out: list[Material] = []

    def visit(material: Material) -> None:
        if material in out:
            return
        for sub in material.sub_materials():
            if sub != material:
                visit(sub)
        out.append(material)

    for material in materials:
        visit(material)
    return out


# -- solving -------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MaterialGraph:
    """The moves of every slot of a material: within it as a reverse CSR (predecessors) with the
    out-degrees, out of it (captures, promotions) summarised from the sub-tables' values."""

    rev_indptr: I64
    rev_indices: NDArray[np.int32]
    degree: NDArray[np.int32]
    external: ExternalMoves
    #: At slots with no legal move: -1 checkmate, 0 stalemate (and 0 at broken slots).
    terminal: NDArray[np.int8]
    broken: NDArray[np.bool_]


def material_graph(
    material: Material,
    tables: Mapping[str, ChessTable],
    progress: Callable[[int, int], None] | None = None,
) -> MaterialGraph:
    """Generate every slot's moves (two passes of the numba generator: degrees, then predecessors);
    `tables` holds every table the captures and promotions lead to. progress(done, 2 * slots)."""
    spec = material.spec
    n = material.slots
    rows = material.children()
    children = np.full((len(rows), 9), -1, dtype=np.int64)
    outcomes: list[NDArray[np.int8]] = []
    remotes: list[NDArray[np.int32]] = []
    bases = np.zeros(len(rows), dtype=np.int64)
    at = 0
    for r, row in enumerate(rows):
        if row is None:
            continue
        sub, flip, perm = row
        children[r, :6] = sub.spec
        children[r, 6] = int(flip)
        children[r, 7 : 7 + len(perm)] = perm
        outcome, remoteness, broken_sub = tables[sub.name].packed.unpack()
        remoteness[broken_sub] = -2
        outcomes.append(outcome)
        remotes.append(remoteness)
        bases[r] = at
        at += outcome.shape[0]
    child_outcome = np.concatenate(outcomes) if outcomes else np.zeros(1, np.int8)
    child_remoteness = np.concatenate(remotes) if remotes else np.zeros(1, np.int32)

    degree = np.zeros(n, dtype=np.int32)
    counts = np.zeros(n, dtype=np.int64)
    ext = ExternalMoves(
        np.zeros(n, np.int32), np.full(n, -1, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32)
    )
    terminal = np.zeros(n, dtype=np.int8)
    broken = np.zeros(n, dtype=np.bool_)

    def passes(fill: bool, rev_indices: NDArray[np.int32], offset: int) -> None:
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            errors = mg.generate(
                spec, children, child_outcome, child_remoteness, bases, lo, hi, fill, degree, counts,
                rev_indices, ext.count, ext.lost_min, ext.won_count, ext.won_max, terminal, broken,
            )  # fmt: skip
            if errors:
                raise RuntimeError(
                    f"{material.name}: {errors} moves lead to positions missing from sub-tables"
                )
            if progress is not None:
                progress(offset + hi, 2 * n)

    passes(False, np.zeros(0, dtype=np.int32), 0)
    rev_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=rev_indptr[1:])
    counts[:] = rev_indptr[:-1]
    rev_indices = np.empty(int(rev_indptr[-1]), dtype=np.int32)
    passes(True, rev_indices, n)
    return MaterialGraph(rev_indptr, rev_indices, degree, ext, terminal, broken)


def solve_material(
    material: Material,
    tables: Mapping[str, ChessTable],
    progress: Callable[[int, int], None] | None = None,
) -> Packed:
    """The packed table of `material`; `tables` holds every table its captures and promotions lead to.
    progress(done, total) runs through three phases of `slots` steps each (moves, predecessors, solve)."""
    n = material.slots
    graph = material_graph(material, tables, None if progress is None else (lambda d, _t: progress(d, 3 * n)))
    outcome, remoteness = solve_reverse(
        graph.rev_indptr,
        graph.rev_indices,
        graph.degree,
        graph.terminal,
        graph.external,
        None if progress is None else (lambda done, _total: progress(2 * n + done, 3 * n)),
    )
    if progress is not None:
        progress(3 * n, 3 * n)
    return pack(outcome, remoteness, graph.broken)


# -- positions -----------------------------------------------------------------------------------------


def canonical_fen(board: chess.Board) -> str:
    return f"{board.board_fen()} {'w' if board.turn else 'b'} - - 0 1"


def board_material(board: chess.Board) -> tuple[Material, bool]:
    """The board's canonical material and whether its side A is Black."""
    white = tuple(p.piece_type for p in board.piece_map().values() if p.color and p.piece_type != chess.KING)
    black = tuple(
        p.piece_type for p in board.piece_map().values() if not p.color and p.piece_type != chess.KING
    )
    return Material.of(white, black)


def slot_of_board(material: Material, board: chess.Board) -> int:
    """The slot of a legal board of `material` (either colouring, either side to move)."""
    found, flip = board_material(board)
    if found != material:
        raise ValueError(f"the board is {found.name}, not {material.name}")
    a_colour = chess.BLACK if flip else chess.WHITE
    xor = 56 if flip else 0
    ka = board.king(a_colour)
    kb = board.king(not a_colour)
    assert ka is not None and kb is not None
    squares: list[int] = []
    used: set[int] = set()
    for kind, owner in material.pieces:
        colour = a_colour if owner == 0 else (not a_colour)
        sq = next(s for s in board.pieces(kind, colour) if s not in used)
        used.add(sq)
        squares.append(sq ^ xor)
    squares += [-1] * (2 - len(squares))
    stm = 0 if board.turn == a_colour else 1
    return int(mg.canonical(material.spec, ka ^ xor, kb ^ xor, squares[0], squares[1], stm))


def checked_board(material: Material, text: str) -> chess.Board:
    """The position a FEN names, checked (engine.games.chess_fen: InvalidPosition quoting it when
    malformed, illegal, with castling rights or of another material than `material`), with its en
    passant square and clocks."""
    board = parse_fen(text)
    return check_material(material, board_material(board)[0].name, board, text)


def board_of_slot(material: Material, slot: int) -> chess.Board | None:
    """The position of a slot (side A as White), None for a broken slot."""
    sq = np.empty(4, dtype=np.int64)
    kinds = np.empty(4, dtype=np.int64)
    owners = np.empty(4, dtype=np.int64)
    stm = mg.setup(material.spec, slot, sq, kinds, owners)
    if stm < 0:
        return None
    board = chess.Board(None)
    for k in range(2 + len(material.pieces)):
        board.set_piece_at(int(sq[k]), chess.Piece(int(kinds[k]), bool(owners[k] == 0)))
    board.turn = bool(stm == 0)
    return board


# -- the solved table ----------------------------------------------------------------------------------


class ChessTable:
    """One material's solved table as data: the value of a board of its material (or of one its moves
    lead to, from `tables`, the tables its captures and promotions lead to where they are known), the
    moves of a board, best first, and the whole table's statistics. Boards come checked (`checked_board`,
    parsed once per request by the kind, engine.games.chess' `ChessGame`)."""

    def __init__(
        self,
        material: Material,
        packed: Packed,
        tables: Mapping[str, ChessTable] | None = None,
        source: Source = "table",
    ) -> None:
        if len(packed) != material.slots:
            raise ValueError(f"a table of {material.name} has {material.slots} slots, not {len(packed)}")
        self.material = material
        self.game_id = material.game_id
        self.packed = packed
        self.tables = tables if tables is not None else {}
        self.source: Source = source
        self._stats: dict[str, object] | None = None

    def to_bytes(self) -> bytes:
        """What a worker stores: the packed table deflated (`Packed.from_bytes` reads it back)."""
        return self.packed.to_bytes()

    def slot(self, board: chess.Board) -> int:
        """The board's slot in this table (the board must be of its material and legal)."""
        return slot_of_board(self.material, board)

    def board_of_slot(self, slot: int) -> chess.Board | None:
        """The position of a slot (side A as White), None for a broken slot."""
        return board_of_slot(self.material, slot)

    def value(self, board: chess.Board) -> Value:
        """The value of a legal board of this table's material or of one its moves lead to (LimitExceeded
        naming the table when that one is not in `tables`)."""
        material, _ = board_material(board)
        if material == self.material:
            return self._value(board)
        table = self.tables.get(material.name)
        if table is None:
            raise LimitExceeded(
                f"the table of {material.name}, which moves of {self.game_id!r} lead to, is not solved yet"
            )
        return table._value(board)

    def _value(self, board: chess.Board) -> Value:
        found = self.packed.lookup(self.slot(board))
        assert found is not None, "a legal position has a slot"
        outcome, remoteness = found
        return Value(
            self.game_id,
            canonical_fen(board),
            _OUTCOMES[outcome],
            None,
            remoteness if remoteness >= 0 else None,
            self.source,
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

    def stats(self) -> dict[str, object]:
        """wins, losses, draws, longest_win and longest_loss (plies) over every position of the table,
        either side to move, each counted once (up to the board's symmetries), with a position of each
        longest line, its size and where it came from."""
        if self._stats is None:
            self._stats = self._count()
        return dict(self._stats)

    def _count(self) -> dict[str, object]:
        outcome, remoteness, broken = self.packed.unpack()
        # A position whose kings share the diagonal has two slots (both symmetric images): counted once.
        once = ~broken & mg.canonical_slots(self.material.spec)
        wins = outcome == WIN
        losses = outcome == LOSS
        out: dict[str, object] = {
            "game": self.game_id,
            "material": self.material.name,
            "positions": int(once.sum()),
            "index_slots": len(self.packed),
            "bytes": self.packed.nbytes,
            "wins": int((wins & once).sum()),
            "losses": int((losses & once).sum()),
            "draws": int(((outcome == 0) & once).sum()),
            "longest_win": int(remoteness[wins].max(initial=0)),
            "longest_loss": int(remoteness[losses].max(initial=0)),
            "source": self.source,
        }
        for key, mask in (("longest_win_position", wins), ("longest_loss_position", losses)):
            if mask.any():
                slot = int(np.flatnonzero(mask)[np.argmax(remoteness[mask])])
                board = self.board_of_slot(slot)
                assert board is not None
                out[key] = canonical_fen(board)
        return out
