"""The web page at `/` (issue: "a web page, served by `nimbase serve`") in headless Chromium.

A real server (REST and gRPC on loopback) over the test PostgreSQL serves the page; Debian's `chromium`
driven through its `chromedriver` by Selenium uses it as a person would, and every number the page shows
is checked against the REST API itself. `make test` installs the browser (`make browser`); without one
these tests fail, saying what to install, rather than skip. With NIMBASE_WRITE_SCREENSHOTS=1 they also
write the README's screenshots to docs/.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.web.browser import (
    BROWSER_PACKAGES,
    TOKEN,
    assert_value_shown,
    javascript_errors,
    missing_browser,
    need,
    open_page,
    screenshot,
    shown_position,
    text,
    type_into,
    wait_for,
)

REPO = Path(__file__).resolve().parents[2]
#: Where the README's screenshots go, written only when NIMBASE_WRITE_SCREENSHOTS=1.
DOCS = REPO / "docs"
WRITE_SCREENSHOTS = os.environ.get("NIMBASE_WRITE_SCREENSHOTS") == "1"


def plot(browser: WebDriver, game: str, start: int, stop: int, family: str = "") -> None:
    type_into(browser, "plot-game", game)
    type_into(browser, "plot-family", family)
    type_into(browser, "plot-start", str(start))
    type_into(browser, "plot-stop", str(stop))
    browser.find_element(By.ID, "plot-go").click()
    wait_for(browser, plot_drawn(game, start, stop), f"the plot of {game} {start}..{stop}")


def plot_drawn(game: str, start: int, stop: int) -> Callable[[WebDriver], bool]:
    def drawn(b: WebDriver) -> bool:
        svg = b.find_element(By.ID, "plot")
        info = text(b, "plot-info")
        return (
            svg.get_attribute("data-state") == "drawn"
            and info.startswith(f"{game},")
            and f"n from {start} to {stop - 1} " in info
        )

    return drawn


# ---- the page in the browser ---------------------------------------------------------------------


def test_play_nim_against_the_service(
    chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    open_page(browser, base_url)
    Select(browser.find_element(By.ID, "game-select")).select_by_value("nim")
    type_into(browser, "position", "3 5 7")
    browser.find_element(By.ID, "lookup").click()
    wait_for(browser, shown_position(browser, "3 5 7"), "the value of 3 5 7")
    assert_value_shown(browser, api.get("/v1/value", params={"game": "nim", "position": "3 5 7"}).json())

    ranked = api.get("/v1/best-move", params={"game": "nim", "position": "3 5 7"}).json()
    buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert [b.text for b in buttons] == [m["move"] for m in ranked["moves"]]
    assert "Your move" in text(browser, "turn")

    best = ranked["best_move"]
    buttons[0].click()  # the best move; then the service answers with its own best move
    reply = api.get("/v1/best-move", params={"game": "nim", "position": best["position"]}).json()["best_move"]
    wait_for(browser, shown_position(browser, reply["position"]), "the service's reply")
    history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]
    assert history == [
        f"you: {best['move']} → {best['position']}",
        f"nimbase: {reply['move']} → {reply['position']}",
    ]
    assert_value_shown(
        browser, api.get("/v1/value", params={"game": "nim", "position": reply["position"]}).json()
    )
    assert text(browser, "turn").startswith("Your move")

    plot(browser, "octal:0.77", 0, 150)  # the plot has its own game: the position stays
    assert text(browser, "value-position") == reply["position"]
    assert javascript_errors(browser) == []
    screenshot(browser, tmp_path / "page.png")
    if WRITE_SCREENSHOTS:
        screenshot(browser, DOCS / "screenshot-page.png")


def test_a_game_ends_with_its_winner(chromium: WebDriver | str, base_url: str) -> None:
    browser = need(chromium)
    open_page(browser, base_url, "#game=nim&position=1+1")
    browser.find_element(By.CSS_SELECTOR, "#moves button.move").click()  # 1 1 -> 1, and the service takes it
    wait_for(browser, shown_position(browser, ""), "the end of the game")
    assert text(browser, "turn").startswith("nimbase won")
    assert browser.find_elements(By.CSS_SELECTOR, "#moves button.move") == []

    open_page(browser, base_url, "#game=nim:misere&position=1+1")  # misère: the last to move loses
    browser.find_element(By.CSS_SELECTOR, "#moves button.move").click()
    wait_for(browser, shown_position(browser, ""), "the end of the misère game")
    assert text(browser, "turn").startswith("You won!")


def test_the_plot_of_a_sequence(
    chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    open_page(browser, base_url)
    game, start, stop = "octal:0.77", 0, 150
    plot(browser, game, start, stop)
    sequence = api.get("/v1/sequence", params={"game": game, "start": start, "stop": stop}).json()
    dots = browser.find_elements(By.CSS_SELECTOR, "#plot circle")
    assert [int(d.get_attribute("data-value")) for d in dots] == sequence["values"]
    assert [int(d.get_attribute("data-n")) for d in dots] == list(range(start, stop))

    # Kayles' rare values all lie below 71: the stats count them, and the plot marks exactly as many.
    stats = api.get("/v1/stats", params={"game": game}).json()
    assert stats["rare_mask"] and stats["last_rare_at"] < stop
    rare = [
        int(d.get_attribute("data-n")) for d in browser.find_elements(By.CSS_SELECTOR, "#plot circle.rare")
    ]
    assert len(rare) == stats["rare_count"] and max(rare) == stats["last_rare_at"]

    # The certified period: its preperiod shaded, then one band per period.
    period = sequence["period"]
    assert period["certified"] and period["preperiod"] < stop
    assert len(browser.find_elements(By.CSS_SELECTOR, "#plot rect.pre")) == 1
    bands = browser.find_elements(By.CSS_SELECTOR, "#plot rect.per-a, #plot rect.per-b")
    assert len(bands) == -(-(stop - period["preperiod"]) // period["period"])
    screenshot(browser, tmp_path / "plot.png", "plot-section")
    if WRITE_SCREENSHOTS:
        screenshot(browser, DOCS / "screenshot-plot.png", "plot-section")

    # Drag across the middle half to zoom in: the range is fetched again, its values match the API's.
    svg = browser.find_element(By.ID, "plot")
    width = svg.size["width"]
    ActionChains(browser).move_to_element_with_offset(svg, -width // 4, 0).click_and_hold().move_by_offset(
        width // 2, 0
    ).release().perform()

    def zoomed(b: WebDriver) -> tuple[int, int] | None:
        first, last = (
            int(b.find_element(By.ID, "plot-start").get_attribute("value")),
            int(b.find_element(By.ID, "plot-stop").get_attribute("value")),
        )
        return (first, last) if (first, last) != (start, stop) and plot_drawn(game, first, last)(b) else None

    first, last = wait_for(browser, zoomed, "the zoomed plot")
    assert start < first < last < stop and 40 < last - first < 110
    dots = browser.find_elements(By.CSS_SELECTOR, "#plot circle")
    assert [int(d.get_attribute("data-value")) for d in dots] == sequence["values"][first:last]

    browser.find_element(By.ID, "zoom-out").click()
    span = 2 * (last - first)
    wait_for(
        browser, lambda b: int(b.find_element(By.ID, "plot").get_attribute("data-count")) == span, "zoom out"
    )

    # A wide range: one mark per pixel column and value instead of a dot per value.
    plot(browser, game, 0, 100_000)
    assert browser.find_elements(By.CSS_SELECTOR, "#plot circle") == []
    paths = browser.find_elements(By.CSS_SELECTOR, "#plot g.points path")
    assert paths and all(len(p.get_attribute("d")) > 100 for p in paths[:1])
    assert javascript_errors(browser) == []


#: The heat map's side, its black cells as [a, b], and how many colours it uses.
HEAT_MAP_PIXELS = """
const canvas = document.getElementById("heatmap");
const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
const black = [];
const colours = new Set();
for (let i = 0; i < canvas.width * canvas.height; i++) {
  const [r, g, b] = data.slice(4 * i, 4 * i + 3);
  if (r + g + b === 0) black.push([i % canvas.width, Math.floor(i / canvas.width)]);
  colours.add((r << 16) | (g << 8) | b);
}
return [canvas.width, black, colours.size];
"""


#: The pointer over the heat map's cell (a, b) of the first pile and the second, then a click there.
HEAT_MAP_CLICK = """
const [a, b] = arguments;
const canvas = document.getElementById("heatmap");
const box = canvas.getBoundingClientRect();
const at = {
  clientX: box.left + ((a + 0.5) * box.width) / canvas.width,
  clientY: box.top + ((b + 0.5) * box.height) / canvas.height,
  bubbles: true,
};
canvas.dispatchEvent(new PointerEvent("pointermove", at));
canvas.dispatchEvent(new MouseEvent("click", at));
"""


def test_wythoff_board_and_heat_map(chromium: WebDriver | str, base_url: str, api: httpx.Client) -> None:
    browser = need(chromium)
    open_page(browser, base_url, "#game=wythoff&position=4,6")
    assert not browser.find_element(By.ID, "wythoff-board").get_attribute("hidden")
    ranked = api.get("/v1/best-move", params={"game": "wythoff", "position": "4,6"}).json()
    reachable = browser.find_elements(By.CSS_SELECTOR, "#board rect.reach")
    assert len(reachable) == 4 + 6 + 4  # (4,2) and (2,4) are one position: 13 moves
    cells = [sorted(map(int, cell.get_attribute("data-to").split(","))) for cell in reachable]
    assert {f"{c},{d}" for c, d in cells} == {move["position"] for move in ranked["moves"]}
    winning = browser.find_elements(By.CSS_SELECTOR, "#board rect.reach.win")
    assert [cell.get_attribute("data-to") for cell in winning] == ["3,5"]  # the only move to a P-position
    assert ranked["best_move"]["position"] == "3,5"
    winning[0].click()
    reply = api.get("/v1/best-move", params={"game": "wythoff", "position": "3,5"}).json()["best_move"]
    wait_for(browser, shown_position(browser, reply["position"]), "the service's reply on the board")
    assert browser.find_elements(By.CSS_SELECTOR, "#history li")[0].text == "you: 4,6 -> 3,5 → 3,5"

    # The heat map of g(a, b): black exactly at the P-positions (a Wythoff pair, in either order).
    wait_for(
        browser, lambda b: b.find_element(By.ID, "heatmap").get_attribute("data-state") == "drawn", "heat map"
    )
    side, black, colours = browser.execute_script(HEAT_MAP_PIXELS)
    values = api.post(
        "/v1/values:batch",
        json={"game": "wythoff", "positions": [f"{a},{b}" for b in range(side) for a in range(side)]},
    ).json()["values"]
    zeros = sorted([i % side, i // side] for i, v in enumerate(values) if v["grundy"] == 0)
    assert sorted(black) == zeros and [0, 0] in zeros and [1, 2] in zeros and [2, 1] in zeros
    assert colours > 20

    # A click on a cell plays Wythoff from its pair, from whatever game the panel showed.
    open_page(browser, base_url, "#game=nim&position=3")
    wait_for(
        browser, lambda b: b.find_element(By.ID, "heatmap").get_attribute("data-state") == "drawn", "heat map"
    )
    browser.execute_script(HEAT_MAP_CLICK, 1, 2)
    wait_for(browser, shown_position(browser, "1,2"), "the clicked cell's pair")
    assert browser.find_element(By.ID, "game").get_attribute("value") == "wythoff"
    assert browser.find_element(By.ID, "wythoff-board").is_displayed()
    assert text(browser, "heat-readout") == "g(1, 2) = 0"
    assert javascript_errors(browser) == []


def test_stats_and_live_job_progress(chromium: WebDriver | str, base_url: str, api: httpx.Client) -> None:
    browser = need(chromium)
    # Live stats grow with the prefix a process has computed: asked until two answers agree, then shown.
    stats: dict[str, Any] = {}
    deadline = time.monotonic() + 60
    while (fresh := api.get("/v1/stats", params={"game": "octal:0.77"}).json()) != stats:
        assert time.monotonic() < deadline, "the stats of octal:0.77 kept changing"
        stats = fresh
    open_page(browser, base_url, "#game=octal:0.77&position=7")
    wait_for(browser, lambda b: text(b, "stats-game") == "octal:0.77" and text(b, "stats"), "the stats")
    shown = {
        dd.get_attribute("data-key"): dd.text for dd in browser.find_elements(By.CSS_SELECTOR, "#stats dd")
    }
    assert shown["rare_count"] == str(stats["rare_count"])
    assert shown["max_value"] == str(stats["max_value"])
    assert shown["period"].startswith(
        f"preperiod {stats['period']['preperiod']}, period {stats['period']['period']}"
    )

    # A job queued after the page loaded shows up, and its end too, without reloading the page.
    headers = {"authorization": f"Bearer {TOKEN}"}
    job = api.post("/v1/jobs", json={"game": "subtraction:2,5,9", "upto": 100_000}, headers=headers).json()
    row = f"#jobs tr[data-job='{job['id']}']"
    wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, row), "the new job in the list")
    assert "queued" in browser.find_element(By.CSS_SELECTOR, row).text
    assert api.delete(f"/v1/jobs/{job['id']}", headers=headers).status_code == 200
    wait_for(browser, lambda b: "cancelled" in b.find_element(By.CSS_SELECTOR, row).text, "the job cancelled")


# ---- Lights Out and Bicolor Nim ------------------------------------------------------------------


def lights_board(browser: WebDriver) -> str:
    """The board the page draws, read from its cells (black = 1), rows joined by '/'."""
    cells = browser.find_elements(By.CSS_SELECTOR, "#lights-board rect.cell")
    rows: dict[int, dict[int, str]] = {}
    for cell in cells:
        bit = "1" if "on" in cell.get_attribute("class").split() else "0"
        rows.setdefault(int(cell.get_attribute("data-row")), {})[int(cell.get_attribute("data-col"))] = bit
    return "/".join("".join(row[c] for c in sorted(row)) for _, row in sorted(rows.items()))


def board_drawn(position: str) -> Callable[[WebDriver], bool]:
    return lambda b: (
        b.find_element(By.ID, "lights-board").get_attribute("data-position") == position
        and b.find_element(By.ID, "play").get_attribute("data-busy") == "false"
    )


def test_lights_out_board_solution_and_presses(
    chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    game, board = "lights-out:3x3", "000/011/011"
    value = api.get("/v1/value", params={"game": game, "position": board}).json()
    assert value["solvable"] and value["remoteness"] == 6 and "outcome" not in value
    open_page(browser, base_url, f"#game={game}&position={board}")
    wait_for(browser, board_drawn(board), "the Lights Out board")
    assert text(browser, "value-solvable") == "yes"
    assert text(browser, "value-remoteness") == "6"
    assert not browser.find_element(By.ID, "value-outcome").is_displayed()  # a puzzle has no outcome
    assert browser.find_element(By.ID, "lights-status").get_attribute("data-fewest") == "6"
    assert lights_board(browser) == board

    # "show solution" marks exactly the API's solution.
    assert browser.find_elements(By.CSS_SELECTOR, "#lights-board rect.press") == []
    browser.find_element(By.ID, "lights-solution").click()
    marked = [
        c.get_attribute("data-press")
        for c in browser.find_elements(By.CSS_SELECTOR, "#lights-board rect.press")
    ]
    assert sorted(marked) == sorted(value["solution"])

    # The shape's GetStats: the distance counts as bars, this board's distance marked.
    stats = api.get("/v1/stats", params={"game": game}).json()
    wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#lights-distances rect.bar"), "the bars")
    bars = browser.find_elements(By.CSS_SELECTOR, "#lights-distances rect.bar")
    assert [int(bar.get_attribute("data-count")) for bar in bars] == stats["distance_counts"]
    here = browser.find_element(By.CSS_SELECTOR, "#lights-distances rect.here")
    assert here.get_attribute("data-distance") == "6"
    shown = {
        dd.get_attribute("data-key"): dd.text
        for dd in browser.find_elements(By.CSS_SELECTOR, "#lights-stats dd")
    }
    assert shown == {
        "rank": str(stats["rank"]),
        "nullity": str(stats["nullity"]),
        "solvable boards": str(stats["solvable_boards"]),
        "diameter": str(stats["diameter"]),
    }
    screenshot(browser, tmp_path / "lights-out.png", "play")
    if WRITE_SCREENSHOTS:
        screenshot(browser, DOCS / "screenshot-lights-out.png", "play")

    # Each press of the solution: the board becomes BestMove's position for that press.
    position = board
    for count, press in enumerate(value["solution"], start=1):
        ranked = api.get("/v1/best-move", params={"game": game, "position": position}).json()
        after = next(move for move in ranked["moves"] if move["move"] == press)
        browser.find_element(By.CSS_SELECTOR, f"#lights-board rect[data-press='{press}']").click()
        wait_for(browser, board_drawn(after["position"]), f"the board after pressing {press}")
        assert lights_board(browser) == after["position"]
        assert text(browser, "value-remoteness") == str(after["remoteness"]) == str(6 - count)
        position = after["position"]
    assert position == "000/000/000"
    assert text(browser, "lights-status") == "Solved: all white."
    assert text(browser, "turn") == "Solved: every cell is white, in 6 presses (the fewest was 6)."
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history li")) == 6
    assert browser.find_elements(By.CSS_SELECTOR, "#lights-board rect.press") == []  # nothing left to press

    # A random solvable board: not solved yet, and the page's numbers are the API's.
    browser.find_element(By.ID, "lights-random").click()
    wait_for(
        browser,
        lambda b: (
            b.find_element(By.ID, "lights-board").get_attribute("data-position") not in ("", position)
            and board_drawn(b.find_element(By.ID, "lights-board").get_attribute("data-position"))(b)
        ),
        "a random board",
    )
    random_board = browser.find_element(By.ID, "lights-board").get_attribute("data-position")
    answer = api.get("/v1/value", params={"game": game, "position": random_board}).json()
    assert answer["solvable"] and answer["remoteness"] > 0
    assert text(browser, "value-remoteness") == str(answer["remoteness"])
    assert lights_board(browser) == random_board
    assert javascript_errors(browser) == []


def test_lights_out_on_a_graph(chromium: WebDriver | str, base_url: str, api: httpx.Client) -> None:
    browser = need(chromium)
    graph = {
        "name": "web-c5",
        "vertices": list("abcde"),
        "edges": [[u, v] for u, v in zip("abcde", "bcdea", strict=True)],
    }
    headers = {"authorization": f"Bearer {TOKEN}"}
    assert api.post("/v1/graphs", json=graph, headers=headers).status_code in (200, 201)
    game = "lights-out:graph:web-c5"
    open_page(browser, base_url, f"#game={game}&position=10000")
    wait_for(browser, board_drawn("10000"), "the graph's board")
    dots = browser.find_elements(By.CSS_SELECTOR, "#lights-board circle.cell")
    assert [d.get_attribute("data-press") for d in dots] == graph["vertices"]
    assert ["on" in d.get_attribute("class").split() for d in dots] == [True, False, False, False, False]
    ranked = api.get("/v1/best-move", params={"game": game, "position": "10000"}).json()
    press = ranked["best_move"]
    browser.find_element(By.CSS_SELECTOR, f"#lights-board circle[data-press='{press['move']}']").click()
    wait_for(browser, board_drawn(press["position"]), "the graph's board after a press")
    assert text(browser, "value-remoteness") == str(press["remoteness"])


def test_bicolor_nim_values_heaps_and_families(
    chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    game = "bicolor-nim"
    value = api.get("/v1/value", params={"game": game, "position": "2w1b 3w 4b"}).json()
    open_page(browser, base_url, "#game=bicolor-nim&position=2w1b+3w+4b")
    wait_for(browser, shown_position(browser, value["position"]), "the Bicolor Nim position")
    assert text(browser, "value-grundy") == str(value["grundy"])
    assert text(browser, "value-grundy-black") == str(value["grundy_black"])
    assert text(browser, "value-outcome") == value["outcome"]
    assert text(browser, "value-remoteness") == str(value["remoteness"])

    def heaps(b: WebDriver) -> list[tuple[int, int]]:
        groups = b.find_elements(By.CSS_SELECTOR, "#heaps g.heap")
        return sorted(
            (int(g.get_attribute("data-white")), int(g.get_attribute("data-black"))) for g in groups
        )

    assert heaps(browser) == [(0, 4), (2, 1), (3, 0)]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#heaps circle.stone.w")) == 5
    assert len(browser.find_elements(By.CSS_SELECTOR, "#heaps circle.stone.b")) == 5

    # Pointing at a move marks the stones it takes.
    ranked = api.get("/v1/best-move", params={"game": game, "position": value["position"]}).json()
    rows = browser.find_elements(By.CSS_SELECTOR, "#moves tbody tr")
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#moves thead th")]
    assert headers == ["#", "move", "leads to", "outcome", "G", "G-", "remoteness"]
    move = ranked["moves"][1]
    ActionChains(browser).move_to_element(rows[1]).perform()
    taken = browser.find_elements(By.CSS_SELECTOR, "#heaps .stone.taken")
    assert len(taken) == move["white_taken"] + move["black_taken"]
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "value")).perform()

    # Playing the best move: the service answers, and the heaps follow the position.
    best = ranked["best_move"]
    browser.find_element(By.CSS_SELECTOR, "#moves button.move").click()
    after = api.get("/v1/best-move", params={"game": game, "position": best["position"]}).json()
    reply = after["best_move"]
    wait_for(browser, shown_position(browser, reply["position"]), "the service's reply")
    expected = api.get("/v1/value", params={"game": game, "position": reply["position"]}).json()
    assert text(browser, "value-grundy-black") == str(expected["grundy_black"])
    shown = browser.find_element(By.ID, "heaps").get_attribute("data-position")
    assert shown == reply["position"]

    # The plot of a family: f_3, arithmetic-periodic with period 9 (saltus 9) from 5, shaded as certified.
    start, stop = 0, 100
    plot(browser, game, start, stop, family="f_3")
    sequence = api.get(
        "/v1/sequence", params={"game": game, "family": "f_3", "start": start, "stop": stop}
    ).json()
    dots = browser.find_elements(By.CSS_SELECTOR, "#plot circle")
    assert [int(d.get_attribute("data-value")) for d in dots] == sequence["values"]
    period = sequence["period"]
    assert period == {"preperiod": 5, "period": 9, "saltus": 9, "certified": True}
    line = browser.find_element(By.ID, "plot-period")
    assert {key: line.get_attribute(f"data-{key}") for key in period} == {
        "preperiod": "5",
        "period": "9",
        "saltus": "9",
        "certified": "true",
    }
    assert line.text.startswith("Certified period 9, from n = 5")
    assert "g(n + 9) = g(n) + 9" in line.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#plot rect.pre")) == 1
    bands = browser.find_elements(By.CSS_SELECTOR, "#plot rect.per-a, #plot rect.per-b")
    assert len(bands) == -(-(stop - period["preperiod"]) // period["period"])
    assert javascript_errors(browser) == []
    screenshot(browser, tmp_path / "bicolor.png")


# ---- chess endgames and game graphs --------------------------------------------------------------

#: KQvK: White to move wins; Black to move in check, whose one move takes the queen (into KvK, a draw).
KQVK_WIN = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"
KQVK_TAKES = "8/8/8/8/8/8/1Q6/k6K b - - 0 1"
#: The example the page makes for a material ListGames gives none for: kings on a1 and h8, White's
#: men from d1.
KQVK_EXAMPLE = "7k/8/8/8/8/8/8/K2Q4 w - - 0 1"


@pytest.fixture(scope="module")
def chess_table(api: httpx.Client) -> None:
    """KQvK's table, there before the page asks: a material of three men is solved for a request (within
    NIMBASE_LIMITS_CHESS_LIVE_MEN) and kept by the server; GetStats solves it here."""
    stats = api.get("/v1/stats", params={"game": "chess:KQvK"}, timeout=120)
    assert stats.status_code == 200, stats.text
    assert stats.json()["longest_win"] == 19  # mate in 10


def chess_pieces(browser: WebDriver) -> dict[str, str]:
    """The pieces the page's board shows, as FEN letters by square ({"a1": "K"})."""
    squares = browser.find_elements(By.CSS_SELECTOR, "#chess-board .square[data-piece]")
    return {str(s.get_attribute("data-square")): str(s.get_attribute("data-piece")) for s in squares}


def fen_pieces(fen: str) -> dict[str, str]:
    board = chess.Board(fen)
    return {chess.square_name(square): piece.symbol() for square, piece in board.piece_map().items()}


def chess_drawn(position: str) -> Callable[[WebDriver], bool]:
    return lambda b: (
        b.find_element(By.ID, "chess-board").get_attribute("data-position") == position
        and b.find_element(By.ID, "play").get_attribute("data-busy") == "false"
    )


def verdict(value: dict[str, Any]) -> str:
    """The value for the side to move as the page words it: mate in (remoteness + 1) / 2 moves."""
    side = "White" if chess.Board(value["position"]).turn else "Black"
    r = value.get("remoteness")
    if value["outcome"] == "N":
        return f"{side} wins: mate in {(r + 1) // 2} ({r} plies)."
    if value["outcome"] == "P":
        return f"{side} is checkmated." if r == 0 else f"{side} loses: mated in {r // 2} ({r} plies)."
    return "A draw with best play."


def assert_chess_shown(browser: WebDriver, api: httpx.Client, game: str, fen: str) -> dict[str, Any]:
    """The board, the side to move, the value and the moves the page shows for `fen`: python-chess's
    pieces, the API's numbers. Returns BestMove's answer."""
    assert chess_pieces(browser) == fen_pieces(fen)
    for square, piece in fen_pieces(fen).items():
        glyph = browser.find_element(By.CSS_SELECTOR, f"#chess-board [data-square='{square}'] .piece")
        solid = chess.Piece(chess.Piece.from_symbol(piece).piece_type, chess.BLACK).unicode_symbol()
        assert glyph.text.rstrip("\ufe0e") == solid  # the solid glyph, filled by side
        assert glyph.get_attribute("class") == f"piece {'white' if piece.isupper() else 'black'}"
    side = "White" if chess.Board(fen).turn else "Black"
    assert text(browser, "chess-to-move") == f"{side} to move"
    value = api.get("/v1/value", params={"game": game, "position": fen}).json()
    assert text(browser, "chess-verdict") == verdict(value)
    assert text(browser, "value-outcome") == value["outcome"]
    assert text(browser, "value-remoteness") == str(value.get("remoteness", "—"))
    ranked = api.get("/v1/best-move", params={"game": game, "position": fen}).json()
    buttons = browser.find_elements(By.CSS_SELECTOR, "#chess-moves button.move")
    assert [b.text for b in buttons] == [m["san"] for m in ranked["moves"]]
    assert [b.get_attribute("data-uci") for b in buttons] == [m["uci"] for m in ranked["moves"]]
    table = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert [b.text for b in table] == [m["san"] for m in ranked["moves"]]
    return dict(ranked)


def test_a_chess_endgame_on_its_board(
    chess_table: None, chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    game = "chess:KQvK"

    # ListGames lists chess:KRvK only: for KQvK the page offers a position of its own, which the API takes.
    open_page(browser, base_url, f"#game={game}")
    wait_for(browser, chess_drawn(KQVK_EXAMPLE), "the example's board")
    examples = browser.find_elements(By.CSS_SELECTOR, "#examples button")
    assert [b.get_attribute("title") for b in examples] == [KQVK_EXAMPLE]
    assert api.get("/v1/value", params={"game": game, "position": KQVK_EXAMPLE}).status_code == 200
    assert Select(browser.find_element(By.ID, "chess-material-select")).first_selected_option.text == "KQvK"
    assert not browser.find_element(By.ID, "auto-reply").is_selected()  # explored, not played against

    # A FEN typed in: 64 squares, a8 first and h1 last, a1 dark; the pieces where the FEN puts them.
    type_into(browser, "position", KQVK_WIN)
    browser.find_element(By.ID, "lookup").click()
    wait_for(browser, chess_drawn(KQVK_WIN), "the board of the FEN")
    squares = browser.find_elements(By.CSS_SELECTOR, "#chess-board .square")
    assert len(squares) == 64
    assert [squares[0].get_attribute("data-square"), squares[-1].get_attribute("data-square")] == ["a8", "h1"]
    assert "dark" in squares[56].get_attribute("class") and "light" in squares[-1].get_attribute("class")
    ranked = assert_chess_shown(browser, api, game, KQVK_WIN)
    assert ranked["outcome"] == "N" and text(browser, "chess-verdict").startswith("White wins: mate in ")
    screenshot(browser, tmp_path / "chess.png", "play")

    # The best move, clicked: the board shows the position it leads to, Black to move.
    best = ranked["best_move"]
    browser.find_element(By.CSS_SELECTOR, "#chess-moves li.best button.move").click()
    wait_for(browser, chess_drawn(best["position"]), "the board after the best move")
    after = assert_chess_shown(browser, api, game, best["position"])
    last = {
        str(s.get_attribute("data-square"))
        for s in browser.find_elements(By.CSS_SELECTOR, "#chess-board .square.last")
    }
    assert last == {best["uci"][:2], best["uci"][2:4]}
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")] == [
        f"you: {best['san']} → {best['position']}"
    ]

    # Black's best move by the board: its king picked, the squares it may go to marked, one clicked.
    reply = after["best_move"]
    browser.find_element(By.CSS_SELECTOR, f"#chess-board [data-square='{reply['uci'][:2]}']").click()
    marked = {
        str(s.get_attribute("data-square"))
        for s in browser.find_elements(By.CSS_SELECTOR, "#chess-board .square.target")
    }
    assert marked == {m["uci"][2:4] for m in after["moves"] if m["uci"][:2] == reply["uci"][:2]}
    browser.find_element(By.CSS_SELECTOR, f"#chess-board [data-square='{reply['uci'][2:4]}']").click()
    wait_for(browser, chess_drawn(reply["position"]), "the board after Black's move")
    assert_chess_shown(browser, api, game, reply["position"])

    # A capture leads into a smaller table: the page follows it into chess:KvK.
    type_into(browser, "position", KQVK_TAKES)
    browser.find_element(By.ID, "lookup").click()
    wait_for(browser, chess_drawn(KQVK_TAKES), "the board before the capture")
    taking = assert_chess_shown(browser, api, game, KQVK_TAKES)
    assert [m["san"] for m in taking["moves"]] == ["Kxb2"] and taking["outcome"] == "D"
    browser.find_element(By.CSS_SELECTOR, "#chess-moves button.move").click()
    drawn = taking["best_move"]["position"]
    wait_for(browser, chess_drawn(drawn), "the board after the capture")
    assert browser.find_element(By.ID, "game").get_attribute("value") == "chess:KvK"
    assert chess_pieces(browser) == {"b2": "k", "h1": "K"}
    assert text(browser, "chess-verdict") == "A draw with best play."
    assert javascript_errors(browser) == []


def test_a_game_graph_vertex_by_vertex(
    chromium: WebDriver | str, base_url: str, api: httpx.Client, tmp_path: Path
) -> None:
    browser = need(chromium)
    # A path of wins and losses (f ends the game: the player to move there loses), and a drawn cycle.
    graph = {
        "name": "web-g",
        "vertices": list("abcdefgh"),
        "edges": [list(e) for e in ("ab", "ac", "bc", "bd", "cd", "ce", "ed", "df", "gh", "hg")],
    }
    headers = {"authorization": f"Bearer {TOKEN}"}
    assert api.post("/v1/graphs", json=graph, headers=headers).status_code in (200, 201)
    game = "graph:web-g"
    values = {v: api.get("/v1/value", params={"game": game, "position": v}).json() for v in graph["vertices"]}
    assert [values[v]["outcome"] for v in "abcdefgh"] == list("NPNNPPDD")

    # ListGames' graph:NAME names no graph: the page asks for one (no lookup, so no 404).
    open_page(browser, base_url)
    Select(browser.find_element(By.ID, "game-select")).select_by_value("graph:NAME")
    assert browser.find_element(By.ID, "graph-game").is_displayed()
    assert "type its name" in text(browser, "graph-info")
    assert not browser.find_element(By.ID, "play-error").is_displayed()

    # An unknown name: the API's error, as the page shows errors.
    type_into(browser, "graph-name", "no-such-graph")
    browser.find_element(By.ID, "graph-open").click()
    wait_for(browser, lambda b: b.find_element(By.ID, "graph-error").is_displayed(), "the error")
    assert text(browser, "graph-error").startswith("NOT_FOUND: ")

    type_into(browser, "graph-name", "web-g")
    browser.find_element(By.ID, "graph-open").click()
    wait_for(
        browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#graph-board circle.vertex")) == 8, "graph"
    )
    assert browser.find_element(By.ID, "game").get_attribute("value") == game
    assert not browser.find_element(By.ID, "graph-error").is_displayed()
    assert text(browser, "graph-info").startswith("8 vertices, 10 edges, with cycles")
    edges = browser.find_elements(By.CSS_SELECTOR, "#graph-board path.edge")
    assert sorted([e.get_attribute("data-from"), e.get_attribute("data-to")] for e in edges) == sorted(
        graph["edges"]
    )

    def outcome_class(element: Any) -> str:
        return next(c for c in element.get_attribute("class").split() if c.startswith("v-"))

    wait_for(
        browser,
        lambda b: all(
            "v-" in e.get_attribute("class")
            for e in b.find_elements(By.CSS_SELECTOR, "#graph-vertices button")
        ),
        "the vertices' outcomes",
    )
    listed = browser.find_elements(By.CSS_SELECTOR, "#graph-vertices button")
    assert [b.text for b in listed] == graph["vertices"]
    assert [outcome_class(b) for b in listed] == [f"v-{values[v]['outcome']}" for v in graph["vertices"]]

    def vertex_shown(vertex: str) -> Callable[[WebDriver], bool]:
        return lambda b: (
            b.find_element(By.ID, "graph-vertex").get_attribute("data-vertex") == vertex
            and b.find_element(By.ID, "play").get_attribute("data-busy") == "false"
        )

    def described(vertex: str) -> str:
        value = values[vertex]
        words = {"N": "a win (N)", "P": "a loss (P)", "D": "a draw (D)"}[value["outcome"]]
        parts = [f"Vertex {vertex}: {words} for the player to move"]
        parts += [f"remoteness {value['remoteness']}"] if "remoteness" in value else []
        parts += [f"grundy {value['grundy']}"] if "grundy" in value else []
        return ", ".join(parts) + "."

    def moves_shown(vertex: str) -> dict[str, Any]:
        ranked = api.get("/v1/best-move", params={"game": game, "position": vertex}).json()
        links = browser.find_elements(By.CSS_SELECTOR, "#graph-moves a.graph-move")
        assert [a.get_attribute("data-position") for a in links] == [m["position"] for m in ranked["moves"]]
        return dict(ranked)

    # A vertex picked from the list: its value, and its moves as links, best first.
    browser.find_element(By.CSS_SELECTOR, "#graph-vertices button[data-vertex='a']").click()
    wait_for(browser, vertex_shown("a"), "vertex a")
    assert text(browser, "graph-vertex") == described("a")
    assert text(browser, "value-remoteness") == str(values["a"]["remoteness"])
    ranked = moves_shown("a")
    assert ranked["best_move"]["position"] == "b"  # to the lost vertex
    cur = browser.find_element(By.CSS_SELECTOR, "#graph-board circle.cur")
    assert cur.get_attribute("data-vertex") == "a"
    nexts = browser.find_elements(By.CSS_SELECTOR, "#graph-board circle.next")
    assert sorted(c.get_attribute("data-vertex") for c in nexts) == ["b", "c"]
    screenshot(browser, tmp_path / "graph.png", "play")

    # The best move followed: the page moves to b (nobody answers: the box starts unticked for graphs).
    assert not browser.find_element(By.ID, "auto-reply").is_selected()
    browser.find_element(By.CSS_SELECTOR, "#graph-moves li.best a.graph-move").click()
    wait_for(browser, vertex_shown("b"), "vertex b")
    assert text(browser, "graph-vertex") == described("b")
    moves_shown("b")
    # A vertex one move away, clicked in the drawing: that move is played.
    browser.find_element(By.CSS_SELECTOR, "#graph-board circle.next[data-vertex='c']").click()
    wait_for(browser, vertex_shown("c"), "vertex c")
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")] == [
        "you: b → b",
        "you: c → c",
    ]
    # The drawn cycle.
    browser.find_element(By.CSS_SELECTOR, "#graph-vertices button[data-vertex='g']").click()
    wait_for(browser, vertex_shown("g"), "vertex g")
    assert text(browser, "graph-vertex") == described("g")
    assert text(browser, "value-outcome") == "D"
    assert javascript_errors(browser) == []


def test_the_docs_render_from_local_assets(chromium: WebDriver | str, base_url: str) -> None:
    browser = need(chromium)
    browser.get(f"{base_url}/docs")
    operations = wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, ".opblock"), "Swagger UI")
    assert len(operations) >= 10
    failed = [e["message"] for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert failed == []


def test_a_missing_browser_is_named() -> None:
    message = missing_browser(path="")
    assert message is not None and "chromium and chromedriver" in message
    assert BROWSER_PACKAGES in message and "\n" not in message
