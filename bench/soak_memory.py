"""The soak's memory figures: the server's RSS, and its in-process caches as `/metrics` gives them.

The server's caches (the stored chunks, the live prefixes, the answers, the memo, each keeper of a kind)
are bounded by byte budgets, and they fill while the soak runs: the stored chunks only once the soak's
own jobs have stored their first tables, minutes into the run, long after the warm-up. A cache filling
towards its budget is memory the server is designed to hold (nimbase.settings.CacheSettings: "a
server's memory stops growing once they are full"), so "memory flat after warm-up" is judged on the RSS
growth net of what the caches gained, each bounded by its budget. Only caches whose bytes are their
arrays' (`ARRAY_CACHES`) are taken off: the answers and the memo weigh each entry generously (an answer
as 768 bytes and its length, where it takes about 420 bytes), so taking their weights off would hide
memory; what they really gained stays in the judged growth. The raw growth is printed beside it.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.common import figure

#: The server's RSS, net of what the array caches gained, may end at most this much above its value
#: after warm-up.
RSS_GROWTH_LIMIT = 0.20
#: RSS is compared as the median of its samples over this many seconds after warm-up and before the end,
#: not as two single samples: the heap is trimmed every 30 s (service.malloc), and between two trims the
#: RSS of a loaded server swings by several MiB.
RSS_WINDOW_SECONDS = 30.0
#: The caches are read beside an RSS sample this often (each read costs the server a `/metrics` answer), and
#: given this long: a server too busy to answer sooner must not hold up the faults' schedule.
CACHE_SAMPLE_SECONDS = 10.0
CACHE_SAMPLE_TIMEOUT = 2.0
#: Caches weighed by the bytes of the arrays they hold (their weights are their memory, near enough), by
#: name or name prefix (`keeper:` - every keeper a kind declares weighs its arrays).
ARRAY_CACHES = ("sequence_chunks", "sequence_live", "graphs", "graph_games", "keeper:")


@dataclass(frozen=True, slots=True)
class CacheFigures:
    """One cache as `/metrics` gives it: its entries, and its bytes and budget if bounded by bytes."""

    entries: int
    bytes: int | None = None
    budget: int | None = None


def read_caches(base: str, timeout: float = 10.0) -> dict[str, CacheFigures]:
    """Each in-process cache of the server at `base`, from its `/metrics` gauges (empty if unreadable)."""
    with contextlib.suppress(httpx.HTTPError):
        reply = httpx.get(f"{base}/metrics", timeout=timeout)
        if reply.status_code == 200:
            return parse_caches(reply.text)
    return {}


def parse_caches(text: str) -> dict[str, CacheFigures]:
    """The nimbase_cache_* gauges of a Prometheus text exposition, by cache."""
    values: dict[str, dict[str, int]] = {}
    for family in text_string_to_metric_families(text):
        if family.name.startswith("nimbase_cache_"):
            for sample in family.samples:
                values.setdefault(sample.labels["cache"], {})[sample.name] = int(sample.value)
    return {
        name: CacheFigures(
            found.get("nimbase_cache_entries", 0),
            found.get("nimbase_cache_bytes"),
            found.get("nimbase_cache_budget_bytes"),
        )
        for name, found in values.items()
    }


def weighs_arrays(name: str) -> bool:
    return any(name == cache or (cache.endswith(":") and name.startswith(cache)) for cache in ARRAY_CACHES)


def cache_bytes(caches: dict[str, CacheFigures], only_arrays: bool = False) -> int:
    """The bytes of the caches bounded by bytes (of the array caches only, with `only_arrays`)."""
    return sum(
        figures.bytes or 0 for name, figures in caches.items() if not only_arrays or weighs_arrays(name)
    )


def array_cache_gain(start: dict[str, CacheFigures], end: dict[str, CacheFigures]) -> int:
    """What the array caches gained from `start` to `end`, each bounded by its budget (a cache that shrank
    counts its loss: the judged growth then includes the memory it gave back, or kept)."""
    gain = 0
    for name, figures in end.items():
        if not weighs_arrays(name) or figures.bytes is None:
            continue
        held = min(figures.bytes, figures.budget if figures.budget is not None else figures.bytes)
        before = start.get(name)
        gain += held - ((before.bytes or 0) if before is not None else 0)
    return gain


@dataclass(frozen=True, slots=True)
class Growth:
    """The server's RSS growth from warm-up to the end: raw, and net of the array caches' gain."""

    raw: float
    net: float
    #: Bytes the array caches gained (taken off the RSS growth for `net`).
    caches: int


def rss_growth(rss_start: float, rss_end: float, gained: int) -> Growth:
    """The growth from `rss_start` to `rss_end`, raw and net of the array caches' `gained` bytes."""
    if not rss_start:
        return Growth(0.0, 0.0, 0)
    return Growth((rss_end - rss_start) / rss_start, (rss_end - rss_start - gained) / rss_start, gained)


def window_median(samples: Sequence[tuple[float, float]], begin: float, end: float) -> float | None:
    """The median of the samples (run seconds, value) taken from `begin` to before `end`; None if none."""
    inside = [value for at, value in samples if begin <= at < end]
    return statistics.median(inside) if inside else None


def report_caches(start: dict[str, CacheFigures], end: dict[str, CacheFigures]) -> None:
    """Each cache after warm-up and at the end (bytes, or entries where bounded by a count), its budget;
    the caches empty at both are only counted."""
    if not start and not end:
        print("   (the server's /metrics gave no cache gauges)")
        return
    empty = 0
    for name in sorted(set(start) | set(end)):
        before, after = start.get(name), end.get(name)
        figures = after or before
        assert figures is not None
        if not any(f is not None and (f.entries or f.bytes) for f in (before, after)):
            empty += 1
            continue
        if figures.bytes is None:
            counts = [f.entries if f is not None else 0 for f in (before, after)]
            figure(f"cache {name}: entries after warm-up", counts[0], "entries")
            figure(f"cache {name}: entries at the end", counts[1], "entries")
            continue
        mark = " (array)" if weighs_arrays(name) else ""
        held = [(f.bytes or 0) / 2**20 if f is not None else 0.0 for f in (before, after)]
        figure(f"cache {name}{mark}: after warm-up", held[0], "MiB")
        figure(f"cache {name}{mark}: at the end", held[1], "MiB")
        figure(f"cache {name}{mark}: budget", (figures.budget or 0) / 2**20, "MiB")
    figure("caches empty after warm-up and at the end (not listed)", empty, "caches")
    figure("caches bounded by bytes, all: after warm-up", cache_bytes(start) / 2**20, "MiB")
    figure("caches bounded by bytes, all: at the end", cache_bytes(end) / 2**20, "MiB")
    figure("array caches: after warm-up", cache_bytes(start, only_arrays=True) / 2**20, "MiB")
    figure("array caches: at the end", cache_bytes(end, only_arrays=True) / 2**20, "MiB")
