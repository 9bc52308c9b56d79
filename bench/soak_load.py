"""The soak's client load: a mix of valid and invalid requests over gRPC and REST, and what is recorded.

Each load process runs a few threads until told to stop; every thread picks a request at random, sends it
over gRPC or REST, and records the answer's status (`"<http status> <code>"`, the same labels for both
transports: gRPC codes are given their REST status), its latency, and, for the answers that carry values
of games whose values the soak can recompute (normal-play heap games, Wythoff), an observation checked
at the end against the engine's kernels. A 5xx (or a client-side failure: connection refused, timeout)
is kept with its time, so the soak can tell the UNAVAILABLE answers given while PostgreSQL was
restarting from the rest.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from nimbase.client import NimbaseClient, NimbaseClientError
from service import convert

#: The gRPC codes as the REST routes answer them (service/convert.py HTTP_STATUS); anything else is 500.
HTTP_STATUS = {"OK": 200, **convert.HTTP_STATUS, "UNIMPLEMENTED": 501}

#: Client-side deadline of a call: the server caps every computation at NIMBASE_LIMITS_REQUEST_SECONDS
#: (10 s), so a call still unanswered after this long is a deadline the server did not keep.
CLIENT_TIMEOUT = 25.0

#: Tables the soak's jobs store (game -> the heaps the clients look up in them: 0..bound-1).
STORED_HEAPS = {
    "grundy": 1 << 22,
    "subtraction:2,5,7": 1 << 22,
    "octal:0.6": 1 << 21,
    "octal:0.16": 1 << 21,
    "subtraction:1,3,4": 1 << 21,
    "subtraction:3,7,12": 1 << 22,
}
#: Games with a certified period: any heap up to 2^63-1 is answered from it.
PERIODIC = ("subtraction:2,5,7", "subtraction:1,3,4", "subtraction:3,7,12", "octal:0.16", "octal:0.77")
#: Octal games whose period is certified after a few thousand values: answered live, then by period.
LIVE_OCTAL = ("0.07", "0.137", "0.77", "0.4", "0.15", "0.17", "0.34", "0.44", "0.45", "0.53", "0.54", "4.07")
MAX_HEAP = 2**63 - 1

HUGE = "9" * 5000
#: Most values of one GetSequence answer kept for the final check.
SEQUENCE_WINDOW = 256
UNICODE_DIGITS = "\u0663"  # ARABIC-INDIC DIGIT THREE


@dataclass
class Request:
    """One request of the mix, transport-neutral; `invalid` ones must get a 4xx."""

    op: str
    game: str = ""
    position: str = ""
    positions: list[str] = field(default_factory=list)
    start: int = 0
    stop: int = 0
    family: str | None = None
    limit: int | None = None
    job_id: int = 0
    invalid: bool = False
    #: Only over REST (numbers a protobuf int64 cannot carry, raw paths).
    rest_only: bool = False
    #: REST: the `x-deadline-ms` sent (None: the server's maximum, NIMBASE_LIMITS_REQUEST_SECONDS).
    deadline_ms: int | None = None
    #: REST: a raw (method, path, params, json, headers) replacing the op's usual form.
    raw: tuple[str, str, dict[str, Any] | None, Any, dict[str, str] | None] | None = None

    def describe(self) -> str:
        parts = [self.op]
        if self.raw is not None:
            method, path, params, _, _ = self.raw
            parts.append(f"{method} {path} {params or ''}")
        for name in ("game", "position", "family"):
            value = getattr(self, name)
            if value:
                parts.append(f"{name}={_short(str(value))}")
        if self.op == "sequence":
            parts.append(f"start={_short(str(self.start))} stop={_short(str(self.stop))}")
        if self.positions:
            parts.append(f"{len(self.positions)} positions, first {_short(self.positions[0])}")
        if self.limit is not None:
            parts.append(f"limit={self.limit}")
        if self.deadline_ms is not None:
            parts.append(f"x-deadline-ms={self.deadline_ms}")
        return " ".join(parts)


def _short(text: str, n: int = 60) -> str:
    return repr(text) if len(text) <= n else repr(text[:n]) + f"...({len(text)} chars)"


# ---- the request mix ---------------------------------------------------------------------------


class Mix:
    """Picks requests: stored, periodic, formula and live positions, and invalid ones."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def heap_game_and_heap(self) -> tuple[str, int]:
        rng = self.rng
        kind = rng.random()
        if kind < 0.40:
            game = rng.choice(list(STORED_HEAPS))
            return game, rng.randrange(STORED_HEAPS[game])
        if kind < 0.55:
            return rng.choice(PERIODIC), rng.randrange(1 << rng.randrange(20, 63))
        if kind < 0.70:
            return rng.choice(("nim", "nim:misere", "subtraction:1,2,3")), rng.randrange(MAX_HEAP)
        if kind < 0.85:
            return self.live_subtraction(), rng.randrange(1 << rng.randrange(4, 40))
        if kind < 0.99:
            return "octal:" + rng.choice(LIVE_OCTAL), rng.randrange(1 << rng.randrange(4, 40))
        # Beyond what can be computed live: RESOURCE_EXHAUSTED naming an automatic job.
        return "octal:0.37", rng.randrange(3_000_000, 4_000_000)

    def live_subtraction(self) -> str:
        elements = sorted(self.rng.sample(range(1, 41), self.rng.randint(1, 4)))
        return "subtraction:" + ",".join(map(str, elements))

    def position(self, game: str, heap: int) -> str:
        """One heap, or a sum with one to three more heaps drawn alike."""
        rng = self.rng
        if rng.random() < 0.7:
            return str(heap)
        bound = STORED_HEAPS.get(game, max(heap, 2))
        return " ".join(str(h) for h in [heap, *(rng.randrange(bound) for _ in range(rng.randint(1, 3)))])

    def wythoff_position(self) -> str:
        rng = self.rng
        count = 1 if rng.random() < 0.7 else rng.randint(2, 4)
        pairs = []
        for _ in range(count):
            side = 1024 if rng.random() < 0.8 else 1 << rng.randrange(11, 62)
            pairs.append(f"{rng.randrange(side)},{rng.randrange(side)}")
        return " ".join(pairs)

    def small_position(self, game: str) -> str:
        """A position with few moves, for BestMove (moves are listed, ranked, valued)."""
        rng = self.rng
        if game == "wythoff":
            return f"{rng.randrange(300)},{rng.randrange(300)}"
        heaps = [rng.randrange(2000) for _ in range(rng.randint(1, 3))]
        return " ".join(map(str, heaps))

    def next(self) -> Request:
        req = self.pick()
        if not req.invalid and self.rng.random() < 0.1:
            req.deadline_ms = self.rng.choice((500, 2000, 5000))
        return req

    def pick(self) -> Request:
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            return self.invalid()
        if r < 0.45:
            if rng.random() < 0.12:
                return Request("value", "wythoff", self.wythoff_position())
            game, heap = self.heap_game_and_heap()
            return Request("value", game, self.position(game, heap))
        if r < 0.53:
            if rng.random() < 0.12:
                return Request("p_position", "wythoff", self.wythoff_position())
            game, heap = self.heap_game_and_heap()
            return Request("p_position", game, self.position(game, heap))
        if r < 0.63:
            game = rng.choice(
                (
                    *STORED_HEAPS,
                    "nim",
                    "wythoff",
                    "subtraction:1,3,4:misere",
                    "octal:0.77",
                    self.live_subtraction(),
                )
            )
            position = self.small_position(game)
            if game == "subtraction:1,3,4:misere":
                position = " ".join(str(rng.randrange(12)) for _ in range(rng.randint(1, 3)))
            limit = rng.choice((None, 1, 3, 10))
            return Request("best_move", game, position, limit=limit)
        if r < 0.73:
            game = rng.choice((*STORED_HEAPS, *PERIODIC, "nim", "wythoff"))
            size = rng.choice((10, 10, 100, 100, 1000, 1000, 5000))
            if game == "wythoff":
                positions = [self.wythoff_position() for _ in range(size)]
            else:
                bound = STORED_HEAPS.get(game, MAX_HEAP)
                positions = [str(rng.randrange(bound)) for _ in range(size)]
            if rng.random() < 0.2:  # a bad slot among good ones: only that slot gets an error
                positions[rng.randrange(size)] = rng.choice(("-1", "x", HUGE, UNICODE_DIGITS))
            op = "stream_batches" if rng.random() < 0.2 else "batch"
            return Request(op, game, positions=positions)
        if r < 0.85:
            choice = rng.random()
            if choice < 0.6:
                game = rng.choice(list(STORED_HEAPS))
                start = rng.randrange(STORED_HEAPS[game])
                return Request(
                    "sequence", game, start=start, stop=start + rng.choice((1, 100, 100, 4096, 4096, 65536))
                )
            if choice < 0.8:
                game = rng.choice(PERIODIC)
                start = rng.randrange(1 << rng.randrange(10, 60))
                return Request("sequence", game, start=start, stop=start + rng.choice((10, 1000)))
            if choice < 0.9:
                row = rng.randrange(2000)
                start = rng.randrange(2000)
                return Request("sequence", "wythoff", family=f"row:{row}", start=start, stop=start + 100)
            return Request("sequence", self.live_subtraction(), start=0, stop=rng.choice((100, 5000)))
        if r < 0.90:
            return Request(
                "stats", rng.choice((*STORED_HEAPS, "nim", "wythoff", "octal:0.77", self.live_subtraction()))
            )
        if r < 0.93:
            return Request("games")
        if r < 0.97:
            return Request("get_job", job_id=rng.randint(1, 40))
        return Request("list_jobs")

    def invalid(self) -> Request:
        """A request that must get a 4xx (bad game ids, bad positions, numbers too large, no token...)."""
        rng = self.rng
        bad_games = (
            "nope",
            "subtraction:",
            "subtraction:0",
            "subtraction:1,x",
            "octal:0.9",
            "octal:",
            "grundy:3",
            "wythoff:1",
            "Nim",
            "nim:",
            "a" * 2000,
            "nim\x00",
            f"subtraction:{HUGE}",
            f"octal:0.{'7' * 3000}",
        )
        bad_positions = (
            "-1",
            "1.5",
            "a b",
            "3,5",
            "+3",
            "1_000",
            UNICODE_DIGITS,
            "3\u00a05",
            HUGE,
            str(2**64),
            "\x00",
        )
        kind = rng.randrange(12)
        if kind == 0:
            return Request(rng.choice(("value", "p_position")), rng.choice(bad_games), "3", invalid=True)
        if kind == 1:
            game = rng.choice(("nim", "subtraction:1,3,4", "octal:0.16", "grundy"))
            return Request(
                rng.choice(("value", "p_position", "best_move")),
                game,
                rng.choice(bad_positions),
                invalid=True,
            )
        if kind == 2:
            position = rng.choice(
                ("1" * 5000 + ",1", f"{UNICODE_DIGITS},5", "3", "3,5,7", "-1,2", f"{2**63},1", "3;5")
            )
            return Request(
                rng.choice(("value", "p_position", "best_move")), "wythoff", position, invalid=True
            )
        if kind == 3:
            start = rng.choice((10**30, 2**63, 9223372036854775806))
            game = rng.choice(("subtraction:1,3,4", "nim", "grundy", "octal:0.16"))
            return Request("sequence", game, start=start, stop=start + 4, invalid=True, rest_only=True)
        if kind == 4:
            start, stop = rng.choice(((5, 2), (-3, 4), (0, 2_000_000), (0, 10**7)))
            return Request("sequence", rng.choice(list(STORED_HEAPS)), start=start, stop=stop, invalid=True)
        if kind == 5:
            family = rng.choice(("row:" + "7" * 5000, f"row:{UNICODE_DIGITS}", "row:-1", "col:3", "row:"))
            return Request("sequence", "wythoff", family=family, start=0, stop=10, invalid=True)
        if kind == 6:
            job_id = rng.choice(("99999999999999999999999", str(2**63), "-1", "abc"))
            method = rng.choice(("GET", "DELETE"))
            headers = {"authorization": "Bearer soak-wrong-token"} if method == "DELETE" else None
            return Request(
                "raw", raw=(method, f"/v1/jobs/{job_id}", None, None, headers), invalid=True, rest_only=True
            )
        if kind == 7:
            game = rng.choice(("nim", "subtraction:1,3,4"))
            return Request("best_move", game, "3 5 7", limit=rng.choice((0, -1, 10**6)), invalid=True)
        if kind == 8:  # job submission without a token, with a wrong one
            headers = rng.choice((None, {"authorization": "Bearer wrong"}, {"authorization": "Basic x"}))
            body = {"game": "subtraction:2,5,7", "upto": 1000}
            return Request("raw", raw=("POST", "/v1/jobs", None, body, headers), invalid=True, rest_only=True)
        if kind == 9:
            bodies = (
                {"game": "nim"},
                {"positions": ["1"]},
                {"game": "nim", "positions": "1 2"},
                {"game": "nim", "positions": [str(i) for i in range(10_001)]},
                {"game": 3, "positions": []},
                {"game": "nim", "positions": ["1"], "extra": 1},
            )
            return Request(
                "raw",
                raw=("POST", "/v1/values:batch", None, rng.choice(bodies), None),
                invalid=True,
                rest_only=True,
            )
        if kind == 10:
            params, headers = rng.choice(
                (
                    ({"game": "nim"}, None),
                    ({"position": "3"}, None),
                    ({"game": "nim", "position": "3"}, {"x-deadline-ms": "abc"}),
                    ({"game": "nim", "position": "3"}, {"x-deadline-ms": "-5"}),
                    ({"game": "nim", "position": "3"}, {"x-deadline-ms": "0"}),
                )
            )
            return Request(
                "raw", raw=("GET", "/v1/value", params, None, headers), invalid=True, rest_only=True
            )
        return Request(
            "raw",
            raw=("GET", rng.choice(("/v1/nope", "/v2/value", "/v1/jobs/x/y")), None, None, None),
            invalid=True,
            rest_only=True,
        )


# ---- executing a request -----------------------------------------------------------------------


class Answer:
    """What came back: a status label and, for a success, the body."""

    __slots__ = ("body", "detail", "label")

    def __init__(self, label: str, body: Any = None, detail: str = "") -> None:
        self.label = label
        self.body = body
        self.detail = detail


def rest_call(client: httpx.Client, req: Request, rng: random.Random) -> Answer:
    headers: dict[str, str] = {}
    if req.deadline_ms is not None:
        headers["x-deadline-ms"] = str(req.deadline_ms)
    if req.raw is not None:
        method, path, raw_params, body, extra = req.raw
        response = client.request(
            method, path, params=raw_params, json=body, headers={**headers, **(extra or {})}
        )
    elif req.op == "value":
        response = client.get(
            "/v1/value", params={"game": req.game, "position": req.position}, headers=headers
        )
    elif req.op == "p_position":
        response = client.get(
            "/v1/is-p-position", params={"game": req.game, "position": req.position}, headers=headers
        )
    elif req.op == "best_move":
        params: dict[str, Any] = {"game": req.game, "position": req.position}
        if req.limit is not None:
            params["limit"] = req.limit
        response = client.get("/v1/best-move", params=params, headers=headers)
    elif req.op in ("batch", "stream_batches"):
        response = client.post(
            "/v1/values:batch", json={"game": req.game, "positions": req.positions}, headers=headers
        )
    elif req.op == "sequence":
        params = {"game": req.game, "start": req.start, "stop": req.stop}
        if req.family is not None:
            params["family"] = req.family
        response = client.get("/v1/sequence", params=params, headers=headers)
    elif req.op == "stats":
        response = client.get("/v1/stats", params={"game": req.game})
    elif req.op == "games":
        response = client.get("/v1/games")
    elif req.op == "get_job":
        response = client.get(f"/v1/jobs/{req.job_id}")
    elif req.op == "list_jobs":
        response = client.get("/v1/jobs", params={"limit": 20})
    else:
        raise ValueError(req.op)
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    if status < 400:
        return Answer(f"{status} OK", body)
    code = "?"
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = str(body["error"].get("code"))
    elif status >= 400:
        code = "NOT-IN-ERROR-SHAPE"
    return Answer(f"{status} {code}", None, response.text[:300])


def grpc_call(client: NimbaseClient, req: Request) -> Answer:
    try:
        if req.op == "value":
            body: Any = client.get_value(req.game, req.position)
        elif req.op == "p_position":
            body = client.is_p_position(req.game, req.position)
        elif req.op == "best_move":
            body = client.best_move(req.game, req.position, req.limit)
        elif req.op == "batch":
            body = client.batch_get_values(req.game, req.positions)
        elif req.op == "stream_batches":
            half = len(req.positions) // 2 or 1
            batches = [(req.game, req.positions[:half]), (req.game, req.positions[half:])]
            values: list[Any] = []
            for answer in client.stream_batches(batches):
                values.extend(answer["values"])
            body = {"values": values}
        elif req.op == "sequence":
            body = client.get_sequence(req.game, req.start, req.stop, req.family)
        elif req.op == "stats":
            body = client.get_stats(req.game)
        elif req.op == "games":
            body = client.list_games()
        elif req.op == "get_job":
            body = client.get_job(req.job_id)
        elif req.op == "list_jobs":
            body = client.list_jobs(20)
        else:
            raise ValueError(req.op)
    except NimbaseClientError as exc:
        return Answer(f"{HTTP_STATUS.get(exc.code, 500)} {exc.code}", None, exc.message[:300])
    return Answer("200 OK", body)


# ---- what a load process records ---------------------------------------------------------------


NORMAL_FAMILIES = ("nim", "subtraction", "octal", "grundy")
#: Answers slower than this are counted by method, code and game, to show where the tail comes from.
SLOW_SECONDS = 2.0


def game_kind(game: str) -> str:
    """The game for the slow-answer counts: stored and named games by id, live ones by family."""
    if game in STORED_HEAPS or game in PERIODIC or game in ("nim", "nim:misere", "wythoff") or len(game) > 40:
        return game if len(game) <= 40 else "(invalid)"
    family = game.partition(":")[0]
    return f"{family} (live)" if family in ("subtraction", "octal") else game


def normal_heap_game(game: str) -> bool:
    """A normal-play heap game: a sum's Grundy value is the nim-sum of its heaps' values."""
    return game.partition(":")[0] in NORMAL_FAMILIES and not game.endswith(":misere") and game != "nim:misere"


@dataclass
class Record:
    """Everything one load process saw, sent back to the soak at the end."""

    #: (transport, op, valid|invalid, label) -> count
    counts: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    #: transport -> latencies (seconds) of every answer
    latencies: dict[str, array[float]] = field(default_factory=dict)
    #: (transport, op) -> latencies
    op_latencies: dict[tuple[str, str], array[float]] = field(default_factory=dict)
    #: 5xx answers and client-side failures: (time.time(), transport, label, request, detail, deadline)
    #: where deadline is the x-deadline-ms the client sent (0: none, the server's maximum).
    failures: list[tuple[float, str, str, str, str, int]] = field(default_factory=list)
    failure_count: int = 0
    #: Answers slower than SLOW_SECONDS: (transport, op, label, game) -> count
    slow: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    #: Batch slots answered with an error: (transport, label) -> count; a batch with 5xx slots is also
    #: one failure.
    slot_errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Invalid requests answered 2xx: examples and a count.
    accepted_invalid: list[tuple[str, str]] = field(default_factory=list)
    accepted_invalid_count: int = 0
    #: Valid requests refused with 400: examples (a request the mix thinks valid, or a server bug).
    refused_valid: list[tuple[str, str, str]] = field(default_factory=list)
    #: Inconsistent answers seen on the spot (a best move from an N-position not reaching a P-position...)
    inconsistent: list[tuple[str, str, str]] = field(default_factory=list)
    inconsistent_count: int = 0
    #: Observed values: ("heaps", game, heaps, grundy) and ("wythoff", pairs, grundy|None, outcome),
    #: ("sequence", game, start, values)
    observations: list[tuple[Any, ...]] = field(default_factory=list)
    observations_seen: int = 0

    MAX_FAILURES = 100_000
    MAX_EXAMPLES = 30
    MAX_OBSERVATIONS = 60_000

    def latency(self, transport: str, op: str, seconds: float) -> None:
        self.latencies.setdefault(transport, array("d")).append(seconds)
        self.op_latencies.setdefault((transport, op), array("d")).append(seconds)

    def observe(self, rng: random.Random, item: tuple[Any, ...]) -> None:
        """Reservoir sampling: a uniform sample of every observation, bounded in size."""
        self.observations_seen += 1
        if len(self.observations) < self.MAX_OBSERVATIONS:
            self.observations.append(item)
        else:
            j = rng.randrange(self.observations_seen)
            if j < self.MAX_OBSERVATIONS:
                self.observations[j] = item


def _heaps(position: str) -> tuple[int, ...]:
    return tuple(int(t) for t in position.split())


def _pairs(position: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in (t.split(",") for t in position.split()))


def observe_value(
    record: Record, rng: random.Random, game: str, value: dict[str, Any], asked: tuple[str, Request, str]
) -> None:
    """Keep a value answer (or a move's result) for the check against recomputed values, with how it was
    `asked` (transport, request, which answer of it) and its source and time, which a wrong value's
    report quotes (`asked_text`; formatted only then)."""
    position = value.get("position", "")
    if game == "wythoff":
        record.observe(rng, ("wythoff", _pairs(position), value.get("grundy"), value.get("outcome")))
    elif normal_heap_game(game) and "grundy" in value:
        how = (*asked, value.get("source"), time.time())
        record.observe(rng, ("heaps", game, _heaps(position), int(value["grundy"]), how))


def asked_text(how: tuple[str, Request, str, object, float]) -> str:
    """How an observed value was asked, for the report of a wrong one."""
    transport, req, which, source, at = how
    clock = time.strftime("%H:%M:%S", time.localtime(at))
    return f"{transport} {req.describe()[:120]}{which}, source {source}, at {clock}"


def inspect(record: Record, rng: random.Random, transport: str, req: Request, body: Any) -> None:
    """Record observations from a successful answer, and check what can be checked on the spot."""
    examples = record.inconsistent
    if req.op in ("value", "p_position"):
        observe_value(record, rng, req.game, body, (transport, req, ""))
        if req.op == "p_position" and body.get("p_position") != (body.get("outcome") == "P"):
            record.inconsistent_count += 1
            if len(examples) < Record.MAX_EXAMPLES:
                examples.append((transport, req.describe(), f"p_position vs outcome: {body}"))
    elif req.op == "best_move":
        normal = req.game == "wythoff" or normal_heap_game(req.game)
        moves = body.get("moves", [])
        if normal:
            observe_value(record, rng, req.game, body, (transport, req, ""))
            if moves:
                observe_value(record, rng, req.game, moves[0], (transport, req, ", its first move"))
            wrong = None
            if body.get("outcome") == "N" and moves and moves[0].get("outcome") != "P":
                wrong = f"N-position whose best move reaches {moves[0]}"
            if body.get("outcome") == "P" and any(m.get("outcome") != "N" for m in moves):
                wrong = "P-position with a move to a non-N position"
            if wrong is not None:
                record.inconsistent_count += 1
                if len(examples) < Record.MAX_EXAMPLES:
                    examples.append((transport, req.describe(), wrong))
    elif req.op in ("batch", "stream_batches"):
        values = body.get("values", [])
        if len(values) != len(req.positions):
            record.inconsistent_count += 1
            if len(examples) < Record.MAX_EXAMPLES:
                examples.append(
                    (transport, req.describe(), f"{len(values)} answers for {len(req.positions)} positions")
                )
        failed: Counter[str] = Counter()
        message = ""
        for slot in values:
            error = slot.get("error") if isinstance(slot, dict) else None
            if error is not None:
                code = str(error.get("code"))
                label = f"{HTTP_STATUS.get(code, 500)} {code}"
                record.slot_errors[(transport, label)] += 1
                if HTTP_STATUS.get(code, 500) >= 500:
                    failed[label] += 1
                    message = str(error.get("message"))[:300]
        if failed:  # one failure per batch, however many of its slots failed
            label = failed.most_common(1)[0][0]
            record.failure_count += 1
            if len(record.failures) < Record.MAX_FAILURES:
                detail = f"{sum(failed.values())} of {len(values)} slots {dict(failed)}: {message}"
                record.failures.append(
                    (time.time(), transport, "slot " + label, req.describe(), detail, req.deadline_ms or 0)
                )
        for slot in rng.sample(values, min(5, len(values))):
            if "error" not in slot:
                observe_value(record, rng, req.game, slot, (transport, req, ", a slot"))
    elif req.op == "sequence":
        values = body.get("values", [])
        if req.family is None and normal_heap_game(req.game) and values:
            # A window of at most SEQUENCE_WINDOW values, so the sample stays small.
            offset = rng.randrange(max(1, len(values) - SEQUENCE_WINDOW + 1))
            window = array("Q", values[offset : offset + SEQUENCE_WINDOW])
            record.observe(rng, ("sequence", req.game, int(body["start"]) + offset, window))


def run_thread(
    index: int, target: str, base: str, seed: int, stop: threading.Event, record: Record, lock: threading.Lock
) -> None:
    rng = random.Random(seed)
    mix = Mix(rng)
    local = Record()
    with (
        NimbaseClient(target, timeout=CLIENT_TIMEOUT) as grpc_client,
        httpx.Client(base_url=base, timeout=CLIENT_TIMEOUT) as rest_client,
    ):
        while not stop.is_set():
            req = mix.next()
            transport = "rest" if req.rest_only or req.raw is not None or rng.random() < 0.5 else "grpc"
            if transport == "grpc":
                req.deadline_ms = None  # x-deadline-ms is REST's; gRPC calls keep CLIENT_TIMEOUT
            started = time.perf_counter()
            try:
                if transport == "rest":
                    answer = rest_call(rest_client, req, rng)
                else:
                    answer = grpc_call(grpc_client, req)
            except httpx.TimeoutException as exc:
                answer = Answer("CLIENT-TIMEOUT", None, f"{type(exc).__name__}: {exc}")
            except httpx.HTTPError as exc:
                answer = Answer("CLIENT-" + type(exc).__name__, None, str(exc)[:300])
            except Exception as exc:  # anything else the client raised: a failure, never a dead thread
                answer = Answer("CLIENT-" + type(exc).__name__, None, str(exc)[:300])
            elapsed = time.perf_counter() - started
            if (
                transport == "grpc"
                and answer.label.endswith("DEADLINE_EXCEEDED")
                and elapsed >= CLIENT_TIMEOUT - 0.5
            ):
                answer.label = "CLIENT-TIMEOUT"
            local.latency(transport, req.op, elapsed)
            if elapsed > SLOW_SECONDS:
                local.slow[(transport, req.op, answer.label, game_kind(req.game))] += 1
            validity = "invalid" if req.invalid else "valid"
            local.counts[(transport, req.op, validity, answer.label)] += 1
            status = int(answer.label.split()[0]) if answer.label[0].isdigit() else 0
            if status == 0 or status >= 500:
                local.failure_count += 1
                if len(local.failures) < Record.MAX_FAILURES:
                    local.failures.append(
                        (
                            time.time(),
                            transport,
                            answer.label,
                            req.describe(),
                            answer.detail,
                            req.deadline_ms or 0,
                        )
                    )
                # Do not spin on an answer that comes back at once while the database is down.
                time.sleep(0.05)
            elif req.invalid and status < 400:
                local.accepted_invalid_count += 1
                if len(local.accepted_invalid) < Record.MAX_EXAMPLES:
                    local.accepted_invalid.append((transport, req.describe()))
            elif not req.invalid and status == 400:
                if len(local.refused_valid) < Record.MAX_EXAMPLES:
                    local.refused_valid.append((transport, req.describe(), answer.detail))
            elif status < 400 and answer.body is not None and not req.invalid:
                try:
                    inspect(local, rng, transport, req, answer.body)
                except Exception as exc:  # an answer not in its documented shape
                    local.inconsistent_count += 1
                    if len(local.inconsistent) < Record.MAX_EXAMPLES:
                        local.inconsistent.append((transport, req.describe(), f"{type(exc).__name__}: {exc}"))
    with lock:
        merge(record, local, rng)


def merge(into: Record, other: Record, rng: random.Random) -> None:
    into.counts.update(other.counts)
    for transport, samples in other.latencies.items():
        into.latencies.setdefault(transport, array("d")).extend(samples)
    for key, samples in other.op_latencies.items():
        into.op_latencies.setdefault(key, array("d")).extend(samples)
    into.failures.extend(other.failures[: Record.MAX_FAILURES - len(into.failures)])
    into.failure_count += other.failure_count
    into.slot_errors.update(other.slot_errors)
    into.slow.update(other.slow)
    into.accepted_invalid.extend(other.accepted_invalid[: Record.MAX_EXAMPLES])
    into.accepted_invalid_count += other.accepted_invalid_count
    into.refused_valid.extend(other.refused_valid[: Record.MAX_EXAMPLES])
    into.inconsistent.extend(other.inconsistent[: Record.MAX_EXAMPLES])
    into.inconsistent_count += other.inconsistent_count
    seen = into.observations_seen + other.observations_seen
    pool = into.observations + other.observations
    if len(pool) > Record.MAX_OBSERVATIONS:
        pool = rng.sample(pool, Record.MAX_OBSERVATIONS)
    into.observations = pool
    into.observations_seen = seen


def load_process(
    index: int, target: str, base: str, threads: int, seed: int, stop: Any, results: Any
) -> None:
    """One load process: `threads` client threads until `stop` (a multiprocessing Event) is set; puts
    its Record on `results`."""
    record = Record()
    lock = threading.Lock()
    done = threading.Event()
    workers = [
        threading.Thread(
            target=run_thread,
            args=(i, target, base, seed * 1000 + i, done, record, lock),
            name=f"load-{index}-{i}",
            daemon=True,
        )
        for i in range(threads)
    ]
    for thread in workers:
        thread.start()
    while not stop.wait(0.5):
        pass
    done.set()
    for thread in workers:
        thread.join(timeout=CLIENT_TIMEOUT + 10)
    with contextlib.suppress(Exception), lock:
        results.put(record)
