"""Precompute jobs: POST /v1/jobs, GET /v1/jobs/{job_id}, GET /v1/jobs and DELETE /v1/jobs/{job_id}.

Submitting and cancelling need the admin token; the service checks it (`convert.bearer_token` only
takes it out of the header).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from nimbase import schema
from service import convert
from service.rest.answer import answer
from service.rest.context import service_of
from service.rest.models import JobRequest
from service.rest.openapi import errors
from service.rest.params import Authorization, JobId

router = APIRouter()

ListLimit = Annotated[
    int | None,
    Query(description="At most this many jobs (default 100, at most 1000).", examples=[10]),
]


@router.post(
    "/v1/jobs", tags=["jobs"], response_model=schema.Job, responses=errors(400, 401, 403, 404, 409, 503)
)
def submit_job(request: Request, body: JobRequest, authorization: Authorization = None) -> Response:
    """Queue a precompute job (needs `authorization: Bearer <admin token>`).

    409 FAILED_PRECONDITION: the game needs no precomputation (a closed form answers it).
    """
    service = service_of(request)
    token = convert.bearer_token(authorization)
    return answer(
        request,
        lambda: convert.job_as_dict(service.submit_job(token, body.game, body.upto, body.fill, body.family)),
    )


@router.get("/v1/jobs/{job_id}", tags=["jobs"], response_model=schema.Job, responses=errors(400, 404, 503))
def get_job(request: Request, job_id: JobId) -> Response:
    """One precompute job: its status and progress."""
    service = service_of(request)
    return answer(request, lambda: convert.job_as_dict(service.get_job(job_id)))


@router.get("/v1/jobs", tags=["jobs"], response_model=schema.JobList, responses=errors(400, 503))
def list_jobs(request: Request, limit: ListLimit = None) -> Response:
    """Precompute jobs, newest first."""
    service = service_of(request)

    def call() -> schema.JobList:
        jobs = service.list_jobs() if limit is None else service.list_jobs(limit)
        return convert.job_list_as_dict(jobs)

    return answer(request, call)


@router.delete(
    "/v1/jobs/{job_id}", tags=["jobs"], response_model=schema.Job, responses=errors(400, 401, 403, 404, 503)
)
def cancel_job(request: Request, job_id: JobId, authorization: Authorization = None) -> Response:
    """Cancel a job (needs `authorization: Bearer <admin token>`)."""
    service = service_of(request)
    token = convert.bearer_token(authorization)
    return answer(request, lambda: convert.job_as_dict(service.cancel_job(token, job_id)))
