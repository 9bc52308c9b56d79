"""The query, path and header parameters the routes share, with their documentation.

Module level: FastAPI resolves a route's string annotations in the globals of the module that defines
it, so each router imports these names rather than spelling the types again.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Path, Query

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
        examples=["subtraction:1,3,4"],
    ),
]
Position = Annotated[
    str,
    Query(
        description="The position: heap sizes separated by spaces (`10 12`), or for wythoff pairs "
        "(`3,5 4,7`); `0` or empty is the empty position. Lights Out: rows of 0/1 joined by `/` "
        "(`000/011/011`), or one 0/1 per vertex of an uploaded graph.",
        examples=["10 12"],
    ),
]
JobId = Annotated[int, Path(description="The job's id, as SubmitJob returned it.", examples=[1])]
GraphName = Annotated[
    str,
    Path(description="The graph's name, as it was uploaded (POST /v1/graphs).", examples=["petersen"]),
]
Start = Annotated[int, Query(description="The first parameter n (at least 0).", examples=[0])]
