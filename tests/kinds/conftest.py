"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from engine.kind import Context
from kinds.chess.blocks import values_from_bytes
from kinds.chess.kind import TableKernel
from kinds.chess.tables import ChessTable, parse_material
from tests.engine.contexts import StoredWords, engine_context

#: The chess tables the engine tests read: every material of at most three men (KQvK, KRvK and KPvK
#: for the brute-force comparison, the others for the known results and the tables they lead to).
SMALL_MATERIALS = ("KvK", "KQvK", "KRvK", "KBvK", "KNvK", "KPvK")


@pytest.fixture(scope="session")
def tablebase() -> dict[str, ChessTable]:
    """The tables of SMALL_MATERIALS by name, solved once for the session the way workers' jobs solve
    and store them (`TableKernel.make`, given the stored bytes of the tables it needs) and read back as
    whole (`values_from_bytes`, a table of one side to move rebuilt from the tables it leads to); each
    holds the others, so that its moves out of its material are valued (tests only read them)."""
    stored: dict[str, bytes] = {}
    tables: dict[str, ChessTable] = {}
    for name in SMALL_MATERIALS:
        material = parse_material(name)
        kernel = TableKernel(material)
        kernel.give({need: stored[need.game_id.partition(":")[2]] for need in kernel.needs()})
        stored[name] = kernel.make()
        subs = {sub.name: tables[sub.name].packed for sub in material.sub_materials()}
        tables[name] = ChessTable(material, values_from_bytes(stored[name], subs), tables)
    return tables


@pytest.fixture
def ctx() -> Context:
    """A request's context with keepers of its own (nothing kept from another test) and nothing stored."""
    return engine_context(StoredWords())
