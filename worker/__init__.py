"""Precompute workers: claim jobs, extend stored sequences, certify periods."""

from worker.runner import Worker, worker_from_environment

__all__ = ["Worker", "worker_from_environment"]
