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

import numpy as np

from engine.errors import InvalidArgument, InvalidPosition
from engine.kind import Context, GameKind, SequenceKernel
from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration
from engine.moves import check_limit
from engine.positions import quote_position, quote_token
from engine.precompute import JobPlan, StoredName
from engine.records import MoveRecord, ValueRecord
from engine.rules.checks import check_round_trip
from engine.rules.solve import positions, solve_all, solve_tier
from engine.rules.tables import DRAW, LOSS, TIE, WIN, TierTable, merged
from engine.stored_bytes import BytesKernel, read_stored
from engine.values import BestMoveResult, GameInfo, MoveValue, Outcome, Source, Value
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
    if not family.startswith(TIER_PREFIX) or not text.lstrip("-").isdigit():
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
        rules = self.rules
        table, source = self.tier_table(rules.tier(code), ctx)
        i = table.index(rules.canonical(code))
        if i is None:
            raise InvalidPosition(
                f"position {quote_position(rules.format(code))} is in no solved tier of {self.game_id}"
            )
        result = int(table.result[i])
        remoteness = int(table.remoteness[i])
        outcome: Outcome = "N" if result == WIN else "P" if result == LOSS else "D"
        record = None if table.margin is None else ScoreValue(int(table.margin[i]))
        return Value(
            self.game_id,
            rules.format(code),
            outcome,
            None,
            None if result == DRAW else remoteness,
            source,
            record,
        )

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
        """Positions by value and remoteness, the longest win and loss, the initial position's value."""
        tables = [self.tier_table(t, ctx) for t in self.rules.tiers()]
        counts: dict[str, dict[str, int]] = {"win": {}, "loss": {}, "tie": {}}
        names = {WIN: "win", LOSS: "loss", TIE: "tie"}
        draws = 0
        total = 0
        margins: dict[str, int] = {}
        for table, _ in tables:
            total += len(table)
            draws += int((table.result == DRAW).sum())
            for result, name in names.items():
                rem = table.remoteness[table.result == result]
                for r, c in zip(*np.unique(rem, return_counts=True), strict=True):
                    counts[name][str(int(r))] = counts[name].get(str(int(r)), 0) + int(c)
            if table.margin is not None:
                for m, c in zip(*np.unique(table.margin, return_counts=True), strict=True):
                    margins[str(int(m))] = margins.get(str(int(m)), 0) + int(c)
        out: dict[str, object] = {
            "game": self.game_id,
            "positions": total,
            "wins": sum(counts["win"].values()),
            "losses": sum(counts["loss"].values()),
            "ties": sum(counts["tie"].values()),
            "draws": draws,
            "by_remoteness": counts,
            "longest_win": max((int(r) for r in counts["win"]), default=0),
            "longest_loss": max((int(r) for r in counts["loss"]), default=0),
            "tiers": len(tables),
            "initial": self.value_of(self.rules.initial(), ctx).as_dict(),
            "source": "live" if any(s == "live" for _, s in tables) else "table",
        }
        if margins:
            out["margins"] = dict(sorted(margins.items(), key=lambda kv: int(kv[0])))
        return out

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing one tier (family `tier:T`; by default the initial position's tier, whose
        job waits for every tier it leads to). `upto` and `fill` do not apply."""
        tier = self.rules.tier(self.rules.initial()) if family is None else family_tier(self.rules, family)
        return JobPlan(self.game_id, tier_family(tier), self.rules.size, True, tier_needs(self.rules, tier))

    def kernel_for(self, family: str) -> SequenceKernel | None:
        if not family.startswith(TIER_PREFIX):
            return None
        return TierKernel(self.rules, family_tier(self.rules, family))


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
    it solves is first checked to round-trip on a sample of its positions (engine.rules.checks): rules
    whose encoding does not fail the job naming the position before anything is stored."""

    def __init__(self, rules: Rules, tier: int) -> None:
        super().__init__()
        self.rules = rules
        self.tier = tier
        self.family = tier_family(tier)
        self._given: dict[int, TierTable] | None = None

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
        check_round_trip(rules, self.tier, positions(rules, self.tier))
        return solve_tier(rules, self.tier, later, progress).to_bytes()
