"""The Syzygy (3 and 4 men, WDL and DTZ) and Gaviota (3 men, DTM) files of python-chess's source
distribution, fetched once into a cache so that the chess tables are checked against real tablebases.

The cache is `NIMBASE_TEST_CACHE` when set, else `~/.cache/nimbase-tests`. The files come from PyPI
(`pip download --no-binary :all: chess==1.11.2`), the only place the project's machines reach; a cache
filled once serves every later run offline.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The python-chess release whose source distribution carries the files.
CHESS_SDIST = "chess==1.11.2"
_ROOT_IN_SDIST = "chess-1.11.2/data/"
#: How many .rtbw plus .rtbz files the release carries (every 3- and 4-man material).
SYZYGY_FILES = 70
#: The 3-man Gaviota files it carries (.gtb.cp4).
GAVIOTA_FILES = 5


class ReferenceUnavailable(Exception):
    """The reference files could not be fetched (no cache and no package index)."""


def cache_dir() -> Path:
    """Where fetched reference data lives between runs."""
    configured = os.environ.get("NIMBASE_TEST_CACHE", "").strip()
    return Path(configured) if configured else Path.home() / ".cache" / "nimbase-tests"


def _fetched() -> Path:
    """The directory holding `syzygy/` and `gaviota/`, fetched on first use (under a file lock, as
    several test processes may ask at once)."""
    target = cache_dir() / "chess-1.11.2-data"
    done = target / ".complete"
    if done.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return target
        with tempfile.TemporaryDirectory(prefix="nimbase-sdist-") as tmp:
            command = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
            command += ["--quiet", "--disable-pip-version-check", CHESS_SDIST, "-d", tmp]
            result = subprocess.run(command, capture_output=True, text=True, timeout=600)
            archives = list(Path(tmp).glob("chess-*.tar.gz"))
            if result.returncode != 0 or not archives:
                raise ReferenceUnavailable(f"pip download {CHESS_SDIST} failed: {result.stderr[-2000:]}")
            with tarfile.open(archives[0]) as archive:
                for member in archive.getmembers():
                    wanted = member.name.startswith(_ROOT_IN_SDIST + "syzygy/regular/") or (
                        member.name.startswith(_ROOT_IN_SDIST + "gaviota/")
                        and member.name.endswith(".gtb.cp4")
                    )
                    if not wanted or not member.isfile():
                        continue
                    relative = member.name[len(_ROOT_IN_SDIST) :].replace("syzygy/regular/", "syzygy/")
                    out = target / relative
                    out.parent.mkdir(parents=True, exist_ok=True)
                    source = archive.extractfile(member)
                    assert source is not None
                    out.write_bytes(source.read())
        done.touch()
    return target


def syzygy_dir() -> Path:
    """The directory of every 3- and 4-man Syzygy table (.rtbw and .rtbz)."""
    path = _fetched() / "syzygy"
    found = len(list(path.glob("*.rtb[wz]")))
    if found != SYZYGY_FILES:
        raise ReferenceUnavailable(f"expected {SYZYGY_FILES} Syzygy files in the cache, found {found}")
    return path


def gaviota_dir() -> Path:
    """The directory of the 3-man Gaviota DTM tables."""
    path = _fetched() / "gaviota"
    found = len(list(path.glob("*.gtb.cp4")))
    if found != GAVIOTA_FILES:
        raise ReferenceUnavailable(f"expected {GAVIOTA_FILES} Gaviota files in the cache, found {found}")
    return path
