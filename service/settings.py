"""Configuration from the environment, read once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from service.limits import DEFAULT_LIMITS, Limits


class InvalidSetting(ValueError):
    """An environment variable with a value the service cannot use."""


def _port(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None or text == "":
        return default
    try:
        port = int(text)
    except ValueError:
        raise InvalidSetting(f"{name}={text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise InvalidSetting(f"{name}={text!r} is not a port number (0..65535)")
    return port


@dataclass(frozen=True, slots=True)
class Settings:
    """What a `nimbase` process needs to know about its surroundings."""

    database_url: str | None = None
    grpc_port: int = 50051
    http_port: int = 8080
    host: str = "0.0.0.0"
    admin_token: str | None = None
    limits: Limits = field(default_factory=lambda: DEFAULT_LIMITS)

    @classmethod
    def from_env(cls) -> Settings:
        """DATABASE_URL, NIMBASE_GRPC_PORT, NIMBASE_HTTP_PORT, NIMBASE_HOST, NIMBASE_ADMIN_TOKEN."""
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            grpc_port=_port("NIMBASE_GRPC_PORT", 50051),
            http_port=_port("NIMBASE_HTTP_PORT", 8080),
            host=os.environ.get("NIMBASE_HOST") or "0.0.0.0",
            admin_token=os.environ.get("NIMBASE_ADMIN_TOKEN") or None,
        )
