"""Play any game nimbase knows against the computer, in the terminal, through the client package only.

    pip install ./client
    python examples/bot.py                              # choose a game from ListGames
    python examples/bot.py --game nim --position "3 5 7" --bot-first
    python examples/bot.py --server tables.example:50051 --root-cert ca.pem

On your turn the legal moves are listed (in plain order: the ranking would give the best one away):
pick one by its number, its text (`7 -> 2`) or the position it leads to. On its turn the bot plays
BestMove's first move, so it wins whenever the position allows. Whoever cannot move has lost (in a
misère game, won): the server's value of the final position says which. A one-player puzzle (Lights
Out) is yours alone: press until the board is solved, the service saying how many presses are left at
least and which one it would press. Ctrl-D quits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nimbase_client import NimbaseClient, NimbaseClientError, records

#: Moves shown on your turn; more can still be played by their text.
SHOWN_MOVES = 40


def ask(prompt: str) -> str | None:
    """A line from the player, or None at the end of input."""
    try:
        return input(prompt).strip()
    except EOFError:
        print()
        return None


def choose_game(client: NimbaseClient) -> tuple[str, str] | None:
    """(game id, an example position) from the list, or any id the player types."""
    games = client.list_games()["games"]
    for number, game in enumerate(games, 1):
        example = f" (e.g. {game['examples'][0]})" if game["examples"] else ""
        print(f"{number:>3}. {game['id']:<20} {game['name']}{example}")
    while True:
        answer = ask("game (number or id): ")
        if answer is None:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(games):
            game = games[int(answer) - 1]
            return game["id"], game["examples"][0] if game["examples"] else ""
        if answer:
            known = [game["examples"][0] for game in games if game["id"] == answer and game["examples"]]
            return answer, known[0] if known else ""


def describe(position: str) -> str:
    return position or "(nothing left)"


def pick_move(moves: list[records.Move]) -> records.Move | None:
    """The player's move, or None when they quit."""
    shown = sorted(moves, key=lambda move: move["move"])
    for number, move in enumerate(shown[:SHOWN_MOVES], 1):
        print(f"  {number:>3}. {move['move']:<16} -> {describe(move['position'])}")
    if len(shown) > SHOWN_MOVES:
        print(f"  ... and {len(shown) - SHOWN_MOVES} more: type a move or the position it leads to")
    while True:
        answer = ask("your move: ")
        if answer is None:
            return None
        if answer.isdigit() and 1 <= int(answer) <= min(len(shown), SHOWN_MOVES):
            return shown[int(answer) - 1]
        for move in shown:
            if answer in (move["move"], move["position"]):
                return move
        print(f"{answer!r} is not a legal move here")


def announce(final: records.Value, bot_to_move: bool) -> None:
    """The end: the value of the final position says how it went for the player to move."""
    if final["outcome"] == "D":
        print("no moves left: a draw")
        return
    mover_wins = final["outcome"] == "N"  # with no move left, only in a misère game
    you_win = mover_wins != bot_to_move
    print(
        f"no moves left for {'the bot' if bot_to_move else 'you'}: {'you win' if you_win else 'the bot wins'}"
    )


def solve(client: NimbaseClient, game: str, position: str, max_moves: int) -> int:
    """A one-player puzzle (no outcome): the player presses, the service hints, until it is solved."""
    for _ in range(max_moves):
        answer = client.best_move(game, position)
        if not answer.get("solvable"):
            print(f"{position}: this board cannot be solved")
            return 0
        if answer.get("solution") == []:
            print(f"{position}: solved")
            return 0
        least = answer.get("remoteness")
        hint = answer["moves"][0]["move"] if answer["moves"] else "?"
        left = f"{least} presses at least" if least is not None else "a solution exists"
        print(f"{position}: {left}; the service would press {hint}")
        picked = pick_move(answer["moves"])
        if picked is None:
            print("bye")
            return 0
        print(f"you press {picked['move']}")
        position = picked["position"]
    print(f"{max_moves} presses made: stopping here")
    return 0


def play(client: NimbaseClient, game: str, position: str, bot_first: bool, max_moves: int) -> int:
    value = client.get_value(game, position)
    position = value["position"]  # checks the position, in canonical form
    if "outcome" not in value:
        return solve(client, game, position, max_moves)
    bot_to_move = bot_first
    print(f"{game}: {describe(position)}; {'the bot' if bot_to_move else 'you'} to move")
    for _ in range(max_moves):
        answer = client.best_move(game, position)
        if "best_move" not in answer:
            announce(answer, bot_to_move)
            return 0
        if bot_to_move:
            move = answer["best_move"]
            print(f"bot plays {move['move']}: position now {describe(move['position'])}")
        else:
            picked = pick_move(answer["moves"])
            if picked is None:
                print("bye")
                return 0
            move = picked
            print(f"you play {move['move']}: position now {describe(move['position'])}")
        position, bot_to_move = move["position"], not bot_to_move
    print(f"{max_moves} moves played: stopping here")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", default="localhost:50051", help="the nimbase gRPC server, HOST:PORT")
    parser.add_argument("--tls", action="store_true", help="connect with TLS (the system's CAs)")
    parser.add_argument(
        "--root-cert", type=Path, help="trust this CA certificate (PEM) instead; implies --tls"
    )
    parser.add_argument("--game", help="the game id (default: choose from the list)")
    parser.add_argument("--position", help="the starting position (default: ask, offering an example)")
    parser.add_argument("--bot-first", action="store_true", help="the bot moves first")
    parser.add_argument("--max-moves", type=int, default=1000, help="stop after this many moves (draws)")
    args = parser.parse_args(argv)
    root = args.root_cert.read_bytes() if args.root_cert else None
    with NimbaseClient(args.server, tls=args.tls, root_certificates=root) as client:
        try:
            if args.game is not None:
                game, example = args.game, ""
            else:
                chosen = choose_game(client)
                if chosen is None:
                    return 0
                game, example = chosen
            position = args.position
            if position is None:
                position = ask(f"starting position [{example}]: ")
                if position is None:
                    return 0
                position = position or example
            return play(client, game, position, args.bot_first, args.max_moves)
        except NimbaseClientError as error:
            print(f"{error.code}: {error.message}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    raise SystemExit(main())
