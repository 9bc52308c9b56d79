"""A process's own service starts where its warm-up left it (issue 32: the first answer of each kind after
ready within 50 ms). Before, the warm-up's service was thrown away: the first request of a rules game
solved it again under its deadline (tictactoe: half a second), a Nim sum searched its remoteness again,
and every stored table's first request read its header and first chunk through a connection not opened
yet. Now the service keeps what the warm-up made (an object made live gives way to the stored one), and
has read what storage holds for the warm-up's questions and for the games with a stored table, queueing
nothing."""

from __future__ import annotations

import threading
from functools import partial

import sqlalchemy as sa

from engine.needs_graph import WARM_UP_EDGES, WARM_UP_VERTICES
from nimbase.settings import Settings
from service.calls import GetValue, SubmitJob, UploadGraph
from service.core import Nimbase
from service.warm_up import warm_up, warm_up_template, warmed_from
from storage.jobs import JobQueue
from worker.runner import Worker

TOKEN = "warm-up-into"
CHESS = ("chess:KRvK", "8/8/8/8/8/2k5/8/KR6 w - - 0 1")
ANSWERED_FROM_MEMORY = [
    ("tictactoe", "x../.o./..."),  # solved by the warm-up, kept
    ("nim", "3 5 7"),  # its remoteness searched by the warm-up, adopted
    ("octal:0.6", "10 20"),  # its stored table's first chunk read before ready
]
#: A game ListGames lists for its stored table: its header read ahead too.
STORED = "octal:0.31"


def test_the_service_answers_from_memory_what_its_warm_up_asked(clean_db: sa.Engine) -> None:
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    service.submit_job(SubmitJob("octal:0.6", 5000, token=TOKEN))
    service.submit_job(SubmitJob(STORED, 5000, token=TOKEN))
    service.submit_job(SubmitJob(CHESS[0], 0, token=TOKEN))
    Worker(clean_db, worker_id="warm-up-into", poll_seconds=0).run_until_idle(threading.Event())
    jobs = len(JobQueue(clean_db).list(limit=100))

    bare = Nimbase(Settings(admin_token=TOKEN), clean_db)
    warm_up(Settings())  # as before: on a service of its own
    for game, position in [*ANSWERED_FROM_MEMORY, CHESS]:
        assert bare.in_memory(partial(bare.get_value, GetValue(game, position))) is None, game
    assert bare.in_memory(partial(bare.tables.stored_size, STORED, "heap")) is None

    warm_up(Settings(), into=service)
    for game, position in ANSWERED_FROM_MEMORY:
        assert service.in_memory(partial(service.get_value, GetValue(game, position))) is not None, game
    assert service.in_memory(partial(service.tables.stored_size, STORED, "heap"))  # stored, known
    # The stored table, not the one the warm-up solved without storage, read before ready.
    found = service.in_memory(lambda: service.get_value(GetValue(*CHESS)))
    assert found is not None and found.source == "table"
    assert len(JobQueue(clean_db).list(limit=100)) == jobs  # the reads queued nothing


def test_a_service_forked_from_a_template_takes_its_warm_up_and_reads_ahead(clean_db: sa.Engine) -> None:
    """A live process forked from the template (service.live_template) asks no warm-up question again:
    its service keeps what the template's warm-up made (tictactoe solved), and reads ahead from storage
    what the questions need (a stored table's header and first chunk, the stored chess table rather than
    the one the warm-up solved without storage), queueing nothing. It adopts nothing else (a live
    process's computations are carried to the server by its journal): Nim's remoteness is searched
    again."""
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    service.submit_job(SubmitJob("octal:0.6", 5000, token=TOKEN))
    service.submit_job(SubmitJob(CHESS[0], 0, token=TOKEN))
    Worker(clean_db, worker_id="warm-up-template", poll_seconds=0).run_until_idle(threading.Event())
    jobs = len(JobQueue(clean_db).list(limit=100))

    warmed = warm_up_template(Settings())
    assert {game for game, _ in warmed.questions} >= {"tictactoe", "nim", "octal:0.6"}
    warmed_from(warmed, service)
    assert service.kept is warmed.kept
    for game, position in (ANSWERED_FROM_MEMORY[0], ANSWERED_FROM_MEMORY[2]):
        assert service.in_memory(partial(service.get_value, GetValue(game, position))) is not None, game
    assert service.in_memory(partial(service.get_value, GetValue(*ANSWERED_FROM_MEMORY[1]))) is None
    found = service.in_memory(lambda: service.get_value(GetValue(*CHESS)))
    assert found is not None and found.source == "table"
    assert len(JobQueue(clean_db).list(limit=100)) == jobs


def test_a_graph_uploaded_under_the_warm_up_graphs_name_is_answered_from_its_own_edges(
    clean_db: sa.Engine,
) -> None:
    """The warm-up plays graph games on a graph of its own, named as the listed id names it: what is
    solved on it is not kept for an uploaded graph of that name (same vertices, as many edges)."""
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    warm_up(Settings(), into=service)
    edges = [[b, a] for a, b in WARM_UP_EDGES]  # every move reversed
    service.upload_graph(UploadGraph("NAME", list(WARM_UP_VERTICES), edges, token=TOKEN))
    fresh = Nimbase(Settings(admin_token=TOKEN), clean_db)
    for vertex in WARM_UP_VERTICES:
        assert service.get_value(GetValue("graph:NAME", vertex)) == fresh.get_value(
            GetValue("graph:NAME", vertex)
        ), vertex
