"""`NimbaseClientError`: an error answer of either transport, with its public error code.

A RESOURCE_EXHAUSTED refusal may name the precompute job that will make the answer possible: over
REST in the body's `error.job`, over gRPC as a `nimbase.v1.Job` in the status details (gRPC's rich
error model: a `google.rpc.Status` in the trailing metadata `grpc-status-details-bin`). That Status
is read here with a three-field message of its own, so the client needs neither grpcio-status nor
googleapis-common-protos.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import grpc
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message, message_factory

from nimbase_client import convert, records
from nimbase_client.v1 import nimbase_pb2 as pb

#: Trailing metadata key of the google.rpc.Status details of a failed call.
STATUS_DETAILS_KEY = "grpc-status-details-bin"


class NimbaseClientError(Exception):
    """An error answer: `code` is the gRPC status code name, e.g. "INVALID_ARGUMENT" (REST answers carry
    the same names), `message` what was wrong.

    `job` is set on a RESOURCE_EXHAUSTED refusal for which the server queued (or found) the precompute
    job that will make the answer possible: ask again once `get_job(job["id"])` says it is done.
    """

    def __init__(self, code: str, message: str, job: records.Job | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.job = job


def from_rpc_error(exc: grpc.RpcError) -> NimbaseClientError:
    """The error of a failed call (grpc or grpc.aio)."""
    if not isinstance(exc, grpc.Call | grpc.aio.AioRpcError):
        return NimbaseClientError("UNKNOWN", str(exc))
    code = exc.code()
    trailing: Iterable[Any] = exc.trailing_metadata() or ()
    return NimbaseClientError(
        code.name if code is not None else "UNKNOWN", exc.details() or "", _queued_job(trailing)
    )


def from_error_body(status: int, body: Any) -> NimbaseClientError:
    """The error of a REST answer: its `{"error": {"code", "message"[, "job"]}}` body."""
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return NimbaseClientError("UNKNOWN", f"HTTP {status}: {body!r}"[:1000])
    job = detail.get("job")
    return NimbaseClientError(
        str(detail.get("code", "UNKNOWN")),
        str(detail.get("message", "")),
        cast(records.Job, job) if isinstance(job, dict) else None,
    )


def _queued_job(trailing: Iterable[Any]) -> records.Job | None:
    """The Job a refusal carries in its status details, if any (metadata items are (key, value))."""
    for key, value in trailing:
        if key != STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = _STATUS.FromString(value)
        except message.DecodeError:
            return None
        for packed in status.details:
            detail = any_pb2.Any.FromString(packed)
            job = pb.Job()
            if detail.Unpack(job):
                return convert.job_dict(job)
    return None


def _status_message() -> Any:
    """google.rpc.Status as far as the client reads it: `details` kept as the bytes of each Any."""
    proto = descriptor_pb2.FileDescriptorProto(
        name="nimbase_client/status.proto", package="nimbase_client", syntax="proto3"
    )
    status = proto.message_type.add(name="Status")
    field = descriptor_pb2.FieldDescriptorProto
    status.field.add(name="code", number=1, type=field.TYPE_INT32, label=field.LABEL_OPTIONAL)
    status.field.add(name="message", number=2, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    status.field.add(name="details", number=3, type=field.TYPE_BYTES, label=field.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()  # its own pool: never clashes with googleapis' Status
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("nimbase_client.Status"))


_STATUS = _status_message()
