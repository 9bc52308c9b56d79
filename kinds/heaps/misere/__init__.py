"""Misère play of octal games and Grundy's game through Plambeck and Siegel's misère quotients.

The package's face: `parse_misere` (the `:misere` ids of the octal and Grundy families), the kind
(`MisereHeapGame`), the quotient (`Quotient`, `compute`) and the settings its registry entries declare
(`SETTINGS`). Modules: `construct` (the quotient, heap by heap, and its periodicity certificate), `verify`
(the local criterion that makes a candidate a proof), `monoid` (the quotient as data, its presentation and
storage), `fold` (products of sums: a numba kernel and its reference), `batch` (a batch's texts parsed,
folded and written canonical in one numba pass), `digits` (its decimal reads and writes, eight bytes at a
time), `tame` (tameness and genus), `stored` (settings, keeper, answer record, the worker's kernel), `kind`
(the served game).
"""

from __future__ import annotations

from engine.errors import InvalidGameId
from kinds.heaps.base import HeapGame
from kinds.heaps.misere.construct import HeapRules, Limits, compute
from kinds.heaps.misere.kind import SUFFIX, MisereHeapGame
from kinds.heaps.misere.monoid import Quotient
from kinds.heaps.misere.stored import SETTINGS, MisereSettings, MisereValue

__all__ = [
    "SETTINGS",
    "SUFFIX",
    "HeapRules",
    "Limits",
    "MisereHeapGame",
    "MisereSettings",
    "MisereValue",
    "Quotient",
    "compute",
    "misere_of",
    "split_suffix",
]


def split_suffix(params: str | None) -> tuple[str | None, bool]:
    """(params without a trailing `:misere`, whether it had one)."""
    if params is not None and params.endswith(SUFFIX):
        return params[: -len(SUFFIX)], True
    if params == "misere":
        return None, True
    return params, False


def misere_of(base: HeapGame, t: int | None, text: str) -> MisereHeapGame:
    """The misère form of `base` (`t` the most tokens a move removes, None where the periodicity criterion
    does not apply); InvalidGameId quoting `text` for a game with no misère form here."""
    if base.misere:
        raise InvalidGameId(f"game id {text!r}: {base.game_id!r} is played misère already")
    return MisereHeapGame(base, t)
