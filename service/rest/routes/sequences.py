"""Many values at once: POST /v1/values:columnar (packed arrays), GET /v1/sequence (a family's values
as JSON) and GET /v1/sequence:download (a whole range as one gzipped file)."""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.requests import ClientDisconnect

from engine.deadline import Deadline
from engine.errors import InvalidArgument
from engine.values import SequenceResult
from nimbase import schema
from service import columnar, convert, download, http_cache
from service.calls import ColumnarValues, GetSequence, SequenceBlocks
from service.long_sequences import PIECE_VALUES, long_sequence, one_at_a_time
from service.rest.answer import answer_in_thread
from service.rest.context import context_of, service_of
from service.rest.deadline import DeadlineHeader
from service.rest.errors import body_not_received, failure
from service.rest.openapi import CACHED, binary, errors
from service.rest.params import Game, Start

router = APIRouter()


def _binary_answer(
    description: str, media_type: str, failures: dict[int | str, dict[str, Any]]
) -> dict[int | str, dict[str, Any]]:
    """The documented answers of a route whose success is a binary body: that body, then its errors."""
    return {200: binary(description, media_type), **failures}


@router.post(
    "/v1/values:columnar",
    tags=["values"],
    response_class=Response,
    responses=_binary_answer(
        "The Grundy value of each heap, in request order, as little-endian uint32.",
        columnar.MEDIA_TYPE,
        errors(400, 404, 409, 422, 503, 504),
    ),
    openapi_extra={
        "requestBody": {
            "required": True,
            **binary(
                "Single-heap sizes as little-endian uint64, at most NIMBASE_LIMITS_COLUMNAR_VALUES of them.",
                columnar.MEDIA_TYPE,
            ),
        }
    },
)
async def columnar_values(request: Request, game: Game, x_deadline: DeadlineHeader = None) -> Response:
    """Normal-play Grundy values of many single heaps of one heap game, as packed arrays.

    All or nothing: a malformed body (400), a misère game or a game without heaps (409), or one
    heap beyond what can be answered now (422) fails the whole request, and no value is sent.
    """
    try:
        heaps = columnar.heaps_from_body(await request.body(), request.headers.get("content-type"))
    except ClientDisconnect:
        return body_not_received(request)
    except InvalidArgument as exc:
        return failure(request, exc)
    service = service_of(request)

    def call(stop: Deadline) -> Response:
        grundy = service.columnar_values(ColumnarValues(game, heaps, None, deadline=stop))
        return Response(columnar.grundy_body(grundy), media_type=columnar.MEDIA_TYPE)

    return await answer_in_thread(request, x_deadline, call)


@router.get("/v1/sequence", tags=["values"], response_model=schema.Sequence, responses=CACHED)
async def get_sequence(
    request: Request,
    game: Game,
    stop: Annotated[int, Query(description="One past the last parameter n (at most 2^63-1).", examples=[30])],
    start: Start = 0,
    family: Annotated[
        str | None,
        Query(
            description="The one-parameter family; by default single heaps of size n (a game of pairs: "
            "its row `row:0`; GET /v1/games describes each game's).",
        ),
    ] = None,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """Values of a one-parameter family for start <= n < stop, and its period where known.

    Cached as GET /v1/value when its source is formula, or table or period with a certified period.
    """
    service = service_of(request)
    if stop - start <= PIECE_VALUES:
        return await answer_in_thread(
            request,
            x_deadline,
            lambda by: convert.sequence_as_dict(
                service.get_sequence(GetSequence(game, family, start, stop, deadline=by))
            ),
            http_cache.sequence_is_immutable,
        )
    limits = context_of(request).limits

    def streamed(deadline: Deadline) -> Response:
        """A long answer, its range checked and its ends asked first, then written as the client reads
        (service.long_sequences)."""
        answer = long_sequence(service, limits, game, family, start, stop, deadline)
        result = SequenceResult(answer.game, answer.family, start, stop, [], answer.period, answer.source)
        body = cast(dict[str, Any], convert.sequence_as_dict(result))
        return http_cache.respond_streamed(
            body,
            "values",
            answer.pieces(),
            request.headers.get("if-none-match"),
            http_cache.sequence_is_immutable(body),
            one_at_a_time,
        )

    return await answer_in_thread(request, x_deadline, streamed)


@router.get(
    "/v1/sequence:download",
    tags=["values"],
    response_class=StreamingResponse,
    responses=_binary_answer(
        "A gzipped .npy of little-endian uint32 values: numpy.load(gzip.open(f)).",
        "application/gzip",
        errors(400, 404, 422, 503, 504),
    ),
)
async def download_sequence(
    request: Request,
    game: Game,
    stop: Annotated[int, Query(description="One past the last parameter n.", examples=[1000000])],
    start: Start = 0,
    family: Annotated[str | None, Query(description="The family, as for GET /v1/sequence.")] = None,
) -> Response:
    """Values start..stop-1 of a family as one file, streamed block by block (whole tables).

    The range and its first block are checked before any byte is sent: a bad request gets its error.
    """
    service = service_of(request)

    def stream(_: Deadline) -> Response:
        blocks = service.sequence_blocks(SequenceBlocks(game, family, start, stop))
        name = download.file_name(game, family, start, stop)
        return StreamingResponse(
            download.gzipped_npy(stop - start, blocks),
            media_type="application/gzip",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    return await answer_in_thread(request, None, stream)
