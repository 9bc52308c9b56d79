"""A clone of the project stands alone: no file reads the folder beside the repository named `shared`.

The facts the tests need live in `tests/data/` (see its README). The patterns below are written so that
this file does not match them itself, and it is scanned like every other file.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (
    "tests",
    "bench",
    "engine",
    "service",
    "storage",
    "worker",
    "kinds",
    "nimbase",
    "cli",
    "web",
    "client",
    "proto",
)
TOP_FILES = ("Makefile", "Dockerfile", "docker-compose.yml", "pyproject.toml", "alembic.ini")
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".json", ".toml", ".ini", ".cfg", ".txt", ".yml", ".yaml", ".sh"}

OUTSIDE = [
    re.compile(r"\.\.[/\\]+shared\b"),  # a relative path up and into it
    re.compile(r"""["']shared["'/\\]"""),  # its name as a quoted path segment
]
#: `Path(__file__).parents[n]` for a file `depth` folders below the root leaves the repository when n > depth.
FILE_PARENTS = re.compile(r"__file__.*?\.parents\[(\d+)\]")


def project_files() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIP_DIRS & set(path.parts):
                files.append(path)
    return files


def test_the_scan_sees_the_tests_and_this_file() -> None:
    files = project_files()
    assert Path(__file__).resolve() in files
    assert ROOT / "tests" / "data" / "README.md" in files


def test_nothing_reads_the_shared_folder_outside_the_repository() -> None:
    found = []
    for path in project_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if any(pattern.search(line) for pattern in OUTSIDE):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "copy the facts into tests/data/ instead:\n" + "\n".join(found)


def test_no_path_climbs_above_the_repository() -> None:
    found = []
    for path in project_files():
        if path.suffix != ".py":
            continue
        depth = len(path.relative_to(ROOT).parts) - 1
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = FILE_PARENTS.search(line)
            if match and int(match.group(1)) > depth:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "these paths leave the repository:\n" + "\n".join(found)


def test_the_patterns_catch_the_old_ways() -> None:
    name = "-shared-".strip("-")  # spelt so that this file does not match its own patterns
    up = f"../{name}/reference/literature.json"
    joined = f'Path(__file__).resolve().parents[{2 + 1}] / "{name}" / "reference"'
    assert any(pattern.search(up) for pattern in OUTSIDE)
    assert any(pattern.search(joined) for pattern in OUTSIDE)
    match = FILE_PARENTS.search(joined)
    assert match and int(match.group(1)) > 2  # from a file in tests/engine/
