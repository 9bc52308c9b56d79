"""Numba kernels for single-heap value sequences, each beside a plain-Python reference."""

from nimbase.kernel_cache import key_by_sources

key_by_sources()  # before a kernel here is defined
