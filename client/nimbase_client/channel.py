"""How the clients open their gRPC channel: message sizes, retries, TLS and credentials.

Retries are gRPC's own (the `retryPolicy` of the channel's service config): the read RPCs, which are
idempotent, are tried again on UNAVAILABLE (the server restarting, unreachable for a moment, or its
database down) with exponential backoff, all within the call's deadline (GetGraph, a stream of answers,
only until its first answer arrives); SubmitJob, CancelJob, UploadGraph and the other streams never
are. Retry throttling stops retrying while most calls fail, so a client never multiplies the load on a
server that is struggling.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

#: The gRPC service every call goes to.
SERVICE = "nimbase.v1.Nimbase"
#: Largest message the client sends or receives (the server accepts requests up to 16 MiB).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: The idempotent RPCs, retried on UNAVAILABLE.
READ_METHODS = (
    "ListGames",
    "GetValue",
    "BestMove",
    "Mainline",
    "IsPPosition",
    "BatchGetValues",
    "ColumnarValues",
    "GetSequence",
    "GetStats",
    "GetJob",
    "ListJobs",
    "GetGraph",
)
#: Attempts of a read call (the first one included; gRPC allows at most 5). 1 turns retries off.
DEFAULT_ATTEMPTS = 4
#: Seconds each call may take, over gRPC (its deadline) and REST alike; the server caps it at its own
#: limit (10 s by default).
DEFAULT_TIMEOUT = 30.0


def service_config(attempts: int = DEFAULT_ATTEMPTS) -> str:
    """The service config (JSON) retrying the read RPCs on UNAVAILABLE, `attempts` times in all."""
    if not 1 <= attempts <= 5:
        raise ValueError(f"attempts must be between 1 and 5 (gRPC's most), not {attempts}")
    # Each failed call takes a token and each success gives a tenth back; below half of them, no call is
    # retried.
    config: dict[str, Any] = {"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}
    if attempts > 1:
        policy = {
            "maxAttempts": attempts,
            "initialBackoff": "0.1s",
            "maxBackoff": "2s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE"],
        }
        names = [{"service": SERVICE, "method": method} for method in READ_METHODS]
        config["methodConfig"] = [{"name": names, "retryPolicy": policy}]
    return json.dumps(config)


@dataclass(frozen=True, slots=True)
class ChannelSettings:
    """Everything about the channel but its target.

    `tls` (or `root_certificates`, PEM bytes of the CAs to trust instead of the system's, or
    `call_credentials`, which gRPC sends over TLS only) makes it a TLS channel. `attempts` is how often a
    read call is tried on UNAVAILABLE; `options` adds raw gRPC channel options.
    """

    tls: bool = False
    root_certificates: bytes | None = None
    call_credentials: grpc.CallCredentials | None = None
    attempts: int = DEFAULT_ATTEMPTS
    options: Sequence[tuple[str, Any]] = ()

    @property
    def secure(self) -> bool:
        return self.tls or self.root_certificates is not None or self.call_credentials is not None

    def channel_options(self) -> list[tuple[str, Any]]:
        return [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.enable_retries", 1),
            ("grpc.service_config", service_config(self.attempts)),
            *self.options,
        ]

    def credentials(self) -> grpc.ChannelCredentials:
        credentials = grpc.ssl_channel_credentials(root_certificates=self.root_certificates)
        if self.call_credentials is not None:
            credentials = grpc.composite_channel_credentials(credentials, self.call_credentials)
        return credentials

    def channel(self, target: str) -> grpc.Channel:
        if self.secure:
            return grpc.secure_channel(target, self.credentials(), options=self.channel_options())
        return grpc.insecure_channel(target, options=self.channel_options())

    def aio_channel(self, target: str) -> grpc.aio.Channel:
        if self.secure:
            return grpc.aio.secure_channel(target, self.credentials(), options=self.channel_options())
        return grpc.aio.insecure_channel(target, options=self.channel_options())
