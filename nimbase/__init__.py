"""nimbase: a tablebase service for combinatorial games.

This package holds the console script, the process wiring and the Python client; the game engine,
storage, worker and transports live in their own top-level packages.
"""

__version__ = "0.1.0"
