"""Errors the service layer adds to the engine's: authentication, availability, missing records."""

from __future__ import annotations

from engine.errors import NimbaseError


class NotFound(NimbaseError):
    """An unknown job (NOT_FOUND)."""

    code = "NOT_FOUND"


class Unauthenticated(NimbaseError):
    """No admin token was sent (UNAUTHENTICATED)."""

    code = "UNAUTHENTICATED"


class PermissionDenied(NimbaseError):
    """A wrong admin token, or job submission disabled because none is configured (PERMISSION_DENIED)."""

    code = "PERMISSION_DENIED"


class Unavailable(NimbaseError):
    """The database is needed for this answer and cannot be reached (UNAVAILABLE)."""

    code = "UNAVAILABLE"
