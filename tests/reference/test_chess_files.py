"""The reference files arrive whole, and python-chess reads them."""

from __future__ import annotations

import chess
import chess.gaviota
import chess.syzygy

from tests.reference.chess_files import gaviota_dir, syzygy_dir


def test_syzygy_files_probe() -> None:
    with chess.syzygy.open_tablebase(str(syzygy_dir())) as tablebase:
        board = chess.Board("8/8/8/8/8/7k/8/KQ6 w - - 0 1")
        assert tablebase.probe_wdl(board) == 2
        assert tablebase.probe_dtz(board) > 0


def test_gaviota_files_probe() -> None:
    with chess.gaviota.open_tablebase(str(gaviota_dir())) as tablebase:
        board = chess.Board("8/8/8/8/8/7k/8/KQ6 w - - 0 1")
        assert tablebase.probe_dtm(board) > 0
