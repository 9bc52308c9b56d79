"""A TCP proxy in front of PostgreSQL, so a test can cut the database off and bring it back."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import parse_qs, urlsplit


def database_address(url: str) -> tuple[str, str | int]:
    """('unix', socket path) or (host, port) of the server a SQLAlchemy URL names."""
    parts = urlsplit(url)
    host = parse_qs(parts.query).get("host", [parts.hostname or "localhost"])[0]
    port = parts.port or 5432
    if host.startswith("/"):
        return "unix", f"{host}/.s.PGSQL.{port}"
    return host, port


def with_address(url: str, host: str, port: int) -> str:
    """The same URL (user, password, database) pointed at host:port over TCP."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("host="))
    return f"{parts.scheme}://{userinfo}{host}:{port}{parts.path}" + (f"?{query}" if query else "")


class DatabaseProxy:
    """Forwards 127.0.0.1:<port> to the database; `cut()` drops every connection and refuses new ones."""

    def __init__(self, url: str) -> None:
        self._target = database_address(url)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port: int = self._listener.getsockname()[1]
        self.url = with_address(url, "127.0.0.1", self.port)
        self._open = True
        self._closed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _connect(self) -> socket.socket:
        host, where = self._target
        if host == "unix":
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(str(where))
        else:
            upstream = socket.create_connection((host, int(where)))
        return upstream

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._open:
                client.close()
                continue
            try:
                upstream = self._connect()
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """The database becomes unreachable: open connections die, new ones are refused."""
        self._open = False
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self._sockets.clear()

    def restore(self) -> None:
        self._open = True

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()
