"""Prometheus metrics shared by the gRPC and REST transports.

Each `Metrics` owns its registry, so several servers (tests start many) never collide in the
process-wide default registry; `/metrics` exposes the registry of the process's server. Under
`nimbase serve --processes N` (service.processes) each process writes its counts into a directory
they share (prometheus_client's multiprocess mode, PROMETHEUS_MULTIPROC_DIR) and `/metrics`, whichever
process answers it, gives the sums over all of them.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.gc_collector import GCCollector
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

#: Latency buckets in seconds: table hits take well under a millisecond, live searches up to the deadline.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Request counts by transport, method and status code, and request latency."""

    def __init__(self, registry: CollectorRegistry | None = None, *, shared_dir: str | None = None) -> None:
        """`shared_dir`: the multiprocess directory of a server of several processes (its
        PROMETHEUS_MULTIPROC_DIR, set before prometheus_client was imported), whose sums `/metrics`
        gives; the per-process collectors (CPU, memory, GC) are then left out, as they cannot be summed."""
        self.registry = registry if registry is not None else CollectorRegistry()
        self._shared_dir = shared_dir
        self._children: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        if shared_dir is None:
            ProcessCollector(registry=self.registry)
            PlatformCollector(registry=self.registry)
            GCCollector(registry=self.registry)
        self.requests = Counter(
            "nimbase_requests",
            "Requests answered, by transport (grpc, rest), method and status code name.",
            ["transport", "method", "code"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "nimbase_request_duration_seconds",
            "Time from receiving a request to its answer, by transport and method.",
            ["transport", "method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.stream_items = Counter(
            "nimbase_stream_items",
            "Items answered on StreamValues streams, by status code name.",
            ["code"],
            registry=self.registry,
        )

    def observe(self, transport: str, method: str, code: str, seconds: float) -> None:
        """Record one finished request (labelled children are looked up once: `labels()` is slow)."""
        key = (transport, method, code)
        children = self._children.get(key)
        if children is None:
            children = (self.requests.labels(*key), self.latency.labels(transport, method))
            self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def stream_item(self, code: str, count: int = 1) -> None:
        self.stream_items.labels(code).inc(count)

    def exposition(self) -> tuple[bytes, str]:
        """The Prometheus text format of every metric, and its content type."""
        if self._shared_dir is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        summed = CollectorRegistry()
        MultiProcessCollector(summed, path=self._shared_dir)  # type: ignore[no-untyped-call]
        return generate_latest(summed), CONTENT_TYPE_LATEST
