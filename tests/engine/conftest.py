"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from engine.games.chess_tables import Tablebase

#: The chess tables the engine tests read: every material of at most three men (KQvK, KRvK and KPvK
#: for the brute-force comparison, the others for the known results and the tables they lead to).
SMALL_MATERIALS = ("KvK", "KQvK", "KRvK", "KBvK", "KNvK", "KPvK")


@pytest.fixture(scope="session")
def tablebase() -> Tablebase:
    """The tables of SMALL_MATERIALS, solved once for the session (tests only read them)."""
    tb = Tablebase()
    for name in SMALL_MATERIALS:
        tb.solve(name)
    return tb
