"""Plots of a sequence for `nimbase sequence`: in the terminal (`--plot`) or as a PNG (`--png`).

Both are written here with the standard library only, so the CLI needs no plotting library.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path


def text_plot(values: Sequence[int], start: int, width: int = 72, height: int = 16) -> list[str]:
    """Values against n as plain characters: a `*` per value (several values per column when there are
    more values than columns), the value axis on the left, n below."""
    if not values:
        return ["(no values)"]
    low, top = min(0, *values), max(values)
    rows, cols = min(height, top - low + 1), min(width, len(values))
    grid = [[" "] * cols for _ in range(rows)]
    for i, value in enumerate(values):
        row = (value - low) * (rows - 1) // (top - low) if top > low else 0
        grid[rows - 1 - row][i * cols // len(values)] = "*"
    label = max(len(str(low)), len(str(top)))
    lines = []
    for k, cells in enumerate(grid):
        name = str(top) if k == 0 else str(low) if k == rows - 1 else ""
        lines.append(f"{name:>{label}} |{''.join(cells)}".rstrip())
    lines.append(" " * label + " +" + "-" * cols)
    first, last = str(start), str(start + len(values) - 1)
    lines.append(" " * (label + 2) + first + last.rjust(max(cols - len(first), len(last) + 1)))
    return lines


def write_png(values: Sequence[int], path: Path, width: int = 800, height: int = 400) -> None:
    """Values against n as a PNG scatter plot: a dark square per value over light axes. Written by a
    few lines of zlib and struct (an RGB PNG has one filter byte per row), so no plotting library."""
    margin = 20
    white, axis, ink = b"\xff\xff\xff", b"\xa0\xa0\xa0", b"\x1f\x3a\x93"
    pixels = [bytearray(white * width) for _ in range(height)]
    bottom, right = height - margin, width - margin
    for y in range(margin, bottom + 1):
        pixels[y][3 * margin : 3 * margin + 3] = axis
    pixels[bottom][3 * margin : 3 * (right + 1)] = axis * (right + 1 - margin)
    if values:
        low, top = min(0, *values), max(values)
        span, count = max(top - low, 1), max(len(values) - 1, 1)
        points = {
            (
                margin + 2 + i * (right - margin - 4) // count,
                bottom - 2 - (v - low) * (bottom - margin - 4) // span,
            )
            for i, v in enumerate(values)
        }
        for x, y in points:
            for row in pixels[y - 1 : y + 2]:
                row[3 * (x - 1) : 3 * (x + 2)] = ink * 3
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
    path.write_bytes(png + chunk(b"IEND", b""))
