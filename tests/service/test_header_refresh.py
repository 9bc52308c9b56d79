"""A stored header found stale by a memory answer is read again behind the answer, in a thread of its own
(service.sequences.stored); a call that memory does not answer starts no such thread: it goes to a thread
that reads the header itself, which a refresh started meanwhile only competed with (issue 33: the first
GetValue of a stored table after ready started one, beside the request's own reads)."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from engine.stored_bytes import read_stored_range
from nimbase.settings import Limits
from service.gate import DatabaseGate
from service.sequences.stored import HEAD_WORDS
from service.sequences.tables import SequenceTables
from storage.sequences import SequenceInfo, SequenceStore
from tests.engine.contexts import engine_context
from tests.service.test_word_bytes import DATA, FAMILY, GAME, store

#: A byte range past the object's head: read by itself, never from memory before it is read once.
FAR = (4 * HEAD_WORDS + 16, 4 * HEAD_WORDS + 64)


def header_reads(monkeypatch: pytest.MonkeyPatch, store_: SequenceStore) -> list[str]:
    """The headers `store_` reads from now on, by the name of the thread reading them."""
    reads: list[str] = []
    info = store_.info

    def counted(game_id: str, family: str) -> SequenceInfo | None:
        reads.append(threading.current_thread().name)
        return info(game_id, family)

    monkeypatch.setattr(store_, "info", counted)
    return reads


def refreshes_done() -> None:
    for thread in threading.enumerate():
        if thread.name == "nimbase-header":
            thread.join(10)


def test_a_stale_header_is_read_again_behind_a_memory_answer_only(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(clean_db, plain=True)
    sequences_store = SequenceStore(clean_db)
    # Every header is stale as soon as it is read.
    sequences = SequenceTables(sequences_store, DatabaseGate(), Limits(), header_ttl=0.0)
    ctx = engine_context(sequences)
    size = sequences.stored_size(GAME, FAMILY)  # the header, read once
    reads = header_reads(monkeypatch, sequences_store)

    # Memory does not answer (the range was never read): no refresh is started behind it.
    assert sequences.from_memory(lambda: read_stored_range(GAME, FAMILY, ctx, *FAR)) is None
    refreshes_done()
    assert reads == []
    # The call, in a thread that may read: the header read there, once, and the range.
    assert read_stored_range(GAME, FAMILY, ctx, *FAR) == DATA[FAR[0] : FAR[1]]
    assert reads == [threading.current_thread().name]

    # Memory answers from the stale header: it is read again behind the answer, in a thread of its own.
    reads.clear()
    assert sequences.from_memory(lambda: sequences.stored_size(GAME, FAMILY)) == size
    refreshes_done()
    assert reads == ["nimbase-header"]
