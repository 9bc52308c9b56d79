"""Chess endgames, `chess:MATERIAL`: the kind's face, the names other packages may import.

Inside: `kind` (the served kind, its settings and the job storing a table), `tables` and `material`
(the endgame tables and their materials), `solve`, `format`, `line`, `answers`, `san`, `fen`, `probe`,
`syzygy`, `records`, `checkpoint`; `kernels/` the numba kernels (index, move generation, retrograde
solve, values, lookups), each beside its plain reference in the tests; `edge/` what the kind adds at
the edge (lichess's routes, the opening of the user's Syzygy files), the one part that may import
service/, loaded by the service through the family's `plugin` name and never imported from here.
"""

from kinds.chess.kind import (
    ENTRY,
    FAMILY,
    SETTINGS,
    SYZYGY,
    ChessGame,
    ChessSettings,
    TableKernel,
    bulk_ids,
    family_info,
    parse_chess_kind,
)
from kinds.chess.material import MAX_MEN, Material, parse_material

__all__ = [
    "ENTRY",
    "FAMILY",
    "MAX_MEN",
    "SETTINGS",
    "SYZYGY",
    "ChessGame",
    "ChessSettings",
    "Material",
    "TableKernel",
    "bulk_ids",
    "family_info",
    "parse_chess_kind",
    "parse_material",
]
