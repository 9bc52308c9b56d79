"""Each kind's own settings: declared by the kind, read by the registry, lent to each request.

A kind with settings of its own (a bound on its live work, the byte budget of a keeper it uses) declares
them in its own module as one frozen dataclass, a default and a docstring under each field, and names it
in its registry entry (`Family.settings`, a `SettingsDeclaration`). Nothing else names them:
- each field is an environment variable, NIMBASE_LIMITS_<PREFIX>_<FIELD>, or NIMBASE_CACHE_<PREFIX>_<FIELD>
  for the budget of a keeper the kind declares (`KeeperSpec`);
- nimbase.settings reads their text without knowing them (`Settings.kind_variables`), and the registry
  validates it into each kind's dataclass (`KindSettings.read`: a bad value, or a variable no kind
  declares, is an InvalidSetting naming it);
- a request lends them as `Context.settings_for(ChessSettings)`, and a keeper is made on first use with
  the budget its field gives (`Keepers.keeper`);
- a field naming files the kind reads (a path) is declared a `ResourceSpec` (engine.kind_resources): the
  files are opened outside engine/ at start-up and lent as `Context.resources`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any, TypeVar, cast

from annotated_types import Gt

from engine.kind_resources import ResourceSpec
from nimbase.settings import InvalidSetting, read_declared, refuse_unknown, variable_name

#: The type of a setting that must be positive (a count, a budget in bytes).
PositiveInt = Annotated[int, Gt(0)]

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class KeeperSpec:
    """A keeper a kind uses (engine.keep), named by the field of its settings that holds its byte budget:
    its default and its docstring are that field's, its variable NIMBASE_CACHE_<PREFIX>_<FIELD>."""

    settings: type[Any]
    budget: str

    def budget_of(self, given: KindSettings) -> int:
        """The byte budget `given` settings give this keeper."""
        return int(getattr(given.of(self.settings), self.budget))


@dataclass(frozen=True, slots=True)
class SettingsDeclaration:
    """A kind's own settings as its registry entry declares them."""

    #: What its variables are named by: "chess" -> NIMBASE_LIMITS_CHESS_LIVE_MEN.
    prefix: str
    #: The frozen dataclass of its fields, each with a default (`KindSettings.of` makes it with none).
    settings: type[Any]
    #: The keepers it uses; their budgets are NIMBASE_CACHE_<PREFIX>_<FIELD>, its other fields
    #: NIMBASE_LIMITS_<PREFIX>_<FIELD>.
    keepers: tuple[KeeperSpec, ...] = ()
    #: (field, variable) of fields named on their own rather than in a group (NIMBASE_SYZYGY_PATH; each
    #: listed in nimbase.settings' `NAMED_KIND_VARIABLES`, which reads it).
    named: tuple[tuple[str, str], ...] = ()
    #: The files its fields name that the kind reads, opened for it outside engine/ (engine.kind_resources).
    resources: tuple[ResourceSpec[Any], ...] = ()

    def variable(self, field: str) -> str:
        """The environment variable of one of its fields."""
        for name, variable in self.named:
            if name == field:
                return variable
        group = "cache" if any(keeper.budget == field for keeper in self.keepers) else "limits"
        return variable_name((group, f"{self.prefix}_{field}"))

    def variables(self) -> dict[str, str]:
        """Field -> its environment variable, for every field of its settings."""
        return {f.name: self.variable(f.name) for f in fields(self.settings)}


class KindSettings:
    """Each kind's settings by their class, as configured; a class not configured has its defaults."""

    __slots__ = ("_given",)

    def __init__(self, given: Iterable[object] = ()) -> None:
        self._given: dict[type[Any], object] = {type(settings): settings for settings in given}

    def of(self, cls: type[S]) -> S:
        """The settings of class `cls`: as configured, else its defaults."""
        found = self._given.get(cls)
        return cls() if found is None else cast(S, found)

    @classmethod
    def read(cls, declarations: Iterable[SettingsDeclaration], values: Mapping[str, str]) -> KindSettings:
        """Every declared kind's settings from the text of their variables (`Settings.kind_variables`);
        InvalidSetting naming every bad value and every variable no kind declares."""
        declared = list(declarations)
        problems: list[str] = []
        try:
            refuse_unknown(values, {name for d in declared for name in d.variables().values()})
        except InvalidSetting as error:
            problems.append(str(error))
        given: list[object] = []
        for declaration in declared:
            try:
                given.append(read_declared(declaration.settings, declaration.variables(), values))
            except InvalidSetting as error:
                problems.append(str(error))
        if problems:
            raise InvalidSetting("; ".join(problems))
        return cls(given)
