"""The game engine: rules, solvers and kernels. Pure computation, no I/O.

Everything here is deterministic and independent of storage and transport, so that the worker,
the service and the tests all compute the same values from the same code.
"""
