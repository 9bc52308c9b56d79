"""The `nimbase` console script: the top layer, which wires the service, the worker and storage together.

Nothing imports it but its entry points (`[project.scripts]`, `python -m cli`), so `nimbase/` (settings,
schema, the version) stays the ground floor every other package may stand on.
"""
