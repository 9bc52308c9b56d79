"""Errors the service layer adds to the engine's: authentication, availability, missing records."""

from __future__ import annotations

from engine.errors import NimbaseError


class NotFound(NimbaseError):
    """An unknown job or graph (NOT_FOUND)."""

    code = "NOT_FOUND"


class AlreadyExists(NimbaseError):
    """A name already taken: uploading a graph under the name of a stored one (ALREADY_EXISTS)."""

    code = "ALREADY_EXISTS"


class Unauthenticated(NimbaseError):
    """No admin token was sent (UNAUTHENTICATED)."""

    code = "UNAUTHENTICATED"


class PermissionDenied(NimbaseError):
    """A wrong admin token, or job submission disabled because none is configured (PERMISSION_DENIED)."""

    code = "PERMISSION_DENIED"


class Unavailable(NimbaseError):
    """The database is needed for this answer and cannot be reached (UNAVAILABLE)."""

    code = "UNAVAILABLE"


class BeyondTheWire(NimbaseError):
    """A value too large for the gRPC message's integer type (INVALID_ARGUMENT): REST's JSON integers
    carry it. Raised for the one answer (or batch slot, or stream item) that holds it, never the call."""

    code = "INVALID_ARGUMENT"
