"""Chess tables for the benches, solved once and kept on disk between runs (a five-man table takes
minutes of CPU): `solved_bytes(name)` gives a material's stored bytes, solving it (after the tables its
captures and promotions lead to) the first time; `store_tables` has a worker store a material's table and
every table it reads into a database as a worker's jobs store them, with the kept bytes. The
folder is named by the stored format's version, so a table written by another format is solved again.

    python -m bench.chess_cache KQRvKR   # solve ahead of a bench
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from bench.common import ADMIN_TOKEN
from engine.stored_bytes import encode_words
from kinds.chess import format as chess_format
from kinds.chess.format import ChessValues
from kinds.chess.material import Material, parse_material, solve_order
from kinds.chess.solve import solve_material
from service.calls import SubmitJob
from service.core import Nimbase
from storage.jobs import JobQueue
from storage.sequences import SequenceStore

#: Where the tables are kept.
FOLDER = Path.home() / ".cache" / "nimbase-bench" / f"chess-tables-v{chess_format._VERSION}"
#: The worker id the stored tables' jobs are claimed by.
WORKER = "bench-chess-cache"


def solved_bytes(name: str, tables: dict[str, bytes] | None = None) -> bytes:
    """The stored bytes of `name`'s table (and, in `tables`, of every table it needs), solved once."""
    tables = {} if tables is None else tables
    if name in tables:
        return tables[name]
    material = parse_material(name)
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
    given = {name: ChessValues.from_bytes(data) for name, data in subs.items()}
    started = time.perf_counter()
    data = solve_material(material, given, None).to_bytes()
    print(f"solved {material.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return data


def store_tables(
    engine: sa.Engine, service: Nimbase, name: str, encode: Callable[[bytes], bytes] | None = None
) -> None:
    """`name`'s table and every table it reads stored as a worker stores them: each material's job is
    queued, claimed and finished with the kept bytes (or `encode` of them: another stored form of the
    same values) as its words (instead of a worker solving them again)."""
    kept: dict[str, bytes] = {}
    for material in solve_order([parse_material(name)]):
        service.submit_job(SubmitJob(material.game_id, 0, token=ADMIN_TOKEN))
    queue, store = JobQueue(engine), SequenceStore(engine)
    while (job := queue.claim(WORKER, 3600.0)) is not None:
        data = solved_bytes(job.game_id.partition(":")[2], kept)
        words = encode_words(data if encode is None else encode(data))
        store.write_extension(
            job_id=job.id,
            worker_id=WORKER,
            game_id=job.game_id,
            family=job.family,
            start=0,
            values=words,
            period=None,
            done=len(words),
            total=len(words),
            finish=True,
            plain=True,  # as a worker stores an object made whole
        )


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        solved_bytes(arg)
