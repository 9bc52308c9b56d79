"""Which client a request comes from (service.clients): a gRPC call's peer is read on the thread that set
it, never from the thread a call hops to (a servicer context read from another thread, its call ending
meanwhile, crashed a test process in grpc's core)."""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor

from service.clients import CLIENT, current_client, in_request_context


class RecordingPeer:
    """A servicer context's `peer()`, noting the threads that read it."""

    def __init__(self) -> None:
        self.read_by: list[int] = []

    def peer(self) -> str:
        self.read_by.append(threading.get_ident())
        return "ipv4:127.0.0.1:5000"


def test_the_peer_is_read_before_the_hop_and_the_thread_sees_its_address() -> None:
    peer = RecordingPeer()
    here = threading.get_ident()

    def answer() -> str | None:
        CLIENT.set(peer)
        hop = in_request_context(current_client)
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(hop).result()

    assert contextvars.copy_context().run(answer) == "127.0.0.1"
    assert peer.read_by == [here]


def test_an_address_or_no_client_goes_through_unchanged() -> None:
    def hop(value: str | None) -> str | None:
        CLIENT.set(value)
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(in_request_context(current_client)).result()

    assert contextvars.copy_context().run(hop, "10.0.0.7") == "10.0.0.7"
    assert contextvars.copy_context().run(hop, None) is None
