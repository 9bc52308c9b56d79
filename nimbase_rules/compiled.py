"""Numba functions generated from source text, kept compiled on disk across processes.

numba caches a function's machine code on disk (`cache=True`) only where the function is defined in a
file and takes no function as an argument. Rules that bind parameters to their kernels (Connect Four's
board size) would otherwise make closures, compiled again in every process. `compiled_module` writes
the source of such kernels (the parameters as constants) to a file of a cache directory, named by a
digest of the source and of the files it depends on (so that an edited dependency never loads stale
machine code), and imports it: the first process compiles and saves, the next ones load.

The directory is `nimbase-kernels` in numba's cache directory where one is set (NUMBA_CACHE_DIR), else
in the user's (~/.cache), else in the system's temporary directory where neither is writable.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import numba

__all__ = ["cache_dir", "compiled_module"]


_LOCK = threading.RLock()


def cache_dir() -> Path:
    """Where generated modules (and numba's cache of them) are kept."""
    base = getattr(numba.config, "CACHE_DIR", "")
    return (Path(base) if base else Path.home() / ".cache") / "nimbase-kernels"


def _writable(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"nimbase-kernels-{os.getuid()}"
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def compiled_module(prefix: str, source: str, depends: Iterable[str] = ()) -> ModuleType:
    """The module `source` defines, written once under the cache directory as `prefix_<digest>.py` (the
    digest covers the source and the contents of the files `depends` names) and imported."""
    digest = hashlib.sha256(source.encode())
    for name in sorted(set(depends)):
        digest.update(Path(name).read_bytes())
    module_name = f"{prefix}_{digest.hexdigest()[:20]}"
    with _LOCK:  # a module half run must not be handed to another thread
        if module_name in sys.modules:
            return sys.modules[module_name]
        path = _writable(cache_dir()) / f"{module_name}.py"
        if not path.exists() or path.read_text() != source:
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(source)
            os.replace(partial, path)  # whole or not at all, whichever process writes it at once
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        return module
