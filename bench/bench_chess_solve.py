"""The chess solver's rate, CPU time per index slot, beside the solver of an earlier commit solving the
same material in the same run, their values compared byte for byte (issue 33's target: 150 ns a slot
on one core for KQRvKR and KRPvKR) (python -m bench.bench_chess_solve [--help]).

Each side solves the material's sub-tables first (untimed), then the material itself (timed, CPU and
wall); the earlier commit runs from a temporary worktree of it (bench.at_commit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from bench.at_commit import run_at
from bench.common import figure
from kinds.chess.format import ChessValues
from kinds.chess.material import parse_material, solve_order
from kinds.chess.solve import solve_material

#: The solver before issue 33's solve work (the exit lists, scalar canonical slots, runs of 64 slots).
BEFORE_SOLVE_RATE = "4e3444c"

#: The timed solve of NAME, its sub-tables solved first; prints JSON [wall, CPU, digest of the values].
_SOLVE = """
import hashlib, json, time
from kinds.chess.material import parse_material, solve_order
from kinds.chess.solve import solve_material
solve_material(parse_material("KvK"), {})
material = parse_material(NAME)
tables = {}
for sub in solve_order(material.sub_materials()):
    tables[sub.name] = solve_material(sub, tables)
wall, cpu = time.perf_counter(), time.process_time()
values = solve_material(material, tables)
took = [time.perf_counter() - wall, time.process_time() - cpu]
print(json.dumps([*took, hashlib.sha256(values.dtm.tobytes() + values.dtz.tobytes()).hexdigest()]))
"""


def digest(values: ChessValues) -> str:
    return hashlib.sha256(values.dtm.tobytes() + values.dtz.tobytes()).hexdigest()


def solve_here(name: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of `name`'s solve in this tree, and the digest of its values."""
    solve_material(parse_material("KvK"), {})  # load (or compile) the kernels
    material = parse_material(name)
    tables: dict[str, ChessValues] = {}
    for sub in solve_order(material.sub_materials()):
        tables[sub.name] = solve_material(sub, tables)
    wall, cpu = time.perf_counter(), time.process_time()
    values = solve_material(material, tables)
    return time.perf_counter() - wall, time.process_time() - cpu, digest(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default="KQRvKR", help="the material to solve (its sub-tables too)")
    parser.add_argument("--before", default=BEFORE_SOLVE_RATE, help="the earlier commit ('' for none)")
    args = parser.parse_args()
    name = args.material
    slots = parse_material(name).slots
    wall, cpu, ours = solve_here(name)
    figure(f"chess {name}: solve (wall)", wall, "s")
    figure(f"chess {name}: solve (CPU)", cpu, "s")
    figure(f"chess {name}: solve, CPU a slot", cpu / slots * 1e9, "ns")
    if args.before:
        found = json.loads(run_at(args.before, f"NAME = {name!r}\n{_SOLVE}").splitlines()[-1])
        before_wall, before_cpu, theirs = found
        figure(f"chess {name}: solve at {args.before}, this run (wall)", before_wall, "s")
        figure(f"chess {name}: solve at {args.before}, this run (CPU)", before_cpu, "s")
        figure(f"chess {name}: solve at {args.before}, this run, CPU a slot", before_cpu / slots * 1e9, "ns")
        figure(
            f"chess {name}: the same values as at {args.before}, byte for byte (1 yes)",
            int(ours == theirs),
            "",
        )
    figure(f"chess {name}: target, CPU a slot", 150.0, "ns")


if __name__ == "__main__":
    main()
