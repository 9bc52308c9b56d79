// Wythoff's game: a board of pairs, the queen on the current pair, the squares it reaches marked (those
// moving to a P-position coloured); a click on one plays that move. A position of several pairs picks the
// pair drawn. The plot offers its rows.

import { $, kindSection, show, svg, svgMessage } from "../dom.js";
import { play } from "../panel.js";
import { playable, state } from "../state.js";
import { generic } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="wythoff-board" class="board">
    <h3>Wythoff board <span class="muted">(click a square the queen can reach)</span></h3>
    <div id="board-pairs" class="pairs"></div>
    <svg id="board" role="img" aria-label="Wythoff board"></svg>
    <p class="legend">
      <span class="swatch cur"></span> current pair
      <span class="swatch win"></span> move to a P-position
      <span class="swatch lose"></span> other moves
      <span class="swatch cold"></span> P-positions of one pair
    </p>
  </div>
`;

/** The largest pile the board draws: beyond it, play from the move list. */
const BOARD_MAX = 48;
const PHI = (1 + Math.sqrt(5)) / 2;
/** The pair drawn, of the position's pairs. */
const board = { pair: 0 };

/** Wythoff's P-positions (cold pairs) with both piles below `side`: (⌊kφ⌋, ⌊kφ²⌋) and mirrors. */
function coldPairs(side) {
  const cold = new Set();
  for (let k = 0; Math.floor(k * PHI) < side; k++) {
    const a = Math.floor(k * PHI);
    const b = a + k;
    cold.add(`${a},${b}`);
    cold.add(`${b},${a}`);
  }
  return cold;
}

function renderBoard() {
  const container = $("wythoff-board");
  const pairs = state.position
    .split(/\s+/)
    .filter(Boolean)
    .map((text) => text.split(",").map(Number));
  if (pairs.length === 0) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  board.pair = Math.min(board.pair, pairs.length - 1);
  const chooser = $("board-pairs");
  chooser.replaceChildren();
  if (pairs.length > 1) {
    pairs.forEach((pair, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = pair.join(",");
      if (index === board.pair) button.className = "selected";
      button.addEventListener("click", () => {
        board.pair = index;
        renderBoard();
      });
      chooser.appendChild(button);
    });
  }
  const [a, b] = pairs[board.pair];
  const drawing = $("board");
  drawing.replaceChildren();
  const side = Math.max(a, b) + 1;
  if (side > BOARD_MAX) {
    svgMessage(drawing, 400, `The board shows piles up to ${BOARD_MAX - 1}; play ${a},${b} from the move list.`);
    return;
  }
  const cell = Math.max(10, Math.min(34, Math.floor(440 / side)));
  const margin = 22;
  const size = margin + side * cell + 2;
  drawing.setAttribute("viewBox", `0 0 ${size} ${size}`);
  drawing.setAttribute("width", String(size));
  drawing.setAttribute("height", String(size));
  const moves = new Map();
  for (const move of state.moves) {
    if (move.pair && move.to) moves.set(`${move.pair.join(",")}>${move.to.join(",")}`, move);
  }
  const cold = coldPairs(side);
  const canPlay = playable();
  const labelEvery = side > 24 ? 5 : side > 12 ? 2 : 1;
  for (let i = 0; i < side; i += labelEvery) {
    svg("text", { x: margin + i * cell + cell / 2, y: 14, "text-anchor": "middle" }, drawing).textContent = i;
    svg("text", { x: margin - 4, y: margin + i * cell + cell / 2 + 3, "text-anchor": "end" }, drawing).textContent = i;
  }
  for (let c = 0; c < side; c++) {
    for (let d = 0; d < side; d++) {
      const x = margin + c * cell;
      const y = margin + d * cell;
      const reachable =
        (d === b && c < a) || (c === a && d < b) || (a - c === b - d && a - c > 0);
      const rect = svg("rect", { x, y, width: cell, height: cell, class: "cell" }, drawing);
      if (c === a && d === b) {
        rect.setAttribute("class", "cell cur");
        const queen = svg("text", { x: x + cell / 2, y: y + cell / 2 + 5, "text-anchor": "middle", class: "queen" }, drawing);
        queen.textContent = "♛";
      } else if (reachable) {
        const to = `${Math.min(c, d)},${Math.max(c, d)}`;
        const move = moves.get(`${a},${b}>${to}`);
        rect.setAttribute("class", `cell reach${move && move.outcome === "P" ? " win" : ""}`);
        rect.dataset.to = `${c},${d}`;
        const title = svg("title", {}, rect);
        title.textContent = move ? `${move.move}: ${move.outcome}, grundy ${show(move.grundy)}` : `${a},${b} -> ${c},${d}`;
        if (canPlay) {
          rect.addEventListener("click", () => {
            const others = pairs.map((pair, index) => (index === board.pair ? `${c},${d}` : pair.join(",")));
            play(move || { move: `${a},${b} -> ${c},${d}`, position: others.join(" ") });
          });
        }
      }
      if (cold.has(`${c},${d}`)) {
        svg("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell / 2 - 2, class: "cold" }, drawing);
      }
    }
  }
}

export default {
  ...generic,
  setUp() {
    kindSection(SECTION);
  },
  sequences: { families: ["row:0", "row:1", "row:2", "row:5"], first: "" },
  clear() {
    $("wythoff-board").hidden = true;
  },
  started() {
    board.pair = 0;
  },
  render: renderBoard,
};
