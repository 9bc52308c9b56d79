"""Benchmarks: each script prints its figures; `python -m bench` runs them all."""
