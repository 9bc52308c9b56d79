"""A game defined by its rules (nimbase_rules), as the service serves it.

Each tier is stored by its own job as the family `tier:T` (`TierKernel`: it waits for the tiers its
moves lead to, given to it as their stored bytes). A request reads a position's tier through the keeper
ladder (engine.keep, `TIERS`): kept, else stored (`source` "table"), else, for a game of at most
`RulesSettings.live_codes` codes, the whole game solved for the request (`source` "live"), else the
refusal naming the job that stores the tier (RESOURCE_EXHAUSTED). Plain Python rules have a lower bound
(`live_codes_plain`): they solve some fifty times slower.

Values are for the player to move: "N" a win, "P" a loss, "D" a tie (with remoteness) or an endless draw
(without); score games add the margin with best play (`ScoreValue`), their moves the margin the mover
gets by each (`ScoreMove`). Moves are ranked: wins by least remoteness, then ties (least remoteness) and
draws, then losses by most; score games by margin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import InvalidArgument, InvalidPosition
from engine.kind import Context, GameKind, SequenceKernel
from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration
from engine.moves import check_limit
from engine.positions import quote_position, quote_token
from engine.precompute import PROCESS_BYTES, JobPlan, StoredName
from engine.records import MoveRecord, ValueRecord
from engine.stored_bytes import BytesKernel, read_stored
from engine.values import BestMoveResult, GameInfo, MoveValue, Outcome, Source, Value
from kinds.rules.checks import check_round_trip
from kinds.rules.solve import positions, solve_all, solve_tier
from kinds.rules.tables import DRAW, LOSS, TIE, WIN, TierTable, merged
from nimbase_rules import Rules

#: Stored families: one a tier.
TIER_PREFIX = "tier:"


@dataclass(frozen=True, slots=True)
class RulesSettings:
    """The rules games' own settings (`SETTINGS`: NIMBASE_LIMITS_RULES_<FIELD> and
    NIMBASE_CACHE_RULES_<FIELD>)."""

    live_codes: PositiveInt = 1_000_000
    """Most codes (`Rules.size`) of a game defined by numba rules solved whole within a request while no
    worker has stored its tiers (Connect Four 4 x 4 has 923,521: about a second once its kernels are
    compiled); a larger game is answered tier by tier once its jobs have stored them
    (RESOURCE_EXHAUSTED, naming the job, until then)."""
    live_codes_plain: PositiveInt = 100_000
    """The same for plain Python rules, some fifty times slower a position (tic-tac-toe has 19,683 codes,
    solved in a fraction of a second; Dots and Boxes 2 x 3 131,072, about ten seconds: left to a job)."""
    table_bytes: PositiveInt = 256 << 20
    """Bytes of solved tiers kept whole in the process (`TIERS`), each counted as its codes and values
    (about 13 bytes a position)."""


#: The keeper of solved tiers (and of games solved whole live); its budget is `RulesSettings.table_bytes`.
TIERS = KeeperSpec(RulesSettings, "table_bytes")
SETTINGS = SettingsDeclaration("rules", RulesSettings, keepers=(TIERS,))


@dataclass(frozen=True, slots=True)
class ScoreValue(ValueRecord):
    """A score game's value beside the core fields."""

    margin: int
    """Score games: the points the player to move scores beyond the opponent from here on, with best
    play on both sides (negative when behind)."""


@dataclass(frozen=True, slots=True)
class ScoreMove(MoveRecord):
    """A score game's move beside its text and the value of the position reached."""

    margin: int
    """Score games: the margin the player making the move gets by it (its points, plus the margin of the
    position reached when the same player moves again, minus it when the turn passes)."""


def tier_family(tier: int) -> str:
    return f"{TIER_PREFIX}{tier}"


def family_tier(rules: Rules, family: str) -> int:
    """The tier a stored family names (InvalidArgument where it names none of the game's)."""
    text = family.removeprefix(TIER_PREFIX)
    if not family.startswith(TIER_PREFIX) or not (text.isascii() and text.lstrip("-").isdigit()):
        raise InvalidArgument(f"{rules.game_id} stores families 'tier:T', not {quote_token(family)}")
    tier = int(text)
    if tier not in rules.tiers():
        raise InvalidArgument(f"{rules.game_id} has no tier {tier} (family {quote_token(family)})")
    return tier


def _weigh(solved: dict[int, TierTable]) -> int:
    return sum(t.nbytes for t in solved.values())


class RulesGame(GameKind[int]):
    """A plugin's game; positions are the rules' codes, written as the rules write them."""

    #: No warm-up of a live process's memory: valuing a rules game's first example solves the whole game
    #: (Connect Four 4 x 4's 88,289 positions), work and memory no request asked for.
    warms_up = False

    def warm_ups(self) -> Sequence[str]:
        """The examples of the games ListGames shows (small boards, each solved in well under a second
        once compiled), whose requests would otherwise load the shared rules kernels (and the game's
        own, from nimbase_rules.compiled) under their deadline."""
        return self.info().examples

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.game_id = rules.game_id

    def info(self) -> GameInfo:
        r = self.rules
        view = "grid" if r.grid() is not None else None
        return GameInfo(r.game_id, r.name, r.description, r.position_syntax, tuple(r.examples), view=view)

    def parse(self, text: str) -> int:
        try:
            code = self.rules.parse(text)
        except ValueError as error:
            raise InvalidPosition(f"position {quote_position(text)} of {self.game_id}: {error}") from None
        if not (0 <= code < self.rules.size and self.rules.legal(code)):
            raise InvalidPosition(
                f"position {quote_position(text)} is not a legal position of {self.game_id}"
            )
        return code

    def format(self, position: int) -> str:
        return self.rules.format(position)

    # -- where tiers come from -----------------------------------------------------------------------

    def tier_table(self, tier: int, ctx: Context) -> tuple[TierTable, Source]:
        """The solved tier: kept, stored, solved live (the whole game) or refused."""
        rules = self.rules
        family = tier_family(tier)

        def read() -> TierTable | None:
            return read_stored(
                self.game_id,
                family,
                ctx,
                "a stored tier",
                lambda data: TierTable.from_bytes(data, positions(rules, tier)),
            )

        def refuse() -> None:
            settings = ctx.settings_for(RulesSettings)
            field = "live_codes" if rules.kernels() is not None else "live_codes_plain"
            most = getattr(settings, field)
            if rules.size > most:
                raise ctx.tables.refusal(
                    self.game_id,
                    family,
                    f"tier {tier} of {self.game_id} is not stored yet, and only games of up to {most} "
                    f"codes are solved for a request ({SETTINGS.variable(field)}); this one has "
                    f"{rules.size}",
                )

        kept = ctx.kept.keeper(TIERS).get(
            ("rules", self.game_id, tier),
            ctx.deadline,
            what=f"solving {self.game_id}",
            read=read,
            make=lambda: self.live(ctx)[tier],
            weigh=lambda table: table.nbytes,
            refuse=refuse,
            before_make=ctx.tables.may_compute,
        )
        return kept.value, "live" if kept.source == "live" else "table"

    def live(self, ctx: Context) -> dict[int, TierTable]:
        """The whole game solved for requests (kept once solved)."""
        what = f"solving {self.game_id}"
        return (
            ctx.kept.keeper(TIERS)
            .get(
                ("rules", self.game_id, "all"),
                ctx.deadline,
                what=what,
                read=lambda: None,
                make=lambda: solve_all(self.rules, check=lambda: ctx.deadline.check(what)),
                weigh=_weigh,
                refuse=lambda: None,
                before_make=ctx.tables.may_compute,
            )
            .value
        )

    def value_of(self, code: int, ctx: Context) -> Value:
        table, source = self.tier_table(self.rules.tier(code), ctx)
        return value_in(self.rules, table, code, source)

    # -- GameKind ------------------------------------------------------------------------------------

    def value(self, position: int, ctx: Context) -> Value:
        return self.value_of(position, ctx)

    def best_moves(self, position: int, limit: int | None, ctx: Context) -> BestMoveResult:
        check_limit(limit, ctx.limits)
        value = self.value_of(position, ctx)
        ranked: list[tuple[tuple[int, int, str], MoveValue]] = []
        for move in self.rules.moves(position):
            ctx.deadline.check(f"listing the moves of {quote_position(value.position)}")
            reached = self.value_of(move.to, ctx)
            record: MoveRecord | None = None
            if isinstance(reached.kind, ScoreValue):
                m = reached.kind.margin
                mine = move.gain + (m if move.again else -m)
                record = ScoreMove(mine)
                key = (-mine, reached.remoteness or 0, move.text)
            else:
                key = _rank(reached, move.text)
            ranked.append((key, MoveValue(move.text, reached, record)))
        ranked.sort(key=lambda item: item[0])
        moves = [m for _, m in ranked]
        return BestMoveResult(value, moves[:limit] if limit is not None else moves)

    def stats(self, ctx: Context) -> dict[str, object]:
        """Positions by value and remoteness, the longest win and loss, the initial position's value: from
        the statistics stored beside each tier by its job (`tier_stats`; the initial tier's hold the initial
        position's value) where every tier has them, reading no table, else from the tiers' tables (kept,
        stored or solved live)."""
        tiers = self.rules.tiers()
        families = [tier_family(t) for t in tiers]
        found = ctx.tables.stored_stats_of(self.game_id, families)
        stored = [found.get(family) for family in families]
        if all(s is not None and s.get("version") == TIER_STATS_VERSION for s in stored):
            parts = [s for s in stored if s is not None]
            source: Source = "table"
        else:
            tables = [self.tier_table(t, ctx) for t in tiers]
            parts = [tier_stats(table) for table, _ in tables]
            source = "live" if any(s == "live" for _, s in tables) else "table"
        total = combine_tier_stats(parts)
        counts: dict[str, dict[str, int]] = total["by_remoteness"]
        out: dict[str, object] = {
            "game": self.game_id,
            "positions": total["positions"],
            "wins": sum(counts["win"].values()),
            "losses": sum(counts["loss"].values()),
            "ties": sum(counts["tie"].values()),
            "draws": total["draws"],
            "by_remoteness": counts,
            "longest_win": max((int(r) for r in counts["win"]), default=0),
            "longest_loss": max((int(r) for r in counts["loss"]), default=0),
            "tiers": len(parts),
            "initial": next((p["initial"] for p in parts if "initial" in p), None)
            or self.value_of(self.rules.initial(), ctx).as_dict(),
            "source": source,
        }
        if total["margins"]:
            out["margins"] = dict(sorted(total["margins"].items(), key=lambda kv: int(kv[0])))
        return out

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing one tier (family `tier:T`; by default the initial position's tier, whose
        job waits for every tier it leads to). `upto` and `fill` do not apply."""
        tier = self.rules.tier(self.rules.initial()) if family is None else family_tier(self.rules, family)
        needs = tier_needs(self.rules, tier)
        return JobPlan(
            self.game_id,
            tier_family(tier),
            self.rules.size,
            True,
            needs,
            memory_bytes=job_memory(self.rules),
            work=0,
            positions=self.rules.size,  # a tier may hold every code
            max_positions=MAX_TIER_POSITIONS,
        )

    def kernel_for(self, family: str) -> SequenceKernel | None:
        if not family.startswith(TIER_PREFIX):
            return None
        return TierKernel(self.rules, family_tier(self.rules, family))


#: Bytes a position of a tier costs its job at the peak with compiled rules (its code, the graph's index
#: and counts, its value, and the later tiers' it reads), besides 4 a move; plain rules' expansion costs
#: `PLAIN_POSITION_BYTES` and 16 a move.
POSITION_BYTES = 62
PLAIN_POSITION_BYTES = 42


#: Most positions one tier's solve indexes (its graph's edges name positions as int32).
MAX_TIER_POSITIONS = (1 << 31) - 1


def job_memory(rules: Rules) -> int:
    """About the peak address space of a tier's job. A tier is found by trying every code (`Rules.size`),
    so it may hold that many positions, and what is not known before that bounds it: a game whose code
    space no worker can hold a tier of is refused before its jobs are queued (Connect Four 7 x 6's
    127^7 codes), not failed after them."""
    compiled = type(rules).kernels is not Rules.kernels
    per = POSITION_BYTES + 4 * rules.max_moves if compiled else PLAIN_POSITION_BYTES + 16 * rules.max_moves
    return PROCESS_BYTES + rules.size * per


def value_in(rules: Rules, table: TierTable, code: int, source: Source) -> Value:
    """The value of position `code` in its tier's solved `table`."""
    i = table.index(rules.canonical(code))
    if i is None:
        raise InvalidPosition(
            f"position {quote_position(rules.format(code))} is in no solved tier of {rules.game_id}"
        )
    result = int(table.result[i])
    remoteness = int(table.remoteness[i])
    outcome: Outcome = "N" if result == WIN else "P" if result == LOSS else "D"
    record = None if table.margin is None else ScoreValue(int(table.margin[i]))
    return Value(
        rules.game_id,
        rules.format(code),
        outcome,
        None,
        None if result == DRAW else remoteness,
        source,
        record,
    )


#: The shape of `tier_stats`, stored with them (statistics of another shape are not read).
TIER_STATS_VERSION = 1


def tier_stats(table: TierTable) -> dict[str, Any]:
    """One tier's statistics, stored beside it by its job (JSON): its positions, endless draws, positions
    by result and remoteness, and by margin in score games; `combine_tier_stats` adds tiers up."""
    names = {WIN: "win", LOSS: "loss", TIE: "tie"}
    counts: dict[str, dict[str, int]] = {"win": {}, "loss": {}, "tie": {}}
    for result, name in names.items():
        rem = table.remoteness[table.result == result]
        for r, c in zip(*np.unique(rem, return_counts=True), strict=True):
            counts[name][str(int(r))] = int(c)
    margins: dict[str, int] = {}
    if table.margin is not None:
        for m, c in zip(*np.unique(table.margin, return_counts=True), strict=True):
            margins[str(int(m))] = int(c)
    return {
        "version": TIER_STATS_VERSION,
        "positions": len(table),
        "draws": int((table.result == DRAW).sum()),
        "by_remoteness": counts,
        "margins": margins,
    }


def combine_tier_stats(parts: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The statistics of several tiers together (`tier_stats` of each), counts added."""
    counts: dict[str, dict[str, int]] = {"win": {}, "loss": {}, "tie": {}}
    margins: dict[str, int] = {}
    for part in parts:
        for name, by_remoteness in part["by_remoteness"].items():
            for r, c in by_remoteness.items():
                counts[name][r] = counts[name].get(r, 0) + c
        for m, c in part["margins"].items():
            margins[m] = margins.get(m, 0) + c
    return {
        "positions": sum(part["positions"] for part in parts),
        "draws": sum(part["draws"] for part in parts),
        "by_remoteness": counts,
        "margins": margins,
    }


def tier_needs(rules: Rules, tier: int) -> tuple[StoredName, ...]:
    """The stored tiers the job of `tier` reads: those its moves lead to."""
    return tuple(StoredName(rules.game_id, tier_family(t)) for t in rules.tier_moves_to(tier))


def _rank(value: Value, text: str) -> tuple[int, int, str]:
    """Wins for the mover (the position reached lost) by least remoteness, then ties by least remoteness
    and endless draws, then losses by most."""
    r = value.remoteness
    if value.outcome == "P":
        return (0, r or 0, text)
    if value.outcome == "D":
        return (1, r if r is not None else 1 << 40, text)
    return (2, -(r or 0), text)


class TierKernel(BytesKernel):
    """What a worker runs for the family `tier:T`: the tier solved from the tiers its moves lead to
    (`needs`; given as their stored bytes, else solved here first), as `TierTable.to_bytes`. Each tier
    it solves is first checked to round-trip on a sample of its positions (kinds.rules.checks): rules
    whose encoding does not fail the job naming the position before anything is stored."""

    stores_stats = True

    def __init__(self, rules: Rules, tier: int) -> None:
        super().__init__()
        self.rules = rules
        self.tier = tier
        self.family = tier_family(tier)
        self._given: dict[int, TierTable] | None = None
        self._stats: dict[str, Any] | None = None

    def needs(self) -> tuple[StoredName, ...]:
        return tier_needs(self.rules, self.tier)

    def give(self, inputs: Mapping[StoredName, bytes]) -> None:
        given: dict[int, TierTable] = {}
        for name, data in inputs.items():
            tier = family_tier(self.rules, name.family)
            given[tier] = TierTable.from_bytes(data, positions(self.rules, tier))
        self._given = given

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        rules = self.rules
        needed = rules.tier_moves_to(self.tier)
        if self._given is not None and all(t in self._given for t in needed):
            later = merged([self._given[t] for t in needed])
        else:  # nothing given: the tiers it leads to are solved here first
            solved: dict[int, TierTable] = {}
            for tier in rules.tiers():
                if tier == self.tier:
                    break
                check_round_trip(rules, tier, positions(rules, tier))
                solved[tier] = solve_tier(rules, tier, merged([solved[t] for t in rules.tier_moves_to(tier)]))
            later = merged([solved[t] for t in needed])
        codes = positions(rules, self.tier)
        if progress is not None:  # the job's total: the tier's positions, known once they are found
            progress(0, len(codes))
        check_round_trip(rules, self.tier, codes)
        table = solve_tier(rules, self.tier, later, progress)
        self._stats = tier_stats(table)  # stored beside the tier: GetStats adds them up, tables unread
        initial = rules.initial()
        if rules.tier(initial) == self.tier:  # and the initial position's value, with its tier's
            self._stats["initial"] = value_in(rules, table, initial, "table").as_dict()
        return table.to_bytes()

    def object_stats(self) -> dict[str, Any] | None:
        return self._stats
