"""The parts of a kind that live outside engine/: its own REST routes, found by the registry's name.

A kind is one package inside engine/ (rules, records, settings, what it keeps) and, where it speaks a
transport of its own, one package outside it: engine/ does no I/O and knows no transport. The kind's
registry entry names that package as a string (`Family.plugin`, e.g. "kinds.chess"), as entry points
name objects; the package declares `PLUGIN`, a `KindPlugin`. The service loads every named plugin here,
once, and uses what each declares without knowing which kind it is:
- `routes`: an APIRouter factory; the REST app mounts its routes beside its own (service.rest.app), in the
  OpenAPI document like the others unless a route says `include_in_schema=False`. Like every route, they
  read the service layer from the request (service.rest.context.service_of).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.games.registry import FAMILIES

if TYPE_CHECKING:
    from fastapi import APIRouter


class BrokenPlugin(RuntimeError):
    """A kind's plugin module that does not import or declares no `PLUGIN` (a fault of the code, not of
    the configuration: it stops the start-up)."""


@dataclass(frozen=True, slots=True)
class KindPlugin:
    """What a kind declares outside engine/ (see the module docstring)."""

    #: Gives the router of the kind's own REST routes, if it has any (service.rest.app mounts them).
    routes: Callable[[], APIRouter] | None = None


@functools.cache
def kind_plugins() -> tuple[KindPlugin, ...]:
    """The plugin of every family whose registry entry names one, in ListGames order (each once)."""
    found: list[KindPlugin] = []
    for name in dict.fromkeys(f.plugin for f in FAMILIES.values() if f.plugin is not None):
        try:
            plugin = importlib.import_module(name).PLUGIN
        except (ImportError, AttributeError) as error:
            raise BrokenPlugin(f"kind plugin {name!r} does not load: {error}") from error
        if not isinstance(plugin, KindPlugin):
            raise BrokenPlugin(f"kind plugin {name!r}: PLUGIN is a {type(plugin).__name__}, not a KindPlugin")
        found.append(plugin)
    return tuple(found)
