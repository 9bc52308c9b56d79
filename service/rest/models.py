"""The JSON bodies the REST routes take, declared for the OpenAPI document and for parsing."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr


class BatchRequest(BaseModel):
    """Body of POST /v1/values:batch."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"game": "subtraction:1,3,4", "positions": ["7", "10 12"]}]},
    )
    game: StrictStr = Field(description="The game id, parameters included.")
    positions: list[StrictStr] = Field(
        description="Positions of that game, answered in this order (at most NIMBASE_LIMITS_BATCH_POSITIONS)."
    )


class JobRequest(BaseModel):
    """Body of POST /v1/jobs."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"game": "subtraction:2,5,7", "upto": 1000000}]}
    )
    game: StrictStr = Field(description="The game id to precompute.")
    upto: StrictInt = Field(
        description="Compute values 0..upto-1; for wythoff, the side of the square table."
    )
    fill: StrictBool = Field(
        default=False, description="Fill the whole range even once the period is certified."
    )
    family: StrictStr | None = Field(
        default=None,
        max_length=64,
        description="The stored family, for games that store several (bicolor-nim: e.g. `f_3`).",
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
        description="1 to 200 letters, digits, '.', '_', '~' or '-': the games `graph:NAME` and "
        "`lights-out:graph:NAME` play on it. A name is taken for good (409 ALREADY_EXISTS)."
    )
    vertices: list[StrictStr] = Field(
        description="Vertex names in order (1 to 1,000,000; unique, 1 to 1,000 printable characters each)."
    )
    edges: list[tuple[StrictStr, StrictStr]] = Field(
        default_factory=list,
        description="`[from, to]` vertex names (at most 10,000,000): moves for `graph:NAME`, read as "
        "undirected for `lights-out:graph:NAME`.",
    )
    terminals: dict[StrictStr, StrictStr] | None = Field(
        default=None,
        description='Vertex -> "win", "loss" or "draw": the result for the player to move at a vertex '
        'with no move ("loss" where not given).',
    )
