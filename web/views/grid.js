// Grid games: every game ListGames lists with the view "grid" (a plugin's `Rules.grid`: tic-tac-toe,
// Connect Four, and any game whose positions are rows of one-character cells joined by "/", "." for an
// empty cell): the board drawn from the position, each piece in its cell; a click on a cell plays the move
// that puts a piece there (or, where pieces drop, in its column), the cells of moves to a P-position
// coloured. The panel shows the value and the ranked moves.

import { $, kindSection, kindStyle } from "../dom.js";
import { play } from "../panel.js";
import { playable, state } from "../state.js";
import { generic } from "./generic.js";

kindStyle(new URL("./grid.css", import.meta.url));

const SECTION = `
  <div id="grid-board" class="board">
    <h3>Board <span class="muted">(click a cell to play there)</span></h3>
    <div id="grid-cells" class="grid-cells" role="grid" aria-label="board"></div>
    <p class="legend">
      <span class="swatch win"></span> move to a P-position (a win)
      <span class="swatch lose"></span> other moves
    </p>
  </div>
`;

/** The position's rows of cells, or null where it is no grid. */
const rowsOf = (position) => {
  const rows = position.split("/");
  return rows.length > 1 && rows.every((row) => row.length === rows[0].length) ? rows : null;
};

/** Where `after` differs from `before` (the cell a move filled), as [row, col], or null. */
function changed(before, after) {
  const b = rowsOf(before);
  const a = rowsOf(after);
  if (!a || !b || a.length !== b.length) return null;
  for (let r = 0; r < b.length; r++) {
    for (let c = 0; c < b[r].length; c++) if (a[r][c] !== b[r][c]) return [r, c];
  }
  return null;
}

function renderGrid() {
  const board = $("grid-board");
  const rows = rowsOf(state.position || "");
  if (!rows) {
    board.hidden = true;
    return;
  }
  board.hidden = false;
  const cells = $("grid-cells");
  cells.style.gridTemplateColumns = `repeat(${rows[0].length}, 2.4rem)`;
  const byCell = new Map();
  const byColumn = new Map();
  for (const move of state.moves) {
    const at = changed(state.position, move.position);
    if (at === null) continue;
    byCell.set(`${at[0]},${at[1]}`, move);
    if (!byColumn.has(at[1])) byColumn.set(at[1], move);
  }
  cells.replaceChildren();
  rows.forEach((row, r) => {
    [...row].forEach((piece, c) => {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "grid-cell";
      cell.dataset.cell = `${r},${c}`;
      cell.textContent = piece === "." ? "" : piece;
      if (piece !== ".") cell.classList.add(`piece-${piece}`);
      // An empty cell no move fills plays its column's move (pieces that drop land below it).
      const move = byCell.get(`${r},${c}`) || (piece === "." ? byColumn.get(c) : undefined);
      if (move && byCell.has(`${r},${c}`)) cell.classList.add("reach", move.outcome === "P" ? "win" : "lose");
      cell.disabled = !move || !playable();
      cell.title = move ? `play ${move.move}` : "";
      if (move) cell.addEventListener("click", () => play(move));
      cells.appendChild(cell);
    });
  });
}

export default {
  ...generic,
  analysis: false,
  showsGrundy: false,
  setUp() {
    kindSection(SECTION);
  },
  open() {
    $("grid-board").hidden = false;
  },
  clear() {
    $("grid-board").hidden = true;
    $("grid-cells").replaceChildren();
  },
  render() {
    renderGrid();
  },
};
