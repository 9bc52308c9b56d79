"""Nim and Kayles written as plain rules (nimbase_rules.games.nim, .kayles) equal the built-in `nim` and
`octal:0.77` kinds on every position: outcome and remoteness. The built-in kinds share no code with the
rules path (formula and octal kernel against the tier solver)."""

from __future__ import annotations

import re

import pytest

from engine.registry import parse_game_id
from kinds.rules.kind import RulesGame
from nimbase_rules.games.kayles import RowKayles
from nimbase_rules.games.nim import HeapNim
from tests.engine.contexts import StoredWords, engine_context, heap_context


@pytest.mark.parametrize("bounds", [(3, 4, 5), (1, 2, 2, 3)])
def test_nim_rules_equal_the_nim_kind(bounds: tuple[int, ...]) -> None:
    game = RulesGame(HeapNim(bounds))
    ctx = engine_context(StoredWords())
    nim = parse_game_id("nim")
    oracle = heap_context(lambda n: n)
    for code in range(game.rules.size):
        mine = game.value(code, ctx)
        theirs = nim.value(nim.parse(game.format(code)), oracle)
        assert (mine.outcome, mine.remoteness) == (theirs.outcome, theirs.remoteness), mine.position


def test_kayles_rules_equal_the_octal_kind() -> None:
    game = RulesGame(RowKayles(10))
    ctx = engine_context(StoredWords())
    kayles = parse_game_id("octal:0.77")
    reference = kayles.kernel().reference(11)  # type: ignore[attr-defined]
    oracle = heap_context(lambda n: reference[n])
    for code in range(game.rules.size):
        mine = game.value(code, ctx)
        heaps = " ".join(str(len(run)) for run in re.findall("x+", mine.position))
        theirs = kayles.value(kayles.parse(heaps), oracle)
        assert (mine.outcome, mine.remoteness) == (theirs.outcome, theirs.remoteness), mine.position
