"""`chess:MATERIAL` as served: endgame tables stored by workers, kept in the process, solved live when small.

The tables themselves (materials, the index, the solve, `ChessTable`) are in kinds.chess.tables;
this is the kind the registry gives for `chess:KRvK`, `chess:KQvKR`, ... (`ChessGame`), and the job that
stores a table (`TableKernel`, the family "table").

Where a table comes from, cheapest first:
- the process's keeper (`TABLES`, engine.keep: least recently used dropped past
  `ChessSettings.table_bytes`, NIMBASE_CACHE_CHESS_TABLE_BYTES; every table of up to four men together
  takes about 64 MB, a five-man one about 1 GB), so a position is then answered in well under 5 ms;
- storage: a worker's job stores a table as the family "table" by blocks of one side to move
  (kinds.chess.blocks, through engine.stored_bytes; a position of the other side is valued from its
  children's, one ply on); its header and index are read once through `ctx.tables`, each block when a
  probe first needs it, kept in one byte-bounded cache (`BLOCKS`, `ChessSettings.block_bytes`) (`source`
  "table"); a table stored whole before blocks (kinds.chess.format) is still read whole;
- live: a material of at most `ChessSettings.live_men` men (3: well under a second each) is solved for
  the request, with the tables its captures and promotions lead to (`source` "live"; a stored table
  replaces it once a worker has stored one);
- the user's Syzygy files (`ChessSettings.syzygy_path`, NIMBASE_SYZYGY_PATH), opened at start-up by the
  kind's package outside engine/ (kinds.chess.edge) and lent as `ctx.resources.of(SYZYGY)`
  (kinds.chess.syzygy), where they hold a material neither stored nor solvable for the request
  (`source` "syzygy": WDL and DTZ, no DTM);
- else RESOURCE_EXHAUSTED, naming the job queued (or open) to store the table (`Tables.refusal`); that
  job needs the stored tables of its sub-materials, whose jobs are queued with it.

Materials of six and seven men (`chess:KRPPvKRP`) are games of the Syzygy files only: nimbase's own tables
hold at most five men (MAX_MEN), so such a game is answered from the files where they hold its material,
else INVALID_ARGUMENT saying so (`BeyondTables`); it has no job and no statistics.

Answers are built from each board's probe (kinds.chess.probe; `ChessTable.probe` for nimbase's own
tables) by kinds.chess.answers, as lila-tablebase builds them: the value adds `ChessValue` (DTZ,
DTM, lila's category from the halfmove clock, the game-end flags), BestMove ranks moves as lila does.

Sub-tables: a table's captures and promotions lead into other materials' tables. A worker's job for a
material never solves them: it names them (`TableKernel.needs`), waits until their own jobs have stored
them, and is given their stored bytes (`TableKernel.give`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple

import chess
from pydantic import AfterValidator

from engine.errors import InvalidArgument, InvalidGameId, NimbaseError
from engine.families import Family
from engine.kind import Context, GameKind, SequenceKernel
from engine.kind_resources import ResourceSpec
from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration
from engine.moves import MoveTo, check_limit, list_moves, move_rank
from engine.positions import quote_position, quote_token
from engine.precompute import PROCESS_BYTES, JobPlan, StoredName
from engine.stored_bytes import (
    BytesKernel,
    read_stored,
    read_stored_range,
    read_stored_ranges,
    stored_object_size,
)
from engine.values import BestMoveResult, GameInfo, MoveValue, Outcome, Source, Value
from kinds.chess import block_codec
from kinds.chess.answers import PositionInfo, answer, info_at, move_info, position_info
from kinds.chess.blocks import (
    HEADER_BYTES,
    BlockedValues,
    BlockIndex,
    WholeTables,
    is_blocked,
    needed,
    to_side_blocks,
)
from kinds.chess.fen import MAX_SYZYGY_MEN, position_fen
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.line import child_probes, choose
from kinds.chess.material import MAX_MEN, materials_of, solve_order
from kinds.chess.probe import ChessProbe
from kinds.chess.records import ChessMove, ChessValue
from kinds.chess.solve import deferred_subs, held_sub_slots, promotion_exit_slots
from kinds.chess.syzygy import SyzygyProber
from kinds.chess.tables import (
    ChessTable,
    Material,
    board_material,
    canonical_fen,
    checked_board,
    parse_material,
    solve_material,
)

FAMILY = "chess"
#: The kind's package outside engine/ (its registry entry's `plugin`): lichess's tablebase API
#: (`/standard`, `/standard/mainline`) and the opening of the user's Syzygy files.
PLUGIN = "kinds.chess.edge"
#: The stored family holding a material's table.
TABLE = "table"


def _unset_if_blank(path: str | None) -> str | None:
    return None if path is None or not path.strip() else path


@dataclass(frozen=True, slots=True)
class ChessSettings:
    """chess:MATERIAL's own settings (`SETTINGS`: NIMBASE_LIMITS_CHESS_<FIELD>, and
    NIMBASE_CACHE_CHESS_<FIELD> for its keeper's budget)."""

    live_men: PositiveInt = 3
    """Most men of a material (`chess:KRvK` has 3) whose table is solved within a request while no worker
    has stored it: three men take well under a second, four up to a minute (RESOURCE_EXHAUSTED, naming
    the job, until it is stored)."""
    table_bytes: PositiveInt = 2 << 30
    """Bytes of endgame tables kept in the process (`TABLES`): a stored table counts as its index (its
    blocks are `block_bytes`'), a table solved live or stored whole before blocks as its values (4 bytes a
    slot: every table of up to four men together about 64 MB, a five-man table about 1 GB). A whole table
    larger than the budget is read and inflated again for every request (tens of seconds for five men), so
    the default holds two five-man tables beside the smaller ones; a budget is a cap, not memory taken."""
    block_bytes: PositiveInt = 256 << 20
    """Bytes of stored tables' blocks kept inflated in the process (`BLOCKS`, one cache for every
    material): a stored table is read by blocks of 32,768 slots (128 KiB inflated), each when a probe
    first needs it (kinds.chess.blocks), so a process serving every table holds this much of their values
    at most, besides each table's index (about 12 bytes a block)."""
    syzygy_path: Annotated[str | None, AfterValidator(_unset_if_blank)] = None
    """Directories of the user's Syzygy files (NIMBASE_SYZYGY_PATH, several joined by the path separator;
    unset: none): materials beyond nimbase's own tables (neither stored nor solved for a request) are
    answered from them (`source` "syzygy": WDL, category and DTZ, no DTM). Every file must open: they are
    opened at start-up (`SYZYGY`)."""


#: The keeper of endgame tables, by material; its budget is `ChessSettings.table_bytes`.
TABLES = KeeperSpec(ChessSettings, "table_bytes")
#: The keeper of stored tables' inflated blocks, by (material, block); its budget is
#: `ChessSettings.block_bytes`.
BLOCKS = KeeperSpec(ChessSettings, "block_bytes")
#: The user's Syzygy files (`ChessSettings.syzygy_path`), opened at start-up outside engine/ (the kind's
#: plugin, kinds.chess.edge) and lent to each request: `ctx.resources.of(SYZYGY)`.
SYZYGY: ResourceSpec[SyzygyProber] = ResourceSpec(ChessSettings, "syzygy_path")
#: What the registry entry declares (NIMBASE_LIMITS_CHESS_LIVE_MEN, NIMBASE_CACHE_CHESS_TABLE_BYTES,
#: NIMBASE_CACHE_CHESS_BLOCK_BYTES, NIMBASE_SYZYGY_PATH).
SETTINGS = SettingsDeclaration(
    "chess",
    ChessSettings,
    keepers=(TABLES, BLOCKS),
    named=(("syzygy_path", "NIMBASE_SYZYGY_PATH"),),
    resources=(SYZYGY,),
)


def _table_bytes(table: ChessTable) -> int:
    """What a kept table weighs (`TABLES`): its values, or a stored blocked table's index."""
    return table.nbytes


class BeyondTables(InvalidGameId):
    """A material of more men than nimbase's own tables hold that the user's Syzygy files do not answer
    (none set, or none holding it): INVALID_ARGUMENT naming the limit."""

    def __init__(self, material: Material, syzygy_set: bool, why: str) -> None:
        super().__init__(
            f"chess material {material.name!r} has {material.men} men: nimbase's own tables hold at most "
            f"{MAX_MEN} men, and {why}"
        )
        self.men = material.men
        #: Whether Syzygy files are set (they then lack the material), else the limit is nimbase's own.
        self.syzygy_set = syzygy_set


class MissingSubTables(RuntimeError):
    """A table's job ran without the stored tables its captures and promotions lead to."""


class TableKernel(BytesKernel):
    """What a worker runs for the family "table" of a material: its table solved from the stored tables
    its captures and promotions lead to (`needs`, handed over by `give`), stored by blocks of one side to
    move (kinds.chess.blocks' format 6).
    Progress counts three passes over the table's slots."""

    family = TABLE
    stores_stats = True

    def __init__(self, material: Material) -> None:
        super().__init__()
        self.material = material
        #: The stored tables given, by material name, as stored: each is inflated only for the slices
        #: that need it (blocks.WholeTables, which keeps those of up to four men); a material with a pawn
        #: holds its promotions' tables together for the slices that promote, but those with a pawn (two
        #: pawns), read one at a time (`job_memory` counts them).
        self._given: dict[str, bytes] = {}
        #: Given each checkpoint record of the solve as its stage ends (kinds.chess.checkpoint):
        #: whoever runs the kernel keeps them, so that a solve stopped part way resumes (`resume`).
        self.checkpoint: Callable[[bytes], None] | None = None
        self._resume: Sequence[bytes] = ()
        self._stats: dict[str, Any] | None = None

    def resume(self, records: Sequence[bytes]) -> None:
        """Have `make` go on from the checkpoint records (in order) that a stopped solve of this material
        gave, instead of solving their stages again (engine.kind.ChecksPoints)."""
        self._resume = list(records)  # not joined: a copy of tens of megabytes the solve would hold too

    def needs(self) -> tuple[StoredName, ...]:
        """The stored tables of every material its captures and promotions lead to, and of those theirs
        lead to, down to the fewest men: a sub-table storing one side to move (block format 6) is read
        whole by rebuilding its other side from its own sub-tables."""
        return tuple(StoredName(sub.game_id, TABLE) for sub in reached(self.material))

    def give(self, inputs: Mapping[StoredName, bytes]) -> None:
        for name, data in inputs.items():
            material = parse_material(name.game_id.partition(":")[2])
            self._given[material.name] = data

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        missing = [sub.name for sub in reached(self.material) if sub.name not in self._given]
        if missing:
            raise MissingSubTables(
                f"the table of {self.material.name} needs the stored tables of {', '.join(missing)}"
            )
        tables = WholeTables(self._given, self.material)  # read as this material's moves reach them
        values = solve_material(self.material, tables, progress, self.checkpoint, self._resume)
        # The table's statistics, stored beside it (GetStats reads them, not the table): counted now, while
        # the solve holds the table unpacked.
        self._stats = ChessTable(self.material, values, {}, "table").stats()
        return to_side_blocks(values, self.material)

    def object_stats(self) -> dict[str, Any] | None:
        return self._stats


#: Bytes a slot of the block being solved costs at the peak (its degrees, the DTM and DTZ reached, and
#: the bytes it is stored as), fitted to the measured peak below.
SOLVE_BLOCK_BYTES = 7


def reached(material: Material) -> list[Material]:
    """The materials `material`'s captures and promotions lead to, and theirs, each after those it
    leads to (the tables its job reads)."""
    return [sub for sub in solve_order(material.sub_materials()) if sub != material]


@functools.cache
def job_memory(material: Material) -> int:
    """About the peak address space of the process solving `material`'s table: the process itself, the
    table's DTM and DTZ (4 bytes a slot), the block being solved, the values of the sub-tables the solve
    holds at once (4 bytes a slot: `held_sub_slots`, every table a pawn's promotions and the captures
    lead to, for its first slices), the largest table it reads, inflated and its side not stored rebuilt
    while the others are held (6 bytes a slot: the side stored, then the whole table), and the tables of
    up to four men its reads keep (blocks.WholeTables) (KQRvKR: 3.2 GiB counted before tables stored one
    side, 3.1 GiB measured by bench.bench_chess_jobs --five; KNNPvK: 9.2 GiB, and a job of it ran out of
    a 9 GiB cap when the sub-tables held were not counted). A material with two pawns reads the tables
    with a pawn its promotions lead to one at a time (`deferred_subs`: held together, KQPvKP's would be
    26 GB), each with what the rebuild of its side not stored holds (`_read_slots`: KNPPvK's job ran
    out of a 12 GiB cap reading KNQPvK while that was not counted, its rebuild then holding the tables
    of both sides' moves), and keeps the best values of those promotions for the slices that promote:
    11.5-15.7 GiB for the materials with two pawns, 8.7 for KPPPvK and 16.3 for KPPvKP."""
    block = int(ix.block_size(material.spec))
    read = max((sub.slots for sub in material.sub_materials() if sub != material), default=0)
    kept = sum(sub.slots for sub in reached(material) if sub.men <= WholeTables.KEEP_MEN)
    held = held_sub_slots(material)
    # a material with two pawns: the tables its promotions alone lead to, read one at a time, and the
    # best values of those promotions kept for the slices that promote
    both = frozenset((0, 1))
    deferred = max((_read_slots(material, sub, both) for sub in deferred_subs(material)), default=0)
    promoting = promotion_exit_slots(material)
    subs = 4 * held + 4 * deferred + 4 * promoting
    return PROCESS_BYTES + 4 * material.slots + SOLVE_BLOCK_BYTES * block + subs + 6 * read + 4 * kept


@functools.cache
def _read_slots(reader: Material, sub: Material, movers: frozenset[int]) -> int:
    """The most slots a whole read of `sub` by the moves of `reader`'s sides `movers` holds
    (blocks.WholeTables): its values, and, as the side it stores may be either, what the rebuild of
    a side those moves reach holds (`_rebuilt_slots`)."""
    return sub.slots + max((_rebuilt_slots(sub, side) for side in needed(reader, sub, movers)), default=0)


@functools.cache
def _rebuilt_slots(material: Material, side: int) -> int:
    """The most sub-table slots the rebuild of `material`'s side `side` holds (kinds.chess.sides): the
    tables that side's moves lead to (`held_sub_slots`), but those with a pawn its promotions lead to
    (two pawns), each read alone as that side's moves read it, and their promotions' best values."""
    owners = {owner for kind, owner in material.pieces if kind == chess.PAWN}
    movers = frozenset((0, 1)) if len(owners) == 2 else frozenset((side,))  # as blocks.WholeTables
    deferred = max(
        (
            _read_slots(material, sub, movers)
            for sub in deferred_subs(material)
            if needed(material, sub, frozenset((side,)))
        ),
        default=0,
    )
    return held_sub_slots(material, side) + deferred + promotion_exit_slots(material, side)


def bulk_ids(men: int) -> list[str]:
    """The ids a bulk precompute of every table of up to `men` men covers, each after those it reads
    (InvalidArgument past MAX_MEN)."""
    if not 2 <= men <= MAX_MEN:
        raise InvalidArgument(f"chess tables hold from 2 to {MAX_MEN} men, not {men}")
    return [material.game_id for material in materials_of(men)]


def _example(material: Material) -> str:
    """A legal position of `material`, White (side A) to move: kings on a1 and h8, side A's pieces from
    d1 on and pawns from e2 on, side B's pieces from d8 on and pawns from e7 on."""
    board = chess.Board(None)
    board.set_piece_at(chess.A1, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(chess.H8, chess.Piece(chess.KING, chess.BLACK))
    for side, colour, rank in ((material.a, chess.WHITE, 0), (material.b, chess.BLACK, 7)):
        pieces = [kind for kind in side if kind != chess.PAWN]
        pawns = [kind for kind in side if kind == chess.PAWN]
        for file, kind in enumerate(pieces, start=3):
            board.set_piece_at(chess.square(file, rank), chess.Piece(kind, colour))
        for file, kind in enumerate(pawns, start=min(4, 8 - len(pawns))):
            board.set_piece_at(chess.square(file, 1 if rank == 0 else 6), chess.Piece(kind, colour))
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
        #: The FEN a main line's last step reached and its board (`parse` gives a copy instead of reading
        #: the FEN again: it is legal, being reached by a legal move).
        self._reached: tuple[str, chess.Board] | None = None

    def load_kernels(self) -> None:
        """The decoding of a stored table's blocks, which the warm-up's tables (solved live, held whole)
        never reach: the first cold block of a stored table would compile it under its request."""
        block_codec.load_kernels()

    #: Main lines follow "dtz" (lila's ranking: category first, so the winner keeps the fifty-move rule as
    #: the clocks of the line run; the default) or "dtm" (the shortest mate, the fifty-move rule ignored).
    metrics = ("dtm", "dtz")

    def line_moves(self, position: chess.Board, metric: str | None, ctx: Context) -> BestMoveResult:
        """One step of a main line: BestMove's first move, or with "dtm" the move of the fastest mate
        (slowest loss), by outcome and DTM alone. From nimbase's own tables the move is chosen from the
        table arrays (kinds.chess.line) and only it is given its SAN and FEN; the same answer as
        `slow_line_moves`, which the user's Syzygy files take."""
        if ctx.settings_for(ChessSettings).syzygy_path is not None:
            return self.slow_line_moves(position, metric, ctx)
        look = self.lookup(ctx)

        def probe(board: chess.Board) -> ChessProbe:
            return look(board).probe

        choice = choose(position, metric, probe, lambda: look.table(position), look.table_of)
        root = look(position)
        if choice is None:
            info = position_info(position, root.probe)
            return BestMoveResult(chess_value(root.game, position, info, root.source), [])
        limits = ctx.limits
        if choice.count > limits.ranked_moves:
            return self.slow_line_moves(position, metric, ctx)  # refused as BestMove refuses it
        clock = position.halfmove_clock  # it has moves: neither mate nor stalemate (position_info)
        flags = (False, False, position.is_insufficient_material())
        info = info_at(clock, root.probe, max(clock - 1, 0), flags, True).with_category(choice.category)
        value = chess_value(root.game, position, info, root.source)
        if choice.count * len(value.position) > limits.answer_chars:
            return self.slow_line_moves(position, metric, ctx)
        move = move_info(position, choice.move, probe, choice.probe)
        source, game = look.where(move.board)
        reached = chess_value(game, move.board, move.info, source)
        record = ChessMove(move.uci, move.san, move.zeroing, move.conversion).reached(reached.kind)
        if game == self.game_id:  # a capture leaves the material: that board is another kind's to read
            board = move.board.copy(stack=False)
            if board.ep_square is not None and not board.has_legal_en_passant():
                board.ep_square = None  # as the FEN reads: its square only where a capture can use it
            self._reached = (reached.position, board)
        return BestMoveResult(value, [MoveValue(move.uci, reached, record)])

    def slow_line_moves(self, position: chess.Board, metric: str | None, ctx: Context) -> BestMoveResult:
        """`line_moves` from BestMove's whole answer."""
        ranked = self.best_moves(position, None, ctx)
        if metric == "dtm" and ranked.value.source == "syzygy" and ranked.value.outcome != "D":
            raise InvalidArgument(
                f"metric 'dtm' needs DTM, which Syzygy files do not hold (position "
                f"{quote_position(ranked.value.position)} of {self.game_id!r}): use metric 'dtz'"
            )
        moves = sorted(ranked.moves, key=move_rank) if metric == "dtm" else ranked.moves
        return BestMoveResult(ranked.value, moves[:1])

    def repetition_key(self, text: str) -> str:
        """A FEN less its halfmove clock and move number: the same position, whenever it is reached."""
        return " ".join(text.split()[:4])

    def info(self) -> GameInfo:
        name = self.material.name
        if self.material.men > MAX_MEN:
            return GameInfo(
                id=self.game_id,
                name=f"Chess endgame {name} (Syzygy files)",
                description=(
                    f"Every {name} position, answered from the user's Syzygy files (NIMBASE_SYZYGY_PATH) "
                    "where they hold it: win, loss or draw for the side to move, DTZ and lila's category "
                    f"(no DTM). nimbase's own tables hold at most {MAX_MEN} men."
                ),
                position_syntax="a FEN (no castling rights)",
                examples=(_example(self.material),),
            )
        return GameInfo(
            id=self.game_id,
            name=f"Chess endgame {name}",
            description=(
                f"Every {name} position, either side to move and either colouring: win, loss or draw for "
                "the side to move, remoteness in plies (DTM: checkmate loses at 0, stalemate draws; no "
                "castling), and lila's category from DTZ and the FEN's halfmove clock (the fifty-move "
                "rule). chess:MATERIAL for every material of up to five men, pawns included (KQvK, KPvK, "
                "KQvKR, KRPvKR...). Moves in UCI, with SAN, ranked as lila ranks them."
            ),
            position_syntax="a FEN, e.g. '8/8/8/8/8/2k5/8/KR6 w - - 0 1' (no castling rights)",
            examples=_EXAMPLES.get(name, (_example(self.material),)),
        )

    def parse(self, text: str) -> chess.Board:
        reached = self._reached
        if reached is not None and reached[0] == text:
            return reached[1].copy(stack=False)
        return checked_board(self.material, text)

    def format(self, position: chess.Board) -> str:
        return position_fen(position)

    def value(self, position: chess.Board, ctx: Context) -> Value:
        """The position's value with lila's view of it (its own DTZ and halfmove clock give `category`)."""
        looked = self.lookup(ctx)(position)
        return chess_value(looked.game, position, position_info(position, looked.probe), looked.source)

    def best_moves(self, position: chess.Board, limit: int | None, ctx: Context) -> BestMoveResult:
        """Every legal move, ranked as lila ranks them (category, mate, DTM, DTZ), each with the value of
        the position it leads to (its clocks advanced); the position's category is its best move's."""
        check_limit(limit, ctx.limits)
        look = self.lookup(ctx)
        known = None
        if look.syzygy is None:  # nimbase's own tables: the moves' positions valued in one call
            known = child_probes(
                position, lambda board: look(board).probe, lambda: look.table(position), look.table_of
            )
        found = answer(position, lambda board: look(board).probe, known)
        source, game = look.where(position)
        value = chess_value(game, position, found.info, source)
        by_uci = {move.uci: move for move in found.moves}
        order = {move.uci: k for k, move in enumerate(found.moves)}

        def every() -> Iterator[MoveTo[str]]:
            return ((m.uci, ChessMove(m.uci, m.san, m.zeroing, m.conversion), m.uci) for m in found.moves)

        def valued(uci: str, _ranked: bool) -> Value:
            move = by_uci[uci]
            source, game = look.where(move.board)
            return chess_value(game, move.board, move.info, source)

        listed = list_moves(value, len(found.moves), every, every, valued, None, ctx.limits, ctx.deadline)
        moves = sorted(listed.moves, key=lambda move: order[move.move])
        return BestMoveResult(listed.value, moves if limit is None else moves[:limit])

    def lookup(self, ctx: Context) -> Lookup:
        """Probes boards of this material and of those its moves lead to: nimbase's own table (kept,
        stored or solved live), else the user's Syzygy files where they hold a material nimbase neither
        stored nor may solve for a request, else the refusal naming the job that stores it."""
        return Lookup(self, ctx)

    def stats(self, ctx: Context) -> dict[str, object]:
        """wins, losses, draws, longest_win and longest_loss (plies) of the whole table, either side to
        move, with a position of each longest line, its size and where it came from."""
        if self.material.men > MAX_MEN:
            raise _beyond(
                self.material, ctx, "the Syzygy files answer positions, not a whole table's statistics"
            )
        stored = ctx.tables.stored_stats(self.game_id, TABLE)  # made by the worker that stored the table
        if stored is not None and stored.get("game") == self.game_id:
            return dict(stored)
        return self.table(self.material, ctx).stats(lambda m: self.table(m, ctx))

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the material's table (family "table"; `upto` and `fill` do not apply: the whole
        table is stored). It needs its sub-tables stored first, each by its own job."""
        if family not in (None, TABLE):
            raise InvalidArgument(
                f"{self.game_id} stores only the family {TABLE!r}, not {quote_token(family or '')}"
            )
        if self.material.men > MAX_MEN:
            raise InvalidArgument(
                f"{self.game_id} has {self.material.men} men: nimbase stores tables of at most {MAX_MEN} men "
                "(the user's Syzygy files answer larger materials: NIMBASE_SYZYGY_PATH)"
            )
        material = self.material
        return JobPlan(
            self.game_id,
            TABLE,
            material.slots,
            True,
            TableKernel(material).needs(),
            memory_bytes=job_memory(material),
            work=material.slots,
        )

    def kernel_for(self, family: str) -> SequenceKernel | None:
        return TableKernel(self.material) if family == TABLE else None

    # -- where tables come from -------------------------------------------------------------------------

    def table(self, material: Material, ctx: Context) -> ChessTable:
        """`material`'s table (`TABLES`): kept in the process, else stored (read once), else solved live
        within `ChessSettings.live_men`, else the refusal naming the job that stores it (BeyondTables past
        MAX_MEN men: no table of nimbase's own holds it)."""
        if material.men > MAX_MEN:
            raise _beyond(material, ctx)
        what = f"solving the table of {material.name}"

        def refuse() -> None:
            most = ctx.settings_for(ChessSettings).live_men
            if material.men > most:
                raise ctx.tables.refusal(
                    material.game_id,
                    TABLE,
                    f"the table of {material.name} ({material.men} men) is not stored yet, and only tables "
                    f"of up to {most} men are solved for a request ({SETTINGS.variable('live_men')})",
                )

        def make() -> ChessTable:
            subs = {m.name: self.table(m, ctx) for m in material.sub_materials() if m != material}
            ctx.deadline.check(what)
            values = {name: table.packed_with(lambda m: self.table(m, ctx)) for name, table in subs.items()}
            packed = solve_material(material, values, lambda _d, _t: ctx.deadline.check(what))
            return ChessTable(material, packed, {}, "live")

        table = (
            ctx.kept.keeper(TABLES)
            .get(
                (FAMILY, material.name),
                ctx.deadline,
                what=what,
                read=lambda: _stored(material, ctx),
                make=make,
                weigh=_table_bytes,
                refuse=refuse,
                before_make=ctx.tables.may_compute,
            )
            .value
        )
        return table.reading(_reader(material, ctx), _ranges_reader(material, ctx))


def _beyond(material: Material, ctx: Context, why: str | None = None) -> BeyondTables:
    """The error for a material past MAX_MEN men that no Syzygy file answers here."""
    variable = SETTINGS.variable("syzygy_path")
    syzygy_set = ctx.resources.of(SYZYGY) is not None
    if why is None:
        why = (
            f"the Syzygy files ({variable}) do not hold it"
            if syzygy_set
            else f"no Syzygy files are set ({variable}) to answer it"
        )
    return BeyondTables(material, syzygy_set, why)


def _reader(material: Material, ctx: Context) -> Callable[[int, int], bytes]:
    """Reads byte ranges of `material`'s stored table for this request (its deadline, its tables)."""
    return lambda start, stop: read_stored_range(material.game_id, TABLE, ctx, start, stop)


def _ranges_reader(material: Material, ctx: Context) -> Callable[[Sequence[tuple[int, int]]], list[bytes]]:
    """Reads several byte ranges of `material`'s stored table at once (one round trip to the database)."""
    return lambda ranges: read_stored_ranges(material.game_id, TABLE, ctx, ranges)


def _stored(material: Material, ctx: Context) -> ChessTable | None:
    """The stored table of `material`, if storage holds one that reads: a blocked table's header and
    index read now, its blocks as probes need them (kept in `BLOCKS`); a table stored whole before blocks
    (kinds.chess.format) read whole, as it was then."""
    size = stored_object_size(material.game_id, TABLE, ctx)
    if size is None:
        return None
    read = _reader(material, ctx)
    try:
        head = read(0, min(size, HEADER_BYTES))
        if is_blocked(head):
            index = BlockIndex(head, read)
            what = f"the stored table of {material.name}"
            keeper, key = ctx.kept.keeper(BLOCKS), (FAMILY, material.name)
            values = BlockedValues(index, read, keeper, key, what, _ranges_reader(material, ctx))
            return ChessTable(material, values, {}, "table")
    except (NimbaseError, ValueError):
        return None
    return read_stored(
        material.game_id,
        TABLE,
        ctx,
        "a stored endgame table",
        lambda data: ChessTable(material, ChessValues.from_bytes(data), {}, "table"),
    )


class Lookup:
    """`ChessGame.lookup`: a request's tables, each found once (by the men's counts)."""

    def __init__(self, game: ChessGame, ctx: Context) -> None:
        self.game = game
        self.ctx = ctx
        self.settings = ctx.settings_for(ChessSettings)
        self.syzygy = ctx.resources.of(SYZYGY)
        self.tables: dict[tuple[int, ...], tuple[ChessTable | None, str]] = {}
        #: The own tables `table_of` found, by material.
        self.own: dict[Material, ChessTable] = {}

    def _find(self, board: chess.Board) -> tuple[ChessTable | None, str]:
        material, _ = board_material(board)
        syzygy, ctx = self.syzygy, self.ctx
        if syzygy is not None and material.men > self.settings.live_men and syzygy.has(material.name):
            if material.men > MAX_MEN:  # no table of nimbase's own holds it
                return None, material.game_id
            stored = ctx.kept.keeper(TABLES).stored(
                (FAMILY, material.name), lambda: _stored(material, ctx), _table_bytes
            )
            if stored is None:
                return None, material.game_id
            return stored.value.reading(
                _reader(material, ctx), _ranges_reader(material, ctx)
            ), material.game_id
        return self.game.table(material, ctx), material.game_id

    def _found(self, board: chess.Board) -> tuple[ChessTable | None, str]:
        key = _men(board)
        found = self.tables.get(key)
        if found is None:
            found = self.tables[key] = self._find(board)
        return found

    def where(self, board: chess.Board) -> tuple[Source, str]:
        """Where a board's probe comes from (`Looked.source`), and its material's game id."""
        table, game = self._found(board)
        return ("syzygy" if table is None else table.source), game

    def table(self, board: chess.Board) -> ChessTable:
        """nimbase's own table of the board's material (AssertionError where the Syzygy files answer)."""
        table, _ = self._found(board)
        assert table is not None, "nimbase's own table"
        return table

    def __call__(self, board: chess.Board) -> Looked:
        table, game = self._found(board)
        if table is None:
            assert self.syzygy is not None
            return Looked(self.syzygy.probe(board), "syzygy", game)
        return Looked(table.probe(board, self.table_of), table.source, game)

    def table_of(self, material: Material) -> ChessTable:
        """The own table of a material an en passant capture or a one-ply search leads to (the refusal
        naming its job when it is not stored, as for any move's table), each found once a request."""
        found = self.own.get(material)
        if found is None:
            found = self.own[material] = self.game.table(material, self.ctx)
        return found


class Looked(NamedTuple):
    """A board looked up: its probe, where it came from, and its material's game id."""

    probe: ChessProbe
    source: Source
    game: str


def _men(board: chess.Board) -> tuple[int, ...]:
    """How many men of each kind and colour a board has: its material, cheaply."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    kinds = (board.pawns, board.knights, board.bishops, board.rooks, board.queens)
    return (*((kind & white).bit_count() for kind in kinds), *((kind & black).bit_count() for kind in kinds))


def chess_value(game_id: str, board: chess.Board, info: PositionInfo, source: Source) -> Value:
    """A board's value: outcome from its WDL (no fifty-move rule: a cursed win is still "N"),
    remoteness its DTM in plies where known, and lila's view of it as the kind's record."""
    outcome: Outcome = "N" if info.wdl > 0 else "P" if info.wdl < 0 else "D"
    remoteness = None if outcome == "D" or info.dtm is None else abs(info.dtm)
    record = ChessValue(
        info.dtz,
        info.precise_dtz,
        info.dtm,
        info.category,
        info.checkmate,
        info.stalemate,
        info.insufficient_material,
    )
    return Value(game_id, position_fen(board), outcome, None, remoteness, source, record)


FAMILY_DESCRIPTION = (
    "chess:MATERIAL, the material in the usual tablebase naming (stronger side first): every material "
    "of up to five men, pawns included (KQvK, KPvK, KQvKR, KRPvKR...)"
)


def parse_chess_kind(params: str | None, text: str) -> GameKind[chess.Board]:
    """The kind `chess:MATERIAL` names, of up to seven men (InvalidGameId quoting the id when the material
    is malformed or larger; past five men only the Syzygy files answer it, `BeyondTables` otherwise)."""
    if params is None:
        raise InvalidGameId(f"game id {text!r} needs a material, e.g. 'chess:KRvK'")
    return ChessGame(parse_material(params, MAX_SYZYGY_MEN))


def family_info() -> GameInfo:
    """How ListGames describes the family: KRvK."""
    return ChessGame(parse_material("KRvK")).info()


#: The family's registry entry (pyproject.toml's entry point `chess`).
ENTRY = Family(
    parse=parse_chess_kind,
    info=family_info,
    settings=SETTINGS,
    bulk=bulk_ids,
    plugin=PLUGIN,
    misere=False,
    order=90,
)
