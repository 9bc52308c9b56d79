"""nimbase: a tablebase service for combinatorial games.

This package is the ground floor every other one may import: the settings, the answer schema, the
version and the re-exported client and generated code. It imports none of them; the game engine,
storage, worker, transports and the console script (`cli`, the top) live in their own packages.
"""

__version__ = "0.1.0"
