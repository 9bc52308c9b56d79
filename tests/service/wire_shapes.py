"""The shapes of values the answers written from pieces (service.batch_wire, service.value_wire) are held
to protobuf's own bytes on: long and empty positions, non-ASCII text, records of several kinds, one of them
not hashable."""

from __future__ import annotations

import random

from engine.records import ValueRecord
from kinds.graphs.records import GraphValue
from kinds.heaps.misere.stored import MisereValue
from kinds.lights_out.records import LightsOutValue


def positions(rng: random.Random) -> list[str]:
    """Positions of every length a varint of the wire may need, and text that is not ASCII."""
    long_text = " ".join(str(rng.randint(1, 10**6)) for _ in range(3000))  # past two-byte varints
    return ["", "1 2 3", "é à", long_text, "7" * 127, "7" * 128]


RECORDS: list[ValueRecord | None] = [
    None,
    MisereValue(0),
    MisereValue(5),
    GraphValue("loopy"),
    LightsOutValue(True, ("a1", "b2"), None),
    LightsOutValue(False),
    LightsOutValue(True, ["a1"], "a list: not hashable"),  # type: ignore[arg-type]
]
