"""examples/bot.py plays Nim against a scripted human, through the client package alone (it runs in the
virtualenv that holds nothing else) against a real service on loopback."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from nimbase_client import NimbaseClient
from service.server import BoundPorts

from .virtualenv import REPO

BOT = REPO / "examples" / "bot.py"


def play(python: Path, cwd: Path, args: list[str], moves: str) -> str:
    done = subprocess.run(
        [str(python), "-I", str(BOT), *args],
        input=moves,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def test_the_bot_wins_nim_from_an_n_position(client_venv: Path, ports: BoundPorts, tmp_path: Path) -> None:
    """3 5 7 is an N-position and the human moves first with the first listed move (3 -> 0); from then
    on the bot always leaves a P-position, takes the last stone, and the human, left without a move,
    loses."""
    server = f"127.0.0.1:{ports.grpc}"
    out = play(
        client_venv, tmp_path, ["--server", server, "--game", "nim", "--position", "3 5 7"], "1\n" * 10
    )
    assert "you play 3 -> 0: position now 5 7" in out
    assert "bot plays 7 -> 5: position now 5 5" in out
    left = re.findall(r"^bot plays .*: position now (.*)$", out, re.MULTILINE)
    assert len(left) >= 2
    with NimbaseClient(server) as client:
        for position in left:
            canonical = "" if position == "(nothing left)" else position
            assert client.get_value("nim", canonical)["outcome"] == "P", position
    assert out.rstrip().endswith("no moves left for you: the bot wins")


def test_the_game_is_chosen_from_the_list_and_input_may_end(
    client_venv: Path, ports: BoundPorts, tmp_path: Path
) -> None:
    """No --game: ListGames offers them by number (1 is nim), Enter takes the example position, one move
    is played each way, and the end of input ends the game politely."""
    out = play(client_venv, tmp_path, ["--server", f"127.0.0.1:{ports.grpc}"], "1\n\n1\n")
    assert re.search(r"^\s+1\. nim\s", out, re.MULTILINE)
    assert "nim: 3 5 7; you to move" in out
    assert "you play" in out and "bot plays" in out
    assert out.rstrip().endswith("bye")


def test_a_puzzle_is_solved_press_by_press(client_venv: Path, ports: BoundPorts, tmp_path: Path) -> None:
    """Lights Out has no opponent: the player presses (here by the press's name, then by its number) until
    the board is solved, the service saying how many presses are left at least."""
    args = ["--server", f"127.0.0.1:{ports.grpc}", "--game", "lights-out:3x3", "--position", "000/011/011"]
    out = play(client_venv, tmp_path, args, "12\n21\n23\n32\n22\n33\n")
    assert "000/011/011: 6 presses at least" in out and "you press 12" in out
    assert out.rstrip().endswith("000/000/000: solved")
