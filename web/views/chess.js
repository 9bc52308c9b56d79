// Chess endgames: the board drawn from the FEN, the side to move and the value in words (mate in n), the
// moves by SAN, best first; a move is played by its button, or by its piece and then its square. A
// capture leads into a smaller material's table, which the panel then follows.

import { $, kindSection, kindStyle, show } from "../dom.js";
import { autoReply, examplesOf, play, setGame, startAt } from "../panel.js";
import { playable, state } from "../state.js";
import { column, generic } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="chess" class="chess">
    <h3>Chess endgame <span class="muted">(click a move, or a piece and then a marked square)</span></h3>
    <div class="row wrap">
      <label for="chess-material-select">material</label>
      <select id="chess-material-select"></select>
      <span class="muted">tables of up to 3 men are solved at once, larger ones once a worker has stored them</span>
    </div>
    <div id="chess-view" class="chess-view">
      <div id="chess-board" class="chess-board" role="img" aria-label="chess board"></div>
      <div class="chess-side">
        <p id="chess-to-move" class="chess-to-move"></p>
        <p id="chess-verdict" class="chess-verdict"></p>
        <p id="chess-moves-note" class="muted"></p>
        <ol id="chess-moves" class="chess-moves"></ol>
      </div>
    </div>
    <p class="legend">
      <span class="swatch last"></span> the last move
      <span class="swatch target"></span> where the picked piece can go;
      a win or a loss counts the moves to mate, the remoteness plies (half-moves)
    </p>
  </div>
`;

const FILES = "abcdefgh";
/** Unicode pieces by FEN letter (lower case): the solid ones for both sides, White's filled white by the
 * style sheet; U+FE0E asks for text, not an emoji pawn. */
const PIECES = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const PIECE_NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
/** Men in the order the tablebase names write them (`KQRvK`, `KBNvK`). */
const MEN_ORDER = "QRBNP";
/** Materials the chooser offers (any other supported one may be typed as `chess:MATERIAL`): of up to
 * three men, solved for a request, and of four, which a worker's job stores first. */
const MATERIALS = [
  "KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KvK",
  "KQvKR", "KQvKQ", "KQvKB", "KQvKN", "KRvKR", "KRvKB", "KRvKN",
  "KQQvK", "KQRvK", "KRRvK", "KBBvK", "KBNvK", "KNNvK",
];
/** The square picked on the board (its piece's moves are marked), else null. */
const chessBoard = { selected: null };

const sortMen = (men) => [...men].sort((a, b) => MEN_ORDER.indexOf(a) - MEN_ORDER.indexOf(b)).join("");

/** A FEN's squares ("e4" -> "Q") and its side to move ("w" or "b"). */
function parseFen(fen) {
  const [placement = "", side = "w"] = fen.trim().split(/\s+/);
  const squares = new Map();
  placement.split("/").forEach((row, index) => {
    let file = 0;
    for (const c of row) {
      if (/[1-8]/.test(c)) file += Number(c);
      else squares.set(`${FILES[file++]}${8 - index}`, c);
    }
  });
  return { squares, side };
}

/** The men besides the kings of each side of `chess:KQvKR` (["Q", "R"]), else null. */
function materialSides(game) {
  const match = /^chess:K([QRBNP]*)vK([QRBNP]*)$/.exec(game);
  return match ? [sortMen(match[1]), sortMen(match[2])] : null;
}

/** The men besides the kings of White and of Black on a FEN's board, else null (no FEN). */
function fenMaterial(fen) {
  const placement = fen.trim().split(/\s+/)[0] || "";
  if (!/^[1-8kqrbnpKQRBNP]+(\/[1-8kqrbnpKQRBNP]+){7}$/.test(placement)) return null;
  const men = [...placement].filter((c) => /[qrbnpQRBNP]/.test(c));
  return [sortMen(men.filter((c) => c === c.toUpperCase())), sortMen(men.filter((c) => c !== c.toUpperCase()).map((c) => c.toUpperCase()))];
}

/** Whether two materials are one table (either colouring). */
const sameMaterial = (a, b) => a !== null && b !== null && ((a[0] === b[0] && a[1] === b[1]) || (a[0] === b[1] && a[1] === b[0]));

/** A legal position of the material, White to move (as the service makes one): kings on a1 and h8,
 * White's men on d1 and e1 (a pawn on e2), Black's on d8 and e8. */
function chessExample(game) {
  const sides = materialSides(game);
  if (!sides || sides[0].length > 2 || sides[1].length > 2) return null;
  const squares = new Map([["a1", "K"], ["h8", "k"]]);
  [...sides[0]].forEach((man, i) => squares.set(man === "P" ? "e2" : ["d1", "e1"][i], man));
  [...sides[1]].forEach((man, i) => squares.set(["d8", "e8"][i], man.toLowerCase()));
  const rows = [];
  for (let rank = 8; rank >= 1; rank--) {
    let row = "";
    let empty = 0;
    for (const file of FILES) {
      const piece = squares.get(`${file}${rank}`);
      if (piece) {
        row += (empty || "") + piece;
        empty = 0;
      } else {
        empty++;
      }
    }
    rows.push(row + (empty || ""));
  }
  return `${rows.join("/")} w - - 0 1`;
}

const colourName = (side) => (side === "b" ? "Black" : "White");
const plies = (count) => `${count} ${count === 1 ? "ply" : "plies"}`;

/** The value for the side to move in words: a win is a mate in (remoteness + 1) / 2 moves, a loss
 * being mated in remoteness / 2 (0: checkmated). */
function chessVerdict(value) {
  const side = colourName(parseFen(value.position).side);
  const r = value.remoteness;
  if (value.outcome === "N") return r === undefined ? `${side} wins.` : `${side} wins: mate in ${(r + 1) / 2} (${plies(r)}).`;
  if (value.outcome === "P") {
    if (r === 0) return `${side} is checkmated.`;
    return r === undefined ? `${side} loses.` : `${side} loses: mated in ${r / 2} (${plies(r)}).`;
  }
  return state.movesKnown && state.moves.length === 0 && value === state.value ? "Stalemate: a draw." : "A draw with best play.";
}

/** A move's value for the side making it (its `outcome` and `remoteness` are the reached position's). */
function chessMoveResult(move) {
  const r = move.remoteness;
  if (move.outcome === "P") return r === undefined ? "wins" : r === 0 ? "checkmate" : `wins: mate in ${(r + 2) / 2}`;
  if (move.outcome === "N") return r === undefined ? "loses" : `loses: mated in ${(r + 1) / 2}`;
  return "draws";
}

/** Whose move, or the game's end, in `turn`. */
function renderChessTurn(turn) {
  const value = state.value;
  const side = colourName(parseFen(value.position).side);
  const other = colourName(parseFen(value.position).side === "w" ? "b" : "w");
  if (state.over) {
    if (value.outcome !== "P") {
      turn.textContent = "Stalemate: a draw.";
      return;
    }
    const winner = state.turn === "you" ? "nimbase" : "you";
    turn.textContent = `Checkmate: ${other} wins${autoReply() ? (winner === "you" ? " — you won!" : " — nimbase won.") : "."}`;
    if (autoReply()) turn.classList.add(winner === "you" ? "won" : "lost");
  } else if (state.turn === "nimbase") {
    turn.textContent = `nimbase moves for ${side}…`;
  } else if (!state.movesKnown) {
    turn.textContent = `${side} to move (the moves could not be listed).`;
  } else {
    turn.textContent = `${autoReply() ? `Your move, with ${side}` : `${side} to move`} — ${chessVerdict(value)}`;
  }
}

/** The material chooser, the board (ranks 8 to 1 from the top, files a to h), the side to move, the
 * value and the moves, best first; a move is played by its button, or by its piece then its square. */
function renderChess() {
  $("chess").hidden = false;
  const material = state.game.slice("chess:".length);
  const chooser = $("chess-material-select");
  const offered = MATERIALS.includes(material) ? MATERIALS : [material, ...MATERIALS];
  if (chooser.options.length !== offered.length || chooser.options[0].value !== `chess:${offered[0]}`) {
    chooser.replaceChildren(...offered.map((name) => new Option(name, `chess:${name}`)));
  }
  chooser.value = state.game;
  const value = state.value;
  $("chess-view").hidden = value === null;
  if (value === null) return;
  const { squares, side } = parseFen(value.position);
  const canPlay = playable();
  const moves = state.movesKnown ? state.moves.filter((move) => move.uci) : [];
  const from = new Set(moves.map((move) => move.uci.slice(0, 2)));
  if (chessBoard.selected && (!canPlay || !from.has(chessBoard.selected))) chessBoard.selected = null;
  const targets = new Map();
  for (const move of moves) {
    // A promotion offers four moves to one square: a click there promotes to a queen.
    if (move.uci.slice(0, 2) === chessBoard.selected && (!targets.has(move.uci.slice(2, 4)) || move.uci.endsWith("q"))) {
      targets.set(move.uci.slice(2, 4), move);
    }
  }
  const last = state.history[state.history.length - 1];
  const lastUci = last && last.played.uci && last.position === value.position ? last.played.uci : null;
  const lastMove = lastUci ? [lastUci.slice(0, 2), lastUci.slice(2, 4)] : [];
  const board = $("chess-board");
  board.dataset.position = value.position;
  board.dataset.side = side;
  const cells = [];
  for (let rank = 8; rank >= 1; rank--) {
    for (let f = 0; f < 8; f++) {
      const square = `${FILES[f]}${rank}`;
      const cell = document.createElement("div");
      const classes = ["square", (f + rank) % 2 === 1 ? "dark" : "light"]; // a1 is dark
      if (lastMove.includes(square)) classes.push("last");
      if (square === chessBoard.selected) classes.push("selected");
      if (targets.has(square)) classes.push("target");
      if (canPlay && from.has(square)) classes.push("movable");
      cell.className = classes.join(" ");
      cell.dataset.square = square;
      const piece = squares.get(square);
      if (piece) {
        const glyph = document.createElement("span");
        glyph.className = `piece ${piece === piece.toUpperCase() ? "white" : "black"}`;
        glyph.textContent = `${PIECES[piece.toLowerCase()]}\uFE0E`;
        cell.dataset.piece = piece;
        cell.appendChild(glyph);
        cell.title = `${square}: ${piece === piece.toUpperCase() ? "white" : "black"} ${PIECE_NAMES[piece.toLowerCase()]}`;
      } else {
        cell.title = square;
      }
      if (f === 0) cell.appendChild(Object.assign(document.createElement("span"), { className: "coord rank", textContent: String(rank) }));
      if (rank === 1) cell.appendChild(Object.assign(document.createElement("span"), { className: "coord file", textContent: FILES[f] }));
      cell.addEventListener("click", () => clickSquare(square, targets, from, canPlay));
      cells.push(cell);
    }
  }
  board.replaceChildren(...cells);
  const toMove = $("chess-to-move");
  toMove.textContent = `${colourName(side)} to move`;
  toMove.className = `chess-to-move ${side === "b" ? "black" : "white"}`;
  $("chess-verdict").textContent = chessVerdict(value);
  $("chess-verdict").dataset.outcome = value.outcome;
  const list = $("chess-moves");
  list.replaceChildren(
    ...moves.map((move, index) => {
      const item = document.createElement("li");
      if (index === 0) item.className = "best";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.textContent = move.san || move.uci;
      button.dataset.uci = move.uci;
      button.dataset.position = move.position;
      button.disabled = !canPlay;
      button.title = `play ${move.san} (${move.uci}): leads to ${move.position}`;
      button.addEventListener("click", () => play(move));
      const result = document.createElement("span");
      result.className = `result outcome-${move.outcome}`;
      result.textContent = chessMoveResult(move);
      item.append(button, " ", result);
      return item;
    }),
  );
  $("chess-moves-note").textContent = !state.movesKnown
    ? ""
    : moves.length === 0
      ? state.value.outcome === "P"
        ? "No move: checkmate."
        : "No move: stalemate."
      : `${moves.length} move${moves.length === 1 ? "" : "s"}, best first`;
}

/** A click on the board: a marked square plays the picked piece's move there; a piece with moves is
 * picked (again: dropped). */
function clickSquare(square, targets, from, canPlay) {
  if (!canPlay) return;
  if (targets.has(square)) {
    play(targets.get(square));
    return;
  }
  chessBoard.selected = from.has(square) && chessBoard.selected !== square ? square : null;
  renderChess();
}

/** The game `position` is looked up in: `game`, except that a chess move may capture or promote into
 * another material's table (the FEN's material names it; the answer gives its canonical id). */
function gameOfPosition(game, position) {
  const found = fenMaterial(position);
  return found && !sameMaterial(found, materialSides(game)) ? `chess:K${found[0]}vK${found[1]}` : game;
}

/** The family's ListGames entry describes its own material ("Every KRvK position, ..."): said of this one. */
function describeMaterial(game, entry, exact) {
  if (exact) return null;
  const material = game.slice("chess:".length);
  const description = entry.description.replace(entry.id.slice("chess:".length), material);
  return `Chess endgame ${material}: ${description} Positions: ${entry.position_syntax}.`;
}

/** ListGames' examples of the material, else one made for it. */
function examplesOfMaterial(game, listed) {
  const sides = materialSides(game);
  const fitting = listed.filter((fen) => sides && sameMaterial(fenMaterial(fen), sides));
  const made = chessExample(game);
  return Promise.resolve(fitting.length || made === null ? fitting : [made]);
}

/** The material chooser: the material's table, from its first example. */
async function chooseMaterial() {
  const game = $("chess-material-select").value;
  if (!(await setGame(game))) return;
  const examples = await examplesOf(game);
  if (game !== state.game || examples.length === 0) return;
  startAt(examples[0]);
}

export default {
  ...generic,
  analysis: true,
  showsGrundy: false,
  remotenessLabel: "remoteness (plies)",
  moveHead: "move (SAN)",
  positionClass: "mono fen",
  followsAnswer: true,
  setUp() {
    kindStyle(new URL("./chess.css", import.meta.url));
    kindSection(SECTION);
    $("chess-material-select").addEventListener("change", chooseMaterial);
  },
  describe: describeMaterial,
  examples: examplesOfMaterial,
  gameOf: gameOfPosition,
  open: renderChess,
  clear() {
    $("chess").hidden = true;
    chessBoard.selected = null;
  },
  played() {
    chessBoard.selected = null;
  },
  looked: renderChess,
  /** Chess's metrics and flags stay out of the value's list: the verdict beside the board says them. */
  valueFields() {
    return [];
  },
  moveLabel(move) {
    return move.san || move.move;
  },
  moveTitle(move) {
    return `play ${move.san || move.move}${move.uci ? ` (${move.uci})` : ""}`;
  },
  render: renderChess,
  meaning: chessVerdict,
  turn(element) {
    renderChessTurn(element);
    return true;
  },
  moveColumns() {
    return [
      column("outcome", (move) => move.outcome),
      column("remoteness", (move) => show(move.remoteness)),
      column("result", chessMoveResult), // for the side making the move
    ];
  },
};
