"""The kinds of games, one package a kind (docs/DESIGN.md, "A kind of game"): its rules, records,
settings, kernels, what it stores and its lookups, with its face in its `__init__` and what it adds at
the edge (its own routes, the files it opens) in its `edge` subpackage. Each registers through the
entry-point group `nimbase.games` (pyproject.toml), so nothing below names a kind; only a kind's edge
may import service/, which loads it by the name its `Family.plugin` gives."""

from nimbase.kernel_cache import key_by_sources

key_by_sources()  # before any kind defines a kernel
