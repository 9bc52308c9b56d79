"""A game defined by its rules as the service sees it (kinds.rules.kind): values, ranked moves, stats,
bad input, the tiers a worker's jobs store and read back, and rules that break the interface."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, LimitExceeded
from engine.registry import parse_game_id
from engine.stored_bytes import encode_words
from kinds.rules.kind import RulesGame, ScoreMove, ScoreValue, TierKernel, tier_family
from nimbase_rules import LOSS, Move, Rules, RulesError
from nimbase_rules.games.tictactoe import TicTacToe
from nimbase_rules.testkit import check_rules
from tests.engine.contexts import StoredWords, engine_context, kind_settings


class Refusing(StoredWords):
    """Stored words, and the refusal naming the family a job would store."""

    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> Exception:
        return LimitExceeded(f"{message} [job: {game_id} {family}]")


def test_tictactoe_values_moves_and_stats() -> None:
    game = parse_game_id("tictactoe")
    ctx = engine_context(Refusing())
    start = game.value(game.parse(".../.../..."), ctx)
    assert (start.outcome, start.remoteness, start.source) == ("D", 9, "live")
    won = game.value(game.parse("xx./oo./..."), ctx)
    assert (won.outcome, won.remoteness) == ("N", 1)
    best = game.best_moves(game.parse("xx./oo./..."), None, ctx)
    assert best.moves[0].move == "c1" and best.moves[0].value.outcome == "P"
    assert best.moves[0].value.remoteness == 0 and best.moves[0].value.position == "xxx/oo./..."
    ranks = [m.value.outcome for m in best.moves]
    assert ranks == sorted(ranks, key="PDN".index)
    assert len(game.best_moves(game.parse(".../.../..."), 2, ctx).moves) == 2
    stats = game.stats(ctx)
    assert stats["positions"] == 5478 and stats["draws"] == 0
    assert stats["initial"] == start.as_dict()
    assert stats["wins"] + stats["losses"] + stats["ties"] == 5478  # type: ignore[operator]
    assert stats["longest_win"] == max(int(r) for r in stats["by_remoteness"]["win"])  # type: ignore[index]


def test_score_game_margins() -> None:
    game = parse_game_id("dots-and-boxes:2x2")
    ctx = engine_context(Refusing())
    start = game.value(game.parse("0" * 12), ctx)
    assert isinstance(start.kind, ScoreValue) and start.remoteness == 12
    assert start.outcome == {1: "N", -1: "P", 0: "D"}[int(np.sign(start.kind.margin))]
    moves = game.best_moves(game.parse("0" * 12), None, ctx).moves
    margins = [m.kind.margin for m in moves]  # type: ignore[union-attr]
    assert margins == sorted(margins, reverse=True) and margins[0] == start.kind.margin
    # one line left (the bottom-right box's right side): drawing it scores that box
    last = "1" * 11 + "0"
    assert game.value(game.parse(last), ctx).kind == ScoreValue(1)
    assert game.best_moves(game.parse(last), None, ctx).moves[0].kind == ScoreMove(1)
    assert game.value(game.parse("1" * 12), ctx).kind == ScoreValue(0)


@pytest.mark.parametrize(
    ("game_id", "text", "why"),
    [
        ("tictactoe", "xxx", "three rows"),
        ("tictactoe", "xxx/xxx/xxx", "not a legal position"),
        ("tictactoe", "ooo/.../...", "not a legal position"),
        ("connect4:4x4", "..../..../x.../....", "nothing below"),
        ("connect4:4x4", "..../..../..../oo..", "not a legal position"),
        ("dots-and-boxes:2x2", "01", "12 digits"),
    ],
)
def test_bad_positions_quote_the_text(game_id: str, text: str, why: str) -> None:
    game = parse_game_id(game_id)
    with pytest.raises(InvalidPosition, match=why) as info:
        game.parse(text)
    assert repr(text) in str(info.value)


def test_bad_game_ids() -> None:
    with pytest.raises(InvalidGameId, match="'connect4:4'"):
        parse_game_id("connect4:4")
    with pytest.raises(InvalidGameId, match="'tictactoe:big'"):
        parse_game_id("tictactoe:big")


def test_digits_of_other_scripts_are_refused() -> None:
    """int() and str.isdigit() take an Arabic-Indic '\u0663' for 3: game ids, positions and tier
    families of the rules games read ASCII digits only."""
    for game_id in ["rules-nim:\u0663,4", "rules-kayles:\u0668", "rules-nim:+3,4", "rules-nim:1_0"]:
        with pytest.raises(InvalidGameId):
            parse_game_id(game_id)
    game = parse_game_id("rules-nim:3,4,5")
    with pytest.raises(InvalidPosition, match="'\u0661 2 3'"):
        game.parse("\u0661 2 3")
    with pytest.raises(InvalidArgument, match="'tier:\u0663'"):
        parse_game_id("connect4:7x6").plan_job(0, family="tier:\u0663")


def test_large_games_are_refused_naming_their_tier_job() -> None:
    game = parse_game_id("connect4:7x6")
    ctx = engine_context(Refusing())
    with pytest.raises(LimitExceeded, match=r"connect4:7x6 tier:0\]"):
        game.value(game.parse("/".join(["......."] * 6)), ctx)
    assert game.plan_job(0).family == "tier:0"
    plain = parse_game_id("dots-and-boxes:2x3")  # plain Python rules: a lower live bound
    with pytest.raises(LimitExceeded, match="NIMBASE_LIMITS_RULES_LIVE_CODES_PLAIN"):
        plain.value(plain.parse("0" * 17), ctx)
    with pytest.raises(InvalidArgument):
        game.plan_job(0, family="tier:99")


def test_tiers_stored_by_jobs_are_read_back() -> None:
    game = parse_game_id("connect4:4x3")
    assert isinstance(game, RulesGame)
    stored = Refusing()
    given: dict[str, bytes] = {}
    for tier in game.rules.tiers():  # the last tier first: each job given the tiers it waits for
        kernel = game.kernel_for(tier_family(tier))
        assert isinstance(kernel, TierKernel)
        assert game.plan_job(0, family=tier_family(tier)).needs == kernel.needs()
        kernel.give({name: given[name.family] for name in kernel.needs()})
        data = kernel.make()
        given[tier_family(tier)] = data
        stored.words[(game.game_id, tier_family(tier))] = encode_words(data)
        assert len(data) <= 40 + len(kernel.rules.tier_positions(tier))  # type: ignore[arg-type]
    ctx = engine_context(stored, settings=kind_settings(NIMBASE_LIMITS_RULES_LIVE_CODES="1"))
    live = engine_context(Refusing())
    for text in [".../.../...", "..../..../x...", "..../..../xo..", "..../o.../xx.."]:
        if len(text.split("/")[0]) != 4:
            continue
        code = game.parse(text)
        assert game.value(code, ctx).source == "table"
        assert game.value(code, ctx)._replace(source="live") == game.value(code, live)


@pytest.mark.parametrize("game_id", ["connect4:4x3", "dots-and-boxes:2x2"])
def test_stats_stored_beside_each_tier_are_those_of_the_tables(game_id: str) -> None:
    """GetStats adds up the statistics each tier's job stored beside it (reading no tier: the initial
    position's value is stored with its tier's), and they equal those computed from the tables, stored or
    solved live."""
    game = parse_game_id(game_id)
    assert isinstance(game, RulesGame)
    stored = Refusing()
    given: dict[str, bytes] = {}
    for tier in game.rules.tiers():
        kernel = game.kernel_for(tier_family(tier))
        assert isinstance(kernel, TierKernel)
        kernel.give({name: given[name.family] for name in kernel.needs()})
        words = kernel.words()
        given[tier_family(tier)] = kernel.make()
        stored.words[(game.game_id, tier_family(tier))] = words
        stats = kernel.stats_part(words, 0)
        assert stats is not None and kernel.stats_part(words[:-1], 0) is None  # whole objects only
        assert kernel.stores_stats
        stored.stats[(game.game_id, tier_family(tier))] = stats
    limited = kind_settings(NIMBASE_LIMITS_RULES_LIVE_CODES="1")
    from_stats = game.stats(engine_context(stored, settings=limited))
    tables = Refusing()
    tables.words = dict(stored.words)
    from_tables = game.stats(engine_context(tables, settings=limited))
    live = game.stats(engine_context(Refusing()))
    assert from_stats == from_tables and from_stats["source"] == "table"
    assert live["source"] == "live" and live["initial"]["source"] == "live"  # type: ignore[index]
    assert {**live, "source": "table", "initial": from_stats["initial"]} == from_stats
    only_stats = Refusing()  # the initial position's value is stored with its tier's statistics
    only_stats.stats = dict(stored.stats)
    assert game.stats(engine_context(only_stats, settings=limited)) == from_stats


class _Broken(Rules):
    """Take one token from a row; the tier goes the wrong way from 3 tokens on."""

    game_id = "broken"
    size = 6
    tier_order = -1
    name = description = position_syntax = "broken"
    examples = ("5",)

    def initial(self) -> int:
        return 5

    def parse(self, text: str) -> int:
        return int(text)

    def format(self, code: int) -> str:
        return str(code)

    def moves(self, code: int) -> list[Move]:
        return [Move("-1", code - 1)] if code else []

    def end(self, code: int) -> int:
        return LOSS

    def tier(self, code: int) -> int:
        return code if code < 3 else 10 - code


def test_rules_breaking_the_interface_fail_naming_the_position() -> None:
    rules = _Broken()
    with pytest.raises(RulesError, match="'5'"):
        check_rules(rules)
    kernel = TierKernel(rules, rules.tier(5))
    with pytest.raises(RulesError, match="position '5'"):
        kernel.make()


def test_the_test_kit_passes_the_shipped_games() -> None:
    assert check_rules(TicTacToe()) == 5478
    for game_id in ["connect4:4x3", "dots-and-boxes:2x2", "rules-nim:3,4,5", "rules-kayles:8"]:
        game: Any = parse_game_id(game_id)
        assert check_rules(game.rules) > 10
