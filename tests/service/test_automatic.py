"""Any heap of any octal game: certified live within the deadline, else a bounded job is queued and named.

Against a real PostgreSQL, a real worker and (for the flood) real servers on loopback.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
import sqlalchemy as sa

from engine.errors import DeadlineExceeded, LimitExceeded
from kinds.heaps.kernels.octal import reference_values
from kinds.heaps.octal import OctalGame
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import AutoJobSettings, Limits, Settings
from service.calls import GetJob, GetSequence, GetStats, GetValue
from service.core import Nimbase
from service.jobs import Pending
from storage.jobs import JobQueue
from tests.servers import running_server
from worker.runner import Worker

TOKEN = "auto-token"


@pytest.fixture(autouse=True)
def no_jobs_left_behind(clean_db: sa.Engine) -> Iterator[None]:
    """Cancel whatever a test queued, so no later test's worker spends minutes on it."""
    yield
    with clean_db.begin() as conn:
        conn.execute(sa.text("UPDATE jobs SET status = 'cancelled' WHERE status IN ('queued', 'running')"))


def auto_jobs(engine: sa.Engine) -> list[tuple[str, str]]:
    """(game, status) of every automatic job."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT game_id, status FROM jobs WHERE origin = 'auto' ORDER BY id"))
        return [(r[0], r[1]) for r in rows]


def test_a_far_heap_is_answered_from_a_period_certified_live(clean_db: sa.Engine) -> None:
    """octal:0.127 (period 4 from about 46,600) has nothing stored: the heap 10^9 is answered from a
    period certified for this request, within one default deadline, and nothing is queued."""
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    started = time.monotonic()
    value = service.get_value(GetValue("octal:0.127", str(10**9)))
    elapsed = time.monotonic() - started
    assert value.source == "period" and elapsed < Limits().request_seconds
    period = service.get_sequence(GetSequence("octal:0.127", None, 0, 10))
    assert period.period is not None and period.period.certified and period.period.period == 4
    head = period.period.head
    values = OctalGame("0.127").kernel().extend(np.zeros(0, dtype=np.uint32), head)
    assert value.grundy == int(values[period.period.reduce(10**9)])
    assert values[:600].tolist() == reference_values(600, OctalGame("0.127").rules)
    assert auto_jobs(clean_db) == []
    listed = {g.id: g for g in service.list_games()}
    assert "octal:0.127" not in listed  # live knowledge is not a stored table


def test_a_heap_beyond_reach_queues_one_job_and_the_table_then_answers(clean_db: sa.Engine) -> None:
    """octal:0.6 has no known period: heap 10^6, past what is computed live (2^18 values
    here), is refused naming a job (the same one however often it is asked); once a worker has
    done that job, the same request is answered from the table."""
    heap = 10**6
    limits = Limits(live_values=1 << 18)
    settings = Settings(admin_token=TOKEN, limits=limits, auto=AutoJobSettings(values=heap + 1))
    service = Nimbase(settings, clean_db)
    with pytest.raises(Pending) as refused:
        service.get_value(GetValue("octal:0.6", str(heap), deadline=time.monotonic() + 1.0))
    job = refused.value.job
    assert job.game == "octal:0.6" and job.upto == heap + 1 and job.status == "queued"
    assert f"job {job.id}" in str(refused.value) and "1000000" in str(refused.value)
    with pytest.raises(Pending) as again:
        service.get_value(GetValue("octal:0.6", str(heap), deadline=time.monotonic() + 0.2))
    assert again.value.job.id == job.id
    assert auto_jobs(clean_db) == [("octal:0.6", "queued")]
    stats = service.get_stats(GetStats("octal:0.6"))
    assert [p["id"] for p in stats["pending"]] == [job.id]  # type: ignore[index, union-attr]

    Worker(clean_db, step_values=1 << 22).run_until_idle(threading.Event())
    assert service.get_job(GetJob(job.id)).status == "done"
    service.tables.forget()
    value = service.get_value(GetValue("octal:0.6", str(heap)))
    assert value.source == "table" and value.grundy is not None
    assert service.get_stats(GetStats("octal:0.6"))["pending"] == []
    assert "octal:0.6" in {g.id for g in service.list_games()}


def test_automatic_jobs_can_be_turned_off(clean_db: sa.Engine) -> None:
    service = Nimbase(Settings(auto=AutoJobSettings(jobs=0)), clean_db)
    with pytest.raises(LimitExceeded) as refused:
        service.get_value(GetValue("grundy", str(10**9)))
    assert not isinstance(refused.value, Pending)
    assert "NIMBASE_AUTO_JOBS=0" in str(refused.value) and "largest answerable heap" in str(refused.value)
    assert auto_jobs(clean_db) == []


def test_a_flood_of_games_queues_at_most_the_cap_and_lookups_keep_their_latency(clean_db: sa.Engine) -> None:
    cap = 4
    settings = Settings(admin_token=TOKEN, auto=AutoJobSettings(jobs=cap))
    JobQueue(clean_db).submit("subtraction:1,3,4", "heap", 1 << 17, fill=True)
    Worker(clean_db).run_until_idle(threading.Event())
    service = Nimbase(settings, clean_db)
    codes = [f"0.6{a}{b}{c}" for a in "1234567" for b in "1234567" for c in "12"][:100]
    with (
        running_server(service, settings.limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}") as client,
    ):
        assert client.get_value("subtraction:1,3,4", "1000")["source"] == "table"

        def flood(code: str) -> httpx.Response:
            return http.get(
                "/v1/value",
                params={"game": f"octal:{code}", "position": str(10**12)},
                headers={"x-deadline-ms": "300"},
            )

        latencies: list[float] = []
        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(flood, code) for code in codes]
            while not all(f.done() for f in futures) or len(latencies) < 20:
                heap = str(1 + len(latencies) % 100_000)
                started = time.perf_counter()
                assert client.get_value("subtraction:1,3,4", heap)["source"] == "table"
                latencies.append(time.perf_counter() - started)
                time.sleep(0.01)
            results = [f.result() for f in futures]

        queued: set[int] = set()
        for code, answer in zip(codes, results, strict=True):
            if answer.status_code == 200:
                assert answer.json()["source"] in ("period", "live"), code
                continue
            assert answer.status_code == 422, (code, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "RESOURCE_EXHAUSTED" and f"octal:{code}" in error["message"]
            if "job" in error:
                queued.add(error["job"]["id"])
        jobs = auto_jobs(clean_db)
        assert 1 <= len(jobs) <= cap and len(queued) <= cap
        assert statistics.median(latencies) < 0.05 and max(latencies) < 1.0

        # The refusal names its job over gRPC too (in the status details).
        game = jobs[0][0]
        with pytest.raises(NimbaseClientError) as refused:
            client.get_value(game, str(10**12))
        assert refused.value.code == "RESOURCE_EXHAUSTED"
        assert refused.value.job is not None and refused.value.job["game"] == game


# ---- defect 9: automatic jobs only where they can answer, and a share per client ------------------------


def test_a_heap_no_automatic_job_can_reach_queues_nothing(clean_db: sa.Engine) -> None:
    """Grundy's game has no known period (its kernel certifies none): heap 10^12 queued a job of 2^24 values
    that could never answer it. Now nothing is queued, and the refusal says what an admin job would need."""
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    with pytest.raises(LimitExceeded) as refused:
        service.get_value(GetValue("grundy", str(10**12)))
    assert not isinstance(refused.value, Pending)
    message = str(refused.value)
    assert "no job is queued: automatic jobs compute heaps below 16777216 (NIMBASE_AUTO_VALUES)" in message
    assert "none would reach heap 1000000000000" in message
    assert "an admin job (POST /v1/jobs) computing 1000000000001 values would be needed" in message
    assert auto_jobs(clean_db) == []
    # Within the bound a job can reach the heap: it is queued as before.
    with pytest.raises(Pending) as queued:
        service.get_value(GetValue("grundy", str(10**7), deadline=time.monotonic() + 10))
    assert queued.value.job.game == "grundy" and auto_jobs(clean_db) == [("grundy", "queued")]


def test_a_short_deadline_of_the_client_queues_nothing(clean_db: sa.Engine) -> None:
    """`x-deadline-ms: 1` on a small heap of a new octal game queued a job of 2^24 values. Live computation
    answers that heap within the full deadline: the refusal says to ask again with a longer one (DEADLINE
    EXCEEDED), nothing is queued, and asked so, the heap is answered live."""
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    heap = 100_000
    with pytest.raises(DeadlineExceeded) as refused:
        service.get_value(GetValue("octal:0.16", str(heap), deadline=time.monotonic() + 0.001))
    message = str(refused.value)
    assert (
        f"heap {heap} of 'octal:0.16' is within what live computation answers within the full deadline"
        in message
    )
    assert "ask again with a longer deadline; no job is queued for it" in message
    assert auto_jobs(clean_db) == []
    value = service.get_value(GetValue("octal:0.16", str(heap)))
    assert value.source == "live" and value.grundy is not None
    assert auto_jobs(clean_db) == []


def test_one_client_cannot_hold_every_automatic_job_over_either_transport(clean_db: sa.Engine) -> None:
    """NIMBASE_AUTO_JOBS=2, so each client may hold one. A client flooding new games over REST gets one job
    and is then refused naming its share, over gRPC too (the same address); another client still gets one.
    The client is stored with its job."""
    settings = Settings(admin_token=TOKEN, auto=AutoJobSettings(jobs=2))
    service = Nimbase(settings, clean_db)
    far = str(10**12)
    short = {"x-deadline-ms": "300"}
    with running_server(service, settings.limits) as ports:
        base = f"http://127.0.0.1:{ports.http}"
        mine = httpx.Client(
            base_url=base, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.1")
        )
        theirs = httpx.Client(
            base_url=base, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2")
        )
        with mine, theirs, NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=2.0) as client:
            answers = [
                mine.get("/v1/value", params={"game": f"octal:{code}", "position": far}, headers=short)
                for code in ("0.16", "0.36", "0.64", "0.74")
            ]
            errors = [a.json()["error"] for a in answers if a.status_code != 200]
            assert len(errors) >= 2, [a.text for a in answers]
            assert sum("job" in e for e in errors) == 1, errors
            assert any("client 127.0.0.1 already has 1 automatic jobs" in e["message"] for e in errors)
            assert all("NIMBASE_AUTO_CLIENT_JOBS=1" in e["message"] for e in errors if "job" not in e)
            with pytest.raises(NimbaseClientError) as refused:
                client.get_value("octal:0.76", far)
            assert refused.value.code == "RESOURCE_EXHAUSTED" and refused.value.job is None
            assert "client 127.0.0.1 already has 1 automatic jobs" in str(refused.value)
            other = theirs.get("/v1/value", params={"game": "octal:0.6", "position": far}, headers=short)
            assert other.status_code == 422 and "job" in other.json()["error"], other.text
    with clean_db.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT client, count(*) FROM jobs WHERE origin = 'auto' GROUP BY client")
        )
        assert dict(rows.all()) == {"127.0.0.1": 1, "127.0.0.2": 1}
