"""Bicolor Nim, `bicolor-nim`: the face, its registry entry (pyproject.toml's entry point) and its kind.

Inside: `kind` (`BicolorNim`, its settings, records and two-heap families), `kernels/boxes` the box
kernel over every sub-position, the family tables and their period certificate.
"""

from kinds.bicolor.kind import ENTRY, SETTINGS, BicolorNim

__all__ = ["ENTRY", "SETTINGS", "BicolorNim"]
