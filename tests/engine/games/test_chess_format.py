"""A chess table's stored bytes: read back whole in both ways of writing DTZ, under a byte a position,
and refused when damaged."""

from __future__ import annotations

import numpy as np
import pytest

from engine.games.chess_format import ChessValues, CorruptTable, InflatingTables
from engine.games.chess_tables import ChessTable
from engine.kernels import chess_index as ix


@pytest.mark.parametrize("delta", [False, True])
def test_values_read_back_whole(delta: bool) -> None:
    rng = np.random.default_rng(1)
    dtm = rng.integers(-300, 300, 10_000).astype(np.int16)
    dtz = rng.integers(-32767, 32767, 10_000).astype(np.int16)
    again = ChessValues.from_bytes(ChessValues(dtm, dtz, delta).to_bytes())
    assert np.array_equal(again.dtm, dtm) and np.array_equal(again.dtz, dtz) and again.delta == delta


@pytest.mark.parametrize("delta", [False, True])
def test_values_read_back_a_piece_at_a_time(delta: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces and deflated input fed in small steps (as a five-man table's are in large ones): the
    pieces' boundaries, the last piece shorter, lose nothing."""
    from engine.games import chess_format

    monkeypatch.setattr(chess_format, "_PIECE", 1000)
    monkeypatch.setattr(chess_format, "_FEED", 37)
    rng = np.random.default_rng(2)
    dtm = rng.integers(-300, 300, 4321).astype(np.int16)
    dtz = rng.integers(-32767, 32767, 4321).astype(np.int16)
    dtm[:2000] = 0
    data = ChessValues(dtm, dtz, delta).to_bytes()
    again = ChessValues.from_bytes(data)
    assert np.array_equal(again.dtm, dtm) and np.array_equal(again.dtz, dtz) and again.delta == delta
    for bad in (data[:-1], data + b"x", data[:-7]):
        with pytest.raises(CorruptTable):
            ChessValues.from_bytes(bad)


def test_damaged_bytes_are_refused() -> None:
    data = ChessValues(np.arange(100, dtype=np.int16), np.zeros(100, np.int16)).to_bytes()
    for bad in (data[:10], b"X" + data[1:], data[:-5], data[:-1] + bytes([data[-1] ^ 1])):
        with pytest.raises(CorruptTable):
            ChessValues.from_bytes(bad)


def test_under_a_byte_a_position(tablebase: dict[str, ChessTable]) -> None:
    """DTM and DTZ together, deflated, take under a byte per legal position."""
    for name in ("KQvK", "KRvK", "KPvK"):
        table = tablebase[name]
        positions = int(ix.valid_mask(table.material.spec, 0, table.material.slots).sum())
        assert len(table.to_bytes()) < positions


def test_inflating_tables_read_each_table_when_asked() -> None:
    values = ChessValues(np.arange(100, dtype=np.int16), np.ones(100, np.int16), delta=True)
    tables = InflatingTables({"KRvK": values.to_bytes()})
    assert list(tables) == ["KRvK"] and len(tables) == 1
    first, second = tables["KRvK"], tables["KRvK"]
    assert (
        first is not second
        and np.array_equal(first.dtm, values.dtm)
        and np.array_equal(second.dtz, values.dtz)
    )
    with pytest.raises(KeyError):
        tables["KQvK"]
