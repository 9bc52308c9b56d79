"""A chess table's stored bytes: read back whole in both ways of writing DTZ (also when the reader's pieces
straddle the planes, and as the plain reading of the whole stream reads them), under a byte a position,
and refused when damaged."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from kinds.chess import format as chess_format
from kinds.chess.format import ChessValues, CorruptTable, InflatingTables
from kinds.chess.kernels import index as ix
from kinds.chess.tables import ChessTable

#: Bytes of the stored header, before the deflated values.
HEADER = chess_format._HEADER.size


@pytest.mark.parametrize("delta", [False, True])
def test_values_read_back_whole(delta: bool) -> None:
    rng = np.random.default_rng(1)
    dtm = rng.integers(-300, 300, 10_000).astype(np.int16)
    dtz = rng.integers(-32767, 32767, 10_000).astype(np.int16)
    again = ChessValues.from_bytes(ChessValues(dtm, dtz, delta).to_bytes())
    assert np.array_equal(again.dtm, dtm) and np.array_equal(again.dtz, dtz) and again.delta == delta


def plain_reading(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The stream inflated whole, its planes widened and joined: what `from_bytes` gives, the simple way."""
    _, _, n, delta, _ = chess_format._HEADER.unpack_from(data)
    raw = np.frombuffer(zlib.decompress(data[HEADER:]), dtype=np.uint8).reshape(4, n).astype(np.int32)
    codes = [raw[0] | raw[1] << 8, raw[2] | raw[3] << 8]
    dtm, dtz = (((c >> 1) ^ -(c & 1)).astype(np.int16) for c in codes)
    return dtm, (dtm.astype(np.int32) - dtz).astype(np.int16) if delta else dtz


@pytest.mark.parametrize("delta", [False, True])
@pytest.mark.parametrize("slots", [0, 1, 7, 1000, 4099])
def test_pieces_straddling_the_planes(monkeypatch: pytest.MonkeyPatch, delta: bool, slots: int) -> None:
    """Small pieces (of inflated and of deflated bytes) that end inside a plane or across two, and
    values at the ends of int16 (the delta wraps)."""
    rng = np.random.default_rng(slots)
    dtm = rng.integers(-32768, 32768, slots).astype(np.int16)
    dtz = rng.integers(-32768, 32768, slots).astype(np.int16)
    if slots:
        dtm[0], dtz[0] = -32768, 32767
    data = ChessValues(dtm, dtz, delta).to_bytes()
    monkeypatch.setattr(chess_format, "_PIECE", 97)
    monkeypatch.setattr(chess_format, "_INPUT", 13)
    again = ChessValues.from_bytes(data)
    plain = plain_reading(data)
    assert again.dtm.dtype == again.dtz.dtype == np.int16
    assert np.array_equal(again.dtm, dtm) and np.array_equal(again.dtz, dtz)
    assert np.array_equal(again.dtm, plain[0]) and np.array_equal(again.dtz, plain[1])


@pytest.mark.parametrize("delta", [False, True])
def test_values_read_back_a_piece_at_a_time(delta: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces and deflated input fed in small steps (as a five-man table's are in large ones): the
    pieces' boundaries, the last piece shorter, lose nothing."""
    monkeypatch.setattr(chess_format, "_PIECE", 1000)
    monkeypatch.setattr(chess_format, "_INPUT", 37)
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
    header, deflated = data[:HEADER], zlib.decompress(data[HEADER:])
    longer = header + zlib.compress(deflated + b"\0")
    shorter = header + zlib.compress(deflated[:-1])
    damaged = data[:30] + bytes([data[30] ^ 0xFF]) + data[31:]
    for bad in (
        data[:10],
        b"X" + data[1:],
        data[:-5],
        data[:-1] + bytes([data[-1] ^ 1]),
        longer,
        shorter,
        damaged,
    ):
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
