"""How the sequence tables key a sequence and name it in messages: one wording for every refusal."""

from __future__ import annotations

from engine.kind import SequenceSource

HEAP = "heap"

#: A sequence's key in the caches: (game id, family).
SequenceKey = tuple[str, str]


def name(source: SequenceSource) -> str:
    """How messages name a sequence: its game quoted, with its family unless it is single heaps."""
    if source.family == HEAP:
        return repr(source.game_id)
    return f"family {source.family!r} of {source.game_id!r}"


def item(source: SequenceSource) -> str:
    """What messages call one index of a sequence: a heap, or a value of another family."""
    return "heap" if source.family == HEAP else "value"
