"""The chess tables against real tablebases: python-chess probing the Syzygy files (every 3- and 4-man
material: WDL with the fifty-move rule, cursed and blessed included, DTZ, and lila's category at halfmove
clocks around the fifty-move edge) and the Gaviota files (3-man DTM), on random positions either
colouring; the counts of wins, draws and losses of the 3-man tables over every position (KPvK's marked
slow); and, marked slow, larger samples of every material and every position of every 4-man table.

The tables are solved the way workers' jobs solve them (`TableKernel`, given the stored bytes of the
tables it needs), once: the bytes are cached beside the reference files, keyed by the solver's source,
so that a later run only reads them.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import chess
import chess.gaviota
import chess.syzygy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.precompute import StoredName
from kinds.chess import answers as chess_answers
from kinds.chess import block_codec as chess_block_codec
from kinds.chess import blocks as chess_blocks
from kinds.chess import format as chess_format
from kinds.chess import material as chess_material
from kinds.chess import ranks as chess_ranks
from kinds.chess import sides as chess_sides
from kinds.chess import solve as chess_solve
from kinds.chess import tables as chess_tables
from kinds.chess.answers import FIFTY_MOVES
from kinds.chess.blocks import values_from_bytes
from kinds.chess.kernels import index as chess_index
from kinds.chess.kernels import movegen as chess_movegen
from kinds.chess.kernels import oneply as chess_oneply
from kinds.chess.kernels import promotions as chess_promotions
from kinds.chess.kernels import retro as chess_retro
from kinds.chess.kernels import values as chess_values
from kinds.chess.kind import TableKernel
from kinds.chess.material import Material, materials_of
from kinds.chess.tables import ChessTable, board_of_slot
from tests.reference.chess_files import cache_dir, gaviota_dir, syzygy_dir

MATERIALS = [m.name for m in materials_of(4) if m.name != "KvK"]
THREE_MEN = [name for name in MATERIALS if len(name) == 4]
#: The 4-man materials `make test` checks on random positions beside every 3-man one (whose KPvK has
#: promotions): queen against rook, the longest mate of pieces alone, and a pawn material whose
#: promotions reach every piece (KRvKP: to KQvKR, KRvKR, KRvKB and KRvKN), the cheapest to solve from
#: an empty cache beside the others (KPvKP, with en passant, needs every 4-man table of one pawn first:
#: minutes). Every 4-man material is checked again, with more positions, marked slow.
QUICK = {"KQvKR", "KBNvK", "KRvKP"}
#: Random positions per material: `make test`'s by men (each costs some milliseconds, mostly the
#: reference's probes; a 3-man one less), and the slow set's (every material, 3-man ones included).
QUICK_EXAMPLES = {3: 1000, 4: 400}
SLOW_EXAMPLES = {3: 3000, 4: 5000}
SAMPLED = [
    pytest.param(n, QUICK_EXAMPLES[len(n) - 1], id=n) for n in MATERIALS if n in THREE_MEN or n in QUICK
] + [pytest.param(n, SLOW_EXAMPLES[len(n) - 1], id=f"{n}-slow", marks=pytest.mark.slow) for n in MATERIALS]
#: How far from the fifty-move edge (plies, either side of it) a sample's halfmove clocks may be.
EDGE = 3

_SOURCES = (
    chess_index,
    chess_movegen,
    chess_retro,
    chess_values,
    chess_format,
    chess_blocks,
    chess_block_codec,
    chess_ranks,
    chess_material,
    chess_solve,
    chess_sides,
    chess_oneply,
    chess_promotions,
)


def _solver_key() -> str:
    digest = hashlib.sha256()
    for module in _SOURCES:
        assert module.__file__ is not None
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


def _material_of(need: StoredName) -> Material:
    return chess_material.parse_material(need.game_id.partition(":")[2])


class Solved:
    """Tables solved on demand, each after those it needs, their bytes cached on disk."""

    def __init__(self) -> None:
        self.folder = cache_dir() / f"chess-tables-{_solver_key()}"
        self.stored: dict[str, bytes] = {}
        self.tables: dict[str, ChessTable] = {}

    def _bytes(self, material: Material) -> bytes:
        if material.name in self.stored:
            return self.stored[material.name]
        path = self.folder / f"{material.name}.bin"
        if path.exists():
            data = path.read_bytes()
        else:
            kernel = TableKernel(material)
            kernel.give({need: self._bytes(_material_of(need)) for need in kernel.needs()})
            data = kernel.make()
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")  # another test process may write it too
            partial.write_bytes(data)
            partial.replace(path)
        self.stored[material.name] = data
        return data

    def table(self, name: str) -> ChessTable:
        if name not in self.tables:
            material = chess_material.parse_material(name)
            for sub in material.sub_materials():
                self.table(sub.name)
            subs = {sub.name: self.tables[sub.name].packed for sub in material.sub_materials()}
            values = values_from_bytes(self._bytes(material), subs)
            self.tables[name] = ChessTable(material, values, self.tables)
        return self.tables[name]


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


@pytest.fixture(scope="module")
def syzygy() -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(syzygy_dir())) as tablebase:
        yield tablebase


def agrees(ours: tuple[int, int | None], wdl: int, dtz: int, board: chess.Board) -> bool:
    """Our (wdl, dtz) against Syzygy's: the same WDL, the same DTZ but where Syzygy rounds (a DTZ of n
    may stand for n + 1 plies: python-chess's probe_dtz says so); a checkmate has DTZ 0 here."""
    our_wdl, our_dtz = ours
    if our_wdl != wdl or our_dtz is None:
        return False
    if board.is_checkmate():
        return our_dtz == 0
    return our_dtz == dtz or (dtz != 0 and (our_dtz > 0) == (dtz > 0) and abs(our_dtz) - abs(dtz) == 1)


def _board(table: ChessTable, slot: int, mirrored: bool) -> chess.Board | None:
    board = board_of_slot(table.material, slot % table.material.slots)
    if board is not None and mirrored:
        board = board.mirror()
    return board


def syzygy_category(wdl: int, dtz: int, clock: int) -> str | None:
    """lila's category of a position whose halfmove clock is `clock`, from Syzygy's WDL and DTZ (at clock
    0); None where Syzygy's rounded DTZ leaves it open (the edge itself, or a ply past it)."""
    if wdl == 0:
        return "draw"
    total = abs(dtz) + clock
    if clock and total in (FIFTY_MOVES, FIFTY_MOVES + 1):
        return None
    if wdl > 0:
        return "win" if wdl == 2 and total <= FIFTY_MOVES else "cursed-win"
    return "loss" if wdl == -2 and total <= FIFTY_MOVES else "blessed-loss"


@pytest.mark.parametrize(("name", "examples"), SAMPLED)
def test_wdl_and_dtz_agree_with_syzygy(
    solved: Solved, syzygy: chess.syzygy.Tablebase, name: str, examples: int
) -> None:
    """Random positions either colouring: WDL and DTZ, and lila's category at halfmove clocks 0 and
    either side of the fifty-move edge for the position's DTZ (at most `EDGE` plies further), so that
    cursed wins and blessed losses, which no 3- or 4-man position has at clock 0, are checked as often as
    wins and losses."""
    table = solved.table(name)
    seen: Counter[str] = Counter()

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
    @given(st.integers(0, table.material.slots - 1), st.booleans(), st.data())
    def check(slot: int, mirrored: bool, data: st.DataObject) -> None:
        board = _board(table, slot, mirrored)
        if board is None:
            seen["none"] += 1
            return
        probe = table.probe(board)
        wdl, dtz = syzygy.probe_wdl(board), syzygy.probe_dtz(board)
        assert agrees((probe.wdl, probe.dtz), wdl, dtz, board), (board.fen(), probe, wdl, dtz)
        if board.is_checkmate() or wdl == 0:
            seen["mate" if wdl else "draw"] += 1
            return
        # Within the edge and past it (a won position turns cursed, a lost one blessed), `away` plies off.
        away = data.draw(st.integers(0, EDGE))
        for clock in (0, max(FIFTY_MOVES - abs(dtz) - 1 - away, 0), FIFTY_MOVES - abs(dtz) + 2 + away):
            board.halfmove_clock = clock
            expected = syzygy_category(wdl, dtz, clock)
            if expected is None:
                seen["open"] += 1
                continue
            ours = chess_answers.position_info(board, probe).category  # the probe takes the clock as 0
            assert ours == expected, (board.fen(), probe, wdl, dtz)
            seen[expected] += 1

    check()
    checked = sum(seen.values()) - seen["none"]
    assert checked >= examples // 4, seen  # the sparsest index (KQQvK) has a third of its slots legal
    assert seen["open"] == 0, seen
    assert seen["cursed-win"] * 2 == seen["win"] and seen["blessed-loss"] * 2 == seen["loss"], seen
    stats = table.stats()
    for outcome, past_edge in (("wins", "cursed-win"), ("losses", "blessed-loss")):
        share = cast(int, stats[outcome]) / cast(int, stats["positions"])
        if share > 0.01:  # met for sure in the sample: so was the edge
            assert seen[past_edge] > 0, (outcome, seen)


@pytest.mark.slow
def test_en_passant_is_played(solved: Solved, syzygy: chess.syzygy.Tablebase) -> None:
    """A FEN's en passant square counts where the capture is legal: the probe is valued from the moves."""
    table = solved.table("KPvKP")
    for fen in (
        "8/8/8/8/3pP3/8/8/k1K5 b - e3 0 1",
        "8/8/8/8/2Pp4/8/8/K1k5 b - c3 0 1",
        "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
    ):
        board = chess.Board(fen)
        probe = table.probe(board)
        assert agrees((probe.wdl, probe.dtz), syzygy.probe_wdl(board), syzygy.probe_dtz(board), board), fen


@pytest.mark.parametrize("name", THREE_MEN)
def test_dtm_agrees_with_gaviota(solved: Solved, name: str) -> None:
    table = solved.table(name)
    rng = np.random.default_rng(5)
    with chess.gaviota.open_tablebase(str(gaviota_dir())) as gaviota:
        checked = 0
        for slot in rng.integers(0, table.material.slots, 3000).tolist():
            board = _board(table, slot, bool(slot % 2))
            if board is None:
                continue
            checked += 1
            assert table.probe(board).dtm == gaviota.probe_dtm(board), board.fen()
        assert checked > 500


#: Every position of KPvK (the largest 3-man table) probed in Syzygy: slow; its counts are checked in
#: `make test` against the brute force (test_chess_bruteforce) and the equations (test_chess_equations).
COUNTED = [pytest.param(n, marks=pytest.mark.slow) if n == "KPvK" else n for n in THREE_MEN]


@pytest.mark.parametrize("name", COUNTED)
def test_three_man_counts_agree_with_syzygy(
    solved: Solved, syzygy: chess.syzygy.Tablebase, name: str
) -> None:
    """Every position of the table once: our wins, draws and losses (DTM: no fifty-move rule) are
    Syzygy's WDL counts, cursed wins counted as wins and blessed losses as losses."""
    table = solved.table(name)
    valid = np.flatnonzero(chess_index.valid_mask(table.material.spec, 0, table.material.slots))
    counts = {1: 0, 0: 0, -1: 0}
    for slot in valid.tolist():
        board = board_of_slot(table.material, slot)
        assert board is not None
        counts[int(np.sign(syzygy.probe_wdl(board)))] += 1
    stats = table.stats()
    assert (stats["wins"], stats["draws"], stats["losses"]) == (counts[1], counts[0], counts[-1])
    assert stats["positions"] == valid.size


@pytest.mark.slow
@pytest.mark.parametrize("name", MATERIALS)
def test_every_position_agrees_with_syzygy(solved: Solved, syzygy: chess.syzygy.Tablebase, name: str) -> None:
    table = solved.table(name)
    valid = np.flatnonzero(chess_index.valid_mask(table.material.spec, 0, table.material.slots))
    checked = 0
    for slot in valid.tolist():
        board = board_of_slot(table.material, slot)
        assert board is not None
        probe = table.probe(board)
        wdl, dtz = syzygy.probe_wdl(board), syzygy.probe_dtz(board)
        assert agrees((probe.wdl, probe.dtz), wdl, dtz, board), (board.fen(), probe, wdl, dtz)
        checked += 1
    assert checked == valid.size == table.stats()["positions"]


def test_tables_module_probes_what_it_values(solved: Solved) -> None:
    """`value` answers as `probe`'s DTM, on a few KRvK positions."""
    table = solved.table("KRvK")
    for slot in range(0, table.material.slots, 997):
        board = board_of_slot(table.material, slot)
        if board is None:
            continue
        probe, value = table.probe(board), table.value(board)
        assert value.outcome == ("N" if probe.dtm and probe.dtm > 0 else "P" if probe.wdl < 0 else "D")
        assert chess_tables.canonical_fen(board) == value.position
