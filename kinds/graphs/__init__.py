"""Games on uploaded graphs, `graph:NAME`: the face, its registry entry (pyproject.toml's entry point)
and its kinds.

Inside: `kind` (`GraphGame`, `StoredGraphGame`, the stored solution and its job), `records` (its value
and move records); the retrograde kernels it solves with are the engine's (engine.kernels.retrograde).
"""

from kinds.graphs.kind import ENTRY, SETTINGS, GraphGame, StoredGraphGame

__all__ = ["ENTRY", "SETTINGS", "GraphGame", "StoredGraphGame"]
