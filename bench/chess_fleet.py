"""How long every chess material to five men would take on one worker and on N (issue 20's report).

Nothing is solved here: each material's solve is estimated from its slot count at a rate measured by
the caller in the same run (CPU seconds a slot, one rate for pawnless materials and one for materials
with pawns), and the workers are simulated as the job queue runs them: a material's job starts only
once every table it reads is stored (`Material.sub_materials`), and a free worker takes the first ready
job in `solve_order`. The longest chain of dependent materials bounds what any number of workers can do.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kinds.chess.material import Material, materials_of

#: The worker counts the estimate is printed for.
WORKERS = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True, slots=True)
class Rates:
    """CPU seconds a slot, measured in the run that prints the estimate."""

    pawnless: float
    pawnful: float

    def seconds(self, material: Material) -> float:
        return material.slots * (self.pawnful if material.pawnful else self.pawnless)


def every_material(most_men: int = 5) -> list[Material]:
    """Every material to `most_men` men, in the order the jobs are queued."""
    return materials_of(most_men)


def schedule(materials: Sequence[Material], seconds: Callable[[Material], float], workers: int) -> float:
    """Seconds until the last material is stored, with `workers` workers taking the first ready job in
    the order of `materials` whenever one is free (a job is ready once its sub-materials are stored)."""
    known = set(materials)
    needs = {m: [s for s in m.sub_materials() if s in known and s != m] for m in materials}
    done_at: dict[Material, float] = {}
    waiting = list(materials)
    free = [0.0] * workers  # when each worker is next free (a heap)
    heapq.heapify(free)
    while waiting:
        now = heapq.heappop(free)
        ready = [m for m in waiting if all(s in done_at and done_at[s] <= now for s in needs[m])]
        if not ready:  # wait for the next table to be stored
            later = min(t for t in done_at.values() if t > now)
            heapq.heappush(free, later)
            continue
        job = ready[0]
        waiting.remove(job)
        done_at[job] = now + seconds(job)
        heapq.heappush(free, done_at[job])
    return max(done_at.values(), default=0.0)


def critical_path(materials: Sequence[Material], seconds: Callable[[Material], float]) -> float:
    """Seconds of the longest chain of materials each reading the one before: no number of workers
    stores the whole set sooner."""
    longest: dict[Material, float] = {}
    for material in materials:  # solve order: each material's sub-materials come before it
        below = [longest[s] for s in material.sub_materials() if s in longest and s != material]
        longest[material] = seconds(material) + max(below, default=0.0)
    return max(longest.values(), default=0.0)


def estimate_lines(rates: Rates, most_men: int = 5) -> list[tuple[str, float, str]]:
    """The figures to print: (label, value, unit)."""
    materials = every_material(most_men)
    five = [m for m in materials if m.men == most_men]
    lines = [
        (f"{most_men}-man materials", float(len(five)), "materials"),
        (f"{most_men}-man slots, pawnless", sum(m.slots for m in five if not m.pawnful) / 1e9, "G slots"),
        (f"{most_men}-man slots, with pawns", sum(m.slots for m in five if m.pawnful) / 1e9, "G slots"),
        ("rate measured, pawnless", rates.pawnless * 1e9, "ns/slot"),
        ("rate measured, with pawns", rates.pawnful * 1e9, "ns/slot"),
    ]
    for workers in WORKERS:
        hours = schedule(materials, rates.seconds, workers) / 3600
        lines.append((f"every material to {most_men} men on {workers} worker(s) (estimate)", hours, "h"))
    lines.append(
        (
            "longest chain of dependent materials (no N does better)",
            critical_path(materials, rates.seconds) / 3600,
            "h",
        )
    )
    return lines
