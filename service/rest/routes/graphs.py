"""Uploaded graphs: POST /v1/graphs stores one (admin token), GET /v1/graphs/{name} gives it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response, StreamingResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from engine.errors import InvalidArgument, NimbaseError
from nimbase import schema
from service import convert
from service.calls import GetGraph, UploadGraph
from service.rest.answer import answer
from service.rest.context import service_of
from service.rest.errors import body_not_received, describe_validation_error, failure
from service.rest.json_body import PiecewiseJSONResponse
from service.rest.models import GraphRequest
from service.rest.openapi import errors
from service.rest.params import Authorization, GraphName

router = APIRouter()


@router.post(
    "/v1/graphs",
    tags=["graphs"],
    response_model=schema.GraphSummary,
    responses=errors(400, 401, 403, 409, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The graph, at most NIMBASE_LIMITS_GRAPH_BODY_BYTES (64 MiB by default) of "
            "JSON; larger ones go up over gRPC (UploadGraph, streamed).",
            "content": {"application/json": {"schema": GraphRequest.model_json_schema()}},
        }
    },
)
async def upload_graph(request: Request, authorization: Authorization = None) -> Response:
    """Store a graph under a new name (needs `authorization: Bearer <admin token>`): checked whole and
    stored all or nothing. 400 quoting what is wrong (an edge naming an unknown vertex, a duplicate
    vertex, a terminal label other than win/loss/draw), 409 ALREADY_EXISTS for a name taken."""
    service = service_of(request)
    token = convert.bearer_token(authorization)
    try:  # before the body is read: without the token, its up to 64 MiB are not even parsed
        service.authorize(token, "graph upload")
    except NimbaseError as exc:
        return failure(request, exc)
    content_type = request.headers.get("content-type")
    try:
        raw = await request.body()
    except ClientDisconnect:
        return body_not_received(request)

    def call() -> schema.GraphSummary:
        body = _graph_body(raw, content_type)
        edges = cast(list[Sequence[object]], body.edges)
        summary = service.upload_graph(
            UploadGraph(body.name, body.vertices, edges, body.terminals, token=token)
        )
        return convert.graph_summary_as_dict(summary)

    return await run_in_threadpool(answer, request, call)


@router.get(
    "/v1/graphs/{name}", tags=["graphs"], response_model=schema.Graph, responses=errors(400, 404, 503)
)
def get_graph(request: Request, name: GraphName) -> Response:
    """A stored graph: its name, vertices in order, edges in upload order and terminals (streamed
    piece by piece when large)."""
    try:
        graph = service_of(request).get_graph(GetGraph(name))
    except Exception as exc:
        return failure(request, exc)
    if graph.vertex_count + graph.edge_count <= convert.GRAPH_JSON_BATCH:
        return PiecewiseJSONResponse(convert.graph_as_dict(graph))
    return StreamingResponse(convert.graph_json(graph), media_type="application/json")


def _graph_body(raw: bytes, content_type: str | None) -> GraphRequest:
    """The body of POST /v1/graphs, parsed and typed (pydantic's JSON parser, off the event loop: it may
    be tens of megabytes); INVALID_ARGUMENT saying what is wrong, as FastAPI's own bodies get."""
    if content_type is not None and not _is_json(content_type):
        raise InvalidArgument(
            f"the request body must be JSON sent as content-type application/json; got {content_type!r}"
        )
    if not raw:
        raise InvalidArgument("the request body is empty; it must be a JSON object")
    try:
        return GraphRequest.model_validate_json(raw)
    except ValidationError as exc:
        located = [{**error, "loc": ("body", *error.get("loc", ()))} for error in exc.errors()]
        raise InvalidArgument(
            describe_validation_error(RequestValidationError(located), content_type)
        ) from None


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))
