"""The five-man fleet estimate (bench.chess_fleet) schedules as the job queue does: checked on the 3- and
4-man materials against plain reasoning about one worker, many workers and the longest chain."""

from __future__ import annotations

from bench.chess_fleet import Rates, critical_path, estimate_lines, every_material, schedule
from kinds.chess.material import Material, parse_material


def test_one_worker_takes_the_sum_and_enough_workers_take_the_longest_chain() -> None:
    materials = every_material(4)
    rates = Rates(pawnless=1e-6, pawnful=2e-6)
    total = sum(rates.seconds(m) for m in materials)
    chain = critical_path(materials, rates.seconds)
    assert abs(schedule(materials, rates.seconds, 1) - total) < 1e-6 * total
    assert abs(schedule(materials, rates.seconds, len(materials)) - chain) < 1e-6 * chain
    two = schedule(materials, rates.seconds, 2)
    assert max(total / 2, chain) <= two + 1e-9 < total


def test_a_job_never_starts_before_the_tables_it_reads() -> None:
    """KPvK reads KQvK, KRvK, KBvK and KNvK (its promotions): with every other material instant, KPvK
    ends after the slowest of them and its own time, whatever the workers."""
    materials = every_material(3)
    slow = parse_material("KQvK")
    kpvk = parse_material("KPvK")

    def seconds(m: Material) -> float:
        return 10.0 if m == slow else 1.0 if m == kpvk else 0.0

    for workers in (1, 3, 8):
        assert schedule(materials, seconds, workers) == 11.0


def test_the_estimate_names_every_worker_count() -> None:
    lines = estimate_lines(Rates(7e-7, 7e-7), most_men=4)
    labels = [label for label, _value, _unit in lines]
    assert any("on 1 worker(s)" in label for label in labels)
    assert any("longest chain" in label for label in labels)
