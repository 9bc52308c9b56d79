"""A small uploaded graph is solved where its request arrives, not in a live process (issue 32: the first
answer of `graph:bench` after ready waited for a live process that solved three vertices), and its next
answers come from memory; a graph past `SOLVED_HERE_EDGES` edges still goes to a live process.

The test counts the calls reaching the live processes' pool (a stand-in that records them), over a real
`Nimbase` holding the graphs as an upload keeps them."""

from __future__ import annotations

from typing import Any

from engine.graphs import GraphBuilder
from kinds.graphs.kind import SOLVED_HERE_EDGES
from nimbase.settings import Settings
from service.calls import GetValue
from service.core import Nimbase
from service.pooled import PooledService


class RecordingPool:
    """Stands in for the live processes: records what is sent and answers nothing itself."""

    size = 1

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def call(self, asked: Any) -> str:
        self.sent.append(asked)
        return "from a live process"


def chain(name: str, edges: int) -> Any:
    """v0 -> v1 -> ... -> v<edges>: v_i is lost (P) when edges - i is even."""
    builder = GraphBuilder(name)
    builder.add_vertices([f"v{i}" for i in range(edges + 1)])
    builder.add_edge_pairs([(f"v{i}", f"v{i + 1}") for i in range(edges)])
    return builder.finish()


def test_a_small_graph_is_solved_here_and_then_answered_from_memory() -> None:
    local = Nimbase(Settings(), None)
    pool = RecordingPool()
    pooled = PooledService(local, pool)  # type: ignore[arg-type]
    local.graphs.hold(chain("small", 3))
    value = pooled.answer(GetValue("graph:small", "v0"))
    assert (value.outcome, value.remoteness, value.source) == ("N", 3, "live")
    assert pool.sent == []
    again = pooled.in_memory(lambda: pooled.answer(GetValue("graph:small", "v1")))
    assert again is not None and (again.outcome, again.remoteness) == ("P", 2)
    assert pool.sent == []


def test_a_larger_graph_is_solved_in_a_live_process() -> None:
    local = Nimbase(Settings(), None)
    pool = RecordingPool()
    pooled = PooledService(local, pool)  # type: ignore[arg-type]
    local.graphs.hold(chain("larger", SOLVED_HERE_EDGES + 1))
    answer: object = pooled.answer(GetValue("graph:larger", "v0"))
    assert answer == "from a live process"
    assert [asked.game for asked in pool.sent] == ["graph:larger"]
