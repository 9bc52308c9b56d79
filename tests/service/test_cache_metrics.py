"""The in-process caches on `/metrics`: every keeper the kinds declare and the service's own caches, as
gauges of their entries, bytes and budgets, read when `/metrics` is asked."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from engine.keep import keeper_names
from engine.registry import declared_settings
from nimbase.settings import Settings
from service.core import Nimbase
from service.metrics import Metrics
from tests.servers import running_server
from tests.service.fake_service import FakeService

#: A value of Lights Out is read through the elimination of its shape, which a keeper keeps.
GAME, BOARD = "lights-out:4x4", "1000/0000/0000/0001"


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with (
        running_server(Nimbase(Settings(), None)) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as client,
    ):
        yield client


def gauges(http: httpx.Client) -> dict[str, dict[str, float]]:
    """`/metrics` parsed (it must parse): each nimbase_cache_* gauge by its `cache` label."""
    reply = http.get("/metrics")
    assert reply.status_code == 200
    found: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(reply.text):
        if family.name.startswith("nimbase_cache_"):
            assert family.type == "gauge"
            for sample in family.samples:
                found.setdefault(sample.name, {})[sample.labels["cache"]] = sample.value
    return found


def test_every_declared_keeper_is_a_gauge_from_the_start() -> None:
    names = keeper_names(declared_settings())
    assert names and len(set(names.values())) == len(names)  # one series each
    usage = Nimbase(Settings(), None).cache_usage()
    for name in names.values():
        kept = usage[f"keeper:{name}"]
        assert kept.entries == 0 and kept.bytes == 0 and kept.budget_bytes and kept.budget_bytes > 0


def test_a_value_read_fills_a_keeper_and_its_gauge_grows(http: httpx.Client) -> None:
    before = gauges(http)
    keepers = {name for name in before["nimbase_cache_bytes"] if name.startswith("keeper:")}
    assert keepers == {f"keeper:{name}" for name in keeper_names(declared_settings()).values()}
    reply = http.get("/v1/value", params={"game": GAME, "position": BOARD})
    assert reply.status_code == 200, reply.text
    after = gauges(http)
    grown = {
        name
        for name in keepers
        if after["nimbase_cache_bytes"][name] > before["nimbase_cache_bytes"][name]
        and after["nimbase_cache_entries"][name] == before["nimbase_cache_entries"][name] + 1
    }
    assert len(grown) == 1
    for name, held in after["nimbase_cache_bytes"].items():
        assert held <= after["nimbase_cache_budget_bytes"][name], name


def test_the_services_own_caches_are_gauges(http: httpx.Client) -> None:
    http.get("/v1/value", params={"game": "nim", "position": "3 5"})
    found = gauges(http)
    for name in ("memo", "answers", "sequence_chunks", "sequence_live", "graphs", "graph_games"):
        assert found["nimbase_cache_budget_bytes"][name] > 0, name
    for name in ("games", "sequence_headers"):  # bounded by a count: entries only
        assert found["nimbase_cache_max_entries"][name] > 0 and name not in found["nimbase_cache_bytes"]
    assert found["nimbase_cache_entries"]["games"] >= 1


def test_a_service_without_caches_shows_none() -> None:
    metrics = Metrics()
    metrics.watch_caches(FakeService())
    assert b"nimbase_cache_" not in metrics.exposition()[0]
    with running_server(FakeService()) as ports:
        assert "nimbase_cache_" not in httpx.get(f"http://127.0.0.1:{ports.http}/metrics").text


def test_the_soak_reads_the_gauges_and_takes_off_only_what_array_caches_gained(http: httpx.Client) -> None:
    from bench.soak_memory import CacheFigures, array_cache_gain, parse_caches, rss_growth

    caches = parse_caches(http.get("/metrics").text)
    assert caches["memo"].budget and caches["games"].bytes is None and caches["games"].entries >= 1
    start = {
        "sequence_chunks": CacheFigures(0, 0, 16 << 20),
        "answers": CacheFigures(0, 0, 16 << 20),
        "keeper:some": CacheFigures(1, 1 << 20, 8 << 20),
    }
    end = {
        "sequence_chunks": CacheFigures(64, 16 << 20, 16 << 20),
        "answers": CacheFigures(9, 16 << 20, 16 << 20),  # weighed generously: not taken off
        "keeper:some": CacheFigures(2, 3 << 20, 8 << 20),
    }
    mib = 1 << 20
    growth = rss_growth(200 * mib, 250 * mib, array_cache_gain(start, end))
    assert growth.caches == 18 * mib and growth.raw == 0.25 and growth.net == 32 / 200
    assert array_cache_gain({}, end) == 19 * mib  # a cache not read at the start counts whole


def test_the_soak_compares_medians_of_rss_and_of_the_array_caches() -> None:
    from bench.soak_faults import Run
    from bench.soak_report import memory_growth

    mib = 1 << 20
    run = Run(seconds=300, warmup=60)
    # trims every 30 s make the RSS swing by 8 MiB; the chunks fill 16 MiB between the two windows
    run.rss_samples = [
        (at, (200 + 8 * (at // 5 % 2) + (16 if at > 150 else 0)) * mib) for at in range(60, 301, 5)
    ]
    run.cache_samples = [(at, 0, (16 if at > 150 else 0) * mib) for at in range(60, 301, 5)]
    run.rss_start, run.rss_end = 200 * mib, 224 * mib  # single samples at a low and a high swing
    growth = memory_growth(run)
    # medians: 204 MiB after warm-up (an even count of samples: mid-swing), 216 MiB at the end
    assert growth.caches == 16 * mib and growth.raw == 12 / 204 and growth.net == -4 / 204
