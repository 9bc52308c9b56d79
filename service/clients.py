"""Which client a request comes from, for the service layer: the peer's address, the identity the rate
limit counts (service.rate_limit), over both transports.

Each transport sets `CLIENT` where it knows the peer (service.client_peers: an ASGI middleware, a gRPC
interceptor) and the service reads it (`current_client`) without it being passed through every call:
automatic jobs are shared out per client (service.jobs). A live process also knows how long its call
waited for it (`WAITED`), so a refusal for time can tell that wait from a client's own short deadline.
A context variable follows the request into the thread that answers it only where the thread runs in a
copy of the request's context: starlette's run_in_threadpool makes one, `loop.run_in_executor` does
not (`in_request_context` does).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Peer(Protocol):
    """What names a gRPC call's client (its servicer context): `peer()`, e.g. `ipv4:127.0.0.1:5000`."""

    def peer(self) -> str: ...


#: The address of the client whose request is being answered; None outside a request (tests calling
#: the service directly, the command line). gRPC sets the call's context instead, whose peer is read
#: only if the service asks (most calls never do: a memory answer costs no peer lookup).
CLIENT: contextvars.ContextVar[str | Peer | None] = contextvars.ContextVar("nimbase_client", default=None)


#: Seconds the call being answered waited for a live process (set in that process, 0 elsewhere): time the
#: server took from its deadline, not a short deadline of the client's (service.isolation).
WAITED: contextvars.ContextVar[float] = contextvars.ContextVar("nimbase_waited", default=0.0)


#: When the request being answered reached the server (a time.monotonic(); None where no transport said):
#: set by a transport before the call leaves its event loop, so that what the request waits from then on
#: (the lanes' queues, reads, a busy live process) counts as waited (service.isolation), not as a short
#: deadline of the client's.
ARRIVED: contextvars.ContextVar[float | None] = contextvars.ContextVar("nimbase_arrived", default=None)


def current_client() -> str | None:
    """The client of the request being answered (None: no transport set one)."""
    client = CLIENT.get()
    if client is None or isinstance(client, str):
        return client
    return peer_address(client.peer())


def peer_address(peer: str) -> str:
    """The address of a gRPC peer (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`) as REST sees it."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].partition("]")[0]
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return peer


def in_request_context(call: Callable[[], T]) -> Callable[[], T]:
    """`call` bound to a copy of the current context, for a thread that would not otherwise see it (what
    `loop.run_in_executor` runs). A gRPC call's peer is read here, on the loop, first: its servicer context
    may not be read from another thread (grpc's core crashed the process so, a call ending meanwhile)."""
    client = CLIENT.get()
    if client is not None and not isinstance(client, str):
        CLIENT.set(peer_address(client.peer()))
    return functools.partial(contextvars.copy_context().run, call)
