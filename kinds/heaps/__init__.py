"""The heap games, sums of heaps valued by their Grundy sequences: Nim, subtraction games, octal games
and Grundy's game. The face: each family's registry entry (pyproject.toml's entry points) and its kind.

Inside: `base` (`HeapGame`, what the four share), one module per family (`nim`, `subtraction`, `octal`,
`grundy`), `families` (their registry entries, each with its misère form), `misere/` (misère play through
misère quotients), and `kernels/` the numba kernels they share (the octal and rare/common values, the
Guy-Smith and periodicity certificates, the subtraction kernels and remoteness), each with its plain
reference.
"""

from kinds.heaps.base import HeapGame
from kinds.heaps.families import GRUNDY, OCTAL, SUBTRACTION
from kinds.heaps.grundy import GrundyGame
from kinds.heaps.nim import ENTRY as NIM
from kinds.heaps.nim import NimGame
from kinds.heaps.octal import OctalGame
from kinds.heaps.subtraction import SubtractionGame

__all__ = [
    "GRUNDY",
    "NIM",
    "OCTAL",
    "SUBTRACTION",
    "GrundyGame",
    "HeapGame",
    "NimGame",
    "OctalGame",
    "SubtractionGame",
]
