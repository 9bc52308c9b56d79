"""Storing an object made whole again as plain words, chunk by chunk: a job's part for a table an older
version stored in the packed form (bit-packed, deflated), which a reader must fetch and inflate whole for a
few hundred bytes of it.

Its values never change: each chunk is read and verified by its checksum, and the same values written
back as plain words (storage.sequences.SequenceStore.rewrite_plain), one chunk a transaction fenced by
the job's lease, so the job holds one chunk at a time and a stopped or killed job, resumed, finds the
chunks done before plain and goes on with the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from storage.errors import CorruptChunk
from storage.jobs import Job
from storage.sequences import SequenceStore

log = logging.getLogger(__name__)


def store_plain(
    store: SequenceStore, job: Job, worker_id: str, check: Callable[[], None], *, counted: bool
) -> int:
    """Store every chunk of the job's object not stored as plain words again as plain words; how many
    were. `check` is called before each chunk (it raises to stop the job: lease lost, cancelled, shutting
    down). With `counted`, the job's progress counts the chunks (the total it was queued with, the chunks
    done by an earlier attempt counted done); else its progress is left in its own units."""
    packed = store.packed_chunks(job.game_id, job.family)
    if not packed:
        return 0
    total = max(job.total, len(packed))
    first = total - len(packed)
    what = f"{job.game_id}/{job.family}"
    log.info("job %d: storing %d chunks of %s as plain words", job.id, len(packed), what)
    rewritten = 0
    for n, index in enumerate(packed):
        check()
        try:
            changed = store.rewrite_plain(
                job_id=job.id,
                worker_id=worker_id,
                game_id=job.game_id,
                family=job.family,
                chunk_index=index,
                done=first + n + 1 if counted else None,
                total=total if counted else None,
            )
        except CorruptChunk as exc:  # recorded (its repair queued), and the job fails naming it
            store.report_corruption(exc.game_id, exc.family, exc.chunk_index, str(exc))
            raise
        rewritten += changed
    log.info("job %d: stored %d chunks as plain words", job.id, rewritten)
    return rewritten
