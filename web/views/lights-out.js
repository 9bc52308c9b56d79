// Lights Out: a one-player puzzle on a grid (`lights-out:RxC[:TOPOLOGY]`) or an uploaded graph
// (`lights-out:graph:NAME`). The board to press (a press flips a cell and its neighbours: BestMove gives
// the board each press leads to, so no flip rule is coded here), its solution on request, a random
// solvable board, and the shape's statistics with the boards at each fewest-press distance.

import { api, valuesBatch } from "../api.js";
import { $, kindSection, kindStyle, show, showError, svg, svgMessage, terms } from "../dom.js";
import { graphOf } from "../graphs.js";
import { play, startAt } from "../panel.js";
import { state } from "../state.js";
import { statsOf } from "../stats.js";
import { column, field, generic, MOVE_LIMIT } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="lights-out" class="lights">
    <h3>Lights Out <span class="muted">(click a cell to press it: it flips with its neighbours)</span></h3>
    <div class="row wrap">
      <label class="check"><input id="lights-solution" type="checkbox"> show solution</label>
      <button id="lights-random" type="button">random solvable board</button>
    </div>
    <p id="lights-status" class="lights-status"></p>
    <svg id="lights-board" role="img" aria-label="Lights Out board"></svg>
    <p class="legend">
      <span class="swatch black"></span> black (1)
      <span class="swatch white"></span> white (0)
      <span class="swatch press"></span> a press of the solution (when shown)
    </p>
    <h3>The shape <span id="lights-shape" class="muted"></span></h3>
    <dl id="lights-stats" class="stats"></dl>
    <svg id="lights-distances" role="img" aria-label="solvable boards at each fewest-press distance"></svg>
    <p id="lights-distances-note" class="muted"></p>
  </div>
`;

/** Boards drawn up to this many cells; every press is listed (and clickable) up to LIGHTS_PRESS_MAX. */
const LIGHTS_DRAW_MAX = 4096;
const LIGHTS_PRESS_MAX = 1024;
/** A random solvable board: random boards tried at once (nullity up to RANDOM_NULLITY), else presses. */
const RANDOM_BOARDS = 64;
const RANDOM_NULLITY = 5;
const RANDOM_PRESSES = 12;
/** Whether a random board is being made. */
const lights = { busy: false };

/** `lights-out:RxC[:TOPOLOGY]` as {rows, cols, topology}, `lights-out:graph:NAME` as {graph}, else null. */
function lightsShape(game) {
  const grid = /^lights-out:(\d+)x(\d+)(?::([a-z]+))?$/.exec(game);
  if (grid) return { rows: Number(grid[1]), cols: Number(grid[2]), topology: grid[3] || "plane" };
  const graph = /^lights-out:graph:(.+)$/.exec(game);
  return graph ? { graph: graph[1] } : null;
}

function describeShape(shape) {
  if (shape.graph !== undefined) return `on the graph ${shape.graph}`;
  return `${shape.rows} x ${shape.cols}${shape.topology === "plane" ? "" : ` (${shape.topology})`}`;
}

/** A grid press's cell as "r,c" (presses are named `RC` up to 9 x 9, `r,c` beyond), else null. */
function gridCell(press) {
  const match = /^(\d+),(\d+)$/.exec(press) || /^(\d)(\d)$/.exec(press);
  return match ? `${Number(match[1])},${Number(match[2])}` : null;
}

/** What the board shows: the presses by cell (the BestMove answer: each gives the board it leads to,
 * so no flip rule is coded here) and the solution's cells. */
function lightsMoves(graph) {
  const key = (press) => (graph ? press : gridCell(press));
  const moves = new Map(state.moves.map((move) => [key(move.move), move]));
  const solution = new Set((state.value.solution || []).map(key));
  return { moves, solution };
}

function pressCell(move) {
  if (!move || state.busy) return;
  play(move);
}

function renderLights() {
  const container = $("lights-out");
  const shape = lightsShape(state.game);
  const value = state.value;
  if (!shape || value === null || value.solvable === undefined) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const status = $("lights-status");
  const count = (value.solution || []).length;
  if (!value.solvable) status.textContent = "Not solvable.";
  else if (count === 0) status.textContent = "Solved: all white.";
  else if (value.remoteness !== undefined) status.textContent = `Fewest presses: ${value.remoteness}.`;
  else status.textContent = `A solution of ${count} presses (the fewest was not searched).`;
  status.className = `lights-status${value.solvable && count === 0 ? " solved" : ""}`;
  status.dataset.fewest = value.remoteness === undefined ? "" : String(value.remoteness);
  const cells = value.position.replace(/[^01]/g, "").length;
  const random = $("lights-random");
  random.disabled = lights.busy || cells > LIGHTS_PRESS_MAX;
  random.title = cells > LIGHTS_PRESS_MAX ? `made for boards of up to ${LIGHTS_PRESS_MAX} cells` : "";
  // The board's data-position is set once it is drawn (a graph's, when the graph has come).
  if (shape.graph !== undefined) {
    graphOf(shape.graph).then((graph) => {
      if (state.value === value) drawGraphBoard(graph, value);
    });
  } else {
    drawGridBoard(value);
  }
  renderShapeStats(state.game);
}

function boardTooLarge(board, cells) {
  svgMessage(board, 420, `The page draws boards of up to ${LIGHTS_DRAW_MAX} cells (this one has ${cells}): press from the move list.`);
}

function drawGridBoard(value) {
  const board = $("lights-board");
  board.dataset.position = value.position;
  const rows = value.position.split("/");
  const height = rows.length;
  const width = rows[0].length;
  if (height * width > LIGHTS_DRAW_MAX) {
    boardTooLarge(board, height * width);
    return;
  }
  board.replaceChildren();
  const { moves, solution } = lightsMoves(false);
  const showSolution = $("lights-solution").checked;
  const cell = Math.max(6, Math.min(56, Math.floor(440 / Math.max(height, width))));
  const margin = cell >= 14 ? 18 : 2;
  const small = height <= 9 && width <= 9;
  board.setAttribute("viewBox", `0 0 ${margin + width * cell + 2} ${margin + height * cell + 2}`);
  board.setAttribute("width", String(margin + width * cell + 2));
  board.setAttribute("height", String(margin + height * cell + 2));
  if (margin > 2) {
    const every = Math.max(1, Math.ceil(16 / cell));
    for (let c = 0; c < width; c += every) {
      svg("text", { x: margin + c * cell + cell / 2, y: 12, "text-anchor": "middle" }, board).textContent = c + 1;
    }
    for (let r = 0; r < height; r += every) {
      svg("text", { x: margin - 4, y: margin + r * cell + cell / 2 + 4, "text-anchor": "end" }, board).textContent = r + 1;
    }
  }
  const playable = !state.busy;
  rows.forEach((line, r) => {
    [...line].forEach((bit, c) => {
      const key = `${r + 1},${c + 1}`;
      const move = moves.get(key);
      const press = move ? move.move : small ? `${r + 1}${c + 1}` : key;
      const inSolution = solution.has(key);
      let className = `cell ${bit === "1" ? "on" : "off"}`;
      if (move && playable) className += " pressable";
      if (showSolution && inSolution) className += " press";
      const x = margin + c * cell;
      const y = margin + r * cell;
      const rect = svg("rect", { x, y, width: cell, height: cell, class: className }, board);
      Object.assign(rect.dataset, { row: String(r + 1), col: String(c + 1), press });
      if (inSolution) rect.dataset.solution = "true";
      const title = svg("title", {}, rect);
      title.textContent = move
        ? `press ${press}: ${move.solvable ? `${show(move.remoteness)} presses left` : "not solvable"}`
        : `cell ${press}`;
      if (move) rect.addEventListener("click", () => pressCell(move));
      if (showSolution && inSolution) {
        svg("circle", { cx: x + cell / 2, cy: y + cell / 2, r: Math.max(2, cell * 0.22), class: "press-mark" }, board);
      }
    });
  });
}

/** A graph's board: its vertices on a circle (in the graph's order, the board's order), its edges. */
function drawGraphBoard(graph, value) {
  const board = $("lights-board");
  board.dataset.position = value.position;
  board.replaceChildren();
  if (!graph) {
    board.setAttribute("viewBox", "0 0 420 30");
    svg("text", { x: 0, y: 18 }, board).textContent = "The graph could not be read: press from the move list.";
    return;
  }
  const n = graph.vertices.length;
  if (n > 400) {
    boardTooLarge(board, n);
    return;
  }
  const { moves, solution } = lightsMoves(true);
  const showSolution = $("lights-solution").checked;
  const size = 440;
  const radius = Math.max(4, Math.min(18, (Math.PI * (size / 2 - 30)) / Math.max(n, 1) - 2));
  const centre = size / 2;
  const ring = size / 2 - radius - 14;
  const at = new Map();
  graph.vertices.forEach((name, i) => {
    const angle = (2 * Math.PI * i) / n - Math.PI / 2;
    at.set(name, [centre + ring * Math.cos(angle), centre + ring * Math.sin(angle)]);
  });
  board.setAttribute("viewBox", `0 0 ${size} ${size}`);
  board.setAttribute("width", String(size));
  board.setAttribute("height", String(size));
  for (const [from, to] of graph.edges) {
    const [x1, y1] = at.get(from);
    const [x2, y2] = at.get(to);
    svg("line", { x1, y1, x2, y2, class: "edge" }, board);
  }
  graph.vertices.forEach((name, i) => {
    const [cx, cy] = at.get(name);
    const move = moves.get(name);
    const inSolution = solution.has(name);
    let className = `cell ${value.position[i] === "1" ? "on" : "off"}`;
    if (move && !state.busy) className += " pressable";
    if (showSolution && inSolution) className += " press";
    const dot = svg("circle", { cx, cy, r: radius, class: className }, board);
    dot.dataset.press = name;
    if (inSolution) dot.dataset.solution = "true";
    svg("title", {}, dot).textContent = move ? `press ${name}: ${show(move.remoteness)} presses left` : name;
    if (move) dot.addEventListener("click", () => pressCell(move));
    if (radius >= 8) svg("text", { x: cx, y: cy + radius + 11, "text-anchor": "middle" }, board).textContent = name;
  });
}

/** The shape's GetStats: rank, nullity, solvable boards, diameter, and the distance counts as bars
 * (the current board's distance marked). */
async function renderShapeStats(game) {
  const stats = await statsOf(game);
  if (game !== state.game || state.value === null) return;
  $("lights-shape").textContent = `${game}`;
  const list = $("lights-stats");
  const chart = $("lights-distances");
  chart.replaceChildren();
  if (!stats) {
    list.replaceChildren();
    $("lights-distances-note").textContent = "GetStats gave no answer for this shape.";
    return;
  }
  const items = [
    ["rank", stats.rank],
    ["nullity", stats.nullity],
    ["solvable boards", stats.solvable_boards],
    ["diameter", stats.diameter === null || stats.diameter === undefined ? "— (not walked)" : stats.diameter],
  ];
  list.replaceChildren(...terms(items.map(([key, value]) => [key, show(value)])));
  const counts = stats.distance_counts;
  if (!Array.isArray(counts) || counts.length === 0) {
    chart.setAttribute("height", "0");
    $("lights-distances-note").textContent =
      "Distance counts: not known for this shape (they are counted for shapes of up to 1,024 cells with a small null space).";
    return;
  }
  const here = state.value.remoteness;
  const W = 440;
  const H = 150;
  const left = 8;
  const top = 16;
  const bottom = 20;
  const barWidth = (W - left * 2) / counts.length;
  const numbers = counts.map((count) => Number(count));
  const max = Math.max(...numbers, 1);
  chart.setAttribute("viewBox", `0 0 ${W} ${H}`);
  chart.setAttribute("width", String(W));
  chart.setAttribute("height", String(H));
  counts.forEach((count, distance) => {
    const h = (numbers[distance] / max) * (H - top - bottom);
    const x = left + distance * barWidth;
    const bar = svg(
      "rect",
      {
        x: x + 1,
        y: H - bottom - h,
        width: Math.max(1, barWidth - 2),
        height: Math.max(h, numbers[distance] > 0 ? 1 : 0),
        class: distance === here ? "bar here" : "bar",
      },
      chart,
    );
    bar.dataset.distance = String(distance);
    bar.dataset.count = String(count);
    svg("title", {}, bar).textContent = `${count} board${String(count) === "1" ? "" : "s"} at ${distance} presses`;
    const every = Math.max(1, Math.ceil(18 / barWidth));
    if (distance % every === 0 || distance === counts.length - 1) {
      svg("text", { x: x + barWidth / 2, y: H - 6, "text-anchor": "middle" }, chart).textContent = distance;
    }
    if (barWidth >= 26) {
      svg("text", { x: x + barWidth / 2, y: H - bottom - h - 3, "text-anchor": "middle", class: "count" }, chart).textContent =
        String(count);
    }
  });
  const mark = here === undefined ? "" : `; this board: ${here} presses (the bar in colour)`;
  $("lights-distances-note").textContent = `Solvable boards at each fewest-press distance, 0 to ${counts.length - 1}${mark}.`;
}

const randomBits = (count) => {
  const bytes = new Uint8Array(count);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => String(byte & 1)).join("");
};

/** A random solvable board of the current shape: random boards valued in one batch, the first solvable
 * kept (where the null space is small), else random presses from the all-white board, each board taken
 * from BestMove's answer. */
async function randomSolvable() {
  const game = state.game;
  const shape = lightsShape(game);
  if (!shape || lights.busy) return;
  lights.busy = true;
  $("lights-random").disabled = true;
  try {
    let rows;
    let cols;
    if (shape.graph !== undefined) {
      const graph = await graphOf(shape.graph);
      if (!graph) throw new Error(`the graph ${shape.graph} could not be read`);
      rows = 1;
      cols = graph.vertices.length;
    } else {
      ({ rows, cols } = shape);
    }
    const cells = rows * cols;
    if (cells > LIGHTS_PRESS_MAX) throw new Error(`random boards are made for up to ${LIGHTS_PRESS_MAX} cells`);
    const format = (bits) =>
      shape.graph !== undefined ? bits : Array.from({ length: rows }, (_, r) => bits.slice(r * cols, (r + 1) * cols)).join("/");
    const stats = await statsOf(game);
    let board = null;
    if (stats && Number(stats.nullity) <= RANDOM_NULLITY) {
      const positions = Array.from({ length: RANDOM_BOARDS }, () => format(randomBits(cells)));
      const answer = await valuesBatch(game, positions);
      const found = answer.values.find((item) => !item.error && item.solvable && (item.solution || []).length > 0);
      if (found) board = found.position;
    }
    if (board === null) {
      board = format("0".repeat(cells));
      const presses = Math.min(cells, RANDOM_PRESSES);
      for (let i = 0; i < presses; i++) {
        const { moves } = await api("/v1/best-move", { game, position: board, limit: cells });
        board = moves[Math.floor(Math.random() * moves.length)].position;
      }
    }
    if (game !== state.game) return;
    await startAt(board);
  } catch (error) {
    showError("play-error", error);
  } finally {
    lights.busy = false;
    $("lights-random").disabled = false;
  }
}

function describePuzzle(game, entry, exact) {
  const shape = lightsShape(game);
  if (!shape || exact) return null;
  const syntax =
    shape.graph === undefined ? entry.position_syntax : "one 0 (white) or 1 (black) per vertex, in the graph's vertex order";
  return (
    `Lights Out ${describeShape(shape)}: a one-player puzzle; a press flips a cell and its neighbours, ` +
    `and the goal is the all-white board with the fewest presses. Positions: ${syntax}.`
  );
}

/** ListGames' examples of the shape, and the all-white board (a graph's needs its vertex count). */
async function examplesOfShape(game, listed) {
  const shape = lightsShape(game);
  if (!shape) return listed;
  if (shape.graph !== undefined) {
    const graph = await graphOf(shape.graph);
    return graph ? ["0".repeat(graph.vertices.length)] : [];
  }
  const fits = (example) => {
    const rows = example.split("/");
    return rows.length === shape.rows && rows.every((row) => row.length === shape.cols);
  };
  const examples = listed.filter(fits);
  if (shape.rows * shape.cols <= LIGHTS_DRAW_MAX) {
    const white = Array(shape.rows).fill("0".repeat(shape.cols)).join("/");
    if (!examples.includes(white)) examples.push(white);
  }
  return examples;
}

/** Moves asked for: every press of a board small enough to draw clickable, else MOVE_LIMIT. */
function moveLimit(game, position) {
  const cells = position.replace(/[^01]/g, "").length;
  return cells <= LIGHTS_PRESS_MAX ? Math.max(cells, 1) : MOVE_LIMIT;
}

function meaning(value, outcome) {
  if (value.solvable === undefined || value.outcome !== undefined) return outcome;
  if (!value.solvable) return "Not solvable: no set of presses turns every cell white.";
  const count = value.remoteness === undefined ? (value.solution || []).length : value.remoteness;
  return `Solvable: ${value.remoteness === undefined ? "a solution of" : "at best"} ${count} presses turn every cell white.`;
}

/** The puzzle's progress: solved (in how many presses, and the fewest), unsolvable, or how far. */
function renderPuzzleTurn(turn) {
  const value = state.value;
  if (value.solvable === undefined) return false;
  const presses = state.history.length;
  if (value.solvable && (value.solution || []).length === 0) {
    const fewest = state.fewestAtStart;
    turn.textContent =
      presses === 0
        ? "Solved: every cell is white."
        : `Solved: every cell is white, in ${presses} press${presses === 1 ? "" : "es"}` +
          `${fewest !== null && fewest > 0 ? ` (the fewest was ${fewest})` : ""}.`;
    turn.classList.add("won");
  } else if (!value.solvable) {
    turn.textContent = "This board cannot be solved: press cells to reach a solvable one, or start anew.";
    turn.classList.add("lost");
  } else {
    const best = value.remoteness === undefined ? "" : `: at best ${value.remoteness} more`;
    turn.textContent = `Press cells to turn every cell white${best}.`;
  }
  return true;
}

function movesNote() {
  const some = state.moves.length >= MOVE_LIMIT && moveLimit(state.game, state.position) === MOVE_LIMIT;
  return `(${some ? "the first " : ""}${state.moves.length} presses, fewest presses left first)`;
}

export default {
  ...generic,
  puzzle: true,
  showsGrundy: false,
  remotenessLabel: "fewest presses",
  moveHead: "press",
  setUp() {
    kindStyle(new URL("./lights-out.css", import.meta.url));
    kindSection(SECTION);
    $("lights-solution").addEventListener("change", () => state.value && renderLights());
    $("lights-random").addEventListener("click", randomSolvable);
  },
  describe: describePuzzle,
  examples: examplesOfShape,
  moveLimit,
  clear() {
    $("lights-out").hidden = true;
    delete $("lights-board").dataset.position;
  },
  render: renderLights,
  meaning,
  /** Whether the board is solvable, after where the outcome of a two-player game would be (the
   * solution is drawn on the board, on request). */
  valueFields(value) {
    if (value.solvable === undefined) return [];
    const text = value.solvable ? "yes" : "no";
    return [field("solvable", text, { className: value.solvable ? "outcome-P" : "unsolvable", after: "outcome" })];
  },
  turn: renderPuzzleTurn,
  moveColumns() {
    return [
      column("solvable", (move) => (move.solvable ? "yes" : "no"), (text) => `solvable-${text}`),
      column("presses left", (move) => show(move.remoteness)),
    ];
  },
  movesNote,
};
