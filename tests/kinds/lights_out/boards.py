"""What the Lights Out tests share: the kinds they play, a board after presses, and the breadth-first
distances from the rules (the seed's graph, section 3) that the fast path is checked against."""

from __future__ import annotations

from collections import deque

from engine.graphs import build_graph
from engine.kind import Context
from kinds.lights_out.boards import parse_lights_out_id
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.shape import (
    Shape,
)
from kinds.lights_out.solver import ShapeSolver
from kinds.lights_out.stored import solver_of


def kind(spec: str) -> LightsOut:
    shape = parse_lights_out_id(spec.removeprefix("lights-out:"), spec)
    assert isinstance(shape, Shape)
    return LightsOut(shape)


def graph_kind(n: int, edges: list[tuple[int, int]], name: str = "g") -> LightsOut:
    """The kind of a graph uploaded as the service takes it (engine.graphs.build_graph checks it)."""
    return upload(name, [f"v{i}" for i in range(n)], [[f"v{a}", f"v{b}"] for a, b in edges])


def upload(name: str, vertices: list[str], edges: list[list[str]]) -> LightsOut:
    return LightsOut.for_uploaded(build_graph(name, vertices, edges))


def solver_for(shape: Shape, ctx: Context) -> ShapeSolver:
    """The shape's solver, as a request gets it (kept by `ctx.kept`)."""
    return solver_of(shape, ctx).value


def apply(game: LightsOut, board: int, presses: tuple[str, ...] | list[str]) -> int:
    for press in presses:
        board = game.press(board, game.parse_press(press))
    return board


def bfs_distances(game: LightsOut) -> dict[int, int]:
    """Fewest presses from the all-white board to every board reachable (the seed's graph Γ, section 3):
    straight from the rules, one press at a time."""
    flips = [game.flip_set(i) for i in range(game.shape.cells)]
    seen = {0: 0}
    queue = deque([0])
    while queue:
        board = queue.popleft()
        for flip in flips:
            nxt = board ^ flip
            if nxt not in seen:
                seen[nxt] = seen[board] + 1
                queue.append(nxt)
    return seen
