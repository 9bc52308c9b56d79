"""nimbase.settings: the one reading of the environment, its defaults, overrides and refusals."""

from __future__ import annotations

import re
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from engine.kind_settings import KindSettings
from engine.registry import declared_settings, kind_settings
from kinds.bicolor.kind import BicolorSettings
from kinds.chess.kind import ChessSettings
from kinds.graphs.kind import GraphSettings
from kinds.lights_out.settings import LightsOutSettings
from nimbase.settings import (
    DEFAULT_AUTO,
    DEFAULT_CACHE,
    DEFAULT_LIMITS,
    DEFAULT_WORKER,
    AutoJobSettings,
    CacheSettings,
    InvalidSetting,
    Limits,
    Settings,
    WorkerSettings,
)
from storage.packing import CHUNK_VALUES

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No nimbase variable from the surroundings leaks into a test."""
    import os

    for name in list(os.environ):
        if name.upper().startswith("NIMBASE_") or name.upper() == "DATABASE_URL":
            monkeypatch.delenv(name)


def test_defaults() -> None:
    settings = Settings.from_env()
    assert settings.database_url is None
    assert (settings.host, settings.grpc_port, settings.http_port) == ("0.0.0.0", 50051, 8080)
    assert settings.admin_token is None
    assert settings.log_level == "INFO"
    assert settings.worker == DEFAULT_WORKER == WorkerSettings()
    assert settings.limits == DEFAULT_LIMITS == Limits()
    assert settings.auto == DEFAULT_AUTO == AutoJobSettings()
    assert settings == Settings()


def test_automatic_job_defaults() -> None:
    assert (DEFAULT_AUTO.jobs, DEFAULT_AUTO.values, DEFAULT_AUTO.seconds) == (4, 1 << 24, 600.0)


def test_the_single_deadline_cap_and_batch_size() -> None:
    assert DEFAULT_LIMITS.request_seconds == 10.0
    assert DEFAULT_LIMITS.batch_positions == 10_000


def test_worker_defaults() -> None:
    assert (DEFAULT_WORKER.lease_seconds, DEFAULT_WORKER.poll_seconds, DEFAULT_WORKER.id) == (15.0, 1.0, None)
    assert DEFAULT_WORKER.step == 16 * CHUNK_VALUES


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="XDG layout")
def test_var_dir_defaults_to_the_user_data_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert Settings.from_env().var_dir == tmp_path / "data" / "nimbase"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings.from_env().var_dir == tmp_path / ".local" / "share" / "nimbase"
    monkeypatch.setenv("NIMBASE_VAR_DIR", "var")
    assert Settings.from_env().var_dir == Path("var")


def test_every_variable_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "DATABASE_URL": " postgresql://u:p@db:5432/nimbase ",
        "NIMBASE_VAR_DIR": "/srv/nimbase",
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": "50052",
        "NIMBASE_HTTP_PORT": "0",
        "NIMBASE_ADMIN_TOKEN": "s3cret",
        "NIMBASE_LOG_LEVEL": "debug",
        "NIMBASE_WORKER_LEASE_SECONDS": "2.5",
        "NIMBASE_WORKER_POLL_SECONDS": "0",
        "NIMBASE_WORKER_STEP": "4096",
        "NIMBASE_WORKER_ID": "w-1",
        "NIMBASE_LIMITS_BATCH_POSITIONS": "500",
        "NIMBASE_LIMITS_REQUEST_SECONDS": "2.5",
        "NIMBASE_AUTO_JOBS": "2",
        "NIMBASE_AUTO_VALUES": "65536",
        "NIMBASE_AUTO_SECONDS": "30.5",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_env()
    assert settings.database_url == "postgresql://u:p@db:5432/nimbase"
    assert settings.var_dir == Path("/srv/nimbase")
    assert (settings.host, settings.grpc_port, settings.http_port) == ("127.0.0.1", 50052, 0)
    assert (settings.admin_token, settings.log_level) == ("s3cret", "DEBUG")
    assert settings.worker == WorkerSettings(lease_seconds=2.5, poll_seconds=0.0, step=4096, id="w-1")
    assert settings.limits == Limits(batch_positions=500, request_seconds=2.5)
    assert settings.auto == AutoJobSettings(jobs=2, values=65536, seconds=30.5)


def test_cache_budgets_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env().cache == DEFAULT_CACHE == CacheSettings()
    assert (DEFAULT_CACHE.live_bytes, DEFAULT_CACHE.chunk_bytes, DEFAULT_CACHE.memo_bytes) == (
        50 << 20,
        64 * CHUNK_VALUES * 4,
        20 << 20,
    )
    monkeypatch.setenv("NIMBASE_CACHE_LIVE_BYTES", "1024")
    monkeypatch.setenv("NIMBASE_CACHE_MEMO_BYTES", "2048")
    assert Settings.from_env().cache == CacheSettings(live_bytes=1024, memo_bytes=2048)
    monkeypatch.setenv("NIMBASE_CACHE_CHUNK_BYTES", "0")
    with pytest.raises(InvalidSetting, match=r"NIMBASE_CACHE_CHUNK_BYTES='0' .*greater than 0"):
        Settings.from_env()


@pytest.mark.parametrize("value", ["0", "7"])
def test_automatic_jobs_may_be_turned_off_or_raised(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("NIMBASE_AUTO_JOBS", value)
    assert Settings.from_env().auto == AutoJobSettings(jobs=int(value))


def test_every_limit_has_a_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for field in fields(Limits):
        monkeypatch.setenv(f"NIMBASE_LIMITS_{field.name.upper()}", "7")
    assert all(getattr(Settings.from_env().limits, f.name) == 7 for f in fields(Limits))


def test_empty_means_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DATABASE_URL",
        "NIMBASE_GRPC_PORT",
        "NIMBASE_HOST",
        "NIMBASE_ADMIN_TOKEN",
        "NIMBASE_WORKER_ID",
    ):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("NIMBASE_WORKER_STEP", "")
    settings = Settings.from_env()
    assert (settings.database_url, settings.admin_token, settings.worker.id) == (None, None, None)
    assert (settings.grpc_port, settings.host, settings.worker.step) == (
        50051,
        "0.0.0.0",
        DEFAULT_WORKER.step,
    )
    monkeypatch.setenv("NIMBASE_ADMIN_TOKEN", "   ")
    assert Settings.from_env().admin_token is None


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("NIMBASE_GRPC_PORT", "http", "is not a port number (0..65535)"),
        ("NIMBASE_HTTP_PORT", "65536", "is not a port number (0..65535)"),
        ("NIMBASE_GRPC_PORT", "-1", "is not a port number (0..65535)"),
        ("NIMBASE_LOG_LEVEL", "loud", "is not a log level"),
        ("NIMBASE_HOST", "  ", "is not an address to bind"),
        ("NIMBASE_WORKER_LEASE_SECONDS", "0", "greater than 0"),
        ("NIMBASE_WORKER_POLL_SECONDS", "-1", "greater than or equal to 0"),
        ("NIMBASE_WORKER_STEP", "lots", "valid integer"),
        ("NIMBASE_LIMITS_BATCH_POSITIONS", "0", "greater than 0"),
        ("NIMBASE_LIMITS_REQUEST_SECONDS", "soon", "valid number"),
        ("NIMBASE_LIMITS_BATCH", "5", "is not a nimbase setting (known: NIMBASE_LIMITS_LIVE_VALUES"),
        ("NIMBASE_WORKER_LEASE", "5", "is not a nimbase setting (known: NIMBASE_WORKER_LEASE_SECONDS"),
        ("NIMBASE_AUTO_JOBS", "-1", "greater than or equal to 0"),
        ("NIMBASE_AUTO_JOBS", "some", "valid integer"),
        ("NIMBASE_AUTO_VALUES", "0", "greater than 0"),
        ("NIMBASE_AUTO_SECONDS", "0", "greater than 0"),
        ("NIMBASE_AUTO_SECONDS", "inf", "finite number"),
        # a kind's own settings: refused once the kinds are known (engine.registry.kind_settings)
        ("NIMBASE_LIMITS_CHESS_LIVE_MEN", "0", "greater than 0"),
        ("NIMBASE_LIMITS_CHESS_LIVE_MEN", "many", "valid integer"),
        ("NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES", "-1", "greater than 0"),
        ("NIMBASE_LIMITS_BICOLOR_LIVE_BOX_BYTES", "1.5", "valid integer"),
        ("NIMBASE_CACHE_CHESS_TABLES", "5", "is not a nimbase setting (known: NIMBASE_CACHE_LIVE_BYTES"),
        (
            "NIMBASE_AUTO_JOB",
            "3",
            "is not a nimbase setting (known: NIMBASE_AUTO_JOBS, NIMBASE_AUTO_VALUES, NIMBASE_AUTO_SECONDS, "
            "NIMBASE_AUTO_CLIENT_JOBS)",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidSetting) as info:
        start_up()
    message = str(info.value)
    assert f"{name}={value!r}" in message
    assert reason in message


def start_up() -> KindSettings:
    """What a process does at start-up: the settings read, then each kind's own from their variables."""
    return kind_settings(Settings.from_env().kind_variables)


def test_a_misspelt_group_variable_names_the_kinds_variables_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_LIMITS_CHESS_LIVE", "2")
    with pytest.raises(InvalidSetting) as info:
        start_up()
    assert "NIMBASE_LIMITS_CHESS_LIVE='2' is not a nimbase setting (known: NIMBASE_LIMITS_LIVE_VALUES" in str(
        info.value
    )
    assert "NIMBASE_LIMITS_CHESS_LIVE_MEN" in str(info.value)


def test_each_kind_reads_its_own_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables that existed before kinds declared their own settings keep their names."""
    assert start_up().of(ChessSettings) == ChessSettings() == ChessSettings(live_men=3, table_bytes=2 << 30)
    env = {
        "NIMBASE_LIMITS_CHESS_LIVE_MEN": "2",
        "NIMBASE_CACHE_CHESS_TABLE_BYTES": "1000",
        "NIMBASE_LIMITS_BICOLOR_LIVE_BOX_BYTES": "4096",
        "NIMBASE_LIMITS_GRAPH_LIVE_EDGES": "10",
        "NIMBASE_CACHE_GRAPH_SOLUTION_BYTES": "2000",
        "NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES": "3000",
        "nimbase_cache_lights_out_stats_bytes": "4000",  # any case, as every other variable
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_env()
    assert settings.limits == DEFAULT_LIMITS and settings.cache == DEFAULT_CACHE
    kinds = kind_settings(settings.kind_variables)
    assert kinds.of(ChessSettings) == ChessSettings(live_men=2, table_bytes=1000)
    assert kinds.of(BicolorSettings) == BicolorSettings(live_box_bytes=4096)
    assert kinds.of(GraphSettings) == GraphSettings(live_edges=10, solution_bytes=2000)
    assert kinds.of(LightsOutSettings) == LightsOutSettings(elimination_bytes=3000, stats_bytes=4000)


def test_every_bad_variable_is_reported_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_GRPC_PORT", "x")
    monkeypatch.setenv("NIMBASE_WORKER_STEP", "y")
    with pytest.raises(InvalidSetting, match=r"NIMBASE_GRPC_PORT='x'.*; .*NIMBASE_WORKER_STEP='y'"):
        Settings.from_env()


def test_invalid_setting_is_a_value_error() -> None:
    assert issubclass(InvalidSetting, ValueError)


def test_constructing_settings_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_GRPC_PORT", "1")
    monkeypatch.setenv("NIMBASE_LIMITS_BATCH_POSITIONS", "1")
    assert Settings().grpc_port == 50051 and Settings().limits == DEFAULT_LIMITS
    assert Settings(database_url="postgresql://h/db", grpc_port=2).grpc_port == 2


def test_secrets_stay_out_of_the_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_ADMIN_TOKEN", "s3cret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:pa55@h/db")
    text = repr(Settings.from_env())
    assert "s3cret" not in text and "pa55" not in text


def test_the_service_uses_the_same_settings() -> None:
    import service.limits
    import service.settings

    assert service.settings.Settings is Settings
    assert service.limits.Limits is Limits and service.limits.DEFAULT_LIMITS is DEFAULT_LIMITS


READS = re.compile(r"os\.environ\.get\(|os\.getenv\(|getenv\(|os\.environ\[[^\]]+\](?!\s*=)")


def test_only_the_settings_module_reads_the_environment() -> None:
    """Child processes may be handed a copy of the environment; nothing else reads a variable."""
    offenders = []
    for folder in ("nimbase", "service", "worker", "storage", "kinds", "bench", "migrations"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if path == REPO / "nimbase" / "settings.py" or "_pb2" in path.name:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if READS.search(line):
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


def test_every_kind_setting_is_in_the_readme_with_its_default() -> None:
    """The README lists each kind's own variables by hand: checked against the kinds' declarations."""
    readme = (REPO / "README.md").read_text()
    declared = [(d, f) for d in declared_settings() for f in fields(d.settings)]
    assert len(declared) >= 7
    for declaration, field in declared:
        assert f"| `{declaration.variable(field.name)}` | `{field.default}`" in readme


def test_every_group_setting_is_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    groups: dict[str, type[Limits | WorkerSettings | AutoJobSettings | CacheSettings]] = {
        "worker": WorkerSettings,
        "limits": Limits,
        "auto": AutoJobSettings,
        "cache": CacheSettings,
    }
    for group, settings in groups.items():
        for field in fields(settings):
            assert f"| `NIMBASE_{group.upper()}_{field.name.upper()}` |" in readme
