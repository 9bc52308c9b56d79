"""Binding a TCP port: one home for the server, which listens on it, and the process supervisor, which
reserves it for its children (below both, so neither imports the other for it)."""

from __future__ import annotations

import socket


def bind_port(host: str, port: int, what: str, reuse_port: bool = False) -> socket.socket:
    """A TCP socket bound to `port` (0: a free one), not listening yet; with `reuse_port` other processes
    may bind it too. A port that cannot be bound raises OSError naming `what` and the address."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted sockets whose protocol says TCP,
    # and without it every small response waits for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:  # several processes listen on the port; the kernel spreads connections over them
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot bind {what} {host}:{port}: {exc.strerror}") from exc
    return sock
