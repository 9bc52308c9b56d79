"""Whole chess tables checked against their retrograde equations (tests.kinds.chess.equations, its own move
generation): every position of a material, DTM and DTZ with the fifty-move rule, captures and promotions
read from the stored sub-tables; the positions counted agree with the table's statistics. The checker
can fail: a value changed in a copy of a table, or a sub-table that lies, is named.

In `make test`: KQvKR (its captures into three-man tables) and the three-man tables, KPvK among them
(promotions, double steps). Marked slow (a minute or more each on a loaded machine): the four-man
materials with pawns (KRvKP, KPvKP with en passant, KRPvK) and, taking a five-man solve besides,
KQRvKR: 134,700,370 positions (53,282,529 wins, 14,461,706 draws, 66,956,135 losses, none cursed or
blessed), checked in about 10 minutes of one core after a solve of about 4.5."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material, parse_material
from tests.kinds.chess import equations as eq
from tests.kinds.chess.test_syzygy import Solved

#: A five-man solve and check take many minutes on a loaded machine (the tests' bound is 10 minutes).
FIVE = (pytest.mark.slow, pytest.mark.timeout(3600))
MATERIALS = [
    "KRvK",
    "KQvK",
    "KPvK",
    "KQvKR",
    pytest.param("KRvKP", marks=pytest.mark.slow),
    pytest.param("KPvKP", marks=pytest.mark.slow),
    pytest.param("KRPvK", marks=pytest.mark.slow),
    pytest.param("KQRvKR", marks=FIVE),
]


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


def _check(solved: Solved, material: Material, values: ChessValues | None = None) -> eq.Report:
    table = solved.table(material.name)
    return eq.check(
        material, table.packed if values is None else values, lambda sub: solved.table(sub.name).packed
    )


@pytest.mark.parametrize("name", MATERIALS)
def test_every_position_holds_the_retrograde_equations(solved: Solved, name: str) -> None:
    material = parse_material(name)
    report = _check(solved, material)
    assert report.violations == 0, report.message()
    assert report.first == -1
    stats = solved.table(name).stats()
    assert report.slots == stats["positions"]
    assert (report.wins, report.draws, report.losses) == (stats["wins"], stats["draws"], stats["losses"])
    assert report.wins + report.draws + report.losses == report.slots
    assert report.cursed <= report.wins and report.blessed <= report.losses


def _a_slot(values: ChessValues, material: Material, wanted: NDArray[np.bool_]) -> int:
    """The first slot naming a position (each position has one) among those `wanted`."""
    once = ix.valid_mask(material.spec, 0, len(values))
    return int(np.flatnonzero(wanted & once)[0])


@pytest.mark.parametrize(("name", "metric"), [("KRvK", "dtm"), ("KPvK", "dtz"), ("KQvK", "dtz")])
def test_a_changed_value_is_named(solved: Solved, name: str, metric: str) -> None:
    """One win made a ply longer in a copy of the table: the checker names its slot."""
    material = parse_material(name)
    packed = solved.table(name).packed
    dtm, dtz = packed.dtm.copy(), packed.dtz.copy()
    changed = dtm if metric == "dtm" else dtz
    slot = _a_slot(packed, material, changed > 5)
    changed[slot] += 2
    report = _check(solved, material, ChessValues(dtm, dtz))
    assert report.violations > 0
    assert slot in report.violating, report.message()
    assert report.fen is not None and report.message().startswith(f"{name}: ")


def test_a_drawn_position_made_a_loss_is_named(solved: Solved) -> None:
    material = parse_material("KRvK")
    packed = solved.table("KRvK").packed
    dtm, dtz = packed.dtm.copy(), packed.dtz.copy()
    slot = _a_slot(packed, material, dtm == 0)
    dtm[slot] = dtz[slot] = -1
    report = _check(solved, material, ChessValues(dtm, dtz))
    assert slot in report.violating, report.message()


def test_the_sub_tables_are_read(solved: Solved) -> None:
    """A KvK table claiming the side to move wins everywhere breaks KQvK where Black takes the queen."""
    material = parse_material("KQvK")
    kvk = solved.table("KvK").packed
    liar = ChessValues(np.full_like(kvk.dtm, 1), np.full_like(kvk.dtz, 1))
    table = solved.table("KQvK").packed
    report = eq.check(
        material, table, lambda sub: liar if sub.name == "KvK" else solved.table(sub.name).packed
    )
    assert report.violations > 0
    assert report.fen is not None
    assert report.first >= 0


@pytest.mark.parametrize("name", ["KQvKR", "KPvKP", "KRPvKR", "KPPvK", "KQRvKR"])
def test_the_sub_materials_are_those_the_material_names(name: str) -> None:
    """The tables the checker reads are those the material itself says its moves lead to."""
    material = parse_material(name)
    assert {m.name for m in eq.sub_materials(material)} == {m.name for m in material.sub_materials()}
