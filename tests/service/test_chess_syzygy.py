"""The user's Syzygy files (NIMBASE_SYZYGY_PATH) through the public API: nimbase's own tables held to three
men (none of four stored, `live_men` 3), every 3- and 4-man Syzygy file of python-chess's source
distribution (tests.reference.chess_files), real servers on loopback.

Four-man answers come from the files (`source: "syzygy"`, WDL, DTZ and lila's category, no DTM) and agree
with python-chess probing the same files, over REST and gRPC, for GetValue, BestMove and lila's
`/standard`, and main lines (metric dtz); three-man ones stay nimbase's own. A material the files lack
keeps today's refusal, and files that do not open stop the start-up, named. Six- and seven-man ids are the
files' only: no such files are at hand, so one is routed through every layer to a stand-in the service
opens instead; without files, or with files that lack it, the answer names why.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

import kinds.chess.edge
from kinds.chess.kind import SYZYGY
from kinds.chess.probe import ChessProbe
from nimbase.settings import InvalidSetting, Settings
from service.core import Nimbase
from service.kind_plugins import open_resources
from service.rest.app import create_app
from tests.engine.contexts import kind_settings
from tests.reference.chess_files import syzygy_dir
from tests.servers import Endpoints, serving_api
from tests.service.test_chess_api import random_boards

MATERIALS = {"chess:KQvKR": "Qr", "chess:KRvKB": "Rb", "chess:KBNvK": "BN", "chess:KRvKN": "Rn"}


@pytest.fixture(scope="module")
def files() -> Path:
    return syzygy_dir()


@pytest.fixture(scope="module")
def tablebase(files: Path) -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(files)) as opened:
        yield opened


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine, files: Path) -> Iterator[Endpoints]:
    variables = {"NIMBASE_SYZYGY_PATH": str(files), "NIMBASE_LIMITS_CHESS_LIVE_MEN": "3"}
    with serving_api(db_engine, "syzygy-token", kind_variables=variables) as endpoints:
        yield endpoints


def rest(api: Endpoints, route: str, **params: Any) -> Any:
    response = api.http.get(route, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def expected(tablebase: chess.syzygy.Tablebase, board: chess.Board) -> dict[str, Any]:
    wdl, dtz = tablebase.probe_wdl(board), tablebase.probe_dtz(board)
    category = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}[wdl]
    outcome = "N" if wdl > 0 else "P" if wdl < 0 else "D"
    return {"outcome": outcome, "dtz": dtz, "category": category}


@pytest.mark.parametrize("game", sorted(MATERIALS))
def test_four_men_from_the_files(api: Endpoints, tablebase: chess.syzygy.Tablebase, game: str) -> None:
    for board in random_boards(MATERIALS[game], 12, seed=len(game)):
        fen = board.fen()
        value = api.client.get_value(game, fen)
        assert rest(api, "/v1/value", game=game, position=fen) == value
        want = expected(tablebase, board)
        assert {k: value.get(k) for k in want} == want, fen
        assert value["source"] == "syzygy" and "remoteness" not in value and "dtm" not in value
        # python-chess does not say which values are rounded: only a draw's 0 is known exact
        assert value.get("precise_dtz") == (0 if value["dtz"] == 0 else None)
        if board.is_checkmate() or board.is_stalemate():
            continue
        answer = api.client.best_move(game, fen)
        assert rest(api, "/v1/best-move", game=game, position=fen) == answer
        reached = {m["uci"]: m for m in answer["moves"]}
        assert set(reached) == {m.uci() for m in board.legal_moves}
        for move in board.legal_moves:
            after = board.copy()
            after.push(move)
            outcome = expected(tablebase, after)["outcome"]
            assert reached[move.uci()]["outcome"] == outcome, (fen, move.uci())


def test_lilas_answer_from_the_files(api: Endpoints, tablebase: chess.syzygy.Tablebase) -> None:
    for board in random_boards("Qr", 15, seed=3):
        answer = rest(api, "/standard", fen=board.fen())
        assert answer["dtz"] == tablebase.probe_dtz(board) and answer["dtm"] is None
        for move in answer["moves"]:
            after = board.copy()
            after.push(chess.Move.from_uci(move["uci"]))
            if chess.popcount(after.occupied) == 4:  # still KQvKR: from the files
                assert move["dtz"] == tablebase.probe_dtz(after), (board.fen(), move["uci"])
            else:  # a capture into three men: nimbase's own table (DTM, no DTZ yet)
                assert move["dtm"] is not None


def test_the_fifty_move_rule_from_the_files(api: Endpoints, tablebase: chess.syzygy.Tablebase) -> None:
    """A win with DTZ d: a win while d + clock stays within 100 plies, cursed past it (lila's rule; at
    exactly 100 a possibly rounded DTZ leaves it open, `syzygy-win`)."""
    board = next(b for b in random_boards("Qr", 200, seed=5) if 5 < tablebase.probe_dtz(b) < 60)
    dtz = tablebase.probe_dtz(board)
    for clock, category in (
        (0, "win"),
        (99 - dtz, "win"),
        (100 - dtz, "syzygy-win"),
        (101 - dtz, "cursed-win"),
    ):
        board.halfmove_clock = clock
        value = api.client.get_value("chess:KQvKR", board.fen())
        assert value["category"] == category and value["outcome"] == "N", (board.fen(), dtz)


def test_three_men_stay_nimbases_own(api: Endpoints) -> None:
    value = api.client.get_value("chess:KRvK", "8/8/8/8/8/2k5/8/KR6 w - - 0 1")
    assert value["source"] == "live" and value["remoteness"] == 27


def test_a_material_the_files_lack_keeps_the_refusal(
    db_engine: sa.Engine, files: Path, tmp_path: Path
) -> None:
    for name in ("KRvK", "KQvK", "KvK"):
        for suffix in (".rtbw", ".rtbz"):
            if (files / f"{name}{suffix}").exists():
                shutil.copy(files / f"{name}{suffix}", tmp_path)
    variables = {"NIMBASE_SYZYGY_PATH": str(tmp_path)}
    with serving_api(db_engine, "syzygy-token", kind_variables=variables) as api:
        response = api.http.get(
            "/v1/value", params={"game": "chess:KQvKR", "position": "8/8/8/8/8/2k5/8/KQ3r2 w - - 0 1"}
        )
        assert response.status_code == 422 and response.json()["error"]["code"] == "RESOURCE_EXHAUSTED"


def test_a_material_whose_captures_the_files_lack_keeps_the_refusal(
    db_engine: sa.Engine, files: Path, tmp_path: Path
) -> None:
    """KQvKR's own files without KQvK's, which its probes read after a capture of the rook: the files do
    not answer KQvKR (the usual refusal, not a prober's missing table)."""
    for name in ("KQvKR", "KRvK"):
        for suffix in (".rtbw", ".rtbz"):
            shutil.copy(files / f"{name}{suffix}", tmp_path)
    variables = {"NIMBASE_SYZYGY_PATH": str(tmp_path)}
    with serving_api(db_engine, "syzygy-token", kind_variables=variables) as api:
        response = api.http.get(
            "/v1/value", params={"game": "chess:KQvKR", "position": "8/8/8/8/8/2k5/8/KQ3r2 w - - 0 1"}
        )
        assert response.status_code == 422 and response.json()["error"]["code"] == "RESOURCE_EXHAUSTED"


def test_files_that_do_not_open_are_named_at_start_up(files: Path, tmp_path: Path) -> None:
    """The files are opened when the service starts (and by `nimbase serve`'s check before anything
    starts: service.kind_plugins.open_resources), outside engine/."""
    shutil.copy(files / "KRvK.rtbw", tmp_path)
    (tmp_path / "KQvK.rtbw").write_bytes(b"not a table")

    def start(path: Path) -> Nimbase:
        return Nimbase(Settings(kind_variables={"NIMBASE_SYZYGY_PATH": str(path)}), None)

    with pytest.raises(InvalidSetting, match=r"NIMBASE_SYZYGY_PATH.*KQvK\.rtbw"):
        start(tmp_path)
    with pytest.raises(InvalidSetting, match=r"NIMBASE_SYZYGY_PATH.*KQvK\.rtbw"):
        open_resources(kind_settings(NIMBASE_SYZYGY_PATH=str(tmp_path)))
    with pytest.raises(InvalidSetting, match="is not a directory"):
        start(tmp_path / "missing")
    assert start(files).resources.of(SYZYGY) is not None
    assert Nimbase(Settings(), None).resources.of(SYZYGY) is None


def test_getvalue_and_lila_agree_on_the_category(api: Endpoints) -> None:
    """A position's own category (GetValue) is the opposite of its best move's (lila's answer), whatever
    its halfmove clock."""
    for k, board in enumerate(random_boards("Qr", 20, seed=11)):
        board.halfmove_clock = (k * 37) % 110
        fen = board.fen()
        assert (
            api.client.get_value("chess:KQvKR", fen)["category"]
            == rest(api, "/standard", fen=fen)["category"]
        ), fen


def test_the_mainline_keeps_the_fifty_move_rule(api: Endpoints, tablebase: chess.syzygy.Tablebase) -> None:
    """lila's main line from a won KQvKR position: each move's DTZ is the files' for the position it
    reaches, counting down by one a ply until the zeroing move (a capture), which comes within the DTZ
    of the start; then nimbase's own three-man table mates."""
    board = next(b for b in random_boards("Qr", 200, seed=13) if 6 < tablebase.probe_dtz(b) < 40)
    dtz = tablebase.probe_dtz(board)
    line = rest(api, "/standard/mainline", fen=board.fen())
    assert line["dtz"] == dtz and line["winner"] == ("w" if board.turn == chess.WHITE else "b")
    for ply, step in enumerate(line["mainline"]):
        move = chess.Move.from_uci(step["uci"])
        zeroing = board.is_zeroing(move)
        board.push(move)
        if chess.popcount(board.occupied) == 4:
            assert step["dtz"] == tablebase.probe_dtz(board)
            assert abs(step["dtz"]) == dtz - ply - 1
        if zeroing:
            assert ply < dtz
            break
    else:
        pytest.fail("no zeroing move in the main line")


def test_the_mainline_from_the_files(api: Endpoints, tablebase: chess.syzygy.Tablebase) -> None:
    """GET /v1/mainline of a won KQvKR position, metric dtz: while the line stays in the files' material,
    each move is a best one (it leaves the opponent lost, or keeps the loser's loss) and the files' DTZ of
    each position reached counts down by one a ply until the zeroing move; metric dtm needs DTM, which the
    files do not hold: 400 saying so."""
    board = next(b for b in random_boards("Qr", 200, seed=17) if 6 < tablebase.probe_dtz(b) < 40)
    dtz = tablebase.probe_dtz(board)
    line = rest(api, "/v1/mainline", game="chess:KQvKR", position=board.fen(), metric="dtz", max_plies=60)
    assert (line["source"], line["outcome"], line["dtz"]) == ("syzygy", "N", dtz)
    for ply, step in enumerate(line["moves"]):
        move = chess.Move.from_uci(step["uci"])
        zeroing = board.is_zeroing(move)
        board.push(move)
        assert step["outcome"] == ("P" if ply % 2 == 0 else "N"), (ply, step)
        if zeroing:
            assert ply < dtz
            break
        assert step["position"].split()[:4] == board.fen().split()[:4] and "remoteness" not in step
        assert abs(tablebase.probe_dtz(board)) == dtz - ply - 1
    else:
        pytest.fail("no zeroing move in the main line")
    response = api.http.get(
        "/v1/mainline", params={"game": "chess:KQvKR", "position": line["position"], "metric": "dtm"}
    )
    assert response.status_code == 400 and "use metric 'dtz'" in response.json()["error"]["message"]


def test_six_men_the_files_lack(api: Endpoints) -> None:
    """The files here stop at four men: a six-man id parses, and its answer says the files lack it (400),
    lila's a missing table (404)."""
    fen = "4k2r/8/8/8/8/8/8/q2QKR2 w - - 0 1"  # KQRvKQR
    response = api.http.get("/v1/value", params={"game": "chess:KQRvKQR", "position": fen})
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert "6 men: nimbase's own tables hold at most 5 men" in message and "do not hold it" in message
    response = api.http.get("/standard", params={"fen": fen})
    assert response.status_code == 404 and response.text.startswith("required table not found")


#: KRPPvKP, White to move: six men, and no capture on the first move.
SIX = "8/6kp/8/8/8/8/PP6/3R2K1 w - - 0 1"


class DrawnFiles:
    """A stand-in for opened six-man Syzygy files (none are at hand): every material of six men or more,
    every position drawn."""

    def has(self, material: str) -> bool:
        return len(material) - 1 >= 6

    def probe(self, board: chess.Board) -> ChessProbe:
        return ChessProbe(0, 0, None, precise_dtz=True)


def test_a_six_man_id_is_routed_to_the_files_the_service_opens(files: Path) -> None:
    """The chess plugin's opener replaced by one giving the stand-in: a six-man id and lila's /standard
    are answered from what the service opened at start-up, through every layer."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(kinds.chess.edge.PLUGIN.openers, SYZYGY, lambda _path: DrawnFiles())
        service = Nimbase(Settings(kind_variables={"NIMBASE_SYZYGY_PATH": str(files)}), None)
    http = TestClient(create_app(service))
    value = http.get("/v1/value", params={"game": "chess:KRPPvKP", "position": SIX}).json()
    assert (value["source"], value["outcome"], value["category"], value["dtz"]) == ("syzygy", "D", "draw", 0)
    moves = http.get("/v1/best-move", params={"game": "chess:KRPPvKP", "position": SIX}).json()["moves"]
    assert len(moves) == chess.Board(SIX).legal_moves.count() and {m["outcome"] for m in moves} == {"D"}
    lila = http.get("/standard", params={"fen": SIX}).json()
    assert (lila["category"], lila["dtz"], lila["dtm"]) == ("draw", 0, None) and len(lila["moves"]) == len(
        moves
    )
    line = http.get("/standard/mainline", params={"fen": SIX}).json()
    assert line == {"mainline": [], "winner": None, "dtz": 0, "precise_dtz": 0}


def test_six_men_without_files_name_the_limit() -> None:
    http = TestClient(create_app(Nimbase(Settings(), None)))
    response = http.get("/v1/value", params={"game": "chess:KRPPvKP", "position": SIX})
    assert response.status_code == 400 and response.json()["error"]["code"] == "INVALID_ARGUMENT"
    message = response.json()["error"]["message"]
    assert "6 men: nimbase's own tables hold at most 5 men, and no Syzygy files are set" in message
    assert "NIMBASE_SYZYGY_PATH" in message
    response = http.get("/standard", params={"fen": SIX})
    assert response.status_code == 404
    assert response.text == "too many pieces: tables hold at most 5 men, the position has 6"
