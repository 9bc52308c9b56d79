"""What a kind reads from outside the process (files the user owns), opened for it outside engine/.

engine/ does no I/O, so a kind that answers from the user's files (chess from Syzygy files) declares them
and is handed them opened:
- the kind declares a `ResourceSpec` in its settings declaration (`SettingsDeclaration.resources`): the
  field of its settings giving where they are (a path, NIMBASE_SYZYGY_PATH), and, as the spec's type
  parameter, the interface it reads them through (a Protocol of its own);
- the kind's package outside engine/ opens them (its plugin's `openers`, service.kind_plugins), once, at
  start-up; files that do not open are a `ResourceError` naming them, which stops the start-up as an
  InvalidSetting naming the variable;
- the service lends what was opened to every request: `ctx.resources.of(SPEC)`, None where the setting
  is unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

R = TypeVar("R")


class ResourceError(ValueError):
    """Files a setting names that do not open (an opener's error: each file named with why)."""


@dataclass(frozen=True, slots=True)
class ResourceSpec(Generic[R]):
    """Files a kind reads, found where one field of its settings says; `R` is what the kind reads them as."""

    #: The kind's settings dataclass (its `SettingsDeclaration.settings`).
    settings: type[Any]
    #: The field holding the path (None or blank: no files).
    field: str


class Resources:
    """What was opened for the kinds, by spec, lent to every request as `Context.resources`."""

    __slots__ = ("_opened",)

    def __init__(self, opened: Mapping[ResourceSpec[Any], object] | None = None) -> None:
        self._opened: dict[ResourceSpec[Any], object] = dict(opened or {})

    def of(self, spec: ResourceSpec[R]) -> R | None:
        """What was opened for `spec`, or None where its setting is unset."""
        return cast("R | None", self._opened.get(spec))

    def close(self) -> None:
        """Close every opened resource that can be closed."""
        for opened in self._opened.values():
            close = getattr(opened, "close", None)
            if callable(close):
                close()
        self._opened.clear()
