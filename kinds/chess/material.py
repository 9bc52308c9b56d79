"""Chess materials: `KRPvKR`, their men in index order, and the materials their moves lead to.

Materials are named the usual tablebase way, the stronger side first (`KQvKR`); a table covers both
colourings (White K+Q against Black K+R and the reverse), indexed with the stronger side (A) as White.
Every material of up to MAX_MEN men is supported, pawns included; materials of up to seven men
(kinds.chess.fen.MAX_SYZYGY_MEN) name games only the user's Syzygy files answer
(`parse_material(text, MAX_SYZYGY_MEN)`: their `spec`, `slots` and solve are never asked for).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import chess
import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidGameId
from engine.positions import quote_position
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import retro

I64 = NDArray[np.int64]

_LETTERS = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}
_MATERIAL = re.compile(r"K([QRBNP]*)vK([QRBNP]*)")
#: Most men a table of nimbase's own may hold.
MAX_MEN = 5


def _side_key(side: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    return len(side), tuple(sorted(side, reverse=True))


def _letters(side: tuple[int, ...]) -> str:
    return "K" + "".join(chess.piece_symbol(t).upper() for t in side)


@dataclass(frozen=True)
class Material:
    """Side A's men besides its king (the stronger side, White in the index) and side B's, each
    strongest first (queen, rook, bishop, knight, pawn)."""

    a: tuple[int, ...]
    b: tuple[int, ...]

    @staticmethod
    def of(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[Material, bool]:
        """The canonical material of sides (a, b), and whether its side A is b."""
        a = tuple(sorted(a, reverse=True))
        b = tuple(sorted(b, reverse=True))
        if _side_key(b) > _side_key(a):
            return Material(b, a), True
        return Material(a, b), False

    @property
    def name(self) -> str:
        return f"{_letters(self.a)}v{_letters(self.b)}"

    @property
    def game_id(self) -> str:
        return f"chess:{self.name}"

    @property
    def men(self) -> int:
        return 2 + len(self.a) + len(self.b)

    @property
    def pawnful(self) -> bool:
        return chess.PAWN in self.a or chess.PAWN in self.b

    @property
    def symmetric(self) -> bool:
        return self.a == self.b

    @property
    def pieces(self) -> list[tuple[int, int]]:
        """(type, owner) of the men besides the kings in index order (owner 0 = A): non-pawns, then
        pawns, side A first."""
        a, b = [(t, 0) for t in self.a], [(t, 1) for t in self.b]
        return [p for p in a + b if p[0] != chess.PAWN] + [p for p in a + b if p[0] == chess.PAWN]

    @cached_property
    def spec(self) -> I64:
        pieces = self.pieces
        row = [len(pieces), sum(1 for t, _ in pieces if t == chess.PAWN)] + [0] * (2 * ix.MAX_PIECES)
        for i, (t, o) in enumerate(pieces):
            row[2 + 2 * i], row[3 + 2 * i] = t, o
        return np.array(row, dtype=np.int64)

    @property
    def slots(self) -> int:
        return int(ix.size(self.spec))

    def exits(self) -> list[tuple[int, int, int, Material, bool, list[int]]]:
        """Per capture of man c (-1: none) and promotion of pawn pm (-1: none) to type pc - ... as
        (c, pm, promotion type or 0, the material reached, whether its side A is our B, which of our men
        becomes its man i)."""
        pieces = self.pieces
        out: list[tuple[int, int, int, Material, bool, list[int]]] = []
        for c in range(-1, len(pieces)):
            for pm in range(-1, len(pieces)):
                if pm >= 0 and (pm == c or pieces[pm][0] != chess.PAWN):
                    continue
                for promo in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN) if pm >= 0 else (0,):
                    if c < 0 and pm < 0:
                        continue
                    left = [(promo if k == pm else t, o, k) for k, (t, o) in enumerate(pieces) if k != c]
                    a = tuple(t for t, o, _ in left if o == 0)
                    b = tuple(t for t, o, _ in left if o == 1)
                    material, flip = Material.of(a, b)
                    mapped = [(t, 1 - o if flip else o, k) for t, o, k in left]
                    perm: list[int] = []
                    for man in material.pieces:
                        perm.append(next(k for t, o, k in mapped if (t, o) == man and k not in perm))
                    out.append((c, pm, promo, material, flip, perm))
        return out

    def sub_materials(self) -> list[Material]:
        """The materials its captures and promotions lead to (each once)."""
        out: list[Material] = []
        for row in self.exits():
            if row[3] not in out:
                out.append(row[3])
        return out

    def exit_rows(self, bases: dict[Material, int]) -> I64:
        """The exits as kinds.chess.kernels.retro's rows, given where each sub-material's values start
        in the concatenated arrays."""
        m = len(self.pieces)
        rows = np.zeros(((m + 1) * (m + 1) * 5, retro.ROW), dtype=np.int64)
        for c, pm, promo, material, flip, perm in self.exits():
            r = int(retro.exit_row(m, c, pm, promo - 1 if promo else 0))
            rows[r, 0], rows[r, 1], rows[r, 2] = 1, int(flip), bases[material]
            rows[r, 4 : 4 + ix.SPEC] = material.spec
            rows[r, 4 + ix.SPEC : 4 + ix.SPEC + len(perm)] = perm
        return rows


def parse_material(text: str, most: int = MAX_MEN) -> Material:
    """`KRvK`, `KRPvKR`... (either side first, men in any order) of at most `most` men (MAX_MEN, or
    MAX_SYZYGY_MEN for a game the Syzygy files may answer); InvalidGameId quoting it otherwise."""
    match = _MATERIAL.fullmatch(text)
    if match is None:
        raise InvalidGameId(
            f"chess material {quote_position(text)} is not a material such as 'KRvK' or 'KRPvKR' "
            "(K, the side's men among Q R B N P, 'v', then K and the other side's)"
        )
    material, _ = Material.of(
        tuple(_LETTERS[c] for c in match.group(1)), tuple(_LETTERS[c] for c in match.group(2))
    )
    if material.men > most:
        raise InvalidGameId(
            f"chess material {quote_position(text)} has {material.men} men: tables hold at most {most} men"
        )
    return material


def materials_of(men: int) -> list[Material]:
    """Every material of 2 to `men` men, each after the ones it leads to."""
    kinds = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
    sides: list[tuple[int, ...]] = [()]
    for size in range(1, men - 1):
        grown = {tuple(sorted((*s, k), reverse=True)) for s in sides if len(s) == size - 1 for k in kinds}
        sides += sorted(grown, reverse=True)
    found: list[Material] = []
    for a in sides:
        for b in sides:
            material, _ = Material.of(a, b)
            if material.men <= men and material not in found:
                found.append(material)
    return solve_order(found)


def solve_order(materials: list[Material]) -> list[Material]:
    """`materials` and everything they lead to, each after all it leads to."""
    out: list[Material] = []
    seen: set[Material] = set()

    def visit(material: Material) -> None:
        if material in seen:
            return
        seen.add(material)
        for sub in material.sub_materials():
            if sub != material:
                visit(sub)
        out.append(material)

    for material in materials:
        visit(material)
    return out
