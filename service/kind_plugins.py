"""The parts of a kind that live outside engine/ (its own REST routes, the opening of the user's files),
found by the name its registry entry gives.

A kind is one package inside engine/ (rules, records, settings, what it keeps) and, where it speaks a
transport of its own or reads the user's files, one package outside it: engine/ does no I/O and knows no
transport. The kind's registry entry names that package as a string (`Family.plugin`, a package under
kinds/), as entry points name objects; the package declares `PLUGIN`, a `KindPlugin`. The service loads
every named plugin here, once, and uses what each declares without knowing which kind it is:
- `routes`: an APIRouter factory; the REST app mounts its routes beside its own (service.rest.app), in the
  OpenAPI document like the others unless a route says `include_in_schema=False`. Like every route, they
  read the service layer from the request (service.rest.context.service_of);
- `openers`: for each `ResourceSpec` the kind's settings declare (engine.kind_resources), what opens the
  files its setting names. `open_resources` opens every one whose setting is set, at start-up (the
  service layer's, and `nimbase serve`'s check before anything starts): files that do not open stop it,
  an InvalidSetting naming the variable and each file.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.kind_resources import ResourceError, Resources, ResourceSpec
from engine.kind_settings import KindSettings
from engine.registry import FAMILIES, declared_settings
from nimbase.settings import InvalidSetting

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
    #: What opens each of the kind's resources from its setting's path (ResourceError naming what fails).
    openers: Mapping[ResourceSpec[Any], Callable[[str], object]] = field(default_factory=dict)


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


def open_resources(given: KindSettings) -> Resources:
    """Every resource the kinds declare whose setting `given` sets, opened by its kind's plugin
    (InvalidSetting naming each variable whose files do not open, and why; none is left open then)."""
    openers = {spec: opener for plugin in kind_plugins() for spec, opener in plugin.openers.items()}
    opened: dict[ResourceSpec[Any], object] = {}
    problems: list[str] = []
    for declaration in declared_settings():
        for spec in declaration.resources:
            path = getattr(given.of(spec.settings), spec.field)
            if path is None:
                continue
            variable = declaration.variable(spec.field)
            opener = openers.get(spec)
            if opener is None:
                raise BrokenPlugin(f"no kind plugin opens the files {variable} names")
            try:
                opened[spec] = opener(str(path))
            except ResourceError as error:
                problems.append(f"{variable}: {error}")
    resources = Resources(opened)
    if problems:
        resources.close()
        raise InvalidSetting("; ".join(problems))
    return resources
