"""The rules interface of nimbase: a game defined by its rules, solved by nimbase's workers.

A game is a `Rules` object. It declares:
- its positions: a text syntax (`parse`, `format`) and a compact encoding to integers, the codes
  0..`size`-1, of which `legal` says which name positions (a code that does not is never stored);
- its `initial` position;
- the `moves` of a position, each with its text and the code it leads to (`Move`);
- the value of a finished position (one with no move) for the player to move, `end`: `WIN`, `LOSS` or
  `TIE`, or, for a score game (`score_game`), the points the player to move still scores beyond the
  opponent (usually 0: the margin of what is left);
- optionally a canonical form (`canonical`: one code per class of symmetric positions) and tiers
  (`tier`: a number that only grows, or only shrinks, along moves, `tier_order` says which), so that
  each tier is solved once the tiers its moves lead to are, by its own job.

Positions are valued for the player to move: win, loss, tie (the game ends with no winner, with a
remoteness), or draw (endless play: no remoteness). Cycles are allowed (not in score games). A score
game's moves carry the points they score (`Move.gain`) and whether the same player moves again
(`Move.again`, Dots and Boxes' completed box); its value is the margin with best play.

Rules written with numba run at kernel speed: `kernels` returns the same rules as numba functions
(`Kernels`), which the solver calls from its own compiled loops. Plain Python rules work too, more
slowly. `nimbase_rules.testkit.check_rules` checks a plugin's rules for consistency.

A package registers its games under the entry-point group `nimbase.games`, one `Family` each::

    [project.entry-points."nimbase.games"]
    take-away = "my_games:FAMILY"

Example: take one or two tokens from a row of n; whoever cannot move loses::

    from nimbase_rules import LOSS, Family, Move, Rules

    class TakeAway(Rules):
        def __init__(self, n: int) -> None:
            self.game_id = f"take-away:{n}"
            self.size = n + 1
            self.name = f"Take-away from {n}"
            self.description = "Take one or two tokens; whoever cannot move loses."
            self.position_syntax = "the tokens left, e.g. '5'"
            self.examples = (str(n),)
        def initial(self) -> int:
            return self.size - 1
        def parse(self, text: str) -> int:
            return int(text)  # ValueError for text that is no number
        def format(self, code: int) -> str:
            return str(code)
        def moves(self, code: int) -> list[Move]:
            return [Move(f"-{k}", code - k) for k in (1, 2) if k <= code]
        def end(self, code: int) -> int:
            return LOSS
        def tier(self, code: int) -> int:
            return code
        tier_order = -1

    FAMILY = Family("take-away", lambda params: TakeAway(int(params or "10")), examples=("10",))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from nimbase.kernel_cache import key_by_sources

key_by_sources()  # before a plugin's module defines its kernels (they import this package first)

__all__ = [
    "LOSS",
    "NOT_OVER",
    "TIE",
    "WIN",
    "Family",
    "Grid",
    "Kernels",
    "Move",
    "Rules",
    "RulesError",
]

#: `end` of a finished position of a win/loss game, for the player to move.
WIN = 1
LOSS = -1
TIE = 0
#: What the numba `end` kernel returns for a position that is not finished.
NOT_OVER = -(1 << 62)


class RulesError(ValueError):
    """Rules that break the interface (a code that does not round-trip, a tier going the wrong way):
    the message names the position."""


@dataclass(frozen=True, slots=True)
class Move:
    """One move: its text, the code of the position it leads to, the points it scores (score games) and
    whether the same player moves again (score games only)."""

    text: str
    to: int
    gain: int = 0
    again: bool = False


class Kernels(NamedTuple):
    """The rules as numba functions (each `numba.njit`), called from the solver's compiled loops.

    - `legal(code) -> bool`;
    - `moves(code, to, info) -> int`: fills `to[i]` with the code each move leads to and `info[i]` with
      `gain << 1 | again`, and returns how many (at most `Rules.max_moves`);
    - `end(code) -> int`: as `Rules.end`, NOT_OVER where the position is not finished;
    - `canonical(code) -> int` and `tier(code) -> int`, as the methods.

    Kernels that are globals of a module in a file (`numba.njit(cache=True)`) let the solver keep its
    loops over them compiled on disk for the next process; `nimbase_rules.compiled.compiled_module` makes
    such a module from source text, for kernels bound to a game's parameters (Connect Four's board).
    Closures work too, compiled again in each process.
    """

    legal: Any
    moves: Any
    end: Any
    canonical: Any
    tier: Any


@dataclass(frozen=True, slots=True)
class Grid:
    """How the page draws a grid game: its positions are written as `rows` rows of `cols` cells joined by
    "/", top row first, each cell one character: "." an empty cell, any other the piece it holds (the page
    colours `x` and `o` as the two players'). The page draws the cells from the position's text and plays
    the move that fills a clicked cell, or, where pieces drop (Connect Four), the first move filling a
    cell of its column. ListGames says which games have a grid (`view` "grid"); `check_rules` checks that
    the positions are written so."""

    rows: int
    cols: int

    def cells(self, text: str) -> list[str] | None:
        """The cells of a position's text, row by row ("" for an empty one), or None where the text is no
        such grid."""
        lines = text.split("/")
        if len(lines) != self.rows or any(len(line) != self.cols for line in lines):
            return None
        return ["" if ch == "." else ch for line in lines for ch in line]


class Rules(ABC):
    """One game, parameters included. Subclasses set the attributes and the abstract methods."""

    #: The game id: FAMILY or FAMILY:PARAMS, e.g. "connect4:5x4".
    game_id: str
    #: Codes are 0..size-1.
    size: int
    name: str
    description: str
    position_syntax: str
    examples: tuple[str, ...]
    #: Whether `end` gives points (a score game, valued by its margin) rather than WIN/LOSS/TIE.
    score_game: bool = False
    #: +1 when tiers only grow along moves, -1 when they only shrink, 0 when the game has no tiers.
    tier_order: int = 0
    #: Most moves a position has (the numba `moves` kernel's arrays are this long).
    max_moves: int = 64

    @abstractmethod
    def initial(self) -> int:
        """The code of the initial position."""

    @abstractmethod
    def parse(self, text: str) -> int:
        """The code `text` names; ValueError (its message says why) where it names none."""

    @abstractmethod
    def format(self, code: int) -> str:
        """The text of a legal position (`parse(format(c)) == c`: a tier's job checks it on a sample of
        the tier's positions before solving, and fails naming the first position that does not)."""

    @abstractmethod
    def moves(self, code: int) -> list[Move]:
        """The moves of a legal position (none when it is finished)."""

    @abstractmethod
    def end(self, code: int) -> int:
        """The value of a finished position for the player to move: WIN, LOSS or TIE, or a score game's
        points (called only where `moves` is empty)."""

    def legal(self, code: int) -> bool:
        """Whether `code` names a legal position (every code by default)."""
        return 0 <= code < self.size

    def canonical(self, code: int) -> int:
        """The one code standing for `code` and its symmetric positions (itself by default)."""
        return code

    def tier(self, code: int) -> int:
        """The position's tier (0 for every position where the game has none)."""
        return 0

    def tiers(self) -> list[int]:
        """Every tier, in the order they are solved (the last first reached)."""
        found = sorted({self.tier(c) for c in range(self.size) if self.legal(c)})
        return found[::-1] if self.tier_order >= 0 else found

    def tier_moves_to(self, tier: int) -> list[int]:
        """The tiers the moves of `tier`'s positions may lead to (besides itself): every later tier by
        default; rules whose moves lead to the next tier only say so, so its job waits for one."""
        every = self.tiers()
        return every[: every.index(tier)] if tier in every else []

    def tier_positions(self, tier: int) -> Iterable[int]:
        """The canonical legal codes of `tier`, ascending (by default by trying every code)."""
        return (
            c for c in range(self.size) if self.legal(c) and self.canonical(c) == c and self.tier(c) == tier
        )

    def kernels(self) -> Kernels | None:
        """The rules as numba functions, for kernel speed (None: plain Python rules)."""
        return None

    def grid(self) -> Grid | None:
        """The grid the page draws positions on, for grid games (None: the positions' text only)."""
        return None


@dataclass(frozen=True, slots=True)
class Family:
    """What a package registers under the entry-point group `nimbase.games`: a family of games.

    `make(params)` gives the rules for the game id `name:params` (`params` None for the bare `name`),
    raising ValueError for parameters it does not take; ListGames shows the games `examples` name (their
    params; None for the bare name)."""

    name: str
    make: Callable[[str | None], Rules]
    examples: tuple[str | None, ...] = (None,)
