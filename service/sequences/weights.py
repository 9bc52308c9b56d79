"""What an array weighs in the byte-bounded caches of chunks and live prefixes: the bytes it keeps alive,
so a view never passes for smaller than the buffer it holds."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def array_bytes(array: NDArray[Any]) -> int:
    """Bytes an array keeps alive: a view's whole base (at least 1, so no entry weighs nothing)."""
    base = array.base
    held = max(array.nbytes, base.nbytes) if isinstance(base, np.ndarray) else array.nbytes
    return max(1, int(held))
