"""Wythoff's game, `wythoff`: the face, its registry entry (pyproject.toml's entry point) and its kind.

Inside: `kind` (`WythoffGame`, all of Wythoff's arithmetic), `kernels/` the Grundy table kernel
(`table`) and the stored table's tiles (`tiles`), each with its plain reference.
"""

from kinds.wythoff.kind import ENTRY, WythoffGame

__all__ = ["ENTRY", "WythoffGame"]
