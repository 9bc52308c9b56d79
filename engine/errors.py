"""Exceptions raised by the engine; each maps to exactly one public error code.

The messages quote the offending input, because the caller is usually a program whose author needs
to see which part of a large request was wrong.
"""

from __future__ import annotations


class NimbaseError(Exception):
    """Base of every error that reaches a user with a public error code."""

    code: str = "INTERNAL"


class InvalidGameId(NimbaseError):
    """A game id that does not parse (INVALID_ARGUMENT)."""

    code = "INVALID_ARGUMENT"


class InvalidPosition(NimbaseError):
    """A position that does not parse or is out of range for its game (INVALID_ARGUMENT)."""

    code = "INVALID_ARGUMENT"


class InvalidArgument(NimbaseError):
    """Any other malformed request field, such as a negative `limit` (INVALID_ARGUMENT)."""

    code = "INVALID_ARGUMENT"


class UnknownGame(NimbaseError):
    """A well-formed game id naming no supported family (NOT_FOUND)."""

    code = "NOT_FOUND"


class UnknownFamily(NimbaseError):
    """A sequence family the game does not have (NOT_FOUND)."""

    code = "NOT_FOUND"


class NotApplicable(NimbaseError):
    """A query that makes no sense for this game (FAILED_PRECONDITION)."""

    code = "FAILED_PRECONDITION"


class LimitExceeded(NimbaseError):
    """The answer would need more live computation than the limits allow (RESOURCE_EXHAUSTED)."""

    code = "RESOURCE_EXHAUSTED"


class DeadlineExceeded(NimbaseError):
    """Live computation ran past the request's deadline (DEADLINE_EXCEEDED)."""

    code = "DEADLINE_EXCEEDED"


class Cancelled(DeadlineExceeded):
    """The client cancelled the call or closed the connection, so the work was stopped.

    The contract has no code of its own for it: nobody is left to read the answer, and a caller that
    is still there (a proxy) sees that the request ended before its deadline (DEADLINE_EXCEEDED).
    """
