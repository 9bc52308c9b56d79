"""Errors raised by the storage layer.

Each names the record it is about (game, family, chunk, job), because the reader is usually
looking at a log line from one of several worker processes.
"""

from __future__ import annotations

from engine.errors import NimbaseError


class StorageError(Exception):
    """Base of every storage error."""


class StorageUnavailable(StorageError, NimbaseError):
    """The database cannot be reached; the service answers UNAVAILABLE and retries later."""

    code = "UNAVAILABLE"


class CorruptChunk(StorageError):
    """A stored chunk whose checksum does not match its contents; its values are never returned."""

    def __init__(
        self, game_id: str, family: str, chunk_index: int, detail: str = "checksum mismatch"
    ) -> None:
        super().__init__(f"corrupt chunk {chunk_index} of game {game_id!r} family {family!r}: {detail}")
        self.game_id = game_id
        self.family = family
        self.chunk_index = chunk_index
        self.detail = detail


class MissingChunk(CorruptChunk):
    """A chunk whose row is gone although the table claims its values: damaged like a corrupt one, and
    repaired the same way."""

    def __init__(self, game_id: str, family: str, chunk_index: int, stored: int) -> None:
        super().__init__(
            game_id, family, chunk_index, f"its row is missing, though values 0..{stored} are stored"
        )
        self.stored = stored


class NotStored(StorageError):
    """A range of values that the table does not hold (yet)."""

    def __init__(self, game_id: str, family: str, start: int, stop: int, stored: int) -> None:
        super().__init__(
            f"values {start}..{stop} of game {game_id!r} family {family!r} are not stored "
            f"(stored: 0..{stored})"
        )
        self.game_id = game_id
        self.family = family
        self.start = start
        self.stop = stop
        self.stored = stored


class LeaseLost(StorageError):
    """A write under a job lease that the worker no longer holds (expired, taken over or cancelled)."""

    def __init__(self, job_id: int, worker_id: str) -> None:
        super().__init__(f"job {job_id}: worker {worker_id!r} no longer holds its lease")
        self.job_id = job_id
        self.worker_id = worker_id


class StaleWrite(StorageError):
    """A write that assumed a stored length another writer has changed in the meantime."""

    def __init__(self, game_id: str, family: str, expected: int, actual: int) -> None:
        super().__init__(
            f"game {game_id!r} family {family!r}: expected {expected} stored values, found {actual}"
        )
        self.game_id = game_id
        self.family = family
        self.expected = expected
        self.actual = actual


class InvalidPayload(StorageError, ValueError):
    """Packed bytes whose length does not fit their declared width and count."""
