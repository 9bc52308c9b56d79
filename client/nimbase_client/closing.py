"""`with` and `async with` for the clients, gRPC and REST alike: leaving the block closes the client (its
own `close`: a channel, or an HTTP connection pool)."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A blocking client as a context manager."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncClosing:
    """An asyncio client as an async context manager."""

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
