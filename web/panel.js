// The position panel, the same for every game: pick a game, look a position up (GetValue and BestMove
// together), show its value and its ranked moves, and play them against the service. What differs by
// kind (a board, the value's words, the move table's columns) is asked of the game's view (views.js).

import { api } from "./api.js";
import { $, show, showError, sleep } from "./dom.js";
import { followGame } from "./plot.js";
import { state, playable } from "./state.js";
import { loadStats } from "./stats.js";
import { loadedView, loadViews, viewOf } from "./views.js";
import { MOVE_LIMIT } from "./views/generic.js";

/** A pause before the service's reply, so a person sees their own move land first. */
const REPLY_DELAY_MS = 350;
/** Positions longer than this are shown cut (the whole one in the tooltip and the position field). */
const LONG_POSITION = 240;

const OUTCOMES = {
  P: "P: the player to move loses with best play",
  N: "N: the player to move wins with best play",
  D: "D: a draw with best play",
};

/** A move as a person reads it: as its kind's view writes it. */
const moveLabel = (move) => state.view.moveLabel(move);
export const autoReply = () => $("auto-reply").checked;
const terminal = (looked) => looked.best !== null && looked.best.moves.length === 0;

// ---- games ---------------------------------------------------------------------------------

/** The ListGames entry of a game id: itself, else its family's (`subtraction:1,3,4`). */
function gameEntry(id) {
  const exact = state.games.find((game) => game.id === id);
  if (exact) return { entry: exact, exact: true };
  const family = id.split(":")[0];
  const entry = state.games.find((game) => game.id.split(":")[0] === family);
  return { entry: entry || null, exact: false };
}

/** ListGames' entries into the chooser, and the views of their kinds (loaded before the page says it is
 * ready, so that choosing a listed game shows it at once). */
export async function loadGames() {
  try {
    const data = await api("/v1/games");
    state.games = data.games;
  } catch (error) {
    showError("play-error", error);
  }
  const select = $("game-select");
  select.replaceChildren(...state.games.map((game) => new Option(`${game.name} — ${game.id}`, game.id)));
  await loadViews(state.games);
}

/** The game's id field, the list's choice and the line describing the game. */
function describeGame() {
  const { game, view } = state;
  $("game").value = game;
  const { entry, exact } = gameEntry(game);
  const select = $("game-select");
  const listed = exact ? game : view.listedAs(game, state.games);
  if (listed !== null) select.value = listed;
  else select.selectedIndex = -1; // a typed game the list does not hold: the id field names it
  let info = "";
  if (entry) {
    const name = exact ? entry.name : `a game of the family of ${entry.id}`;
    info = view.describe(game, entry, exact) ?? `${name}: ${entry.description} Positions: ${entry.position_syntax}.`;
  }
  $("game-info").textContent = info;
}

/** Counts the games chosen, so that a choice whose view came after a later one's is dropped. */
let choices = 0;

/** Chooses the game `id` (its view loaded first); false when a later choice overtook this one. */
export async function setGame(id) {
  const game = id.trim();
  if (game === "") return false; // a cleared field names no game: keep the last one
  const choice = ++choices;
  const view = loadedView(game) ?? (await viewOf(game)); // at once when loaded: as a click expects
  if (choice !== choices) return false;
  if (state.view !== null && state.view !== view) state.view.clear();
  state.game = game;
  state.view = view;
  describeGame();
  if (!state.autoReplyChosen) $("auto-reply").checked = !view.analysis;
  showExamples(game);
  $("auto-reply-row").hidden = view.puzzle;
  clearPosition();
  loadStats(game); // first: the plot's rare/common split reuses its answer
  view.open(game);
  followGame(game, view.sequences);
  return true;
}

/** Example positions of `game`: ListGames', as its view picks or makes them (a promise: some need the
 * service, such as a graph's vertices). */
export async function examplesOf(game) {
  const { entry } = gameEntry(game);
  const view = await viewOf(game);
  return view.examples(game, entry ? entry.examples : []);
}

function showExamples(game) {
  $("examples").replaceChildren();
  examplesOf(game).then((list) => {
    if (game === state.game) renderExamples(list);
  });
}

function renderExamples(list) {
  const examples = $("examples");
  examples.replaceChildren();
  if (list.length === 0) return;
  examples.append("Examples: ");
  for (const example of list) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = example.length > 40 ? `${example.slice(0, 37)}…` : example;
    button.title = example;
    button.addEventListener("click", () => startAt(example));
    examples.appendChild(button);
  }
}

function clearPosition() {
  state.token++;
  state.session++;
  state.busy = false;
  $("play").dataset.busy = "false";
  state.value = null;
  state.moves = [];
  state.movesKnown = false;
  state.history = [];
  state.over = false;
  state.turn = "you";
  $("value").hidden = true;
  $("turn").hidden = true;
  state.view.clear();
  renderHistory();
  renderMoves();
  showError("play-error", null);
}

// ---- a position: its value, its moves, and play -----------------------------------------------

function setBusy(busy) {
  state.busy = busy;
  $("play").dataset.busy = String(busy);
  renderMoves();
}

/** Looks `position` up (GetValue and BestMove together) and shows it; null if a newer lookup won. */
async function lookUp(position) {
  const token = ++state.token;
  const view = state.view;
  const game = view.gameOf(state.game, position);
  setBusy(true);
  try {
    const [value, best] = await Promise.allSettled([
      api("/v1/value", { game, position }),
      api("/v1/best-move", { game, position, limit: view.moveLimit(game, position) }),
    ]);
    if (token !== state.token) return null;
    if (value.status === "rejected") {
      showError("play-error", value.reason);
      return null;
    }
    showError("play-error", best.status === "rejected" ? best.reason : null);
    const answeredIn = value.value.game;
    if (view.followsAnswer && answeredIn && answeredIn !== state.game) adoptGame(answeredIn);
    state.value = value.value;
    state.position = value.value.position;
    state.moves = best.status === "fulfilled" ? best.value.moves : [];
    state.movesKnown = best.status === "fulfilled";
    renderValue();
    view.looked();
    return { value: value.value, best: best.status === "fulfilled" ? best.value : null };
  } catch (error) {
    if (token === state.token) showError("play-error", error);
    return null;
  } finally {
    if (token === state.token) setBusy(false);
  }
}

/** Switches to the game a lookup was answered in (`view.followsAnswer`: a capture's smaller table),
 * keeping the play so far and the view (the same kind's). */
function adoptGame(id) {
  state.game = id;
  describeGame();
  showExamples(id);
  loadStats(id);
}

/** Starts anew from `position`, typed into the position field as if the person had. */
export function startAt(position) {
  $("position").value = position;
  return startFrom(position);
}

async function startFrom(position) {
  const why = state.view.pending(state.game);
  if (why !== null) {
    showError("play-error", new Error(why));
    state.view.prompt();
    return;
  }
  state.session++;
  state.history = [];
  state.turn = "you";
  state.over = false;
  state.view.started();
  renderHistory();
  const looked = await lookUp(position);
  state.fewestAtStart = looked && looked.value.remoteness !== undefined ? looked.value.remoteness : null;
  if (looked === null) return;
  const hash = new URLSearchParams({ game: state.game, position: state.position });
  window.history.replaceState(null, "", `#${hash}`);
  settle(looked);
}

/** After a lookup: whose turn it is, or who won (at a position without moves, the outcome says
 * whether the player to move has lost: "P", normal play, or won: "N", misère). */
function settle(looked) {
  state.over = terminal(looked);
  $("position").value = state.position; // "Look up" starts again from here
  renderTurn();
  renderMoves();
  state.view.render();
}

/** Plays `move` for you; then, unless the game is over, the service answers with its best move. Each
 * step checks that no new game was started meanwhile (`state.session`). */
export async function play(move) {
  if (!playable()) return;
  const session = state.session;
  state.view.played(move);
  state.history.push({ who: "you", move: moveLabel(move), played: move, position: move.position });
  renderHistory();
  if (!autoReply() || state.view.puzzle) {
    const looked = await lookUp(move.position);
    if (looked) settle(looked);
    return;
  }
  state.turn = "nimbase";
  renderTurn();
  const looked = await lookUp(move.position);
  if (looked === null) return;
  if (terminal(looked) || looked.best === null) {
    settle(looked);
    return;
  }
  setBusy(true);
  await sleep(REPLY_DELAY_MS);
  if (session !== state.session) return;
  const reply = looked.best.best_move;
  state.history.push({ who: "nimbase", move: moveLabel(reply), played: reply, position: reply.position });
  renderHistory();
  state.turn = "you";
  const after = await lookUp(reply.position);
  if (after) settle(after);
}

// ---- what the panel shows ------------------------------------------------------------------

/** The value's fields: the panel's own (an outcome only where the answer has one, a Grundy number where
 * the view shows it), then the kind's (`view.valueFields`); the words and the headings are the view's. */
function renderValue() {
  const { value, view } = state;
  $("value").hidden = false;
  const long = value.position.length > LONG_POSITION;
  $("value-position").textContent =
    value.position === ""
      ? "(empty)"
      : long
        ? `${value.position.slice(0, LONG_POSITION / 2)}… (${value.position.length} characters)`
        : value.position;
  $("value-position").title = long ? value.position : "";
  $("value-outcome-item").hidden = value.outcome === undefined;
  $("value-outcome").textContent = show(value.outcome);
  $("value-outcome").className = `outcome-${value.outcome}`;
  $("value-grundy-item").hidden = !view.showsGrundy;
  $("value-grundy-label").textContent = view.grundyLabel;
  $("value-grundy").textContent = show(value.grundy);
  renderKindFields(view.valueFields(value));
  $("value-remoteness-label").textContent = view.remotenessLabel;
  $("value-remoteness").textContent = show(value.remoteness);
  $("value-source").textContent = show(value.source);
  $("value-meaning").textContent = view.meaning(value, OUTCOMES[value.outcome] || "");
  $("value-note").hidden = !value.note;
  $("value-note").textContent = value.note || "";
}

/** The kind's fields of the value, each after the panel's field it names. */
function renderKindFields(fields) {
  for (const item of $("value-fields").querySelectorAll(".kind-field")) item.remove();
  const placed = new Map();
  for (const { name, text, label, title, className, after } of fields) {
    const item = document.createElement("div");
    item.className = "kind-field";
    item.dataset.field = name;
    const term = document.createElement("dt");
    term.textContent = label;
    if (title) term.title = title;
    const detail = document.createElement("dd");
    detail.id = `value-${name.replaceAll("_", "-")}`;
    detail.textContent = text;
    if (className) detail.className = className;
    item.append(term, detail);
    (placed.get(after) ?? $(`value-${after}-item`)).after(item);
    placed.set(after, item);
  }
}

function renderTurn() {
  const turn = $("turn");
  turn.hidden = state.value === null;
  turn.className = "turn";
  if (state.view.turn(turn)) return;
  if (state.over) {
    const moverWins = state.value.outcome === "N";
    const drawn = state.value.outcome === "D";
    const mover = state.turn;
    const rule = moverWins ? "no move is left, and here the last player to move loses" : "no move is left";
    if (drawn) {
      turn.textContent = "A draw.";
    } else if (!autoReply()) {
      turn.textContent = `Game over: ${rule}; the player to move ${moverWins ? "wins" : "loses"}.`;
    } else {
      const winner = moverWins ? mover : mover === "you" ? "nimbase" : "you";
      turn.textContent = winner === "you" ? `You won! (${rule})` : `nimbase won (${rule}).`;
      turn.classList.add(winner === "you" ? "won" : "lost");
    }
  } else if (state.turn === "nimbase") {
    turn.textContent = "nimbase to move…";
  } else if (!state.movesKnown) {
    turn.textContent = "Your move (the moves could not be listed).";
  } else {
    const hint =
      state.value.outcome === "N"
        ? "you can win: the best move leads to a P-position"
        : state.value.outcome === "D"
          ? "with best play neither side wins: the best move keeps the draw"
          : "against best play you lose: the best move makes it last";
    turn.textContent = `Your move — ${hint}.`;
  }
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren(
    ...state.history.map((item) => {
      const li = document.createElement("li");
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = item.who === "you" ? "you: " : "nimbase: ";
      li.append(who, `${item.move} → ${item.position === "" ? "(empty)" : item.position}`);
      return li;
    }),
  );
}

/** The move table: #, the move (a button that plays it), the position it leads to, then the view's
 * columns; the first of these is coloured by its text. */
function renderMoves() {
  const view = state.view;
  const body = $("moves").tBodies[0];
  const canPlay = playable();
  const columns = view.moveColumns();
  const head = ["#", view.moveHead, "leads to", ...columns.map(({ name }) => name)];
  $("moves-head").replaceChildren(
    ...head.map((name) => {
      const th = document.createElement("th");
      th.textContent = name;
      return th;
    }),
  );
  body.replaceChildren(
    ...state.moves.map((move, index) => {
      const row = document.createElement("tr");
      if (index === 0) row.className = "best";
      const cells = [String(index + 1), null, move.position === "" ? "(empty)" : move.position];
      cells.push(...columns.map(({ of }) => of(move)));
      view.decorateMoveRow(row, move);
      cells.forEach((text, column) => {
        const cell = document.createElement("td");
        if (column === 1) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "move";
          button.textContent = moveLabel(move);
          button.dataset.position = move.position;
          button.disabled = !canPlay;
          button.title = view.moveTitle(move);
          button.addEventListener("click", () => play(move));
          cell.appendChild(button);
        } else {
          cell.textContent = text;
          if (column === 2) cell.className = view.positionClass;
          if (column === 3) cell.className = columns[0].classOf(text);
        }
        row.appendChild(cell);
      });
      return row;
    }),
  );
  const note = $("moves-note");
  if (!state.movesKnown) note.textContent = "";
  else if (state.moves.length === 0) note.textContent = "(none: the game is over)";
  else note.textContent = view.movesNote() ?? defaultMovesNote();
}

function defaultMovesNote() {
  const count = state.moves.length;
  return count >= MOVE_LIMIT ? `(the first ${MOVE_LIMIT}, best first)` : `(${count}, best first)`;
}

// ---- the panel's own controls, and links to a position ------------------------------------------

export function setUpPanel() {
  $("position-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const game = $("game").value.trim();
    if (game !== state.game && !(await setGame(game))) return;
    startFrom($("position").value.trim());
  });
  $("game-select").addEventListener("change", () => setGame($("game-select").value));
  $("game").addEventListener("change", () => {
    if ($("game").value.trim() !== state.game) setGame($("game").value);
  });
  $("auto-reply").addEventListener("change", () => {
    state.autoReplyChosen = true;
    if (state.value) renderTurn();
  });
}

/** Plays `game` from `position` (a click on a kind's card), choosing the game first if need be. */
export async function playFrom(game, position) {
  if (game !== state.game && !(await setGame(game))) return;
  startAt(position);
}

/** The game and position a link names (`#game=nim&position=3+5+7`), else Nim's first example. */
export async function fromHash() {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const game = hash.get("game") || state.game || "nim";
  if ((game !== state.game || state.value === null) && !(await setGame(game))) return;
  if (state.view.pending(game) !== null) return; // the page asks for what the game id leaves open
  const examples = await examplesOf(game);
  const position = hash.get("position") ?? (examples.length ? examples[0] : "");
  $("position").value = position;
  await startFrom(position);
}
