"""The modules a Python source imports, read from its syntax tree: what the kernel cache follows to key
a kernel by every source it may compile in, and what the house's import rules are checked on."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

__all__ = ["imports_in"]

#: The fields of a statement that hold statements: an import is a statement, so only these are walked,
#: never the expressions (most of a tree's nodes), which cannot hold one.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for node in nodes:
        yield node
        for field in _BLOCKS:
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def imports_in(tree: ast.AST, package: str, is_module: Callable[[str], bool]) -> Iterator[tuple[str, int]]:
    """Every module `tree` imports, with its line: anywhere in the source (inside functions and under
    `if TYPE_CHECKING:` too), relative imports resolved against `package` (the package the source is in;
    a package's own name for its `__init__`). `from a.b import c` imports `a.b.c` where `is_module`
    says that is a module, else `a.b`."""
    for node in _statements([tree]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                yield (child if is_module(child) else base), node.lineno
