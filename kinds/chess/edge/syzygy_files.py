"""The user's Syzygy files (NIMBASE_SYZYGY_PATH), opened at start-up for the chess kind through
python-chess's prober (each table memory-mapped, read-only): the chess kind's `SYZYGY` resource, which it
reads as kinds.chess.syzygy.SyzygyProber.

Materials beyond nimbase's own tables (neither stored nor solved for a request, or of six and seven men)
are answered from these files where they hold the material's WDL and DTZ tables: WDL and DTZ, no DTM.
python-chess's prober does not say which DTZ values its files store rounded (the 3- and 4-man files store
every decisive value in moves, which lila-tablebase marks rounded), so every decisive one counts as
possibly one ply off (`precise_dtz` False); a draw's 0 is exact.

The path is one directory or several joined by the system's path separator. `open_files` opens every
table file at start-up (SyzygyFilesError naming each that does not open, which the service reports as an
InvalidSetting naming the variable); the `SyzygyFiles` it gives are kept for the process's life.
"""

from __future__ import annotations

import os
from pathlib import Path

import chess
import chess.syzygy

from engine.kind_resources import ResourceError
from kinds.chess.fen import MAX_SYZYGY_MEN
from kinds.chess.material import parse_material
from kinds.chess.probe import ChessProbe


class SyzygyFilesError(ResourceError):
    """Syzygy files named by the setting that do not open (each named with why)."""


def directories(path: str) -> list[Path]:
    """The directories a path setting names (empty parts left out)."""
    return [Path(part) for part in path.split(os.pathsep) if part.strip()]


def _open(path: str) -> chess.syzygy.Tablebase:
    tablebase = chess.syzygy.Tablebase()
    problems: list[str] = []
    for directory in directories(path):
        if not directory.is_dir():
            problems.append(f"{str(directory)!r} is not a directory")
            continue
        tablebase.add_directory(str(directory))
    tables = {id(t): t for t in [*tablebase.wdl.values(), *tablebase.dtz.values()]}
    for table in tables.values():
        try:
            if isinstance(table, chess.syzygy.WdlTable):
                table.init_table_wdl()
            elif isinstance(table, chess.syzygy.DtzTable):
                table.init_table_dtz()
        except (OSError, ValueError, IndexError, AssertionError) as error:
            problems.append(f"{table.path!r} ({error or type(error).__name__})")
    if problems:
        tablebase.close()
        raise SyzygyFilesError(f"Syzygy files that do not open: {'; '.join(problems)}")
    return tablebase


class SyzygyFiles:
    """The tables of the directories a path names, opened once (SyzygyFilesError naming the files that do
    not open, or a part that is not a directory); probes from the side to move's view
    (kinds.chess.probe's conventions): an kinds.chess.syzygy.SyzygyProber."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._tablebase = _open(path)
        #: By material: whether its WDL table and those of all it leads to are here (see `has`).
        self._complete: dict[str, bool] = {}

    def has(self, material: str) -> bool:
        """Whether the files hold the WDL and DTZ tables of `material` (`KQvKR`) and the WDL tables of every
        material its captures and promotions lead to, which python-chess's prober reads as it probes: a
        material whose probe would find a table missing is one the files lack."""
        return material in self._tablebase.dtz and self._wdl_complete(material)

    def _wdl_complete(self, name: str) -> bool:
        found = self._complete.get(name)
        if found is None:
            found = name in self._tablebase.wdl and all(
                sub.men <= 2 or sub.name == name or self._wdl_complete(sub.name)
                for sub in parse_material(name, MAX_SYZYGY_MEN).sub_materials()
            )
            self._complete[name] = found  # a race only computes it twice
        return found

    def probe(self, board: chess.Board) -> ChessProbe:
        """The WDL and DTZ of a legal board of a material the files hold (`has`)."""
        wdl = self._tablebase.probe_wdl(board)
        dtz = self._tablebase.probe_dtz(board)
        return ChessProbe(wdl, dtz, None, precise_dtz=dtz == 0)

    def close(self) -> None:
        self._tablebase.close()


def open_files(path: str) -> SyzygyFiles:
    """The chess kind's opener of `SYZYGY` (its plugin's `openers`): every table file `path` names."""
    return SyzygyFiles(path)
