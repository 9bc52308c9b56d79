"""Checkpoints of a chess solve: a solve stopped right after a checkpoint (as a killed worker's would be)
resumes from the records it gave and makes the same table, without solving the stages they hold again;
damaged records are refused, a record cut short by the stop is left out."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from engine.precompute import StoredName
from kinds.chess import checkpoint as ck
from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kind import TableKernel
from kinds.chess.material import Material, parse_material, solve_order
from kinds.chess.solve import solve_material

_TABLES: dict[str, ChessValues] = {}


class Stopped(Exception):
    """The solve stopped here (as a worker killed after a checkpoint)."""


def tables_for(material: Material) -> dict[str, ChessValues]:
    for sub in solve_order(material.sub_materials()):
        if sub.name not in _TABLES:
            _TABLES[sub.name] = solve_material(sub, _TABLES)
    return _TABLES


def stopped_after(material: Material, count: int) -> list[bytes]:
    """The records of a solve stopped as its `count`th checkpoint was written."""
    records: list[bytes] = []

    def keep(record: bytes) -> None:
        records.append(record)
        if len(records) == count:
            raise Stopped

    with pytest.raises(Stopped):
        solve_material(material, tables_for(material), checkpoint=keep)
    return records


@pytest.mark.parametrize(("name", "stops"), [("KRvK", [1, 2]), ("KPvK", [1, 7, 20])])
def test_a_stopped_solve_resumes_to_the_same_table(name: str, stops: list[int]) -> None:
    material = parse_material(name)
    whole = solve_material(material, tables_for(material)).to_bytes()
    block = int(ix.block_size(material.spec))
    for stop in stops:
        records = stopped_after(material, stop)
        seen: list[int] = []
        resumed = solve_material(
            material,
            tables_for(material),
            progress=lambda done, _: seen.append(done),  # noqa: B023
            resume=ck.join(records),
        )
        assert resumed.to_bytes() == whole, (name, stop)
        # the stages restored are not solved again: the first progress report already counts them
        restored = sum(3 if ck.unpack(r, block).kind == ck.SLICE else 1 for r in records) * block
        assert seen[0] >= restored, (name, stop, seen[:3])


def test_a_kernel_resumes_from_the_records_a_stopped_one_gave() -> None:
    material = parse_material("KPvK")
    tables_for(material)

    def kernel() -> TableKernel:
        made = TableKernel(material)
        made.give(
            {StoredName(s.game_id, "table"): _TABLES[s.name].to_bytes() for s in material.sub_materials()}
        )
        return made

    whole = kernel().make()
    first = kernel()
    records: list[bytes] = []

    def keep(record: bytes) -> None:
        records.append(record)
        if len(records) == 5:
            raise Stopped

    first.checkpoint = keep
    with pytest.raises(Stopped):
        first.make()
    second = kernel()
    second.resume(records)
    assert second.make() == whole


def test_damaged_records_are_refused_and_a_cut_one_is_left_out() -> None:
    material = parse_material("KPvK")
    block = int(ix.block_size(material.spec))
    records = stopped_after(material, 3)
    joined = ck.join(records)
    assert ck.split(joined[:-5]) == records[:2]  # the last record cut short by the stop
    damaged = bytearray(records[1])
    damaged[-3] ^= 0xFF
    with pytest.raises(ck.CorruptCheckpoint):
        ck.unpack(bytes(damaged), block)
    with pytest.raises(ck.CorruptCheckpoint):
        ck.unpack(records[1], block + 1)
    with pytest.raises(ck.CorruptCheckpoint):
        solve_material(parse_material("KRvK"), tables_for(material), resume=ck.join(records))


def traced_peak(solve: Callable[[], object]) -> int:
    """Bytes the solve held at its peak beyond what was held before it (numpy's arrays count)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        solve()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("stop", [1, 2])
def test_a_resumed_solve_needs_no_more_memory_than_an_uninterrupted_one(stop: int) -> None:
    """Issue 32, finding 5: a five-man solve resumed from its first checkpoint ran out of the worker's
    memory cap that the uninterrupted solve fits in. Resuming may hold its records (deflated) besides
    what the solve holds anyway, and nothing more: no record inflated whole beside its arrays' copies."""
    material = parse_material("KQvK")
    tables = tables_for(material)
    records = stopped_after(material, stop)
    joined = ck.join(records)
    straight = traced_peak(lambda: solve_material(material, tables))
    resumed = traced_peak(lambda: solve_material(material, tables, resume=joined))
    assert resumed <= straight + sum(len(r) for r in records), (resumed, straight)
