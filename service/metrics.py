"""Prometheus metrics shared by the gRPC and REST transports.

Each `Metrics` owns its registry, so several servers (tests start many) never collide in the
process-wide default registry; `/metrics` exposes the registry of the process's server. Under
`nimbase serve --processes N` (service.processes) each process writes its counts into a directory
they share (prometheus_client's multiprocess mode, PROMETHEUS_MULTIPROC_DIR) and `/metrics`, whichever
process answers it, gives the sums over all of them.

The in-process caches (each keeper of engine.keep, the memo, the answers, the sequence caches, ...) are
gauges read when `/metrics` is asked (`watch_caches`), labelled by the name their owner gives each, so a
server's memory can be told apart into caches filling to their budgets and the rest. They are one
process's, so a server of several processes leaves them out, as it leaves out its CPU and memory.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from engine.lru import Usage

#: Latency buckets in seconds: table hits take well under a millisecond, live searches up to the deadline.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Buckets of the event loop's lateness in seconds (service.loop_lag): idle a fraction of a millisecond.
LOOP_LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@runtime_checkable
class HoldsCaches(Protocol):
    """A service whose in-process caches `/metrics` shows (service.core.Nimbase, and the pooled service
    over it)."""

    def cache_usage(self) -> Mapping[str, Usage]: ...


class _CacheGauges(Collector):
    """The caches' gauges, read from their owner at each collection (nothing while none is watched)."""

    def __init__(self) -> None:
        self.source: Callable[[], Mapping[str, Usage]] | None = None

    def describe(self) -> Iterable[Metric]:
        return ()  # read at collection only: registering it must not read the caches

    def collect(self) -> Iterable[Metric]:
        if self.source is None:
            return ()
        families = {
            "entries": GaugeMetricFamily(
                "nimbase_cache_entries", "Entries each in-process cache holds now.", labels=["cache"]
            ),
            "bytes": GaugeMetricFamily(
                "nimbase_cache_bytes",
                "Bytes each in-process cache bounded by bytes holds now, as it weighs its entries.",
                labels=["cache"],
            ),
            "budget_bytes": GaugeMetricFamily(
                "nimbase_cache_budget_bytes",
                "The byte budget of each in-process cache bounded by bytes (its setting).",
                labels=["cache"],
            ),
            "max_entries": GaugeMetricFamily(
                "nimbase_cache_max_entries",
                "The bound of each in-process cache bounded by a count of entries.",
                labels=["cache"],
            ),
        }
        for name, usage in sorted(self.source().items()):
            for field, family in families.items():
                value = getattr(usage, field)
                if value is not None:
                    family.add_metric([name], value)
        return families.values()


#: What `Metrics.observe` adds to, per label set: the request counter's value, the latency histogram's
#: sum, its buckets and their upper bounds.
_Values = tuple[Any, Any, list[Any], list[float]]
#: The upper bounds of the latency buckets, the last one +Inf, as the histogram keeps them.
_BOUNDS = [*LATENCY_BUCKETS, float("inf")]


class _Fold(Collector):
    """Adds what the serving thread observed without a lock (`Metrics.observe`) to the counter and the
    histogram first thing at each collection (registered before them, so collected before them)."""

    def __init__(self, fold: Callable[[], None]) -> None:
        self._fold = fold

    def describe(self) -> Iterable[Metric]:
        return ()

    def collect(self) -> Iterable[Metric]:
        self._fold()
        return ()


class Metrics:
    """Request counts by transport, method and status code, and request latency."""

    def __init__(self, registry: CollectorRegistry | None = None, *, shared_dir: str | None = None) -> None:
        """`shared_dir`: the multiprocess directory of a server of several processes (its
        PROMETHEUS_MULTIPROC_DIR, set before prometheus_client was imported), whose sums `/metrics`
        gives; the per-process collectors (CPU, memory, GC) are then left out, as they cannot be summed."""
        self.registry = registry if registry is not None else CollectorRegistry()
        self._shared_dir = shared_dir
        self._values: dict[tuple[str, str, str], _Values] = {}
        if shared_dir is None:
            ProcessCollector(registry=self.registry)
            PlatformCollector(registry=self.registry)
            GCCollector(registry=self.registry)
        self._caches = _CacheGauges()
        self.registry.register(self._caches)
        #: The thread that made it (the server's event loop's, which answers every request): it observes
        #: into plain tallies, cumulative per label set (count, sum, then one per bucket), that no other
        #: thread writes; each collection adds what they gained since the last (`_fold`). Not in a server
        #: of several processes, whose values are shared files read by whichever process is asked.
        self._owner = threading.get_ident() if shared_dir is None else None
        self._tallies: dict[tuple[str, str, str], list[float]] = {}
        self._folded: dict[tuple[str, str, str], list[float]] = {}
        self._fold_lock = threading.Lock()
        self.registry.register(_Fold(self._fold))
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
        self.loop_lag = Histogram(
            "nimbase_event_loop_lag_seconds",
            "How much later than due the event loop ran a timer due every 25 ms: what every request read "
            "or answered at that moment waited.",
            buckets=LOOP_LAG_BUCKETS,
            registry=self.registry,
        )
        self.stream_items = Counter(
            "nimbase_stream_items",
            "Items answered on StreamValues streams, by status code name.",
            ["code"],
            registry=self.registry,
        )

    def observe(self, transport: str, method: str, code: str, seconds: float) -> None:
        """Record one finished request: what `Counter.inc` and `Histogram.observe` do, on the values they
        hold, found once per label set (`_values`), as they are on every answer of the hot path (the
        wrappers' checks and their bucket loop cost a memory answer a third of its own time). In the
        thread that made it, into its own tallies without a lock (three locks taken and released were
        half of a repeated lookup's Python), added to those values at the next collection."""
        if threading.get_ident() == self._owner:
            tally = self._tallies.get((transport, method, code))
            if tally is None:
                tally = self._tallies[(transport, method, code)] = [0.0] * (2 + len(_BOUNDS))
            tally[0] += 1
            tally[1] += seconds
            tally[2 + bisect_left(_BOUNDS, seconds)] += 1
            return
        values = self._values.get((transport, method, code))
        if values is None:
            values = self._values_of(transport, method, code)
        count, total, buckets, bounds = values
        count.inc(1)
        total.inc(seconds)
        buckets[bisect_left(bounds, seconds)].inc(1)

    def _fold(self) -> None:
        """Add to the counter's and the histogram's values what the serving thread's tallies gained since
        the last collection (the tallies themselves are only read here: their thread may be adding)."""
        with self._fold_lock:
            for key, tally in list(self._tallies.items()):
                now = list(tally)
                before = self._folded.get(key, [0.0] * len(now))
                count, total, buckets, _ = self._values.get(key) or self._values_of(*key)
                if now[0] != before[0]:
                    count.inc(now[0] - before[0])
                    total.inc(now[1] - before[1])
                    for bucket, added, had in zip(buckets, now[2:], before[2:], strict=True):
                        if added != had:
                            bucket.inc(added - had)
                self._folded[key] = now

    def _values_of(self, transport: str, method: str, code: str) -> _Values:
        """The values behind one label set's counter and histogram: the counter's, the histogram's sum,
        its buckets and their upper bounds (the last one +Inf), as prometheus_client keeps them."""
        counter = self.requests.labels(transport, method, code)
        histogram = self.latency.labels(transport, method)
        values: _Values = (
            counter._value,
            histogram._sum,
            list(histogram._buckets),
            list(histogram._upper_bounds),
        )
        self._values[(transport, method, code)] = values
        return values

    def watch_caches(self, service: object) -> None:
        """Show the in-process caches of `service` (if it `HoldsCaches`) from now on; a service watched
        again replaces the one before."""
        if isinstance(service, HoldsCaches):
            self._caches.source = service.cache_usage

    def stream_item(self, code: str, count: int = 1) -> None:
        self.stream_items.labels(code).inc(count)

    def exposition(self) -> tuple[bytes, str]:
        """The Prometheus text format of every metric, and its content type."""
        if self._shared_dir is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        summed = CollectorRegistry()
        MultiProcessCollector(summed, path=self._shared_dir)  # type: ignore[no-untyped-call]
        return generate_latest(summed), CONTENT_TYPE_LATEST
