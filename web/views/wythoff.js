// Wythoff's game: a board of pairs, the queen on the current pair, the squares it reaches marked (those
// moving to a P-position coloured); a click on one plays that move. A position of several pairs picks the
// pair drawn. The plot offers its rows. Its own card on the page: Wythoff's table as a heat map (canvas),
// g(a, b) of a square of pairs, valued in batches; a click on a cell plays from it in the position panel.

import { ApiError, BATCH, valuesBatch } from "../api.js";
import { $, kindCard, kindSection, kindStyle, parseCount, show, showError, svg, svgMessage } from "../dom.js";
import { play, playFrom } from "../panel.js";
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

/** Wythoff's table, a card of its own on the page: shown whatever game the panel plays. */
const TABLE = `
  <section id="heatmap-section" class="card">
    <h2>Wythoff's table</h2>
    <form id="heat-form" class="row wrap" autocomplete="off">
      <label>cells <select id="heat-size"><option>32</option><option selected>64</option><option>128</option></select></label>
      <label>first pile from <input id="heat-a0" inputmode="numeric" size="6" value="0"></label>
      <label>second pile from <input id="heat-b0" inputmode="numeric" size="6" value="0"></label>
      <button id="heat-go" type="submit">Draw</button>
    </form>
    <p id="heat-error" class="error" hidden></p>
    <div class="heat">
      <canvas id="heatmap" width="512" height="512" aria-label="Grundy values of Wythoff pairs"></canvas>
      <div>
        <canvas id="heat-scale" width="24" height="256"></canvas>
        <p id="heat-max" class="muted"></p>
      </div>
    </div>
    <p id="heat-readout" class="readout">&nbsp;</p>
    <p class="muted">g(a, b), the first pile across, the second down; black cells are P-positions.
      Click a cell to play from it.</p>
  </section>
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

// ---- Wythoff's table as a heat map ----------------------------------------------------------------

const heat = { size: 0, a0: 0, b0: 0, grid: null, max: 0 };

/** viridis, from 5 of its stops; P-positions (value 0) are drawn black so they stand out. */
const STOPS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

function colour(t) {
  const scaled = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
  const index = Math.min(STOPS.length - 2, Math.floor(scaled));
  const f = scaled - index;
  return STOPS[index].map((c, k) => Math.round(c + (STOPS[index + 1][k] - c) * f));
}

async function drawHeat() {
  const size = Number($("heat-size").value);
  let a0;
  let b0;
  try {
    a0 = Number(parseCount($("heat-a0").value, "first pile"));
    b0 = Number(parseCount($("heat-b0").value, "second pile"));
  } catch (error) {
    showError("heat-error", error);
    return;
  }
  const positions = [];
  for (let b = 0; b < size; b++) for (let a = 0; a < size; a++) positions.push(`${a0 + a},${b0 + b}`);
  const grid = new Array(positions.length).fill(null);
  let firstError = null;
  try {
    for (let from = 0; from < positions.length; from += BATCH) {
      const answer = await valuesBatch("wythoff", positions.slice(from, from + BATCH));
      answer.values.forEach((item, index) => {
        if (item.error) firstError = firstError || new ApiError(0, item.error);
        else grid[from + index] = Number(item.grundy);
      });
    }
    showError("heat-error", firstError);
  } catch (error) {
    showError("heat-error", error);
    return;
  }
  let max = 1;
  for (const value of grid) if (value !== null && value > max) max = value;
  Object.assign(heat, { size, a0, b0, grid, max });
  const canvas = $("heatmap");
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext("2d");
  const image = context.createImageData(size, size);
  grid.forEach((value, index) => {
    const [r, g, b] = value === null ? [208, 213, 221] : value === 0 ? [0, 0, 0] : colour(value / heat.max);
    image.data.set([r, g, b, 255], index * 4);
  });
  context.putImageData(image, 0, 0);
  canvas.dataset.state = "drawn";
  const scale = $("heat-scale");
  const scaleContext = scale.getContext("2d");
  for (let y = 0; y < scale.height; y++) {
    const [r, g, b] = colour(1 - y / (scale.height - 1));
    scaleContext.fillStyle = `rgb(${r},${g},${b})`;
    scaleContext.fillRect(0, y, scale.width, 1);
  }
  $("heat-max").textContent = `0 … ${heat.max}`;
}

function heatCell(event) {
  if (!heat.grid) return null;
  const box = $("heatmap").getBoundingClientRect();
  const a = Math.floor(((event.clientX - box.left) / box.width) * heat.size);
  const b = Math.floor(((event.clientY - box.top) / box.height) * heat.size);
  if (a < 0 || b < 0 || a >= heat.size || b >= heat.size) return null;
  return { a: heat.a0 + a, b: heat.b0 + b, value: heat.grid[b * heat.size + a] };
}

/** The form and the pointer; a click on a cell plays Wythoff from it in the position panel. */
function setUpHeat() {
  $("heat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    drawHeat();
  });
  $("heatmap").addEventListener("pointermove", (event) => {
    const cell = heatCell(event);
    if (cell) $("heat-readout").textContent = `g(${cell.a}, ${cell.b}) = ${show(cell.value)}`;
  });
  $("heatmap").addEventListener("click", (event) => {
    const cell = heatCell(event);
    if (!cell) return;
    playFrom("wythoff", `${cell.a},${cell.b}`);
    $("play").scrollIntoView({ behavior: "smooth" });
  });
}

export default {
  ...generic,
  setUp() {
    kindStyle(new URL("./wythoff.css", import.meta.url));
    kindSection(SECTION);
    kindCard(TABLE);
    setUpHeat();
    drawHeat();
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
