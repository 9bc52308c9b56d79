"""Precompute jobs: POST /v1/jobs, GET /v1/jobs/{job_id}, GET /v1/jobs, DELETE /v1/jobs/{job_id} and
POST /v1/jobs/{job_id}:retry.

Submitting, cancelling and retrying need the admin token; the service checks it (`convert.bearer_token`
only takes it out of the header).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from nimbase import schema
from service import convert
from service.calls import CancelJob, GetJob, JobPage, RetryJob, SubmitJob
from service.rest.answer import answer
from service.rest.context import service_of
from service.rest.models import JobRequest
from service.rest.openapi import errors
from service.rest.params import JOB_PATH, Authorization, JobId

router = APIRouter()

ListLimit = Annotated[
    int | None,
    Query(description="At most this many jobs (default 100, at most 1000: more is 400).", examples=[10]),
]
Cursor = Annotated[
    str | None,
    Query(description="Where the page starts: the previous page's `next_cursor` (absent: the newest job)."),
]


@router.post(
    "/v1/jobs",
    tags=["jobs"],
    response_model=schema.Job,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
def submit_job(request: Request, body: JobRequest, authorization: Authorization = None) -> Response:
    """Queue a precompute job (needs `authorization: Bearer <admin token>`) after the jobs of what it
    reads; `queued` lists the jobs queued, in the order they run.

    One job an object: what is stored is answered at once (`stored`, nothing queued), and what an open
    job computes is that job. `upto` may be left out where the job makes its object whole; `men` queues
    a family's whole set.

    409 FAILED_PRECONDITION: the game needs no precomputation (a closed form answers it), or its running
    job is asked for more than it computes. 422 RESOURCE_EXHAUSTED: no worker could finish it within its
    memory cap (NIMBASE_WORKER_MEMORY_BYTES); nothing is queued.
    """
    service = service_of(request)
    token = convert.bearer_token(authorization)
    return answer(
        request,
        lambda: convert.submission_as_dict(
            service.submit_job(SubmitJob(body.game, body.upto, body.fill, body.family, body.men, token=token))
        ),
    )


@router.post(
    "/v1/jobs/{job_id}:retry",
    tags=["jobs"],
    response_model=schema.Job,
    responses=errors(400, 401, 403, 404, 409, 503),
)
def retry_job(request: Request, job_id: JobId, authorization: Authorization = None) -> Response:
    """Queue a failed job again (needs `authorization: Bearer <admin token>`), its progress and
    checkpoints kept, with the failed jobs it waits for and those that failed only because they waited
    for it (`queued`).

    409 FAILED_PRECONDITION: the job did not fail (the message names its status).
    """
    service = service_of(request)
    token = convert.bearer_token(authorization)
    return answer(
        request, lambda: convert.submission_as_dict(service.retry_job(RetryJob(job_id, token=token)))
    )


@router.get(JOB_PATH, tags=["jobs"], response_model=schema.Job, responses=errors(400, 404, 503))
def get_job(request: Request, job_id: JobId) -> Response:
    """One precompute job: its status and progress."""
    service = service_of(request)
    return answer(request, lambda: convert.job_as_dict(service.get_job(GetJob(job_id))))


@router.get("/v1/jobs", tags=["jobs"], response_model=schema.JobList, responses=errors(400, 503))
def list_jobs(request: Request, limit: ListLimit = None, cursor: Cursor = None) -> Response:
    """Precompute jobs, newest first, a page at a time: `next_cursor` is where the next page starts
    (null after the last)."""
    service = service_of(request)

    def call() -> schema.JobList:
        jobs, following = service.job_page(
            JobPage(cursor=cursor) if limit is None else JobPage(limit, cursor)
        )
        return convert.job_list_as_dict(jobs, following)

    return answer(request, call)


@router.delete(JOB_PATH, tags=["jobs"], response_model=schema.Job, responses=errors(400, 401, 403, 404, 503))
def cancel_job(request: Request, job_id: JobId, authorization: Authorization = None) -> Response:
    """Cancel a job (needs `authorization: Bearer <admin token>`)."""
    service = service_of(request)
    token = convert.bearer_token(authorization)
    return answer(request, lambda: convert.job_as_dict(service.cancel_job(CancelJob(job_id, token=token))))
