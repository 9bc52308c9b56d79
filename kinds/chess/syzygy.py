"""The user's Syzygy files as the chess kind reads them: `SyzygyProber`, handed to the kind opened.

engine/ does no I/O: the files (NIMBASE_SYZYGY_PATH, `ChessSettings.syzygy_path`) are opened at start-up
by the chess kind's package outside engine/ (kinds.chess.edge.syzygy_files: python-chess's prober, its tables
memory-mapped read-only) and lent to each request as `ctx.resources.of(SYZYGY)` (engine.kind_resources;
`SYZYGY` is declared beside the settings in kinds.chess.kind). Materials beyond nimbase's own tables
(neither stored nor solved for a request, or of six and seven men, which nimbase's own tables never hold)
are answered from them where they hold the material: WDL and DTZ, no DTM.
"""

from __future__ import annotations

from typing import Protocol

import chess

from kinds.chess.probe import ChessProbe


class SyzygyProber(Protocol):
    """Opened Syzygy files: which materials they hold, and a board's probe from the side to move's view
    (kinds.chess.probe's conventions)."""

    def has(self, material: str) -> bool:
        """Whether the files hold both the WDL and the DTZ table of `material` (`KQvKR`)."""
        ...

    def probe(self, board: chess.Board) -> ChessProbe:
        """The WDL and DTZ of a legal board whose material (and every material its captures lead to) the
        files hold; DTZ values are marked possibly rounded (`precise_dtz` False) but a draw's 0."""
        ...
