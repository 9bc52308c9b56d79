"""Precompute workers: claim jobs, extend stored sequences, certify periods."""

from worker.runner import Worker, worker_from_settings

__all__ = ["Worker", "worker_from_settings"]
