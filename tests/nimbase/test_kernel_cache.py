"""A kernel kept in numba's disk cache compiles again when a module it compiles in changes, not only
its own file; and loads from the cache while nothing changed."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nimbase.kernel_cache import sources_of

_CALLER = """import numba
import kernel_callee

@numba.njit(cache=True)
def answer():
    return kernel_callee.value() + kernel_callee.OFFSET
"""
_CALLEE = """import numba

OFFSET = {offset}

@numba.njit(cache=True)
def value():
    return {value}
"""
_RUN = """import json, sys
from nimbase.kernel_cache import key_by_sources
if sys.argv[1] == "keyed":
    key_by_sources()
import kernel_caller
print(json.dumps([kernel_caller.answer(), kernel_caller.answer.stats.cache_hits.most_common(1)]))
"""


def _answer(root: Path, how: str = "keyed") -> tuple[int, bool]:
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(root / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", _RUN, how], env=env, cwd=root, capture_output=True, text=True, check=True
    ).stdout
    value, hits = json.loads(out)
    return value, bool(hits)


def _write_callee(root: Path, value: int, offset: int) -> None:
    (root / "kernel_callee.py").write_text(_CALLEE.format(value=value, offset=offset))


def test_an_edited_callee_or_constant_compiles_the_caller_again(tmp_path: Path) -> None:
    (tmp_path / "kernel_caller.py").write_text(_CALLER)
    _write_callee(tmp_path, value=1, offset=10)
    assert _answer(tmp_path) == (11, False)  # compiled
    assert _answer(tmp_path) == (11, True)  # loaded from the cache
    _write_callee(tmp_path, value=2, offset=10)  # the caller's own file is unchanged
    assert _answer(tmp_path) == (12, False)
    _write_callee(tmp_path, value=2, offset=20)
    assert _answer(tmp_path) == (22, False)
    assert _answer(tmp_path) == (22, True)


def test_numba_alone_would_load_the_stale_caller(tmp_path: Path) -> None:
    """Why the keying exists (if numba ever keys by callees itself, this fails and the module can go)."""
    (tmp_path / "kernel_caller.py").write_text(_CALLER)
    _write_callee(tmp_path, value=1, offset=10)
    assert _answer(tmp_path, "plain") == (11, False)
    _write_callee(tmp_path, value=2, offset=10)
    assert _answer(tmp_path, "plain") == (11, True)


def test_an_installed_module_without_numba_is_stamped_but_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library the kernels' modules import (an installed package's module that does not mention numba)
    is in the stamp, but what it imports is not walked; one that mentions numba is followed."""
    installed = tmp_path / "site-packages"
    installed.mkdir()
    (installed / "kc_plain_lib.py").write_text("import kc_plain_deep\n")
    (installed / "kc_plain_deep.py").write_text("DEPTH = 1\n")
    (installed / "kc_numba_lib.py").write_text("import numba\nimport kc_numba_deep\n")
    (installed / "kc_numba_deep.py").write_text("DEPTH = 2\n")
    (tmp_path / "kc_kernels.py").write_text("import kc_plain_lib\nimport kc_numba_lib\n")
    monkeypatch.syspath_prepend(str(installed))
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("kc_kernels", "kc_plain_lib", "kc_plain_deep", "kc_numba_lib", "kc_numba_deep")
    try:
        module = importlib.import_module("kc_kernels")
        found = {path.name for path in sources_of(module)}
    finally:
        for name in names:
            sys.modules.pop(name, None)
    assert {"kc_kernels.py", "kc_plain_lib.py", "kc_numba_lib.py", "kc_numba_deep.py"} <= found
    assert "kc_plain_deep.py" not in found
