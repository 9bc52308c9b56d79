"""The import graph of the whole house: no circle in any package, each layer importing only the layers
below it, the pure part of a kind importing no service, storage or network, and nothing importing a
kind's inner modules from outside the kind.

Read from the source with `ast`, not by importing: every import counts, at module level, inside a function
or under `if TYPE_CHECKING:`, since each is an edge a reader must follow and a circle waiting for the day
the import moves to the top. Layers, bottom up: `nimbase` (settings, schema, version, the generated code)
and `nimbase_rules` (the plugin authors' package), `engine` (the framework every kind uses: pure
computation), `kinds` (one package a kind, registered through entry points: nothing below imports them),
`storage`, `service` and `worker`, then `cli`, which wires them together. A kind's `edge` subpackage (its
own REST routes, the files it opens) may import service/, which loads it by the name its `Family` gives,
never by an import. Tests and benches may import a kind's inner modules (they test and measure them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from nimbase.imports import imports_in

ROOT = Path(__file__).resolve().parents[1]

#: The packages of the product, whose import graph must hold no circle.
PACKAGES = (
    "nimbase",
    "nimbase_rules",
    "engine",
    "kinds",
    "storage",
    "service",
    "worker",
    "cli",
    "migrations",
)

#: For each top-level package, the project packages it must never import.
FORBIDDEN: dict[str, frozenset[str]] = {
    "nimbase": frozenset({"engine", "storage", "service", "worker", "kinds", "cli", "bench", "migrations"}),
    "nimbase_rules": frozenset(
        {"engine", "storage", "service", "worker", "kinds", "cli", "bench", "migrations"}
    ),
    "engine": frozenset({"storage", "service", "worker", "kinds", "cli", "bench", "migrations"}),
    "kinds": frozenset({"worker", "cli", "bench", "migrations"}),
    "storage": frozenset({"service", "worker", "kinds", "cli", "bench"}),
    "service": frozenset({"worker", "kinds", "cli", "bench"}),
    "worker": frozenset({"service", "kinds", "cli", "bench"}),
    "cli": frozenset({"bench"}),
    "migrations": frozenset({"service", "worker", "kinds", "cli", "bench"}),
}

#: What the pure part of a kind (all of it but its `edge` subpackage) must never import: no service, no
#: storage, no network (it does no I/O; its files are opened at the edge and lent as resources).
NOT_PURE = frozenset(
    {
        "storage",
        "service",
        "worker",
        "cli",
        "socket",
        "ssl",
        "http",
        "urllib",
        "httpx",
        "requests",
        "fastapi",
        "starlette",
        "uvicorn",
        "grpc",
        "sqlalchemy",
        "psycopg",
        "alembic",
    }
)


def module_name(path: Path) -> str:
    """`kinds/heaps/base.py` -> `kinds.heaps.base`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_of(package: str) -> dict[str, Path]:
    """Every module of a top-level package, by dotted name."""
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> Iterator[tuple[str, int]]:
    """Every module `name` (at `path`) imports, with its line: anywhere in the file, relative ones resolved.

    `from a.b import c` imports `a.b.c` when that is a module of `known`, else `a.b`.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    yield from imports_in(ast.parse(path.read_text(), str(path)), package, known.__contains__)


def with_parents(name: str) -> set[str]:
    """`a.b.c` and the packages importing it runs first: `a.b` and `a` (each `__init__` counts)."""
    parts = name.split(".")
    return {".".join(parts[:depth]) for depth in range(1, len(parts) + 1)}


def house_graph() -> dict[str, set[str]]:
    """Product module -> the product modules it imports (not its own parent packages, already running)."""
    modules = {name: path for package in PACKAGES for name, path in modules_of(package).items()}
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        running = with_parents(name)
        for target, _ in imported(path, name, known):
            graph[name] |= (with_parents(target) & known) - running
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (a module importing itself is skipped above)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def one_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest circle through the component's first module, by breadth-first search inside it."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w not in came_from:
                    came_from[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no circle through {start!r} in its own component")


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    components = strongly_connected(graph)
    assert components == [["a", "b", "c"]]
    assert one_cycle(graph, components[0]) == ["a", "b", "c", "a"]


def test_imports_are_read_everywhere_in_a_file(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from engine import errors\n"
        "from .values import Value\n"
        "if TYPE_CHECKING:\n"
        "    from kinds.heaps.base import HeapGame\n"
        "def f() -> None:\n"
        "    import engine.graphs\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(source)
    known = {"engine", "engine.errors", "engine.values", "engine.games", "kinds.heaps.base", "engine.graphs"}
    found = {target for target, _ in imported(path, "engine.mod", known)}
    assert found == {"typing", "engine.errors", "engine.values", "kinds.heaps.base", "engine.graphs"}


def test_the_house_has_no_import_circle() -> None:
    graph = house_graph()
    assert len(graph) > 200, "the product's modules were not found"
    circles = [" -> ".join(one_cycle(graph, c)) for c in strongly_connected(graph)]
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_each_layer_imports_only_layers_below_it() -> None:
    crossings = []
    for package, forbidden in FORBIDDEN.items():
        modules = modules_of(package)
        for name, path in modules.items():
            for target, line in imported(path, name, set(modules)):
                if target.split(".")[0] in forbidden:
                    crossings.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not crossings, "imports against the layers:\n" + "\n".join(dict.fromkeys(crossings))


def is_edge(name: str) -> bool:
    """A kind's edge: `kinds.<kind>.edge` and what it holds."""
    parts = name.split(".")
    return len(parts) >= 3 and parts[0] == "kinds" and parts[2] == "edge"


def test_the_pure_part_of_a_kind_imports_no_service_storage_or_network() -> None:
    modules = modules_of("kinds")
    crossings = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules.items()
        if not is_edge(name)
        for target, line in imported(path, name, set(modules))
        if target.split(".")[0] in NOT_PURE
    ]
    assert len(modules) > 50, "the kinds' modules were not found"
    assert not crossings, "a kind's pure part at the edge:\n" + "\n".join(crossings)


def test_nothing_imports_a_kind_s_inner_modules_from_outside_it() -> None:
    everything = {name: path for package in PACKAGES for name, path in modules_of(package).items()}
    known = set(everything)
    crossings = []
    for name, path in everything.items():
        for target, line in imported(path, name, known):
            parts = target.split(".")
            if parts[0] != "kinds" or len(parts) < 3:
                continue  # not a kind, or a kind's face (its __init__)
            if name.split(".")[:2] != parts[:2]:
                crossings.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not crossings, "a kind's inner modules imported from outside it:\n" + "\n".join(crossings)
