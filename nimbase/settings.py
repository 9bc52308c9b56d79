"""Every setting of a nimbase process: the one place the environment is read, and the one home of each
default and each request limit.

`Settings.from_env()` reads the environment once, at start-up (pydantic-settings does the reading);
everything else is given the `Settings`, or the part of it it needs, as a parameter. A value nimbase
cannot use raises `InvalidSetting`, whose message names the variable and quotes its value.

| variable                 | field                               |
|--------------------------|-------------------------------------|
| `DATABASE_URL`           | `database_url`                      |
| `NIMBASE_VAR_DIR`        | `var_dir`                           |
| `NIMBASE_HOST`           | `host`                              |
| `NIMBASE_GRPC_PORT`      | `grpc_port`                         |
| `NIMBASE_HTTP_PORT`      | `http_port`                         |
| `NIMBASE_ADMIN_TOKEN`    | `admin_token`                       |
| `NIMBASE_SERVER`         | `server`                            |
| `NIMBASE_LOG_LEVEL`      | `log_level`                         |
| `NIMBASE_CORS_ORIGINS`   | `cors_origins`                      |
| `NIMBASE_TLS_CERT`, `NIMBASE_TLS_KEY` | `tls_cert`, `tls_key` (`Settings.tls`) |
| `NIMBASE_WORKER_<FIELD>` | `worker.<field>` (`WorkerSettings`) |
| `NIMBASE_LIMITS_<FIELD>` | `limits.<field>` (`Limits`)         |
| `NIMBASE_AUTO_<FIELD>`   | `auto.<field>` (`AutoJobSettings`)  |
| `NIMBASE_RATE_LIMIT_<FIELD>` | `rate_limit.<field>` (`RateLimitSettings`) |
| `NIMBASE_CACHE_<FIELD>`  | `cache.<field>` (`CacheSettings`)   |
| `NIMBASE_LIMITS_<KIND>_<FIELD>` | `kind_variables`: a kind's own settings (engine.kind_settings) |
| `NIMBASE_CACHE_<KIND>_<FIELD>` | `kind_variables`: its keepers' budgets (engine.kind_settings) |
| `NIMBASE_SYZYGY_PATH`    | `kind_variables`: a kind's setting named on its own (`NAMED_KIND_VARIABLES`) |

README.md ("Configuration") lists every variable with its default and meaning. An empty variable counts
as unset. This module imports nothing of nimbase's other packages, so storage/ and worker/ may use it.
"""

from __future__ import annotations

import logging
import math
import os
import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    FilePath,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    TypeAdapter,
    ValidationError,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

#: Prefix of every nimbase variable but DATABASE_URL.
ENV_PREFIX = "NIMBASE_"
DATABASE_URL_VARIABLE = "DATABASE_URL"

T = TypeVar("T")


class InvalidSetting(ValueError):
    """An environment variable with a value nimbase cannot use (the message names it and quotes it)."""


# ---- validators ----------------------------------------------------------------------------------


def _optional_text(value: object) -> object:
    """Surrounding blanks dropped; blank text means unset."""
    if isinstance(value, str):
        return value.strip() or None
    return value


def _port(value: object) -> int:
    if isinstance(value, str):
        value = value.strip()
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError("is not a port number (0..65535)")
    try:
        port = int(value)
    except ValueError:
        raise ValueError("is not a port number (0..65535)") from None
    if not 0 <= port <= 65535:
        raise ValueError("is not a port number (0..65535)")
    return port


def _log_level(value: object) -> str:
    if isinstance(value, str):
        name = value.strip().upper()
        if name in logging.getLevelNamesMapping() and name != "NOTSET":
            return name
    raise ValueError("is not a log level (DEBUG, INFO, WARNING, ERROR, CRITICAL)")


def _host(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        raise ValueError("is not an address to bind")
    return value.strip() if isinstance(value, str) else value


def _origins(value: object) -> object:
    """NIMBASE_CORS_ORIGINS: `*`, `none`, or origins separated by commas (`https://a.org,http://b:8000`)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.lower() == "none":
        return ()
    origins = tuple(part.strip() for part in text.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise ValueError(
                "is not `*`, `none`, or origins separated by commas (scheme://host[:port], no path), "
                f"e.g. https://example.org: {origin!r}"
            )
    return origins


_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s,]+", re.IGNORECASE)


def _directory(value: Path) -> Path:
    return value.expanduser()


def default_var_dir() -> Path:
    """Where the embedded PostgreSQL lives when NIMBASE_VAR_DIR is unset: the platform's user data
    directory, whatever the working directory, so `make run` and the CLI run from anywhere find one
    database (`make bench` and `make soak` set NIMBASE_VAR_DIR=var, keeping theirs in ./var/)."""
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "nimbase"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "nimbase"
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share") / "nimbase"


Port = Annotated[int, BeforeValidator(_port)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text)]


# ---- the request limits ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-request bounds, each declared here only (NIMBASE_LIMITS_<FIELD> overrides it).

    Past them the service answers RESOURCE_EXHAUSTED (or INVALID_ARGUMENT for a request's size), naming
    the bound.
    """

    __pydantic_config__ = ConfigDict(extra="forbid")

    #: Largest heap whose single-heap value may be computed live (values computed from 0 up to it).
    live_values: PositiveInt = 1 << 22
    #: Distinct positions a live search of a sum (misère sums) may visit.
    search_states: PositiveInt = 200_000
    #: Distinct positions a remoteness search may visit before remoteness is left out.
    remoteness_states: PositiveInt = 2_000
    #: Positions in one BatchGetValues call (POST /v1/values:batch, one StreamBatches batch).
    batch_positions: PositiveInt = 10_000
    #: Values in one GetSequence call (and in each block of a download).
    sequence_values: PositiveInt = 1_000_000
    #: Values in one download of a sequence range (GET /v1/sequence:download): 2^26 values (a Wythoff
    #: table of side 8192), 256 MiB before compression, read and sent a block at a time.
    download_values: PositiveInt = 1 << 26
    #: Moves evaluated to rank them all; beyond it moves are listed winning first, then in order.
    ranked_moves: PositiveInt = 2_000
    #: Most moves one BestMove call may list.
    listed_moves: PositiveInt = 10_000
    #: Moves of a main line (Mainline, GET /v1/mainline) when the request names no `max_plies`: longer
    #: than any five-man endgame's longest win.
    mainline_plies: PositiveInt = 300
    #: Most moves one main line may hold (`max_plies` above it: INVALID_ARGUMENT); each move costs one
    #: ranking of a position's moves, all of them within the request's deadline.
    mainline_plies_max: PositiveInt = 1_000
    #: Longest a request may compute, whatever deadline the client sent (seconds): the transports cap
    #: `x-deadline-ms` and the gRPC deadline at it, and the service caps every computation at it.
    request_seconds: PositiveFloat = 10.0
    #: Search steps (positions times their moves) one request may spend on remoteness in all (about a
    #: second): a ranked move list then stops giving its moves' remoteness instead of running out of time.
    remoteness_steps: PositiveInt = 2_000_000
    #: Stats list the P-positions up to this many, else only their count.
    stats_p_positions: PositiveInt = 1_000
    #: Most characters of position text one move list may hold: half of the largest gRPC answer
    #: (64 MiB), leaving room for everything else a move carries.
    answer_chars: PositiveInt = 32 * 1024 * 1024
    #: Live computations (growing a game's values) running at once; a request waits for a turn only
    #: until its deadline, so a flood of costly requests cannot take every core from cheap lookups.
    live_computations: PositiveInt = 2
    #: Bytes of a POST /v1/values:batch body (RESOURCE_EXHAUSTED, 413, above): a full batch of
    #: `batch_positions` positions of about 1,600 characters each (80 heaps of 19 digits), or one position
    #: of the longest kind (engine.positions.MAX_POSITION_CHARS, 2,000,000 characters), as JSON.
    batch_body_bytes: PositiveInt = 16 << 20
    #: Heaps in one columnar call (ColumnarValues, POST /v1/values:columnar; INVALID_ARGUMENT above).
    columnar_values: PositiveInt = 1 << 20
    #: Bytes of a POST /v1/values:columnar body (RESOURCE_EXHAUSTED, 413, above): `columnar_values`
    #: little-endian uint64 heap sizes.
    columnar_body_bytes: PositiveInt = 8 << 20
    #: Bytes of a POST /v1/jobs body: a game id (at most 1,024 characters) and two numbers, 16 times over.
    job_body_bytes: PositiveInt = 16 << 10
    #: Bytes of a POST /v1/graphs body (RESOURCE_EXHAUSTED, 413, above): a graph of about 2,000,000 edges
    #: of short vertex names as JSON; larger graphs go up over gRPC (UploadGraph), streamed in parts.
    graph_body_bytes: PositiveInt = 64 << 20
    #: Bytes of the body of any other request (no other route reads a body).
    body_bytes: PositiveInt = 64 << 10
    #: Bytes of a request's URL, path and query string (INVALID_ARGUMENT, 400, above): a position of the
    #: longest kind with every space sent as `%20`, and the other parameters.
    url_bytes: PositiveInt = 4 << 20
    #: Seconds a client may take to send a request's line and headers, from its first byte (or from
    #: connecting): past it the connection is closed, so connections trickling a head byte by byte cannot
    #: pile up.
    head_seconds: PositiveFloat = 10.0
    #: Worker processes that run live computations (service.isolation), each killed at its request's
    #: deadline and replaced, so a runaway computation can neither outlive its deadline nor take the
    #: GIL from cheap lookups; 0 computes in the transports' threads instead.
    live_processes: NonNegativeInt = 2
    #: Bytes of address space each of those processes may add to what it maps once started: past it the
    #: computation is refused with RESOURCE_EXHAUSTED naming this cap, and the process replaced.
    live_memory_bytes: PositiveInt = 2 << 30


DEFAULT_LIMITS = Limits()


# ---- the worker --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """How a precompute worker runs (NIMBASE_WORKER_<FIELD> overrides each field)."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    #: Seconds a claimed job stays the worker's without a heartbeat (renewed every third of it).
    lease_seconds: PositiveFloat = 15.0
    #: Seconds an idle worker waits before looking for a job again.
    poll_seconds: NonNegativeFloat = 1.0
    #: Most values computed between two checkpoints: 16 chunks of storage.packing.CHUNK_VALUES.
    step: PositiveInt = 16 * 65_536
    #: The worker's name in the jobs table; None: host:pid:random.
    id: OptionalText = None
    #: Bytes of address space (RLIMIT_AS) the process computing a job may hold: past it the job fails,
    #: naming this cap; 0: no cap. The default holds every five-man chess table's solve (KQRvKR: 3.1 GiB
    #: of address space at its peak, 2.6 GiB resident, bench.bench_chess_jobs --five; one with a pawn is
    #: estimated at 4.9 GiB), and two workers still fit a 16 GB machine.
    memory_bytes: NonNegativeInt = 6 << 30
    #: CPU seconds an object made whole (a chess table's solve) computes before its checkpoint records are
    #: stored: those of a shorter one, deleted as soon as it is stored, are never written; a killed worker
    #: loses at most this much of a solve besides the stage in flight. 0: every record as it comes.
    checkpoint_seconds: NonNegativeFloat = 10.0


DEFAULT_WORKER = WorkerSettings()


# ---- automatic jobs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AutoJobSettings:
    """The precompute jobs the service queues by itself when a request's live computation runs out of its
    deadline (NIMBASE_AUTO_<FIELD> overrides each field).

    Anonymous requests may have at most `jobs` of them open at once, and each is bounded in values and in
    worker time, so no query can fill the database or occupy the workers.
    """

    __pydantic_config__ = ConfigDict(extra="forbid")

    #: Most automatic jobs queued or running at once; 0 turns automatic jobs off.
    jobs: NonNegativeInt = 4
    #: Most values an automatic job computes (heaps 0..values-1).
    values: PositiveInt = 1 << 24
    #: Most worker seconds an automatic job may run (per attempt); it then stops, keeping what it computed.
    seconds: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 600.0
    #: Most of those jobs one client (its address, as the rate limit counts it) may have open at once;
    #: 0: half of `jobs`, at least 1 (`client_share`).
    client_jobs: NonNegativeInt = 0

    @property
    def client_share(self) -> int:
        """The automatic jobs one client may have open at once: `client_jobs`, else half of `jobs` (at
        least 1)."""
        return self.client_jobs or max(1, self.jobs // 2)


DEFAULT_AUTO = AutoJobSettings()


# ---- rate limiting -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RateLimitSettings:
    """Requests per client address, over REST and gRPC together (NIMBASE_RATE_LIMIT_<FIELD> overrides each
    field). Off by default: a service behind a proxy sees one address for every client."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    #: Requests a client address may make per second, sustained; 0 turns rate limiting off.
    per_second: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    #: Requests a client may make at once after being idle; 0: one second's worth (at least 1).
    burst: NonNegativeInt = 0

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    @property
    def bucket(self) -> int:
        """The burst in effect: `burst`, else one second's worth of requests, at least 1."""
        return self.burst or max(1, math.ceil(self.per_second))


DEFAULT_RATE_LIMIT = RateLimitSettings()


# ---- in-process caches ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """Bytes each in-process cache of the service may hold (NIMBASE_CACHE_<FIELD> overrides each field),
    so a server's memory stops growing once they are full, whatever is asked of it.

    An item larger than its whole budget is used by the request that made it and not kept.
    """

    __pydantic_config__ = ConfigDict(extra="forbid")

    #: Values computed live (and their remoteness), all games together: a full live prefix of
    #: `Limits.live_values` (2^22 values of 4 bytes, and 8 bytes each of remoteness: 48 MiB) fits.
    live_bytes: PositiveInt = 50 << 20
    #: Stored chunks read from the database (64 chunks of 65,536 values of 4 bytes).
    chunk_bytes: PositiveInt = 16 << 20
    #: The shared memo (solved searches, stats, a live Wythoff table of up to 16 MiB): arrays by their
    #: size, any other entry counted as 4 KiB (and 4 KiB more per 64 heaps of its position).
    memo_bytes: PositiveInt = 20 << 20
    #: Games bound to an uploaded graph (graph:NAME, lights-out:graph:NAME), each counted as its
    #: `GameKind.memory_bytes()` (names, successor arrays; solutions count in the graph kind's own
    #: budget, NIMBASE_CACHE_GRAPH_SOLUTION_BYTES):
    #: the game of the largest graph an upload takes, 10,000,000 edges on 1,000,000 short-named vertices
    #: (about 190 MB), fits.
    graph_game_bytes: PositiveInt = 256 << 20
    #: Uploaded graphs as loaded (names, edge arrays), kept for GetGraph and for binding games to them
    #: again: the largest graph an upload takes fits.
    graph_bytes: PositiveInt = 256 << 20
    #: Answers to repeated lookups kept as the bytes sent (service.answers: formula and table answers
    #: only, each counted as its length and 768 bytes): about 20,000 single values.
    answer_bytes: PositiveInt = 16 << 20


DEFAULT_CACHE = CacheSettings()


# ---- each kind's own settings ----------------------------------------------------------------------

#: The groups a kind's own settings join, by the prefix of their variables: its limits are
#: NIMBASE_LIMITS_<KIND>_<FIELD>, the byte budgets of what it keeps NIMBASE_CACHE_<KIND>_<FIELD>. The kinds
#: declare them (engine.kind_settings); this module only reads their text (`Settings.kind_variables`).
KIND_GROUPS: dict[str, type[Any]] = {"limits": Limits, "cache": CacheSettings}
#: Kinds' own settings named on their own rather than in a group (`SettingsDeclaration.named`): the chess
#: kind's Syzygy files.
NAMED_KIND_VARIABLES = frozenset({f"{ENV_PREFIX}SYZYGY_PATH"})


def _kind_variable(name: str) -> bool:
    """Whether an environment variable (any case) is in a group kinds join without being one of the
    group's own fields: a kind's setting, or no setting at all (told apart once the kinds are known)."""
    lowered = name.lower()
    if name.upper() in NAMED_KIND_VARIABLES:
        return True
    for group, declared in KIND_GROUPS.items():
        head = f"{ENV_PREFIX}{group}_".lower()
        if lowered.startswith(head):
            return lowered.removeprefix(head) not in {f.name for f in fields(declared)}
    return False


def read_declared(cls: type[T], variables: Mapping[str, str], values: Mapping[str, str]) -> T:
    """`cls` (a frozen dataclass with a default for each field) from the `values` of its variables
    (`variables`: field -> its variable): a field whose variable is unset keeps its default.
    InvalidSetting naming each variable whose value the field cannot take."""
    given = {field: values[name] for field, name in variables.items() if name in values}
    try:
        return TypeAdapter(cls).validate_python(given)
    except ValidationError as exc:
        raise InvalidSetting(describe_errors(exc, lambda loc: variables[str(loc[0])])) from None


def refuse_unknown(values: Mapping[str, str], known: Collection[str]) -> None:
    """InvalidSetting naming each variable of `values` (`Settings.kind_variables`) that no kind declares
    (`known`), with the variables its group does know."""
    parts: list[str] = []
    for name, value in values.items():
        if name in known:
            continue
        group = next(g for g in KIND_GROUPS if name.startswith(f"{ENV_PREFIX}{g.upper()}_"))
        head = f"{ENV_PREFIX}{group.upper()}_"
        names = [variable_name((group, f.name)) for f in fields(KIND_GROUPS[group])]
        names += sorted(k for k in known if k.startswith(head))
        parts.append(f"{name}={value!r} is not a nimbase setting (known: {', '.join(names)})")
    if parts:
        raise InvalidSetting("; ".join(parts))


# ---- TLS -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The PEM files of a server's TLS: its certificate chain and the certificate's private key."""

    cert: Path
    key: Path


# ---- the settings --------------------------------------------------------------------------------


class Settings(BaseModel):
    """What a nimbase process needs to know about its surroundings.

    `Settings()` is the defaults (no nimbase variable read); `Settings.from_env()` is what a process uses.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True)

    #: PostgreSQL URL; None: the embedded server under `var_dir`/postgres.
    database_url: OptionalText = Field(default=None, validation_alias=DATABASE_URL_VARIABLE, repr=False)
    #: Directory of the embedded PostgreSQL (and anything else nimbase keeps locally).
    var_dir: Annotated[Path, AfterValidator(_directory)] = Field(default_factory=default_var_dir)
    #: Address both servers bind.
    host: Annotated[str, BeforeValidator(_host)] = "0.0.0.0"
    grpc_port: Port = 50051
    http_port: Port = 8080
    #: Bearer token for submitting and cancelling jobs; None: job submission is refused.
    admin_token: OptionalText = Field(default=None, repr=False)
    #: The running nimbase server the CLI's questions go to (`--server`): `http(s)://HOST:PORT` for its
    #: REST API, `HOST:PORT` for gRPC; None: they are answered here, on the local database.
    server: OptionalText = None
    log_level: Annotated[str, BeforeValidator(_log_level)] = "INFO"
    #: Origins whose web pages may call the read-only REST routes (CORS); `*`: any, empty: none.
    cors_origins: Annotated[tuple[str, ...], NoDecode, BeforeValidator(_origins)] = ("*",)
    #: PEM certificate chain and its private key: with both, gRPC and REST serve TLS only (`tls`).
    tls_cert: Annotated[FilePath | None, BeforeValidator(_optional_text)] = None
    tls_key: Annotated[FilePath | None, BeforeValidator(_optional_text)] = None
    worker: WorkerSettings = DEFAULT_WORKER
    limits: Limits = DEFAULT_LIMITS
    auto: AutoJobSettings = DEFAULT_AUTO
    rate_limit: RateLimitSettings = DEFAULT_RATE_LIMIT
    cache: CacheSettings = DEFAULT_CACHE
    #: The text of each kind's own variables (NIMBASE_LIMITS_<KIND>_<FIELD>, NIMBASE_CACHE_<KIND>_<FIELD>),
    #: by variable name in capitals: validated into each kind's settings by the layer that knows the kinds
    #: (engine.registry.kind_settings), at start-up too. Empty: every kind's defaults.
    kind_variables: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Settings:
        """The settings the environment gives (read now; a process calls this once, at start-up)."""
        try:
            read = _Environment()
        except ValidationError as exc:
            raise InvalidSetting(describe_errors(exc)) from None
        except SettingsError as exc:  # a group variable (NIMBASE_WORKER, NIMBASE_LIMITS...) that is not JSON
            raise InvalidSetting(str(exc)) from None
        fields_read = {name: getattr(read, name) for name in cls.model_fields if name != "kind_variables"}
        kinds = {name.upper(): value for name, value in os.environ.items() if value and _kind_variable(name)}
        settings = cls.model_construct(**fields_read, kind_variables=kinds)
        if (settings.tls_cert is None) != (settings.tls_key is None):
            given, missing = ("CERT", "KEY") if settings.tls_key is None else ("KEY", "CERT")
            raise InvalidSetting(
                f"{ENV_PREFIX}TLS_{given} is set but {ENV_PREFIX}TLS_{missing} is not: TLS needs both the "
                "certificate and its private key"
            )
        return settings

    @property
    def tls(self) -> TlsFiles | None:
        """The server's TLS files (NIMBASE_TLS_CERT and NIMBASE_TLS_KEY); None: plaintext."""
        if self.tls_cert is None or self.tls_key is None:
            return None
        return TlsFiles(self.tls_cert, self.tls_key)


class _Environment(BaseSettings, Settings):
    """Settings read by pydantic-settings: NIMBASE_<FIELD>, NIMBASE_WORKER_<FIELD>, NIMBASE_LIMITS_<FIELD>,
    NIMBASE_AUTO_<FIELD>, NIMBASE_RATE_LIMIT_<FIELD>, NIMBASE_CACHE_<FIELD> and DATABASE_URL (its alias)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="_",
        env_nested_max_split=1,  # NIMBASE_WORKER_LEASE_SECONDS is worker.lease_seconds
        env_ignore_empty=True,
        case_sensitive=False,
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _GroupVariables(settings_cls))


class _GroupVariables(EnvSettingsSource):
    """The environment without the kinds' own variables (`Settings.kind_variables` holds them) nor a
    variable for `kind_variables` itself."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        own = f"{ENV_PREFIX}kind_variables".lower()
        return {
            name: value
            for name, value in super()._load_env_vars().items()
            if name.lower() != own and not _kind_variable(name)
        }


#: The groups of settings read from NIMBASE_<GROUP>_<FIELD> variables.
_GROUPS: dict[str, type[Any]] = {
    "worker": WorkerSettings,
    "limits": Limits,
    "auto": AutoJobSettings,
    "rate_limit": RateLimitSettings,
    "cache": CacheSettings,
}


def variable_name(loc: Sequence[int | str]) -> str:
    """The environment variable of a setting's location (("worker", "step") -> NIMBASE_WORKER_STEP)."""
    if loc and str(loc[0]).upper() == DATABASE_URL_VARIABLE:
        return DATABASE_URL_VARIABLE
    return ENV_PREFIX + "_".join(str(part) for part in loc).upper()


def describe_errors(
    exc: ValidationError, name_of: Callable[[Sequence[int | str]], str] = variable_name
) -> str:
    """One clause per invalid variable (`name_of` a setting's location): its name, its value quoted, and
    what is wrong with it."""
    parts: list[str] = []
    for error in exc.errors():
        name = name_of(error["loc"])
        value: Any = error.get("input")
        if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            prefix = str(error["loc"][0])
            group = _GROUPS.get(prefix)
            known = "" if group is None else ", ".join(variable_name((prefix, f.name)) for f in fields(group))
            parts.append(
                f"{name}={value!r} is not a nimbase setting" + (f" (known: {known})" if known else "")
            )
            continue
        message = str(error["msg"])
        if error["type"] == "value_error":
            message = message.removeprefix("Value error, ")
        else:
            message = "is invalid: " + message[:1].lower() + message[1:]
        parts.append(f"{name}={value!r} {message}")
    return "; ".join(parts)
