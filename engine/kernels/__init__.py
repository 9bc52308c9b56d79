"""Numba kernels for single-heap value sequences, each beside a plain-Python reference."""
