"""Chess tables for the benches, solved once and kept on disk between runs (a five-man table takes
minutes of CPU): `solved_bytes(name)` gives a material's stored bytes, solving it (after the tables its
captures and promotions lead to) the first time. The folder is named by the stored format's version, so
a table written by another format is solved again.

    python -m bench.chess_cache KQRvKR   # solve ahead of a bench
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine.games import chess_format
from engine.games.chess import TableKernel
from engine.games.chess_material import Material, parse_material

#: Where the tables are kept.
FOLDER = Path.home() / ".cache" / "nimbase-bench" / f"chess-tables-v{chess_format._VERSION}"


def solved_bytes(name: str, tables: dict[str, bytes] | None = None) -> bytes:
    """The stored bytes of `name`'s table (and, in `tables`, of every table it needs), solved once."""
    tables = {} if tables is None else tables
    material = parse_material(name)
    if name in tables:
        return tables[name]
    subs = {sub.name: solved_bytes(sub.name, tables) for sub in material.sub_materials()}
    path = FOLDER / f"{name}.bin"
    if path.exists():
        data = path.read_bytes()
    else:
        data = _solve(material, subs)
        FOLDER.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(path)
    tables[name] = data
    return data


def _solve(material: Material, subs: dict[str, bytes]) -> bytes:
    kernel = TableKernel(material)
    pairs = zip(kernel.needs(), material.sub_materials(), strict=True)
    kernel.give({need: subs[sub.name] for need, sub in pairs})
    started = time.perf_counter()
    data = kernel.make()
    print(f"solved {material.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return data


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        solved_bytes(arg)
