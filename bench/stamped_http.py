"""A keep-alive HTTP/1.1 client on one socket that notes when each answer reached this machine's kernel.

On a machine shared by the server and its load, a client's own clock also counts the time its thread
waits for a core after the answer has arrived. The kernel stamps each segment it receives
(SO_TIMESTAMPNS); the stamp of an answer's last segment is when the server's answer was here, whatever
the client's thread did next. The hostile bench (bench.bench_isolation) keeps both times for each
expensive request. Only what its server sends is supported: answers with a Content-Length.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

#: Ancillary buffer of one SO_TIMESTAMPNS stamp (a timespec: two 64-bit fields).
_STAMP = struct.Struct("qq")
#: Linux's SO_TIMESTAMPNS, which Python's socket module does not name.
SO_TIMESTAMPNS = 35


class StampedHttpError(Exception):
    """The connection failed or the answer was not one this client reads."""


@dataclass(frozen=True, slots=True)
class StampedAnswer:
    status: int
    headers: dict[str, str]
    body: bytes
    #: Wall-clock time just before the request's bytes were handed to the kernel.
    sent: float
    #: Wall-clock time the kernel received the answer's last segment.
    arrived: float
    #: Wall-clock time this client had read the whole answer.
    read: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class StampedConnection:
    """One keep-alive connection to `base` (http://host:port), reconnected when the server closes it."""

    def __init__(self, base: str, timeout: float = 60.0) -> None:
        parts = urlsplit(base)
        self._address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._host = parts.netloc
        self._timeout = timeout
        self._sock: socket.socket | None = None

    def __enter__(self) -> StampedConnection:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _connected(self) -> socket.socket:
        if self._sock is None:
            sock = socket.create_connection(self._address, timeout=self._timeout)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sock = sock
        return self._sock

    def get(self, path: str, params: dict[str, str | int], headers: dict[str, str]) -> StampedAnswer:
        return self.request("GET", f"{path}?{urlencode(params)}", headers, None)

    def post_json(self, path: str, body: object, headers: dict[str, str]) -> StampedAnswer:
        return self.request("POST", path, {**headers, "content-type": "application/json"}, json.dumps(body))

    def request(self, method: str, target: str, headers: dict[str, str], body: str | None) -> StampedAnswer:
        payload = b"" if body is None else body.encode()
        head = [f"{method} {target} HTTP/1.1", f"host: {self._host}", f"content-length: {len(payload)}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        try:
            sock = self._connected()
            sent = time.time()
            sock.sendall(message)
            return self._answer(sock, sent)
        except (OSError, ValueError) as exc:
            self.close()
            raise StampedHttpError(f"{type(exc).__name__}: {exc}") from exc

    def _answer(self, sock: socket.socket, sent: float) -> StampedAnswer:
        data = b""
        arrived = 0.0
        length: int | None = None
        end, status = -1, 0
        headers: dict[str, str] = {}
        while length is None or len(data) < end + 4 + length:
            chunk, ancillary, _flags, _address = sock.recvmsg(1 << 16, socket.CMSG_SPACE(_STAMP.size))
            if not chunk:
                raise StampedHttpError("the server closed the connection before its whole answer")
            data += chunk
            for level, kind, stamp in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = _STAMP.unpack(stamp[: _STAMP.size])
                    arrived = seconds + nanoseconds / 1e9
            if length is None and (end := data.find(b"\r\n\r\n")) >= 0:
                status, headers = _head(data[:end])
                if "content-length" not in headers:
                    raise StampedHttpError(f"an answer without a Content-Length (status {status})")
                length = int(headers["content-length"])
        read = time.time()
        body = data[end + 4 : end + 4 + length]
        if headers.get("connection", "").lower() == "close":
            self.close()
        return StampedAnswer(status, headers, body, sent, arrived or read, read)


def _head(raw: bytes) -> tuple[int, dict[str, str]]:
    """The status and the headers (names in lower case) of an answer's head."""
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers
