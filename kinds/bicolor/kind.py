"""Bicolor Nim (seed 001): heaps of white and black stones; emptying the board wins only with a white stone.

Not additive (two P-positions can sum to an N-position), so a position is valued whole: every
sub-position at once by the box kernel when its memory fits, else by a memoised search over canonical
positions within the request's search limit (see kinds.bicolor.kernels.boxes for both and the recurrence).
A value carries G (`grundy`), G- (`grundy_black`), the outcome (P exactly when G = 0) and the exact
remoteness.

The seed's two-heap families (`f_n`, `g_n`, `h_n`, `h'_n`, `f'_n`, `g'_n`, `f^(m)_n`, the parameter
being p) are one-parameter sequences like heap games' values: stored by workers, grown live within the
limits, and arithmetic-periodic with a certificate (kinds.bicolor.kernels.boxes.certify_family).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, LimitExceeded
from engine.families import Family
from engine.kind import Context, GameKind, SequenceKernel
from engine.kind_settings import PositiveInt, SettingsDeclaration
from engine.moves import MoveTo, check_limit, list_moves
from engine.periods import Period
from engine.positions import MAX_HEAPS, check_length, parse_decimal, quote_position, quote_token, token_at
from engine.precompute import JobPlan
from engine.records import MoveRecord, ValueRecord
from engine.values import BestMoveResult, GameInfo, SequenceResult, Value, costliest
from kinds.bicolor import stats as family_stats
from kinds.bicolor.kernels.boxes import (
    Heap,
    Heaps,
    box_bytes,
    box_index,
    box_values,
    canonical,
    certify_family,
    family_reference,
    family_table,
    move_count,
    single_heap,
    successors,
    values_reference,
)

GAME_ID = "bicolor-nim"

#: Deepest memoised search (one level per stone taken); Python's recursion stays well inside its limit.
SEARCH_STONES = 400
#: Families are stored for n (and m) up to this; larger ones are computed live within the limits.
STORED_PARAMETER = 16
#: Work (sub-heap pairs) per family value a live family table may cost in all, and memory of the table.
LIVE_FAMILY_STEPS = 400_000_000
LIVE_FAMILY_CELLS = 64_000_000


@dataclass(frozen=True, slots=True)
class BicolorSettings:
    """bicolor-nim's own settings (`SETTINGS`: NIMBASE_LIMITS_BICOLOR_<FIELD>)."""

    live_box_bytes: PositiveInt = 256 << 20
    """Most memory the box kernel may take to value a position (every sub-position at once) for a
    request, about a second of work at this size; past it, the position is searched instead."""


#: What the registry entry declares (the variable NIMBASE_LIMITS_BICOLOR_LIVE_BOX_BYTES).
SETTINGS = SettingsDeclaration("bicolor", BicolorSettings)

_HEAP = re.compile(r"(?:(\d+)w)?(?:(\d+)b)?")
_BAD_CHAR = re.compile(r"[^0-9wb \t\r\n]")
_FAMILY = re.compile(r"(f|g|h|h'|f'|g'|f\^\((\d+)\))_(\d+)")
#: Any heap against p stones of one colour: `G[3w2b;b]` (G), `G-[1w;w]` (G-).
_GENERAL_FAMILY = re.compile(r"(G-?)\[([0-9wb]+);([wb])\]")


def parse_heaps(text: str) -> Heaps:
    """Canonical heaps of a position `2w1b 3w 4b`: sorted, empty heaps (`0w0b`) dropped.

    As strict as heap positions: ASCII digits, `w`, `b` and ASCII blanks only, counts bounded before
    anything converts them; each heap is `<white>w<black>b` with either part left out.
    """
    check_length(text)
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        raise _bad_heap(token_at(text, bad.start()), text)
    tokens = text.split()
    if len(tokens) > MAX_HEAPS:
        raise InvalidPosition(
            f"too many heaps: {len(tokens)} (at most {MAX_HEAPS}) in {quote_position(text)}"
        )
    heaps: list[Heap] = []
    for token in tokens:
        match = _HEAP.fullmatch(token)
        if match is None or match.groups() == (None, None):
            raise _bad_heap(token, text)
        white_text, black_text = match.groups()
        where = f" in bicolor heap {quote_token(token)} of {quote_position(text)}"
        white = 0 if white_text is None else parse_decimal(white_text, what="white count", where=where)
        black = 0 if black_text is None else parse_decimal(black_text, what="black count", where=where)
        heaps.append((white, black))
    return canonical(heaps)


def _bad_heap(token: str, text: str) -> InvalidPosition:
    return InvalidPosition(
        f"invalid bicolor heap {quote_token(token)} in {quote_position(text)}: expected white and black "
        "counts such as '2w1b', '3w' or '4b' (white first)"
    )


def heap_text(heap: Heap) -> str:
    white, black = heap
    if not white and not black:
        return "0"
    return (f"{white}w" if white else "") + (f"{black}b" if black else "")


def format_heaps(heaps: Heaps) -> str:
    return " ".join(heap_text(h) for h in heaps)


# -- families ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FamilySpec:
    """A two-heap family: G (or G-, `minus`) of the heap `fixed` against p stones of one colour."""

    name: str
    fixed: Heap
    second_white: bool
    minus: bool


def general_family(fixed: Heap, second_white: bool, minus: bool) -> FamilySpec:
    """The family of `fixed` against p stones of one colour, under its seed name where it has one."""
    colour = "w" if second_white else "b"
    spec = FamilySpec(f"{'G-' if minus else 'G'}[{heap_text(fixed)};{colour}]", fixed, second_white, minus)
    for name in _seed_names(fixed):
        named = parse_family(name)
        if (named.fixed, named.second_white, named.minus) == (fixed, second_white, minus):
            return named
    return spec


def _seed_names(fixed: Heap) -> list[str]:
    white, black = fixed
    if white == 0:
        return [f"f_{black}", f"h'_{black}"]
    if black == 0:
        return [f"g_{white}", f"h_{white}", f"f^(0)_{white}"]
    return [f"g'_{white}"] if black == 1 else [f"f^({black})_{white}"]


def parse_family(text: str) -> FamilySpec:
    """`f_3`, `g'_1`, `f^(2)_4`, ... (names as in seed 001), or any heap against p stones of one colour,
    `G[3w2b;b]` or `G-[3w2b;w]`; InvalidArgument otherwise."""
    general = _GENERAL_FAMILY.fullmatch(text)
    if general is not None:
        minus, heap, colour = general.groups()
        match = _HEAP.fullmatch(heap)
        if match is not None and match.groups() != (None, None):
            white_text, black_text = match.groups()
            where = f" in bicolor-nim family {quote_token(text)}"
            fixed = (
                0
                if white_text is None
                else parse_decimal(white_text, what="white count", where=where, error=InvalidArgument),
                0
                if black_text is None
                else parse_decimal(black_text, what="black count", where=where, error=InvalidArgument),
            )
            return general_family(fixed, colour == "w", minus == "G-")
    match = _FAMILY.fullmatch(text)
    if match is None:
        raise InvalidArgument(
            f"unknown bicolor-nim family {quote_token(text)}: families are f_n, g_n, h_n, h'_n, f'_n, g'_n "
            "and f^(m)_n (e.g. 'f_3', \"g'_1\", 'f^(2)_4'), or any heap against p stones of one colour, "
            "G[3w2b;b] or G-[3w2b;w]"
        )
    kind, m_text, n_text = match.groups()
    where = f" in bicolor-nim family {quote_token(text)}"
    n = parse_decimal(n_text, what="n", where=where, error=InvalidArgument)
    if kind == "f":
        return FamilySpec(f"f_{n}", (0, n), False, False)
    if kind == "g":
        return FamilySpec(f"g_{n}", (n, 0), True, True)
    if kind == "h":
        return FamilySpec(f"h_{n}", (n, 0), False, False)
    if kind == "h'":
        return FamilySpec(f"h'_{n}", (0, n), True, False)
    if kind == "g'":
        return FamilySpec(f"g'_{n}", (n, 1), True, True)
    m = 1 if kind == "f'" else parse_decimal(m_text, what="m", where=where, error=InvalidArgument)
    name = f"f'_{n}" if m == 1 else f"f^({m})_{n}"
    return FamilySpec(name, (n, m), True, False)


def family_steps(fixed: Heap) -> int:
    """Sub-heap pairs one value of a family table costs: each sub-heap against every one below it."""
    white, black = fixed
    return ((white + 1) * (white + 2) // 2) * ((black + 1) * (black + 2) // 2)


class FamilyKernel(SequenceKernel):
    """One family's values p = 0, 1, ...: its whole sub-heap table recomputed (it is cheap), and the
    certificate found in the same pass."""

    certifies = True
    stores_stats = True

    def __init__(self, spec: FamilySpec) -> None:
        self.spec = spec
        self.family = spec.name
        self._found: tuple[int, tuple[int, int, bool] | None] | None = None

    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        if stop <= len(prefix):
            return prefix[:stop]
        table = family_table(self.spec.fixed, self.spec.second_white, self.spec.minus, stop)
        self._found = (stop, certify_family(table))
        row: NDArray[np.uint32] = table[-1].astype(np.uint32)
        return row

    def _periods(self, values: NDArray[np.uint32]) -> tuple[int, int, bool] | None:
        if self._found is None or self._found[0] != len(values):
            table = family_table(self.spec.fixed, self.spec.second_white, self.spec.minus, len(values))
            self._found = (len(values), certify_family(table))
        return self._found[1]

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        found = self._periods(values)
        if found is None or not found[2]:
            return None
        return Period(preperiod=found[1], period=found[0], saltus=found[0], certified=True)

    def observe(self, values: NDArray[np.uint32]) -> Period | None:
        found = self._periods(values)
        if found is None:
            return None
        return Period(preperiod=found[1], period=found[0], saltus=found[0], certified=found[2])

    def stats_part(self, values: NDArray[np.uint32], start: int) -> dict[str, Any] | None:
        return family_stats.part(values, start, self.observe(values))

    def combine_stats(self, earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
        return family_stats.combine(earlier, later)

    def reference(self, stop: int) -> list[int]:
        return family_reference(self.spec.fixed, self.spec.second_white, self.spec.minus, stop)


@dataclass(frozen=True)
class FamilySource:
    """A family as the sequence tables see it (stored under game `bicolor-nim`, family `name`)."""

    spec: FamilySpec
    game_id: str = GAME_ID

    @property
    def family(self) -> str:
        return self.spec.name

    @property
    def live_limit(self) -> int:
        rows = (self.spec.fixed[0] + 1) * (self.spec.fixed[1] + 1)
        return max(0, min(LIVE_FAMILY_STEPS // family_steps(self.spec.fixed), LIVE_FAMILY_CELLS // rows))

    def formula_value(self, n: int) -> int | None:
        return None

    def formula_period(self) -> Period | None:
        return None

    def kernel(self) -> FamilyKernel:
        return _family_kernel(self.spec)


@lru_cache(maxsize=256)
def _family_kernel(spec: FamilySpec) -> FamilyKernel:
    return FamilyKernel(spec)


# -- the game ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BicolorValue(ValueRecord):
    """What bicolor-nim adds to a value: G- beside G (`grundy`)."""

    grundy_black: int
    """bicolor-nim: G-, the size of the black heap that, added to the position, makes it a P-position
    (`grundy` is G, the same with a white heap)."""


@dataclass(frozen=True, slots=True)
class BicolorMove(MoveRecord):
    """A bicolor-nim move: the heap moved in, what it becomes, the stones of each colour taken, and the
    G- of the position reached."""

    colored_heap: tuple[int, int]
    """bicolor-nim: the heap moved in, as [white, black]."""
    to: tuple[int, int]
    """bicolor-nim: the heap it becomes, [white, black] ([0, 0] when it is taken whole)."""
    white_taken: int
    """bicolor-nim: white stones the move takes."""
    black_taken: int
    """bicolor-nim: black stones the move takes."""
    grundy_black: int | None = None
    """Of the position reached: its G- (absent where that position has none: an empty board lost)."""

    def reached(self, kind: ValueRecord | None) -> Self:
        grundy_black = kind.grundy_black if isinstance(kind, BicolorValue) else None
        return dataclasses.replace(self, grundy_black=grundy_black)


#: What a move leads to: the position, and whether the move emptied the board taking no white stone
#: (the mover then loses at once).
Child = tuple[Heaps, bool]


@dataclass(frozen=True, slots=True)
class _Solved:
    """G, G- and remoteness of a position and of every position one move from it."""

    own: tuple[int, int, int]
    children: dict[Heaps, tuple[int, int, int]]


class BicolorNim(GameKind[Heaps]):
    """Bicolor Nim, valued whole (seed 001)."""

    game_id = GAME_ID

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name="Bicolor Nim",
            description=(
                "Heaps of white and black stones; a move takes any stones from one heap; whoever empties "
                "the board wins if that move took a white stone, and loses otherwise. Not additive: "
                "values carry G (grundy) and G- (grundy_black); families f_n, g_n, h_n, h'_n, f'_n, g'_n, "
                "f^(m)_n as in the seed."
            ),
            position_syntax="heaps as white/black counts separated by spaces, e.g. '2w1b 3w 4b'",
            examples=("2w1b 3w 4b", "2w 2w 2b 2b", "1b 2w1b 1w2b"),
        )

    def parse(self, text: str) -> Heaps:
        return parse_heaps(text)

    def format(self, position: Heaps) -> str:
        return format_heaps(position)

    # -- values -------------------------------------------------------------------------------------

    def _solve(self, position: Heaps, ctx: Context) -> _Solved:
        """The position and its children, by the box kernel when it fits, else by memoised search."""
        ctx.deadline.check(lambda: f"valuing bicolor position {format_heaps(position)!r}")
        if box_bytes(position) <= ctx.settings_for(BicolorSettings).live_box_bytes:
            ctx.tables.may_compute()
            return self._from_box(position, *box_values(position))
        return self._search(position, ctx)

    def _own(self, position: Heaps, ctx: Context) -> tuple[int, int, int]:
        """G, G- and remoteness of a position of two heaps or more; the memo keeps these three numbers
        (a move list is recomputed: the box of a position costs at most about a second)."""
        return ctx.memo.get_or_compute(("bicolor", position), lambda: self._solve(position, ctx).own)

    def _from_box(
        self, position: Heaps, g: NDArray[np.int32], m: NDArray[np.int32], r: NDArray[np.int32]
    ) -> _Solved:
        children: dict[Heaps, tuple[int, int, int]] = {}
        for i, becomes, child in successors(position):
            if not child:
                continue
            sub = tuple(becomes if j == i else heap for j, heap in enumerate(position))
            cell = box_index(position, sub)
            children[child] = (int(g[cell]), int(m[cell]), int(r[cell]))
        return _Solved((int(g[-1]), int(m[-1]), int(r[-1])), children)

    def _search(self, position: Heaps, ctx: Context) -> _Solved:
        stones = sum(w + b for w, b in position)
        box_limit = ctx.settings_for(BicolorSettings).live_box_bytes
        if stones > SEARCH_STONES:
            raise LimitExceeded(
                f"bicolor position {quote_position(format_heaps(position))} is beyond the live limits: its "
                f"sub-positions need more than {box_limit >> 20} MiB in a table, "
                f"and a search over its {stones} stones is deeper than {SEARCH_STONES}"
            )
        memo: dict[Heaps, tuple[int, int, int]] = {}
        states = ctx.limits.search_states

        def budget() -> None:
            if len(memo) >= states:
                raise LimitExceeded(
                    f"bicolor position {quote_position(format_heaps(position))} needs a search of more than "
                    f"{states} positions, the live limit"
                )
            if len(memo) % 1024 == 0:
                ctx.deadline.check(lambda: f"searching bicolor position {format_heaps(position)!r}")

        ctx.tables.may_compute()
        own = values_reference(position, memo, budget)
        children = {child: memo[child] for _, _, child in successors(position) if child}
        return _Solved(own, children)

    def _value(self, position: Heaps, found: tuple[int, int, int]) -> Value:
        g, m, r = found
        return Value(
            self.game_id, format_heaps(position), "P" if g == 0 else "N", g, r, "live", BicolorValue(m)
        )

    def value(self, position: Heaps, ctx: Context) -> Value:
        if len(position) <= 1:
            found = single_heap(*position[0]) if position else (0, 1, 0)
            g, m, r = found
            return Value(
                self.game_id, format_heaps(position), "P" if g == 0 else "N", g, r, "formula", BicolorValue(m)
            )
        if len(position) == 2 and box_bytes(position) > ctx.settings_for(BicolorSettings).live_box_bytes:
            by_family = self._two_heaps(position, ctx)
            if by_family is not None:
                return by_family
        return self._value(position, self._own(position, ctx))

    def _two_heaps(self, position: Heaps, ctx: Context) -> Value | None:
        """Two heaps, one of one colour and too large for the box: G and G- from the families of the
        other heap against it (stored, certified period or live), without remoteness."""
        candidates = [(a, b) for a, b in (position, position[::-1]) if 0 in b]
        if not candidates:
            return None
        fixed, (white, black) = min(candidates, key=lambda pair: (pair[0][0] + 1) * (pair[0][1] + 1))
        p = white + black
        g, g_source = ctx.tables.value(
            FamilySource(general_family(fixed, black == 0, False)), p, ctx.deadline.at
        )
        m, m_source = ctx.tables.value(
            FamilySource(general_family(fixed, black == 0, True)), p, ctx.deadline.at
        )
        source = costliest([g_source, m_source])
        return Value(
            self.game_id, format_heaps(position), "P" if g == 0 else "N", g, None, source, BicolorValue(m)
        )

    def best_moves(self, position: Heaps, limit: int | None, ctx: Context) -> BestMoveResult:
        check_limit(limit, ctx.limits)
        solved = self._solve(position, ctx) if len(position) > 1 else None
        value = self.value(position, ctx) if solved is None else self._value(position, solved.own)

        def evaluate(child: Child, ranked: bool = True) -> Value:
            heaps, lost = child
            if not heaps:  # the board is empty: lost by the player to move if the move took white
                if lost:
                    return Value(self.game_id, "", "N", None, 0, "formula")
                return Value(self.game_id, "", "P", 0, 0, "formula", BicolorValue(1))
            if len(heaps) == 1:
                return self.value(heaps, ctx)
            assert solved is not None
            return self._value(heaps, solved.children[heaps])

        def winning() -> Iterator[MoveTo[Child]]:
            if len(position) == 1:  # a heap of 2^63 stones has as many moves: never scanned for these
                yield from self._single_heap_wins(position[0])
                return
            for done, move in enumerate(self._moves(position)):
                if done % 1024 == 0:
                    ctx.deadline.check(
                        lambda: f"looking for the winning moves of {quote_position(value.position)}"
                    )
                if evaluate(move[2]).outcome == "P":
                    yield move

        return list_moves(
            value,
            move_count(position),
            lambda: self._moves(position),
            winning,
            evaluate,
            limit,
            ctx.limits,
            ctx.deadline,
        )

    def _moves(self, position: Heaps) -> Iterator[MoveTo[Child]]:
        for i, becomes, child in successors(position):
            yield self._move(position[i], becomes, child)

    def _move(self, heap: Heap, becomes: Heap, child: Heaps) -> MoveTo[Child]:
        record = BicolorMove(heap, becomes, heap[0] - becomes[0], heap[1] - becomes[1])
        lost = not child and heap[0] == 0
        return f"{heap_text(heap)} -> {heap_text(becomes)}", record, (child, lost)

    def _single_heap_wins(self, heap: Heap) -> Iterator[MoveTo[Child]]:
        """The moves of a lone heap to P-positions, from the single heaps' closed form (a heap of n
        stones is P only when it is one black stone): emptying it when that takes a white stone, and
        leaving one black stone."""
        white, black = heap
        if white:
            yield self._move(heap, (0, 0), ())
        if black and heap != (0, 1):
            yield self._move(heap, (0, 1), canonical([(0, 1)]))

    # -- families -----------------------------------------------------------------------------------

    def sequence(self, family: str | None, start: int, stop: int, ctx: Context) -> SequenceResult:
        """Values of a two-heap family for p = start..stop-1, its certified period (else the one seen)."""
        if family is None:
            raise InvalidArgument(
                "bicolor-nim has no single-heap sequence: name a family, e.g. 'f_3', \"g'_1\" or 'f^(2)_4'"
            )
        source = FamilySource(parse_family(family))
        if source.live_limit < 1:
            raise LimitExceeded(
                f"bicolor-nim family {quote_token(family)} is beyond the live limits: one value of it costs "
                f"{family_steps(source.spec.fixed)} steps"
            )
        values, used = ctx.tables.values(source, start, stop, ctx.deadline.at)
        period = ctx.tables.period(source, ctx.deadline.at, compute=True)
        if period is None:
            prefix, _ = ctx.tables.known_prefix(source, ctx.deadline.at)
            period = source.kernel().observe(prefix) if len(prefix) else None
        return SequenceResult(self.game_id, source.family, start, stop, values.tolist(), period, used)

    def stats(self, ctx: Context) -> dict[str, object]:
        """How many families are stored and how far, and each stored family's figures (`families`: its
        largest value, P-positions and period) from the statistics its worker stored beside it
        (kinds.bicolor.stats, read for every family at once; a family stored without them is left out)."""
        names = stored_family_names()
        sizes = [ctx.tables.stored_size(self.game_id, name) for name in names]
        held = [name for name, size in zip(names, sizes, strict=True) if size]
        found = ctx.tables.stored_stats_of(self.game_id, held) if held else {}
        listed = ctx.limits.stats_p_positions
        families = {}
        for name in held:
            figures = found.get(name)
            if figures is not None and family_stats.readable(figures):
                families[name] = family_stats.answer(figures, listed)
        return {
            "game": self.game_id,
            "families_stored": len(held),
            "computed_upto": max(sizes, default=0),
            "families": families,
            "live_box_bytes": ctx.settings_for(BicolorSettings).live_box_bytes,
            "period": None,
        }

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        if family is None:
            raise InvalidArgument(
                "a bicolor-nim job computes one family: name it, e.g. family 'f_3' (the workers store "
                f"families with n and m up to {STORED_PARAMETER})"
            )
        if not 1 <= upto <= 1 << 24:
            raise InvalidArgument(f"upto {upto} is outside 1..{1 << 24} for a bicolor-nim family")
        spec = parse_family(family)
        return JobPlan(self.game_id, spec.name, upto, fill)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        try:
            return _family_kernel(parse_family(family))
        except InvalidArgument:
            return None


def stored_family_names(limit: int = STORED_PARAMETER) -> list[str]:
    """Every family the workers store: each named family for n up to `limit`, f^(m)_n for m up to 8."""
    names = [f"{kind}_{n}" for kind in ("f", "g", "h", "h'", "f'", "g'") for n in range(limit + 1)]
    names += [f"f^({m})_{n}" for m in range(2, 9) for n in range(limit + 1)]
    return names


def _parse_bicolor(params: str | None, text: str) -> GameKind[Any]:
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: bicolor Nim takes no parameters, use 'bicolor-nim'")
    return BicolorNim()


#: The family's registry entry (pyproject.toml's entry point `bicolor-nim`).
ENTRY = Family(
    parse=_parse_bicolor, info=lambda: BicolorNim().info(), settings=SETTINGS, misere=False, order=60
)
