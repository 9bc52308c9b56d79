"""The JSON bodies the REST routes take, declared for the OpenAPI document and for parsing."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from engine.graphs import MAX_EDGES, MAX_NAME_CHARS, MAX_VERTEX_CHARS, MAX_VERTICES
from engine.positions import MAX_HEAP
from service.rest.examples import BATCH_EXAMPLE, GRAPH_GAMES, JOB_EXAMPLE


def _integral(value: object) -> object:
    """A JSON number without a fractional part (`10.0`) as the integer it is: JSON Schema's `integer`,
    which the document declares, counts it as one. Any other float stays one, and is refused."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_HEAP:
        return int(value)
    return value


#: A whole number in a JSON body, written with or without a zero fraction (never a string or a bool).
JsonInt = Annotated[StrictInt, BeforeValidator(_integral)]


class BatchRequest(BaseModel):
    """Body of POST /v1/values:batch."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [BATCH_EXAMPLE]},
    )
    game: StrictStr = Field(description="The game id, parameters included.")
    positions: list[StrictStr] = Field(
        description="Positions of that game, answered in this order (at most NIMBASE_LIMITS_BATCH_POSITIONS)."
    )


class JobRequest(BaseModel):
    """Body of POST /v1/jobs."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [JOB_EXAMPLE],
            # A family's set (`men`) takes no `upto` nor `family` (400): declared, as every bound is.
            "not": {
                "anyOf": [
                    {
                        "required": ["men", "upto"],
                        "properties": {"men": {"type": "integer"}, "upto": {"type": "integer"}},
                    },
                    {
                        "required": ["men", "family"],
                        "properties": {"men": {"type": "integer"}, "family": {"type": "string"}},
                    },
                ]
            },
        },
    )
    game: StrictStr = Field(description="The game id to precompute.")
    upto: JsonInt | None = Field(
        default=None,
        description="Compute values 0..upto-1; for a game of pairs, the side of the square table. May be "
        "left out where the job makes its object whole (a chess table, a rules game's tiers).",
    )
    fill: StrictBool = Field(
        default=False, description="Fill the whole range even once the period is certified."
    )
    family: StrictStr | None = Field(
        default=None,
        max_length=64,
        description="The stored family, for games that store several (their description in GET "
        "/v1/games names them).",
    )
    men: JsonInt | None = Field(
        default=None,
        description='Queue the family `game`\'s whole set up to this size in one call (`{"game": '
        '"chess", "men": 5}`), each member after what it reads; beyond what the family stores is 400.',
    )


class GraphRequest(BaseModel):
    """Body of POST /v1/graphs: the graph (read in a worker thread, `_graph_body`, not by FastAPI)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "name": "path4",
                    "vertices": ["a", "b", "c", "d"],
                    "edges": [["a", "b"], ["b", "c"], ["c", "d"]],
                    "terminals": {"d": "loss"},
                }
            ]
        },
    )
    name: StrictStr = Field(
        description=f"1 to {MAX_NAME_CHARS} letters, digits, '.', '_', '~' or '-' (not '.' or '..'): the "
        f"games that play on a graph name it in their id ({', '.join(f'`{id}`' for id in GRAPH_GAMES)}; "
        "GET /v1/games). A name is taken for good (409 ALREADY_EXISTS)."
    )
    vertices: list[StrictStr] = Field(
        description=f"Vertex names in order (1 to {MAX_VERTICES:,}; unique, 1 to {MAX_VERTEX_CHARS:,} "
        "printable characters each)."
    )
    edges: list[tuple[StrictStr, StrictStr]] = Field(
        default_factory=list,
        description=f"`[from, to]` vertex names (at most {MAX_EDGES:,}): the moves of a game played on the "
        "graph; a puzzle on it reads them as undirected.",
    )
    terminals: dict[StrictStr, StrictStr] | None = Field(
        default=None,
        description='Vertex -> "win", "loss" or "draw": the result for the player to move at a vertex '
        'with no move ("loss" where not given).',
    )
