"""numba's disk cache keyed by every source a kernel compiles in, not only the file that defines it.

numba (`cache=True`) keeps a kernel's machine code beside a stamp of the one file that defines it, and
loads it again while that file is unchanged. A kernel compiles in the jitted functions it calls and the
constants it reads from other modules too, so an edited callee (a move generator inlined into a solver,
a constant of another file) left the old machine code loaded: an upgrade could answer from stale
kernels. `key_by_sources` makes the stamp cover the defining file and every module it imports,
followed through the imports of those in turn (the standard library and the compiler's own packages
left out, as numba's version already keys its cache), so any change there compiles again. An installed
package's module that does not mention numba holds no kernel: its file is in the stamp where a followed
module imports it, but its own imports are not followed (they led through every library the service
uses: some 200 files parsed in each process that defines a kernel, half a second of a CLI answer).

Call it before a kernel is defined: the packages that hold kernels do so on import.
"""

from __future__ import annotations

import ast
import hashlib
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from numba.core import caching

from nimbase.imports import imports_in

__all__ = ["key_by_sources", "sources_of"]

# Packages whose code a stale cache cannot come from: numba's own version is part of its cache's key.
_COMPILER = frozenset({"numba", "numpy", "llvmlite"})
_LOCK = threading.Lock()
_imports: dict[str, tuple[str, ...]] = {}
_digests: dict[Path, bytes] = {}
#: Where installed packages live (a project installed editable, and the tests, live elsewhere).
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def _followed(name: str) -> ModuleType | None:
    """The module `name` names, when it is loaded, has a Python source file and is not one whose code
    cannot change under a kernel (the standard library, the compiler)."""
    top = name.partition(".")[0]
    if top in _COMPILER or top in sys.stdlib_module_names:
        return None
    module = sys.modules.get(name)
    source = getattr(module, "__file__", None)
    return module if source and source.endswith(".py") else None


def _imported_by(module: ModuleType) -> tuple[str, ...]:
    """The names of the modules `module`'s source imports (with `from P import a`, P.a where it is a
    module, else P); none for an installed package's module that does not mention numba."""
    name = module.__name__
    if name in _imports:
        return _imports[name]
    path = Path(str(module.__file__))
    source = path.read_bytes()
    if _INSTALLED.intersection(path.parts) and b"numba" not in source:
        _imports[name] = ()
        return ()
    tree = ast.parse(source)
    names = [target for target, _ in imports_in(tree, module.__package__ or "", sys.modules.__contains__)]
    _imports[name] = found = tuple(dict.fromkeys(names))
    return found


def _digest(path: Path) -> bytes:
    """The SHA-256 of one source file, read once in a process (every kernel's stamp covers most of the
    same files)."""
    found = _digests.get(path)
    if found is None:
        _digests[path] = found = hashlib.sha256(path.read_bytes()).digest()
    return found


def sources_of(module: ModuleType) -> list[Path]:
    """The source files a kernel defined in `module` may compile in: its own and those of the modules
    it imports, transitively, in a fixed order."""
    seen: dict[str, Path] = {}
    waiting = [module]
    while waiting:
        current = waiting.pop()
        if current.__name__ in seen:
            continue
        seen[current.__name__] = Path(str(current.__file__))
        waiting.extend(m for n in _imported_by(current) if (m := _followed(n)) is not None)
    return [seen[name] for name in sorted(seen)]


def _stamp(py_func: Any, numba_stamp: Any) -> tuple[Any, str]:
    module = sys.modules.get(py_func.__module__)
    if module is None or getattr(module, "__file__", None) is None:
        return numba_stamp, ""
    digest = hashlib.sha256()
    with _LOCK:
        for path in sources_of(module):
            digest.update(str(path.name).encode())
            digest.update(_digest(path))
    return numba_stamp, digest.hexdigest()


class _KeyedBySources:
    """A locator whose source stamp also covers the sources the function's module imports."""

    _py_func: Any

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[call-arg]
        self._py_func = py_func

    def get_source_stamp(self) -> Any:
        return _stamp(self._py_func, super().get_source_stamp())  # type: ignore[misc]


class _UserProvided(_KeyedBySources, caching.UserProvidedCacheLocator):
    pass


class _InTree(_KeyedBySources, caching.InTreeCacheLocator):
    pass


class _UserWide(_KeyedBySources, caching.UserWideCacheLocator):
    pass


_KEYED = (_UserProvided, _InTree, _UserWide)


def key_by_sources() -> None:
    """Put the keyed locators first in numba's search (once; the others stay behind them)."""
    with _LOCK:
        classes = caching.CacheImpl._locator_classes
        if classes[: len(_KEYED)] != list(_KEYED):
            classes[:0] = _KEYED
