"""The query, path and header parameters the routes share, with their documentation.

Module level: FastAPI resolves a route's string annotations in the globals of the module that defines
it, so each router imports these names rather than spelling the types again.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Path, Query
from starlette.convertors import Convertor, register_url_convertor

from service.rest.examples import EXAMPLE_GAME, EXAMPLE_POSITION, position_syntaxes

Authorization = Annotated[
    str | None,
    Header(
        description="`Bearer <token>`, the server's NIMBASE_ADMIN_TOKEN: missing is 401 UNAUTHENTICATED, "
        "wrong (or no token configured) 403 PERMISSION_DENIED.",
        examples=["Bearer s3cret"],
    ),
]
Game = Annotated[
    str,
    Query(
        description="The game id, parameters included (GET /v1/games lists the families).",
        examples=[EXAMPLE_GAME.id],
    ),
]
Position = Annotated[
    str,
    Query(
        description="The position, in the syntax of its game's family (GET /v1/games gives each game's): "
        f"{position_syntaxes()}.",
        examples=[EXAMPLE_POSITION],
    ),
]


class _Segment(Convertor[str]):
    """A path segment without ':': `/v1/jobs/{job_id:segment}` leaves `/v1/jobs/1:retry` to the retry
    route, so another method there is 405 naming POST, not a job id that does not parse."""

    regex = "[^/:]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("segment", _Segment())
#: The path of one job, its id a segment without ':' (`_Segment`).
JOB_PATH = "/v1/jobs/{job_id:segment}"

JobId = Annotated[int, Path(description="The job's id, as SubmitJob returned it.", examples=[1])]
GraphName = Annotated[
    str,
    Path(description="The graph's name, as it was uploaded (POST /v1/graphs).", examples=["petersen"]),
]
Start = Annotated[int, Query(description="The first parameter n (at least 0).", examples=[0])]
