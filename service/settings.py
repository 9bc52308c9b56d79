"""The service's view of the configuration: `Settings` is declared, and the environment read, in
`nimbase.settings` only; this module keeps the service's import path."""

from __future__ import annotations

from nimbase.settings import DEFAULT_LIMITS, InvalidSetting, Limits, Settings

__all__ = ["DEFAULT_LIMITS", "InvalidSetting", "Limits", "Settings"]
