"""`chess:MATERIAL` as served: endgame tables stored by workers, kept in the process, solved live when small.

The tables themselves (materials, the index, the solve, `ChessTable`) are engine.games.chess_tables';
this is the kind the registry gives for `chess:KRvK`, `chess:KQvKR`, ... (`ChessGame`), and the job that
stores a table (`TableKernel`, the family "table").

Where a table comes from, cheapest first:
- the process's cache (`TABLES`, least recently used dropped past `CACHE_BYTES`; every supported table
  together takes about 64 MB), so a position is then answered in well under 5 ms;
- storage: a worker's job stores a table as the family "table" (its `Packed.to_bytes`, a quarter to half
  a byte per position, through engine.stored_bytes), read once through `ctx.tables` (`source` "table");
- live: a material of at most `Limits.chess_live_men` men (3: under half a second each) is solved for
  the request, with the tables its captures and promotions lead to (`source` "live"; a stored table
  replaces it once a worker has stored one);
- else RESOURCE_EXHAUSTED, naming the job queued (or open) to store the table (`Tables.refusal`).

Sub-tables: a table's captures lead into smaller materials' tables, KPvK's promotions into KQvK, KRvK,
KBvK and KNvK, all of at most three men, so always within reach: BestMove loads (or solves) them beside
the table, and a worker's job for a material solves the ones it lacks itself, in `solve_order`, and
stores only its own (each sub-table is stored by its own job, when asked for).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

import chess
from cachetools import LRUCache

from engine.errors import InvalidArgument, InvalidGameId
from engine.games.chess_tables import (
    ChessTable,
    Material,
    canonical_fen,
    checked_board,
    parse_material,
    solve_material,
    solve_order,
)
from engine.kernels.retrograde import Packed
from engine.kind import Context, GameKind, SequenceKernel
from engine.moves import MoveTo, check_limit, list_moves
from engine.positions import quote_token
from engine.precompute import JobPlan
from engine.stored_bytes import BytesKernel, StoredLook, read_stored
from engine.values import BestMoveResult, GameInfo, Value

FAMILY = "chess"
#: The stored family holding a material's table.
TABLE = "table"
#: Bytes of tables kept in the process (every supported table together: about 64 MB).
CACHE_BYTES = 128 << 20


class TableCache:
    """Tables kept in the process by material name, least recently used dropped past `max_bytes`, and a
    lock per material so that a table is solved or loaded by one request at a time."""

    def __init__(self, max_bytes: int) -> None:
        self._tables: LRUCache[str, ChessTable] = LRUCache(maxsize=max_bytes, getsizeof=_table_bytes)
        self._locks: dict[str, threading.Lock] = {}
        #: For each table kept live: when to look for a stored one again.
        self._looks: dict[str, StoredLook] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> ChessTable | None:
        with self._lock:
            return self._tables.get(name)

    def put(self, table: ChessTable) -> None:
        name = table.material.name
        # A table larger than the whole cache (ValueError) serves its request and is not kept.
        with self._lock, contextlib.suppress(ValueError):
            self._tables[name] = table
            if table.source == "table":
                self._looks.pop(name, None)
            else:
                self._looks[name] = StoredLook()

    def kept(self, name: str) -> ChessTable | None:
        """The table kept for `name` while storage need not be looked at: a stored one, or a live one
        until its `StoredLook` is due (None then, and when none is kept)."""
        with self._lock:
            table = self._tables.get(name)
            look = self._looks.get(name)
        if table is None or table.source == "table" or look is None or not look.due():
            return table
        return None

    def lock_for(self, name: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(name, threading.Lock())

    def forget_all(self) -> None:
        """Empty the cache (tests and benchmarks measuring cold starts)."""
        with self._lock:
            self._tables.clear()


def _table_bytes(table: ChessTable) -> int:
    return table.packed.nbytes


#: The process's tables.
TABLES = TableCache(CACHE_BYTES)


class TableKernel(BytesKernel):
    """What a worker runs for the family "table" of a material: its table solved (with the tables its
    captures and promotions lead to, taken from the process's cache or solved first, in `solve_order`),
    as `Packed.to_bytes`. Progress counts three passes over each table solved."""

    family = TABLE

    def __init__(self, material: Material) -> None:
        super().__init__()
        self.material = material

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        tables: dict[str, ChessTable] = {}
        todo: list[Material] = []
        for material in solve_order([self.material]):
            cached = TABLES.get(material.name) if material != self.material else None
            if cached is not None:
                tables[material.name] = cached
            else:
                todo.append(material)
        total = sum(3 * m.slots for m in todo)
        done = 0
        for material in todo:
            report = None
            if progress is not None:
                report = _offset(progress, done, total)
            tables[material.name] = ChessTable(material, solve_material(material, tables, report), tables)
            done += 3 * material.slots
        return tables[self.material.name].to_bytes()


def _offset(progress: Callable[[int, int], None], base: int, total: int) -> Callable[[int, int], None]:
    return lambda done, _total: progress(base + done, total)


def _example(material: Material) -> str:
    """A legal position of `material`, White (side A) to move: kings on a1 and h8, side A's men on d1
    and e1 (a pawn on e2), side B's on d8 and e8."""
    board = chess.Board(None)
    board.set_piece_at(chess.A1, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(chess.H8, chess.Piece(chess.KING, chess.BLACK))
    for kind, square in zip(material.a, (chess.D1, chess.E1), strict=False):
        board.set_piece_at(chess.E2 if kind == chess.PAWN else square, chess.Piece(kind, chess.WHITE))
    for kind, square in zip(material.b, (chess.D8, chess.E8), strict=False):
        board.set_piece_at(square, chess.Piece(kind, chess.BLACK))
    return canonical_fen(board)


#: Hand-picked examples: a win (White to move), a mate in one, a mate.
_EXAMPLES: dict[str, tuple[str, ...]] = {
    "KRvK": (
        "8/8/8/8/8/2k5/8/KR6 w - - 0 1",
        "k7/8/1K6/8/8/8/8/7R w - - 0 1",
        "R1k5/8/2K5/8/8/8/8/8 b - - 0 1",
    ),
    "KQvK": ("8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"),
}


class ChessGame(GameKind[chess.Board]):
    """One material's endgame (`chess:KRvK`): a FEN is parsed and checked once per request into a board
    (`parse`), which the answer is looked up from; values from the material's table (cached, stored or
    solved live); moves in UCI with their SAN and the FEN reached."""

    def __init__(self, material: Material) -> None:
        self.material = material
        self.game_id = material.game_id

    def info(self) -> GameInfo:
        name = self.material.name
        return GameInfo(
            id=self.game_id,
            name=f"Chess endgame {name}",
            description=(
                f"Every {name} position, either side to move and either colouring: win, loss or draw for "
                "the side to move, remoteness in plies (checkmate loses at 0, stalemate draws; no "
                "fifty-move rule, no castling). chess:MATERIAL for every pawnless material of up to four "
                "men (KQvK, KRvK, KQvKR, KBNvK...) and KPvK. Moves in UCI, with SAN."
            ),
            position_syntax="a FEN, e.g. '8/8/8/8/8/2k5/8/KR6 w - - 0 1' (no castling rights)",
            examples=_EXAMPLES.get(name, (_example(self.material),)),
        )

    def parse(self, text: str) -> chess.Board:
        return checked_board(self.material, text)

    def format(self, position: chess.Board) -> str:
        return canonical_fen(position)

    def value(self, position: chess.Board, ctx: Context) -> Value:
        return self.table(self.material, ctx).value(position)

    def best_moves(self, position: chess.Board, limit: int | None, ctx: Context) -> BestMoveResult:
        check_limit(limit, ctx.limits)
        table = self.table(self.material, ctx)
        subs = {m.name: self.table(m, ctx) for m in self.material.sub_materials() if m != self.material}
        with_subs = ChessTable(self.material, table.packed, subs, table.source)
        ranked = with_subs.moves(position)
        by_uci = {move.move: move for move in ranked}

        def every() -> Iterator[MoveTo[str]]:
            return ((move.move, move.fields, move.move) for move in ranked)

        def winning() -> Iterator[MoveTo[str]]:
            return ((move.move, move.fields, move.move) for move in ranked if move.value.outcome == "P")

        return list_moves(
            with_subs.value(position),
            len(ranked),
            every,
            winning,
            lambda uci, _ranked: by_uci[uci].value,
            limit,
            ctx.limits,
            ctx.deadline,
        )

    def stats(self, ctx: Context) -> dict[str, object]:
        """wins, losses, draws, longest_win and longest_loss (plies) of the whole table, either side to
        move, with a position of each longest line, its size and where it came from."""
        return self.table(self.material, ctx).stats()

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the material's table (family "table"; `upto` and `fill` do not apply: the whole
        table is stored). Its sub-tables are solved by the job as it needs them, and stored by their own
        jobs."""
        if family not in (None, TABLE):
            raise InvalidArgument(
                f"{self.game_id} stores only the family {TABLE!r}, not {quote_token(family or '')}"
            )
        return JobPlan(self.game_id, TABLE, self.material.slots, True)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        return TableKernel(self.material) if family == TABLE else None

    # -- where tables come from -------------------------------------------------------------------------

    def table(self, material: Material, ctx: Context) -> ChessTable:
        """`material`'s table: kept in the process, else stored (read once), else solved live within
        `chess_live_men`, else the refusal naming the job that stores it."""
        kept = TABLES.kept(material.name)
        if kept is not None:
            return kept
        kept = TABLES.get(material.name)  # a live one, storage looked at again now
        stored = _stored(material, ctx)
        if stored is not None:
            return stored
        if kept is not None:
            return kept
        most = ctx.limits.chess_live_men
        if material.men > most:
            raise ctx.tables.refusal(
                material.game_id,
                TABLE,
                f"the table of {material.name} ({material.men} men) is not stored yet, and only tables of up "
                f"to {most} men are solved for a request (NIMBASE_LIMITS_CHESS_LIVE_MEN)",
            )
        ctx.tables.may_block()
        with ctx.deadline.holding(TABLES.lock_for(material.name), f"solving the table of {material.name}"):
            kept = TABLES.get(material.name)
            if kept is not None:
                return kept
            subs = {m.name: self.table(m, ctx) for m in material.sub_materials() if m != material}
            ctx.deadline.check(lambda: f"solving the table of {material.name}")
            packed = solve_material(
                material,
                subs,
                lambda _d, _t: ctx.deadline.check(lambda: f"solving the table of {material.name}"),
            )
            table = ChessTable(material, packed, {}, "live")
            TABLES.put(table)
            return table


def _stored(material: Material, ctx: Context) -> ChessTable | None:
    """The stored table of `material` (kept from now on), if storage holds one that reads."""
    table = read_stored(
        material.game_id,
        TABLE,
        ctx,
        "a stored endgame table",
        lambda data: ChessTable(material, Packed.from_bytes(data), {}, "table"),
    )
    if table is not None:
        TABLES.put(table)
    return table


FAMILY_DESCRIPTION = (
    "chess:MATERIAL, the material in the usual tablebase naming (stronger side first): every pawnless "
    "material of up to four men (KQvK, KRvK, KQvKR, KBNvK...) and KPvK"
)


def parse_chess_kind(params: str | None, text: str) -> GameKind[chess.Board]:
    """The kind `chess:MATERIAL` names (InvalidGameId quoting the id when the material is malformed or
    not supported)."""
    if params is None:
        raise InvalidGameId(f"game id {text!r} needs a material, e.g. 'chess:KRvK'")
    return ChessGame(parse_material(params))


def family_info() -> GameInfo:
    """How ListGames describes the family: KRvK."""
    return ChessGame(parse_material("KRvK")).info()
