"""Metrics.observe adds to the values prometheus_client keeps behind its counter and histogram (the hot
path skips their wrappers): what it records must be what `Counter.inc` and `Histogram.observe` record."""

from __future__ import annotations

import threading

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from service.metrics import LATENCY_BUCKETS, Metrics

#: On a bucket's bound, between bounds, below the first and past the last.
SECONDS = (0.0, 0.0005, 0.0007, 0.001, 0.0025, 0.03, 10.0, 11.0, 0.25)


def _samples(registry: CollectorRegistry, names: tuple[str, ...]) -> list[str]:
    text = generate_latest(registry).decode()
    return sorted(line for line in text.splitlines() if line.startswith(names) and "_created" not in line)


def test_observe_records_what_the_wrappers_record() -> None:
    metrics = Metrics()
    reference = CollectorRegistry()
    requests = Counter("nimbase_requests", "", ["transport", "method", "code"], registry=reference)
    latency = Histogram(
        "nimbase_request_duration_seconds",
        "",
        ["transport", "method"],
        buckets=LATENCY_BUCKETS,
        registry=reference,
    )
    for code in ("OK", "NOT_FOUND"):
        for seconds in SECONDS:
            metrics.observe("grpc", "GetValue", code, seconds)
            requests.labels("grpc", "GetValue", code).inc()
            latency.labels("grpc", "GetValue").observe(seconds)
    names = ("nimbase_requests_total", "nimbase_request_duration_seconds")
    ours = _samples(metrics.registry, names)
    assert ours == _samples(reference, names)
    assert (
        'nimbase_request_duration_seconds_bucket{le="0.001",method="GetValue",transport="grpc"} 8.0' in ours
    )


def test_observations_of_other_threads_and_later_ones_add_up() -> None:
    """The thread that made the metrics tallies without a lock and each collection adds what the tallies
    gained; other threads add to the values directly: every observation counted once."""
    metrics = Metrics()
    names = ("nimbase_requests_total",)

    def count() -> str:
        return next(line for line in _samples(metrics.registry, names) if 'method="GetValue"' in line)

    metrics.observe("grpc", "GetValue", "OK", 0.001)
    assert count().endswith(" 1.0")
    metrics.observe("grpc", "GetValue", "OK", 0.002)
    other = threading.Thread(target=lambda: metrics.observe("grpc", "GetValue", "OK", 0.003))
    other.start()
    other.join()
    assert count().endswith(" 3.0")
    assert count().endswith(" 3.0")  # a collection with nothing new adds nothing
