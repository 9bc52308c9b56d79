"""Lights Out's own settings: the byte budgets of the two keepers it uses (engine.keep), declared here
and nowhere else (`SETTINGS`, in its registry entry)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration


@dataclass(frozen=True, slots=True)
class LightsOutSettings:
    """lights-out's own settings (`SETTINGS`: NIMBASE_CACHE_LIGHTS_OUT_<FIELD>)."""

    elimination_bytes: PositiveInt = 128 << 20
    """Bytes of eliminations kept whole in the process (`ELIMINATIONS`: one per shape, the flip sets,
    the chase and the null basis; a 256 x 256 board's is about 10 MB)."""
    stats_bytes: PositiveInt = 16 << 20
    """Bytes of shape statistics kept whole in the process (`STATISTICS`: GetStats' rank, nullity and
    distance counts), each counted as its JSON text."""


#: The keeper of eliminations, by shape (`stored.solver_of`); its budget is `elimination_bytes`.
ELIMINATIONS = KeeperSpec(LightsOutSettings, "elimination_bytes")
#: The keeper of stored statistics, by shape (`stored.stored_stats`); its budget is `stats_bytes`.
STATISTICS = KeeperSpec(LightsOutSettings, "stats_bytes")
#: What the registry entry declares (NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES,
#: NIMBASE_CACHE_LIGHTS_OUT_STATS_BYTES).
SETTINGS = SettingsDeclaration("lights_out", LightsOutSettings, keepers=(ELIMINATIONS, STATISTICS))
