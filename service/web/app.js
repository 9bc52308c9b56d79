// nimbase's web page: plain JavaScript over the public REST API (v1), no build step, no library.
// Sections: a position with its value and ranked moves (play against the service, a Wythoff board,
// Bicolor Nim's heaps of stones, a Lights Out board to press, a chess endgame's board, an uploaded game
// graph's vertices), a Grundy sequence plot (SVG), Wythoff's table as a heat map (canvas), GetStats, and
// the job list.
"use strict";

(() => {
  /** Moves asked for per position: BestMove ranks them all, but a huge heap has millions. */
  const MOVE_LIMIT = 500;
  /** Values in one GetSequence call (the server's default NIMBASE_LIMITS_SEQUENCE_VALUES). */
  const MAX_SPAN = 1000000n;
  /** Positions per POST /v1/values:batch (the server takes up to 10,000 by default). */
  const BATCH = 8192;
  /** A pause before the service's reply, so a person sees their own move land first. */
  const REPLY_DELAY_MS = 350;
  /** Job polling: every 1.5 s while a job is queued or running, else now and then. */
  const JOBS_ACTIVE_MS = 1500;
  const JOBS_IDLE_MS = 10000;
  const SVG_NS = "http://www.w3.org/2000/svg";

  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // ---- the API -------------------------------------------------------------------------------

  /** JSON with integers beyond 2^53 kept exact as BigInt (Nim's values reach 2^63-1). */
  function parseJson(text) {
    return JSON.parse(text, (key, value, context) =>
      typeof value === "number" && !Number.isSafeInteger(value) && context && /^-?\d+$/.test(context.source)
        ? BigInt(context.source)
        : value,
    );
  }

  class ApiError extends Error {
    constructor(status, error) {
      super(error.message || `HTTP ${status}`);
      this.status = status;
      this.code = error.code || `HTTP ${status}`;
      this.job = error.job || null;
    }
  }

  async function api(path, params = {}, init = undefined) {
    const url = new URL(path, window.location.origin);
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value)); // "" is a position
    }
    const response = await fetch(url, init);
    const text = await response.text();
    let body = null;
    try {
      body = text ? parseJson(text) : null;
    } catch {
      body = null;
    }
    if (!response.ok) {
      const error = body && body.error ? body.error : { message: text.slice(0, 300) };
      throw new ApiError(response.status, error);
    }
    return body;
  }

  function describeError(error) {
    if (!(error instanceof ApiError)) return String((error && error.message) || error);
    let text = `${error.code}: ${error.message}`;
    if (error.job) {
      text += `\nJob ${error.job.id} (${error.job.status}) is computing what this needs; it shows in the job list.`;
      pollJobsSoon();
    }
    return text;
  }

  function showError(id, error) {
    const element = $(id);
    element.hidden = error === null;
    element.textContent = error === null ? "" : describeError(error);
  }

  const show = (value) => (value === undefined || value === null ? "—" : String(value));

  function svg(tag, attributes = {}, parent = null) {
    const element = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    if (parent) parent.appendChild(element);
    return element;
  }

  /** Round, readable steps (1, 2, 5 times a power of ten) for about `count` ticks over `span`. */
  function niceStep(span, count) {
    const raw = Math.max(span / count, 1);
    const power = 10 ** Math.floor(Math.log10(raw));
    for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
    return 10 * power;
  }

  // ---- games ---------------------------------------------------------------------------------

  const state = {
    games: [],
    game: "nim",
    position: "",
    value: null,
    moves: [],
    movesKnown: false,
    turn: "you",
    over: false,
    busy: false,
    token: 0,
    session: 0,
    history: [],
    pair: 0,
    fewestAtStart: null,
    autoReplyChosen: false,
  };

  /** The ListGames entry of a game id: itself, else its family's (`subtraction:1,3,4`). */
  function gameEntry(id) {
    const exact = state.games.find((game) => game.id === id);
    if (exact) return { entry: exact, exact: true };
    const family = id.split(":")[0];
    const entry = state.games.find((game) => game.id.split(":")[0] === family);
    return { entry: entry || null, exact: false };
  }

  const isWythoff = (game) => game === "wythoff";
  const isBicolor = (game) => game === "bicolor-nim";
  const isLightsOut = (game) => game.startsWith("lights-out:");
  /** One-player puzzles: values carry `solvable` and `solution`, and no `outcome`. */
  const isPuzzle = (game) => isLightsOut(game);
  /** Games without one-parameter sequences: choosing one leaves the plot as it is. */
  const hasSequences = (game) => !isLightsOut(game) && !/^(graph|chess):/.test(game);
  const isChess = (game) => game.startsWith("chess:");
  /** `graph:NAME`: a game played on an uploaded directed graph (`lights-out:graph:NAME` is a puzzle). */
  const isGraphGame = (game) => game.startsWith("graph:");
  /** ListGames' entry for the family: its id names no graph, so the page asks which uploaded graph. */
  const GRAPH_TEMPLATE = "graph:NAME";
  const isGraphTemplate = (game) => game === GRAPH_TEMPLATE;
  const graphNameOf = (game) => (isGraphGame(game) && !isGraphTemplate(game) ? game.slice("graph:".length) : null);
  /** Games explored more than played: "nimbase answers my moves" starts unticked for them (until the
   * person ticks or unticks it). */
  const isAnalysis = (game) => isChess(game) || isGraphGame(game);
  /** A move as a person reads it: a chess move's SAN, else its text. */
  const moveLabel = (move) => move.san || move.move;

  /** The sequence family a game is plotted with first (Bicolor Nim has no single-heap sequence). */
  const DEFAULT_FAMILY = { "bicolor-nim": "f_3" };
  /** Families offered for the plot (any other may be typed). */
  function familiesOf(game) {
    if (isBicolor(game)) return ["f_3", "f_6", "g_1", "g_2", "h_2", "h'_2", "f'_1", "g'_1", "f^(2)_4", "G[3w2b;b]", "G-[3w2b;w]"];
    if (isWythoff(game)) return ["row:0", "row:1", "row:2", "row:5"];
    return ["heap"];
  }

  async function loadGames() {
    try {
      const data = await api("/v1/games");
      state.games = data.games;
    } catch (error) {
      showError("play-error", error);
    }
    const select = $("game-select");
    select.replaceChildren(...state.games.map((game) => new Option(`${game.name} — ${game.id}`, game.id)));
  }

  /** The game's id field, the list's choice and the line describing the game. */
  function describeGame() {
    $("game").value = state.game;
    const { entry, exact } = gameEntry(state.game);
    const select = $("game-select");
    if (exact) select.value = state.game;
    else if (isGraphGame(state.game) && state.games.some((game) => game.id === GRAPH_TEMPLATE)) select.value = GRAPH_TEMPLATE;
    else select.selectedIndex = -1; // a typed game the list does not hold: the id field names it
    const info = $("game-info");
    const shape = lightsShape(state.game);
    const graph = graphNameOf(state.game);
    if (entry && isGraphTemplate(state.game)) {
      info.textContent = `${entry.name}: ${entry.description} Name an uploaded graph under "Game graph" below.`;
    } else if (entry && graph !== null) {
      info.textContent = `Game graph ${graph}: ${entry.description} Positions: ${entry.position_syntax}.`;
    } else if (entry && isChess(state.game) && !exact) {
      // The family's entry describes its own material ("Every KRvK position, ..."): said of this one.
      const material = state.game.slice("chess:".length);
      const description = entry.description.replace(entry.id.slice("chess:".length), material);
      info.textContent = `Chess endgame ${material}: ${description} Positions: ${entry.position_syntax}.`;
    } else if (entry && shape && !exact) {
      info.textContent =
        `Lights Out ${describeShape(shape)}: a one-player puzzle; a press flips a cell and its neighbours, ` +
        `and the goal is the all-white board with the fewest presses. Positions: ${
          shape.graph === undefined ? entry.position_syntax : "one 0 (white) or 1 (black) per vertex, in the graph's vertex order"
        }.`;
    } else if (entry) {
      const name = exact ? entry.name : `a game of the family of ${entry.id}`;
      info.textContent = `${name}: ${entry.description} Positions: ${entry.position_syntax}.`;
    } else {
      info.textContent = "";
    }
  }

  function setGame(id) {
    if (id.trim() === "") return; // a cleared field names no game: keep the last one
    state.game = id.trim();
    describeGame();
    if (!state.autoReplyChosen) $("auto-reply").checked = !isAnalysis(state.game);
    $("examples").replaceChildren();
    const game = state.game;
    examplesOf(game).then((list) => {
      if (game === state.game) renderExamples(list);
    });
    $("auto-reply-row").hidden = isPuzzle(state.game);
    clearPosition();
    loadStats(state.game); // first: the plot's rare/common split reuses its answer
    openGraphGame(state.game);
    renderChess();
    $("plot-families").replaceChildren(...familiesOf(state.game).map((family) => new Option(family)));
    if (!hasSequences(state.game)) {
      // The plot keeps what it shows; an empty one (the page opened on a puzzle) shows Kayles.
      if (plot.data === null && $("plot-game").value.trim() === "") {
        $("plot-game").value = "octal:0.77";
        replotFromForm();
      }
      return;
    }
    $("plot-game").value = state.game;
    $("plot-family").value = DEFAULT_FAMILY[state.game] || "";
    plot.initial = null;
    replotFromForm();
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
      button.addEventListener("click", () => {
        $("position").value = example;
        startFrom(example);
      });
      examples.appendChild(button);
    }
  }

  /** Example positions of `game`: ListGames' (for Lights Out, those of its shape, and the all-white
   * board). A promise: a graph's board needs the graph's vertex count. */
  async function examplesOf(game) {
    const { entry } = gameEntry(game);
    const listed = entry ? entry.examples : [];
    if (isGraphTemplate(game)) return [];
    if (isGraphGame(game)) {
      const view = await graphView(game);
      return view.graph ? view.graph.vertices.slice(0, 3) : [];
    }
    if (isChess(game)) {
      const sides = materialSides(game);
      const fitting = listed.filter((fen) => sides && sameMaterial(fenMaterial(fen), sides));
      const made = chessExample(game);
      return fitting.length || made === null ? fitting : [made];
    }
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
    $("wythoff-board").hidden = true;
    $("lights-out").hidden = true;
    delete $("lights-board").dataset.position;
    $("bicolor-heaps").hidden = true;
    heaps.highlight = null;
    $("chess").hidden = true;
    chessBoard.selected = null;
    $("graph-game").hidden = true;
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
    const game = gameOfPosition(state.game, position);
    setBusy(true);
    try {
      const [value, best] = await Promise.allSettled([
        api("/v1/value", { game, position }),
        api("/v1/best-move", { game, position, limit: moveLimit(game, position) }),
      ]);
      if (token !== state.token) return null;
      if (value.status === "rejected") {
        showError("play-error", value.reason);
        return null;
      }
      showError("play-error", best.status === "rejected" ? best.reason : null);
      if (isChess(game) && value.value.game && value.value.game !== state.game) adoptGame(value.value.game);
      state.value = value.value;
      state.position = value.value.position;
      state.moves = best.status === "fulfilled" ? best.value.moves : [];
      state.movesKnown = best.status === "fulfilled";
      renderValue();
      renderChess();
      renderGraph();
      return { value: value.value, best: best.status === "fulfilled" ? best.value : null };
    } catch (error) {
      if (token === state.token) showError("play-error", error);
      return null;
    } finally {
      if (token === state.token) setBusy(false);
    }
  }

  /** The game `position` is looked up in: `game`, except that a chess move may capture or promote into
   * another material's table (the FEN's material names it; the answer gives its canonical id). */
  function gameOfPosition(game, position) {
    if (!isChess(game)) return game;
    const found = fenMaterial(position);
    return found && !sameMaterial(found, materialSides(game)) ? `chess:K${found[0]}vK${found[1]}` : game;
  }

  /** Switches to the game a lookup was answered in (a capture's smaller table) keeping the play so far. */
  function adoptGame(id) {
    state.game = id;
    describeGame();
    $("examples").replaceChildren();
    examplesOf(id).then((list) => {
      if (id === state.game) renderExamples(list);
    });
    loadStats(id);
  }

  /** Moves asked for: MOVE_LIMIT, or every press of a Lights Out board small enough to draw clickable. */
  function moveLimit(game, position) {
    if (!isLightsOut(game)) return MOVE_LIMIT;
    const cells = position.replace(/[^01]/g, "").length;
    return cells <= LIGHTS_PRESS_MAX ? Math.max(cells, 1) : MOVE_LIMIT;
  }

  async function startFrom(position) {
    if (isGraphTemplate(state.game)) {
      showError("play-error", new Error(`${GRAPH_TEMPLATE} names no graph: name an uploaded graph under "Game graph" and open it.`));
      $("graph-name").focus();
      return;
    }
    state.session++;
    state.history = [];
    state.turn = "you";
    state.over = false;
    state.pair = 0;
    renderHistory();
    const looked = await lookUp(position);
    state.fewestAtStart = looked && looked.value.remoteness !== undefined ? looked.value.remoteness : null;
    if (looked === null) return;
    const hash = new URLSearchParams({ game: state.game, position: state.position });
    window.history.replaceState(null, "", `#${hash}`);
    settle(looked);
  }

  const autoReply = () => $("auto-reply").checked;
  const terminal = (looked) => looked.best !== null && looked.best.moves.length === 0;

  /** After a lookup: whose turn it is, or who won (at a position without moves, the outcome says
   * whether the player to move has lost: "P", normal play, or won: "N", misère). */
  function settle(looked) {
    state.over = terminal(looked);
    $("position").value = state.position; // "Look up" starts again from here
    renderTurn();
    renderMoves();
    renderBoard();
    renderLights();
    renderHeaps();
    renderChess();
    renderGraph();
  }

  /** Plays `move` for you; then, unless the game is over, the service answers with its best move. Each
   * step checks that no new game was started meanwhile (`state.session`). */
  async function play(move) {
    if (state.busy || state.over || state.turn !== "you") return;
    const session = state.session;
    chessBoard.selected = null;
    state.history.push({ who: "you", move: moveLabel(move), uci: move.uci, position: move.position });
    renderHistory();
    if (!autoReply() || isPuzzle(state.game)) {
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
    state.history.push({ who: "nimbase", move: moveLabel(reply), uci: reply.uci, position: reply.position });
    renderHistory();
    state.turn = "you";
    const after = await lookUp(reply.position);
    if (after) settle(after);
  }

  /** Positions longer than this are shown cut (the whole one in the tooltip and the position field). */
  const LONG_POSITION = 240;

  const OUTCOMES = {
    P: "P: the player to move loses with best play",
    N: "N: the player to move wins with best play",
    D: "D: a draw with best play",
  };

  function renderValue() {
    const value = state.value;
    const puzzle = value.solvable !== undefined && value.outcome === undefined;
    const bicolor = value.grundy_black !== undefined;
    $("value").hidden = false;
    const long = value.position.length > LONG_POSITION;
    $("value-position").textContent =
      value.position === ""
        ? "(empty)"
        : long
          ? `${value.position.slice(0, LONG_POSITION / 2)}… (${value.position.length} characters)`
          : value.position;
    $("value-position").title = long ? value.position : "";
    $("value-outcome-item").hidden = puzzle;
    $("value-outcome").textContent = show(value.outcome);
    $("value-outcome").className = `outcome-${value.outcome}`;
    $("value-solvable-item").hidden = !puzzle;
    $("value-solvable").textContent = value.solvable ? "yes" : "no";
    $("value-solvable").className = value.solvable ? "outcome-P" : "unsolvable";
    $("value-grundy-item").hidden = puzzle || isChess(state.game);
    $("value-grundy-label").textContent = bicolor ? "G (grundy)" : "grundy";
    $("value-grundy").textContent = show(value.grundy);
    $("value-grundy-black-item").hidden = !bicolor;
    $("value-grundy-black").textContent = show(value.grundy_black);
    $("value-remoteness-label").textContent = puzzle ? "fewest presses" : isChess(state.game) ? "remoteness (plies)" : "remoteness";
    $("value-remoteness").textContent = show(value.remoteness);
    $("value-source").textContent = show(value.source);
    let meaning = OUTCOMES[value.outcome] || "";
    if (bicolor) {
      meaning +=
        `. G = ${value.grundy}: adding a white heap of ${value.grundy} stones makes a P-position; ` +
        `G- = ${value.grundy_black}: so does a black heap of ${value.grundy_black}.`;
    } else if (puzzle) {
      meaning = value.solvable
        ? `Solvable: ${value.remoteness === undefined ? "a solution of" : "at best"} ${
            value.remoteness === undefined ? (value.solution || []).length : value.remoteness
          } presses turn every cell white.`
        : "Not solvable: no set of presses turns every cell white.";
    } else if (isChess(state.game)) {
      meaning = chessVerdict(value);
    }
    $("value-meaning").textContent = meaning;
    $("value-note").hidden = !value.note;
    $("value-note").textContent = value.note || "";
  }

  function renderTurn() {
    const turn = $("turn");
    turn.hidden = state.value === null;
    turn.className = "turn";
    if (isPuzzle(state.game) && state.value.solvable !== undefined) {
      const value = state.value;
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
      return;
    }
    if (isChess(state.game)) {
      renderChessTurn(turn);
      return;
    }
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

  /** The move table's columns after "leads to", by kind of game. */
  function moveColumns() {
    if (isChess(state.game)) {
      return [
        ["outcome", (move) => move.outcome],
        ["remoteness", (move) => show(move.remoteness)],
        ["result", chessMoveResult], // for the side making the move
      ];
    }
    if (isPuzzle(state.game)) {
      return [
        ["solvable", (move) => (move.solvable ? "yes" : "no")],
        ["presses left", (move) => show(move.remoteness)],
      ];
    }
    const columns = [["outcome", (move) => move.outcome]];
    if (isBicolor(state.game)) {
      columns.push(["G", (move) => show(move.grundy)], ["G-", (move) => show(move.grundy_black)]);
    } else {
      columns.push(["grundy", (move) => show(move.grundy)]);
    }
    columns.push(["remoteness", (move) => show(move.remoteness)]);
    return columns;
  }

  function renderMoves() {
    const body = $("moves").tBodies[0];
    const playable = !state.busy && !state.over && state.turn === "you";
    const columns = moveColumns();
    const moveHead = isPuzzle(state.game) ? "press" : isChess(state.game) ? "move (SAN)" : "move";
    const head = ["#", moveHead, "leads to", ...columns.map(([name]) => name)];
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
        cells.push(...columns.map(([, of]) => of(move)));
        if (move.colored_heap) {
          row.addEventListener("mouseenter", () => highlightHeap(move));
          row.addEventListener("mouseleave", () => highlightHeap(null));
        }
        cells.forEach((text, column) => {
          const cell = document.createElement("td");
          if (column === 1) {
            const button = document.createElement("button");
            button.type = "button";
            button.className = "move";
            button.textContent = moveLabel(move);
            button.dataset.position = move.position;
            button.disabled = !playable;
            button.title = `play ${moveLabel(move)}${move.uci ? ` (${move.uci})` : ""}`;
            button.addEventListener("click", () => play(move));
            cell.appendChild(button);
          } else {
            cell.textContent = text;
            if (column === 2) cell.className = isChess(state.game) ? "mono fen" : "mono";
            if (column === 3) cell.className = isPuzzle(state.game) ? `solvable-${text}` : `outcome-${text}`;
          }
          row.appendChild(cell);
        });
        return row;
      }),
    );
    const note = $("moves-note");
    if (!state.movesKnown) note.textContent = "";
    else if (state.moves.length === 0) note.textContent = "(none: the game is over)";
    else if (isPuzzle(state.game)) {
      const some = state.moves.length >= MOVE_LIMIT && moveLimit(state.game, state.position) === MOVE_LIMIT;
      note.textContent = `(${some ? "the first " : ""}${state.moves.length} presses, fewest presses left first)`;
    } else if (state.moves.length >= MOVE_LIMIT) note.textContent = `(the first ${MOVE_LIMIT}, best first)`;
    else note.textContent = `(${state.moves.length}, best first)`;
  }

  // ---- Wythoff: a board of pairs -------------------------------------------------------------

  /** The largest pile the board draws: beyond it, play from the move list. */
  const BOARD_MAX = 48;
  const PHI = (1 + Math.sqrt(5)) / 2;

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
    if (!isWythoff(state.game) || pairs.length === 0) {
      container.hidden = true;
      return;
    }
    container.hidden = false;
    state.pair = Math.min(state.pair, pairs.length - 1);
    const chooser = $("board-pairs");
    chooser.replaceChildren();
    if (pairs.length > 1) {
      pairs.forEach((pair, index) => {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = pair.join(",");
        if (index === state.pair) button.className = "selected";
        button.addEventListener("click", () => {
          state.pair = index;
          renderBoard();
        });
        chooser.appendChild(button);
      });
    }
    const [a, b] = pairs[state.pair];
    const board = $("board");
    board.replaceChildren();
    const side = Math.max(a, b) + 1;
    if (side > BOARD_MAX) {
      board.setAttribute("viewBox", "0 0 400 30");
      board.setAttribute("width", "400");
      board.setAttribute("height", "30");
      svg("text", { x: 0, y: 18 }, board).textContent =
        `The board shows piles up to ${BOARD_MAX - 1}; play ${a},${b} from the move list.`;
      return;
    }
    const cell = Math.max(10, Math.min(34, Math.floor(440 / side)));
    const margin = 22;
    const size = margin + side * cell + 2;
    board.setAttribute("viewBox", `0 0 ${size} ${size}`);
    board.setAttribute("width", String(size));
    board.setAttribute("height", String(size));
    const moves = new Map();
    for (const move of state.moves) {
      if (move.pair && move.to) moves.set(`${move.pair.join(",")}>${move.to.join(",")}`, move);
    }
    const cold = coldPairs(side);
    const playable = !state.busy && !state.over && state.turn === "you";
    const labelEvery = side > 24 ? 5 : side > 12 ? 2 : 1;
    for (let i = 0; i < side; i += labelEvery) {
      svg("text", { x: margin + i * cell + cell / 2, y: 14, "text-anchor": "middle" }, board).textContent = i;
      svg("text", { x: margin - 4, y: margin + i * cell + cell / 2 + 3, "text-anchor": "end" }, board).textContent = i;
    }
    for (let c = 0; c < side; c++) {
      for (let d = 0; d < side; d++) {
        const x = margin + c * cell;
        const y = margin + d * cell;
        const reachable =
          (d === b && c < a) || (c === a && d < b) || (a - c === b - d && a - c > 0);
        const rect = svg("rect", { x, y, width: cell, height: cell, class: "cell" }, board);
        if (c === a && d === b) {
          rect.setAttribute("class", "cell cur");
          const queen = svg("text", { x: x + cell / 2, y: y + cell / 2 + 5, "text-anchor": "middle", class: "queen" }, board);
          queen.textContent = "♛";
        } else if (reachable) {
          const to = `${Math.min(c, d)},${Math.max(c, d)}`;
          const move = moves.get(`${a},${b}>${to}`);
          rect.setAttribute("class", `cell reach${move && move.outcome === "P" ? " win" : ""}`);
          rect.dataset.to = `${c},${d}`;
          const title = svg("title", {}, rect);
          title.textContent = move ? `${move.move}: ${move.outcome}, grundy ${show(move.grundy)}` : `${a},${b} -> ${c},${d}`;
          if (playable) {
            rect.addEventListener("click", () => {
              const others = pairs.map((pair, index) => (index === state.pair ? `${c},${d}` : pair.join(",")));
              play(move || { move: `${a},${b} -> ${c},${d}`, position: others.join(" ") });
            });
          }
        }
        if (cold.has(`${c},${d}`)) {
          svg("circle", { cx: x + cell / 2, cy: y + cell / 2, r: cell / 2 - 2, class: "cold" }, board);
        }
      }
    }
  }

  // ---- Lights Out: a board to press ------------------------------------------------------------

  /** Boards drawn up to this many cells; every press is listed (and clickable) up to LIGHTS_PRESS_MAX. */
  const LIGHTS_DRAW_MAX = 4096;
  const LIGHTS_PRESS_MAX = 1024;
  /** A random solvable board: random boards tried at once (nullity up to RANDOM_NULLITY), else presses. */
  const RANDOM_BOARDS = 64;
  const RANDOM_NULLITY = 5;
  const RANDOM_PRESSES = 12;
  const lights = { graphs: new Map(), busy: false };

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

  /** An uploaded graph (GetGraph), fetched once (its name then offered for `graph:NAME`); null when it
   * cannot be read (asked again next time). */
  function graphOf(name) {
    if (!lights.graphs.has(name)) {
      const asked = api(`/v1/graphs/${encodeURIComponent(name)}`).then(
        (graph) => {
          rememberGraph(name);
          return graph;
        },
        () => {
          lights.graphs.delete(name);
          return null;
        },
      );
      lights.graphs.set(name, asked);
    }
    return lights.graphs.get(name);
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
    board.replaceChildren();
    board.setAttribute("viewBox", "0 0 420 30");
    board.setAttribute("width", "420");
    board.setAttribute("height", "30");
    svg("text", { x: 0, y: 18 }, board).textContent =
      `The page draws boards of up to ${LIGHTS_DRAW_MAX} cells (this one has ${cells}): press from the move list.`;
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
    list.replaceChildren(
      ...items.flatMap(([key, value]) => {
        const term = document.createElement("dt");
        term.textContent = key;
        const detail = document.createElement("dd");
        detail.textContent = show(value);
        detail.dataset.key = key;
        return [term, detail];
      }),
    );
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
        const answer = await api("/v1/values:batch", {}, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ game, positions }),
        });
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
      $("position").value = board;
      await startFrom(board);
    } catch (error) {
      showError("play-error", error);
    } finally {
      lights.busy = false;
      $("lights-random").disabled = false;
    }
  }

  // ---- Bicolor Nim: heaps of white and black stones ---------------------------------------------

  /** Heaps drawn stone by stone up to this many stones, else as two bars with their counts. */
  const STONES_MAX = 30;
  const heaps = { highlight: null };

  /** `2w1b 3w 4b` as [[2, 1], [3, 0], [0, 4]]. */
  function parseHeaps(position) {
    return position
      .split(/\s+/)
      .filter(Boolean)
      .map((heap) => {
        const match = /^(?:(\d+)w)?(?:(\d+)b)?$/.exec(heap);
        return match ? [Number(match[1] || 0), Number(match[2] || 0)] : [0, 0];
      });
  }

  function highlightHeap(move) {
    heaps.highlight = move;
    renderHeaps();
  }

  function renderHeaps() {
    const container = $("bicolor-heaps");
    if (!isBicolor(state.game) || state.value === null) {
      container.hidden = true;
      return;
    }
    container.hidden = false;
    const drawing = $("heaps");
    drawing.replaceChildren();
    const list = parseHeaps(state.value.position);
    drawing.dataset.position = state.value.position;
    if (list.length === 0) {
      drawing.setAttribute("viewBox", "0 0 300 30");
      drawing.setAttribute("width", "300");
      drawing.setAttribute("height", "30");
      svg("text", { x: 0, y: 18 }, drawing).textContent = "No stones left: the board is empty.";
      return;
    }
    // The move pointed at: the first heap of its colours loses white_taken white and black_taken black stones.
    const move = heaps.highlight;
    const target = move ? list.findIndex(([w, b]) => w === move.colored_heap[0] && b === move.colored_heap[1]) : -1;
    const r = 11;
    const column = 2 * r + 18;
    const heightOf = ([w, b]) => (w + b <= STONES_MAX ? (w + b) * (2 * r - 2) : 10 * (2 * r - 2));
    const tallest = Math.max(...list.map(heightOf), 2 * r);
    const height = tallest + 40;
    const width = Math.max(list.length * column + 10, 120);
    drawing.setAttribute("viewBox", `0 0 ${width} ${height}`);
    drawing.setAttribute("width", String(width));
    drawing.setAttribute("height", String(height));
    const base = height - 24;
    list.forEach(([white, black], index) => {
      const group = svg("g", { class: "heap" }, drawing);
      group.dataset.white = String(white);
      group.dataset.black = String(black);
      const cx = 8 + index * column + column / 2;
      const takenWhite = index === target ? move.white_taken : 0;
      const takenBlack = index === target ? move.black_taken : 0;
      if (white + black <= STONES_MAX) {
        let y = base - r;
        for (let k = 0; k < white + black; k++) {
          const isWhite = k < white;
          const taken = isWhite ? k >= white - takenWhite : k >= white + black - takenBlack;
          svg("circle", { cx, cy: y, r, class: `stone ${isWhite ? "w" : "b"}${taken ? " taken" : ""}` }, group);
          y -= 2 * r - 2;
        }
      } else {
        // Too many stones to draw one by one: a white bar and a black bar, proportional, with counts.
        const scale = (10 * (2 * r - 2)) / (white + black);
        const hw = white * scale;
        const hb = black * scale;
        svg("rect", { x: cx - r, y: base - hw, width: 2 * r, height: hw, class: `stone w${takenWhite ? " taken" : ""}` }, group);
        svg("rect", { x: cx - r, y: base - hw - hb, width: 2 * r, height: hb, class: `stone b${takenBlack ? " taken" : ""}` }, group);
      }
      const label = svg("text", { x: cx, y: base + 16, "text-anchor": "middle" }, group);
      label.textContent = [white ? `${white}w` : "", black ? `${black}b` : ""].join("");
    });
  }

  // ---- chess endgames: a board from the FEN ------------------------------------------------------

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
    const container = $("chess");
    if (!isChess(state.game)) {
      container.hidden = true;
      return;
    }
    container.hidden = false;
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
    const playable = !state.busy && !state.over && state.turn === "you";
    const moves = state.movesKnown ? state.moves.filter((move) => move.uci) : [];
    const from = new Set(moves.map((move) => move.uci.slice(0, 2)));
    if (chessBoard.selected && (!playable || !from.has(chessBoard.selected))) chessBoard.selected = null;
    const targets = new Map();
    for (const move of moves) {
      // A promotion offers four moves to one square: a click there promotes to a queen.
      if (move.uci.slice(0, 2) === chessBoard.selected && (!targets.has(move.uci.slice(2, 4)) || move.uci.endsWith("q"))) {
        targets.set(move.uci.slice(2, 4), move);
      }
    }
    const last = state.history[state.history.length - 1];
    const lastMove = last && last.uci && last.position === value.position ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : [];
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
        if (playable && from.has(square)) classes.push("movable");
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
        cell.addEventListener("click", () => clickSquare(square, targets, from, playable));
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
        button.disabled = !playable;
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
  function clickSquare(square, targets, from, playable) {
    if (!playable) return;
    if (targets.has(square)) {
      play(targets.get(square));
      return;
    }
    chessBoard.selected = from.has(square) && chessBoard.selected !== square ? square : null;
    renderChess();
  }

  // ---- game graphs: an uploaded graph's vertices, their values and the moves along its edges --------

  /** Graphs drawn up to this many vertices and edges, their vertices listed (and valued in batches) up
   * to GRAPH_LIST_MAX; a graph is fetched whole (GetGraph) only up to GRAPH_FETCH_MAX vertices and edges. */
  const GRAPH_DRAW_VERTICES = 60;
  const GRAPH_DRAW_EDGES = 400;
  const GRAPH_LIST_MAX = 2000;
  const GRAPH_FETCH_MAX = 200000;
  /** Moves listed beside the graph (all of them are in the move table). */
  const GRAPH_MOVES_SHOWN = 40;
  /** Graph names opened on this page before, offered by the name field (the API lists no graphs). */
  const GRAPHS_KEY = "nimbase.graphs";
  const GRAPHS_REMEMBERED = 20;
  const OUTCOME_WORDS = { N: "a win (N)", P: "a loss (P)", D: "a draw (D)" };
  /** Per game: a promise of {stats, error, graph, values (vertex -> its value)}; `graphs.shown`, the
   * current game's once it has come. */
  const graphs = { views: new Map(), shown: null };

  function rememberedGraphs() {
    try {
      const list = JSON.parse(window.localStorage.getItem(GRAPHS_KEY) || "[]");
      return Array.isArray(list) ? list.filter((name) => typeof name === "string") : [];
    } catch {
      return [];
    }
  }

  function rememberGraph(name) {
    const list = [name, ...rememberedGraphs().filter((other) => other !== name)].slice(0, GRAPHS_REMEMBERED);
    try {
      window.localStorage.setItem(GRAPHS_KEY, JSON.stringify(list));
    } catch {
      // no storage: names are offered for this page's life only
    }
  }

  /** The game's graph: GetStats (counts, and whether the graph exists), the graph itself when small
   * enough, and each vertex's value (one batch per BATCH vertices). Asked again after an error. */
  function graphView(game) {
    if (!graphs.views.has(game)) graphs.views.set(game, loadGraphView(game));
    return graphs.views.get(game);
  }

  async function loadGraphView(game) {
    const view = { game, stats: null, error: null, graph: null, values: new Map() };
    try {
      view.stats = await api("/v1/stats", { game });
    } catch (error) {
      view.error = error;
      graphs.views.delete(game);
      return view;
    }
    if (Number(view.stats.vertices) + Number(view.stats.edges) > GRAPH_FETCH_MAX) return view;
    view.graph = await graphOf(graphNameOf(game));
    if (!view.graph || view.graph.vertices.length > GRAPH_LIST_MAX) return view;
    try {
      for (let from = 0; from < view.graph.vertices.length; from += BATCH) {
        const positions = view.graph.vertices.slice(from, from + BATCH);
        const answer = await api("/v1/values:batch", {}, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ game, positions }),
        });
        answer.values.forEach((item, index) => {
          if (!item.error) view.values.set(positions[index], item);
        });
      }
    } catch {
      // the vertices are shown without their outcomes
    }
    return view;
  }

  /** After choosing a graph game: the name field, then the graph once it has come. */
  function openGraphGame(game) {
    graphs.shown = null;
    if (!isGraphGame(game)) return;
    if (!isGraphTemplate(game)) $("graph-name").value = graphNameOf(game);
    renderGraph();
    if (isGraphTemplate(game)) return;
    graphView(game).then((view) => {
      if (game !== state.game) return;
      graphs.shown = view;
      renderGraph();
    });
  }

  function pickVertex(name) {
    $("position").value = name;
    startFrom(name);
  }

  function renderGraph() {
    const container = $("graph-game");
    if (!isGraphGame(state.game)) {
      container.hidden = true;
      return;
    }
    container.hidden = false;
    const known = [...new Set([...rememberedGraphs(), ...lights.graphs.keys()])];
    $("graph-names").replaceChildren(...known.map((name) => new Option(name)));
    const template = isGraphTemplate(state.game);
    const view = graphs.shown && graphs.shown.game === state.game ? graphs.shown : null;
    $("graph-title").textContent = template ? "" : graphNameOf(state.game);
    showError("graph-error", view && view.error ? view.error : null);
    $("graph-info").textContent = graphInfoText(template, view);
    renderGraphVertex();
    drawGraph(view);
    listVertices(view);
  }

  function graphInfoText(template, view) {
    if (template) {
      return `${GRAPH_TEMPLATE} stands for any graph uploaded with POST /v1/graphs: type its name and open it ` +
        "(the names offered are the graphs opened on this page before: the API has no route listing them).";
    }
    if (view === null) return "Reading the graph…";
    if (view.error) return "";
    const stats = view.stats;
    let text =
      `${stats.vertices} vertices, ${stats.edges} edges${stats.acyclic ? ", acyclic" : ", with cycles"}: ` +
      `${stats.wins} won, ${stats.losses} lost and ${stats.draws} drawn for the player to move; ` +
      `the longest win takes ${stats.longest_win} moves (source ${stats.source}).`;
    if (!view.graph) text += " Too large to fetch whole here: type a vertex name as the position.";
    else if (view.graph.vertices.length > GRAPH_LIST_MAX) {
      text += ` The page lists graphs of up to ${GRAPH_LIST_MAX} vertices: type a vertex name as the position.`;
    }
    return text;
  }

  /** The chosen vertex's value, and its moves as links to the vertices they lead to, best first. */
  function renderGraphVertex() {
    const line = $("graph-vertex");
    const list = $("graph-moves");
    const value = state.value;
    if (value === null || isGraphTemplate(state.game)) {
      line.textContent = isGraphTemplate(state.game) ? "" : "Pick a vertex: in the drawing, in the list, or type its name as the position.";
      delete line.dataset.vertex;
      delete line.dataset.outcome;
      list.replaceChildren();
      $("graph-moves-note").textContent = "";
      return;
    }
    const parts = [`Vertex ${value.position}: ${OUTCOME_WORDS[value.outcome] || value.outcome} for the player to move`];
    if (value.remoteness !== undefined) parts.push(`remoteness ${value.remoteness}`);
    if (value.grundy !== undefined) parts.push(`grundy ${value.grundy}`);
    line.textContent = `${parts.join(", ")}.`;
    line.dataset.vertex = value.position;
    line.dataset.outcome = value.outcome;
    const playable = !state.busy && !state.over && state.turn === "you";
    const shown = state.moves.slice(0, GRAPH_MOVES_SHOWN);
    list.replaceChildren(
      ...shown.map((move, index) => {
        const item = document.createElement("li");
        if (index === 0) item.className = "best";
        const link = document.createElement("a");
        link.className = `graph-move${playable ? "" : " disabled"}`;
        link.href = `#${new URLSearchParams({ game: state.game, position: move.position })}`;
        link.textContent = `→ ${move.position}`;
        link.dataset.position = move.position;
        link.title = `move to ${move.position}`;
        link.addEventListener("click", (event) => {
          event.preventDefault();
          play(move);
        });
        const about = [`${OUTCOME_WORDS[move.outcome] || move.outcome} there`];
        if (move.remoteness !== undefined) about.push(`remoteness ${move.remoteness}`);
        const result = document.createElement("span");
        result.className = `outcome-${move.outcome}`;
        result.textContent = ` ${about.join(", ")}`;
        item.append(link, result);
        return item;
      }),
    );
    const note = $("graph-moves-note");
    if (!state.movesKnown) note.textContent = "";
    else if (state.moves.length === 0) note.textContent = "No move: the game ends here.";
    else {
      const more = state.moves.length > shown.length ? ` (the first ${shown.length}; all in the move table)` : "";
      note.textContent = `Moves, best first${more}:`;
    }
  }

  /** The graph's vertices on a circle (in upload order), its edges as arrows; vertices coloured by
   * outcome, the chosen one ringed. A click on a vertex one move away plays that move; on another
   * vertex, starts from it. */
  function drawGraph(view) {
    const board = $("graph-board");
    board.replaceChildren();
    const graph = view && view.graph;
    const drawable = graph && graph.vertices.length <= GRAPH_DRAW_VERTICES && graph.edges.length <= GRAPH_DRAW_EDGES;
    board.toggleAttribute("hidden", !drawable); // an SVG element has no `hidden` property
    if (!drawable) return;
    const n = graph.vertices.length;
    const size = 420;
    const radius = Math.max(7, Math.min(16, (Math.PI * (size / 2 - 40)) / Math.max(n, 1) - 3));
    const centre = size / 2;
    const ring = size / 2 - radius - 24;
    const at = new Map();
    graph.vertices.forEach((name, i) => {
      const angle = (2 * Math.PI * i) / n - Math.PI / 2;
      at.set(name, [centre + ring * Math.cos(angle), centre + ring * Math.sin(angle), angle]);
    });
    board.setAttribute("viewBox", `0 0 ${size} ${size}`);
    board.setAttribute("width", String(size));
    board.setAttribute("height", String(size));
    const defs = svg("defs", {}, board);
    for (const kind of ["", "-out"]) {
      const marker = svg("marker", {
        id: `arrow${kind}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto",
      }, defs);
      svg("path", { d: "M0,0 L10,5 L0,10 z", class: `arrow${kind}` }, marker);
    }
    const here = state.value ? state.value.position : null;
    const moves = new Map(state.moves.map((move) => [move.position, move]));
    const playable = !state.busy && !state.over && state.turn === "you";
    for (const [from, to] of graph.edges) {
      const [x1, y1, angle] = at.get(from);
      const [x2, y2] = at.get(to);
      const out = from === here;
      if (from === to) {
        const loop = { cx: x1 + Math.cos(angle) * radius * 1.4, cy: y1 + Math.sin(angle) * radius * 1.4, r: radius * 0.6 };
        svg("circle", { ...loop, class: `edge loop${out ? " out" : ""}` }, board);
        continue;
      }
      // A slight bend, to the right of the direction of travel: a→b and b→a stay apart.
      const dx = x2 - x1;
      const dy = y2 - y1;
      const length = Math.hypot(dx, dy);
      const [ux, uy] = [dx / length, dy / length];
      const bend = Math.min(18, length * 0.12);
      const [sx, sy] = [x1 + ux * radius - uy * 3, y1 + uy * radius + ux * 3];
      const [ex, ey] = [x2 - ux * (radius + 2) - uy * 3, y2 - uy * (radius + 2) + ux * 3];
      const [cx, cy] = [(x1 + x2) / 2 - uy * bend, (y1 + y2) / 2 + ux * bend];
      const edge = svg("path", {
        d: `M${sx.toFixed(1)} ${sy.toFixed(1)} Q${cx.toFixed(1)} ${cy.toFixed(1)} ${ex.toFixed(1)} ${ey.toFixed(1)}`,
        class: `edge${out ? " out" : ""}`,
        "marker-end": `url(#arrow${out ? "-out" : ""})`,
      }, board);
      edge.dataset.from = from;
      edge.dataset.to = to;
    }
    graph.vertices.forEach((name) => {
      const [cx, cy, angle] = at.get(name);
      const known = name === here ? state.value : view.values.get(name);
      const move = here !== null && name !== here ? moves.get(name) : undefined;
      let className = `vertex${known ? ` v-${known.outcome}` : ""}`;
      if (name === here) className += " cur";
      if (move) className += " next";
      const dot = svg("circle", { cx, cy, r: radius, class: className }, board);
      dot.dataset.vertex = name;
      const about = known ? `${OUTCOME_WORDS[known.outcome]}${known.remoteness === undefined ? "" : `, remoteness ${known.remoteness}`}` : "";
      svg("title", {}, dot).textContent = move && playable ? `move to ${name}: ${about}` : `${name}${about ? `: ${about}` : ""} (start from it)`;
      dot.addEventListener("click", () => (move && playable ? play(move) : pickVertex(name)));
      if (n <= 40) {
        const label = svg("text", {
          x: cx + Math.cos(angle) * (radius + 12), y: cy + Math.sin(angle) * (radius + 12) + 4, "text-anchor": "middle",
        }, board);
        label.textContent = name.length > 12 ? `${name.slice(0, 11)}…` : name;
      }
    });
  }

  /** Every vertex as a button (up to GRAPH_LIST_MAX), coloured by outcome: a click starts from it. */
  function listVertices(view) {
    const list = $("graph-vertices");
    const graph = view && view.graph;
    if (!graph || graph.vertices.length > GRAPH_LIST_MAX) {
      list.replaceChildren();
      return;
    }
    const here = state.value ? state.value.position : null;
    list.replaceChildren(
      ...graph.vertices.map((name) => {
        const button = document.createElement("button");
        button.type = "button";
        const known = name === here ? state.value : view.values.get(name);
        button.className = `vertex${known ? ` v-${known.outcome}` : ""}${name === here ? " selected" : ""}`;
        button.textContent = name;
        button.dataset.vertex = name;
        button.title = known ? `${name}: ${OUTCOME_WORDS[known.outcome]} for the player to move` : name;
        button.addEventListener("click", () => pickVertex(name));
        return button;
      }),
    );
  }

  // ---- the Grundy sequence plot ----------------------------------------------------------------

  const plot = {
    game: "",
    family: "",
    start: 0n,
    stop: 200n,
    initial: null,
    data: null,
    rarity: null,
    token: 0,
    drag: null,
  };
  const PLOT = { width: 820, height: 340, left: 56, right: 14, top: 22, bottom: 36 };
  PLOT.innerWidth = PLOT.width - PLOT.left - PLOT.right;
  PLOT.innerHeight = PLOT.height - PLOT.top - PLOT.bottom;
  const statsCache = new Map();

  function parseCount(text, name) {
    const trimmed = String(text).trim();
    if (!/^\d+$/.test(trimmed)) throw new Error(`${name} must be a whole number, got '${text}'`);
    return BigInt(trimmed);
  }

  function replotFromForm() {
    try {
      const start = parseCount($("plot-start").value, "start");
      const stop = parseCount($("plot-stop").value, "stop");
      if (stop <= start) throw new Error("stop must be above start");
      plot.game = $("plot-game").value.trim();
      plot.family = $("plot-family").value.trim();
      plot.initial = plot.initial || { start, stop };
      drawSequence(start, stop);
    } catch (error) {
      showError("plot-error", error);
    }
  }

  /** Values fetched to work out a rare/common split (one call, gzipped). */
  const RARITY_SAMPLE = 65536;
  const rarityCache = new Map();

  function statsOf(game) {
    if (!statsCache.has(game)) statsCache.set(game, api("/v1/stats", { game }).catch(() => null));
    return statsCache.get(game);
  }

  /** The rare/common split of a heap game's single heaps, or null (no split, or another family).
   * Heap n is rare when popcount(g(n) & rare_mask) + flip + parity * n is odd, as the kernel classifies
   * it; GetStats gives only the mask, so flip and parity are the choice that reproduces its rare_count
   * and last_rare_at on the computed values (for a larger table, the sparsest on its first values). */
  function rarityOf(game, family) {
    if (family !== "" && family !== "heap") return Promise.resolve(null);
    if (!rarityCache.has(game)) rarityCache.set(game, findRarity(game));
    return rarityCache.get(game);
  }

  async function findRarity(game) {
    const stats = await statsOf(game);
    if (!stats || stats.rare_mask === undefined || stats.rare_mask === null) return null;
    const mask = BigInt(stats.rare_mask);
    const computed = Number(stats.computed_upto || 0);
    const upto = Math.min(computed, RARITY_SAMPLE);
    const choices = [
      { mask, flip: 1, parity: 0 },
      { mask, flip: 0, parity: 0 },
      { mask, flip: 1, parity: 1 },
      { mask, flip: 0, parity: 1 },
    ];
    if (upto === 0) return choices[0];
    let values;
    try {
      values = (await api("/v1/sequence", { game, start: 0, stop: upto })).values;
    } catch {
      return choices[0];
    }
    let best = null;
    for (const choice of choices) {
      const rare = rareTest(choice, 0n);
      let count = 0;
      let last = null;
      values.forEach((value, n) => {
        if (rare(value, n)) {
          count++;
          last = n;
        }
      });
      const exact = upto === computed && count === Number(stats.rare_count) && last === stats.last_rare_at;
      if (exact) return choice;
      if (best === null || count < best.count) best = { choice, count };
    }
    return best.choice;
  }

  /** Fetches values for start <= n < stop (at most MAX_SPAN of them) and draws them. */
  async function drawSequence(start, stop) {
    if (start < 0n) start = 0n;
    if (stop - start > MAX_SPAN) stop = start + MAX_SPAN;
    if (stop <= start) stop = start + 1n;
    plot.start = start;
    plot.stop = stop;
    $("plot-start").value = String(start);
    $("plot-stop").value = String(stop);
    const token = ++plot.token;
    $("plot").dataset.state = "loading";
    try {
      const [data, rarity] = await Promise.all([
        api("/v1/sequence", { game: plot.game, family: plot.family || undefined, start, stop }),
        rarityOf(plot.game, plot.family),
      ]);
      if (token !== plot.token) return;
      plot.data = data;
      plot.rarity = rarity;
      showError("plot-error", null);
      renderPlot();
    } catch (error) {
      if (token !== plot.token) return;
      showError("plot-error", error);
      $("plot").dataset.state = "error";
      $("plot-period").textContent = "";
    }
  }

  function popcount(value) {
    let count = 0;
    while (value) {
      value &= value - 1;
      count++;
    }
    return count;
  }

  /** Whether g(n) = `value` at n = start + `offset` is rare under `rarity` (never when null). */
  function rareTest(rarity, start) {
    if (rarity === null) return () => false;
    const { mask, flip, parity } = rarity;
    const startParity = Number(start & 1n);
    const small = mask <= 0x3fffffffn ? Number(mask) : null;
    return (value, offset) => {
      const bits =
        small !== null && typeof value === "number" && value <= 0x3fffffff
          ? popcount(value & small)
          : popcountBig(BigInt(value) & mask);
      return (bits + flip + (parity & (startParity + offset))) % 2 === 1;
    };
  }

  function popcountBig(value) {
    return value.toString(2).split("").filter((bit) => bit === "1").length;
  }

  function describeRarity({ mask, flip, parity }) {
    const sum = parity ? `popcount(g & ${mask}) + n` : `popcount(g & ${mask})`;
    return `rare values: ${sum} ${flip ? "even" : "odd"} (rare_mask ${mask} = binary ${mask.toString(2)})`;
  }

  function describePeriod(period) {
    if (!period) return "no period known";
    const saltus = period.saltus ? `, saltus ${period.saltus}` : "";
    const kind = period.certified ? "certified" : "observed, not certified: not shaded";
    return `preperiod ${period.preperiod}, period ${period.period}${saltus} (${kind})`;
  }

  function renderPlot() {
    const { data, start } = plot;
    const root = $("plot");
    root.replaceChildren();
    const values = data.values;
    const count = values.length;
    const isRare = rareTest(plot.rarity, start);
    const { left, top, innerWidth: width, innerHeight: height } = PLOT;
    let maxValue = 1;
    for (const value of values) maxValue = Math.max(maxValue, Number(value));
    const yStep = niceStep(maxValue, 5);
    const yMax = Math.ceil((maxValue + 0.5) / yStep) * yStep; // headroom: the top dots stay inside
    const xAt = (offset) => left + (offset / count) * width; // the left edge of value `offset`
    const yAt = (value) => top + height - (Number(value) / yMax) * height;

    // Shading: the preperiod, then each period (alternating) where the period is certified.
    const period = data.period;
    if (period && period.certified) {
      const pre = BigInt(period.preperiod);
      const length = BigInt(period.period);
      const clip = (n) => Number((n < start ? start : n > plot.stop ? plot.stop : n) - start);
      if (start < pre) {
        const x0 = xAt(0);
        svg("rect", { x: x0, y: top, width: xAt(clip(pre)) - x0, height, class: "pre" }, root);
      }
      if (plot.stop > pre && length > 0n) {
        let block = start > pre ? (start - pre) / length : 0n;
        const blocks = (plot.stop - pre) / length - block + 1n;
        const blockWidth = (Number(length) / count) * width;
        if (blocks <= 400n && blockWidth >= 6) {
          for (; pre + block * length < plot.stop; block++) {
            const x0 = xAt(clip(pre + block * length));
            const x1 = xAt(clip(pre + (block + 1n) * length));
            svg("rect", { x: x0, y: top, width: x1 - x0, height, class: block % 2n ? "per-b" : "per-a" }, root);
          }
        } else {
          const x0 = xAt(clip(pre));
          svg("rect", { x: x0, y: top, width: xAt(count) - x0, height, class: "per-a" }, root);
        }
      }
    }

    // Axes and grid lines.
    const axis = svg("g", { class: "axis" }, root);
    for (let value = 0; value <= yMax; value += yStep) {
      const y = yAt(value);
      svg("line", { x1: left, x2: left + width, y1: y, y2: y, class: "grid" }, root);
      svg("text", { x: left - 6, y: y + 4, "text-anchor": "end" }, axis).textContent = value;
    }
    const xStep = BigInt(niceStep(count, 8));
    for (let n = ((start + xStep - 1n) / xStep) * xStep; n < plot.stop; n += xStep) {
      const x = xAt(Number(n - start) + 0.5);
      svg("line", { x1: x, x2: x, y1: top + height, y2: top + height + 4 }, axis);
      svg("text", { x, y: top + height + 17, "text-anchor": "middle" }, axis).textContent = String(n);
    }
    svg("line", { x1: left, x2: left + width, y1: top + height, y2: top + height }, axis);
    svg("line", { x1: left, x2: left, y1: top, y2: top + height }, axis);
    svg("text", { x: left + width, y: top + height + 32, "text-anchor": "end" }, axis).textContent = "n";
    const yLabel = data.family === "heap" ? "g(n)" : `g (${data.family}, n)`;
    svg("text", { x: 4, y: top - 9, "text-anchor": "start" }, axis).textContent = yLabel;

    // The values: a dot each when there is room, else per pixel column the range of its values.
    const points = svg("g", { class: "points" }, root);
    let rareCount = 0;
    if (count <= width / 2.5) {
      const radius = Math.max(1.8, Math.min(4, (width / count) * 0.35));
      values.forEach((value, offset) => {
        const rare = isRare(value, offset);
        if (rare) rareCount++;
        const dot = svg(
          "circle",
          { cx: xAt(offset + 0.5), cy: yAt(value), r: rare ? radius + 0.8 : radius, class: rare ? "rare" : "common" },
          points,
        );
        dot.dataset.n = String(start + BigInt(offset));
        dot.dataset.value = String(value);
        svg("title", {}, dot).textContent = `g(${start + BigInt(offset)}) = ${value}${rare ? " (rare)" : ""}`;
      });
    } else {
      // Per pixel column: a short mark for each distinct value in it (the bands a periodic sequence
      // makes stay visible), or the range from lowest to highest when too many distinct values share it.
      const columns = Math.floor(width);
      let common = "";
      let rarePath = "";
      const marks = (set, x, grow) => {
        if (set.size === 0) return "";
        if (set.size > 48) {
          const sorted = [...set].sort((p, q) => p - q);
          return `M${x} ${(yAt(sorted[sorted.length - 1]) - grow).toFixed(1)}V${(yAt(sorted[0]) + grow).toFixed(1)}`;
        }
        let path = "";
        for (const value of set) path += `M${x} ${(yAt(value) - grow).toFixed(1)}V${(yAt(value) + grow).toFixed(1)}`;
        return path;
      };
      for (let column = 0; column < columns; column++) {
        const from = Math.floor((column * count) / columns);
        const to = Math.max(from + 1, Math.floor(((column + 1) * count) / columns));
        const commons = new Set();
        const rares = new Set();
        for (let offset = from; offset < to && offset < count; offset++) {
          if (isRare(values[offset], offset)) {
            rareCount++;
            rares.add(Number(values[offset]));
          } else {
            commons.add(Number(values[offset]));
          }
        }
        const x = (left + column + 0.5).toFixed(1);
        common += marks(commons, x, 1.2);
        rarePath += marks(rares, x, 2);
      }
      if (common) svg("path", { d: common, class: "common", "stroke-width": 1.2, fill: "none" }, points);
      if (rarePath) svg("path", { d: rarePath, class: "rare", "stroke-width": 2.5, fill: "none" }, points);
    }
    svg("line", { x1: 0, x2: 0, y1: top, y2: top + height, class: "hover", visibility: "hidden" }, root).id = "plot-hover";
    svg("rect", { x: 0, y: top, width: 0, height, class: "selection", visibility: "hidden" }, root).id = "plot-selection";

    const rareText = plot.rarity === null ? "no rare/common split" : `${describeRarity(plot.rarity)}: ${rareCount} here`;
    $("plot-info").textContent =
      `${data.game}, ${data.family}: n from ${data.start} to ${BigInt(data.stop) - 1n} (${count} values, ` +
      `source ${data.source}); ${describePeriod(period)}; ${rareText}.`;
    root.dataset.state = "drawn";
    root.dataset.count = String(count);
    renderPeriod(period);
  }

  /** The period in words: g(n + period) = g(n) + saltus from the preperiod on (saltus 0: plain). */
  function renderPeriod(period) {
    const line = $("plot-period");
    line.replaceChildren();
    for (const key of ["preperiod", "period", "saltus", "certified"]) delete line.dataset[key];
    if (!period) {
      line.textContent = "No period known for this sequence.";
      return;
    }
    const { preperiod, saltus } = period;
    const length = period.period;
    Object.assign(line.dataset, {
      preperiod: String(preperiod),
      period: String(length),
      saltus: String(saltus || 0),
      certified: String(Boolean(period.certified)),
    });
    const strong = document.createElement("strong");
    strong.textContent = period.certified ? "Certified period" : "Observed period (not certified, not shaded)";
    const rule = saltus
      ? `g(n + ${length}) = g(n) + ${saltus} for n ≥ ${preperiod}: arithmetic periodicity, saltus ${saltus}`
      : `g(n + ${length}) = g(n) for n ≥ ${preperiod}`;
    line.append(strong, ` ${length}, from n = ${preperiod} (preperiod ${preperiod}); ${rule}.`);
  }

  /** The offset of the value under a pointer event, from the plot's own coordinates. */
  function plotOffset(event) {
    const box = $("plot").getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * PLOT.width;
    const count = plot.data ? plot.data.values.length : 0;
    const offset = Math.floor(((x - PLOT.left) / PLOT.innerWidth) * count);
    return { x: Math.max(PLOT.left, Math.min(PLOT.left + PLOT.innerWidth, x)), offset, count };
  }

  function setUpPlot() {
    const root = $("plot");
    root.addEventListener("pointerdown", (event) => {
      if (!plot.data) return;
      plot.drag = plotOffset(event).x;
      root.setPointerCapture(event.pointerId);
    });
    root.addEventListener("pointermove", (event) => {
      if (!plot.data) return;
      const { x, offset, count } = plotOffset(event);
      const hover = $("plot-hover");
      if (offset >= 0 && offset < count && hover) {
        const value = plot.data.values[offset];
        const rare = rareTest(plot.rarity, plot.start)(value, offset) ? "  (rare)" : "";
        $("plot-readout").textContent = `n = ${plot.start + BigInt(offset)}   g = ${value}${rare}`;
        hover.setAttribute("x1", x);
        hover.setAttribute("x2", x);
        hover.setAttribute("visibility", "visible");
      }
      const selection = $("plot-selection");
      if (plot.drag !== null && selection) {
        selection.setAttribute("x", Math.min(plot.drag, x));
        selection.setAttribute("width", Math.abs(x - plot.drag));
        selection.setAttribute("visibility", "visible");
      }
    });
    root.addEventListener("pointerleave", () => {
      const hover = $("plot-hover");
      if (hover) hover.setAttribute("visibility", "hidden");
    });
    root.addEventListener("pointerup", (event) => {
      if (plot.drag === null) return;
      const from = plot.drag;
      plot.drag = null;
      const { x, count } = plotOffset(event);
      const selection = $("plot-selection");
      if (selection) selection.setAttribute("visibility", "hidden");
      if (Math.abs(x - from) < 5) return;
      const toOffset = (px) => Math.round(((px - PLOT.left) / PLOT.innerWidth) * count);
      const first = toOffset(Math.min(from, x));
      const last = Math.max(first + 1, toOffset(Math.max(from, x)));
      drawSequence(plot.start + BigInt(first), plot.start + BigInt(last));
    });
    const span = () => plot.stop - plot.start;
    $("zoom-in").addEventListener("click", () => {
      const quarter = span() / 4n;
      if (span() < 4n) return;
      drawSequence(plot.start + quarter, plot.stop - quarter);
    });
    $("zoom-out").addEventListener("click", () => {
      const wider = span() * 2n > MAX_SPAN ? MAX_SPAN : span() * 2n;
      let start = plot.start - (wider - span()) / 2n;
      if (start < 0n) start = 0n;
      drawSequence(start, start + wider);
    });
    $("pan-left").addEventListener("click", () => {
      let start = plot.start - span() / 2n;
      if (start < 0n) start = 0n;
      drawSequence(start, start + span());
    });
    $("pan-right").addEventListener("click", () => {
      const shift = span() / 2n > 0n ? span() / 2n : 1n;
      drawSequence(plot.start + shift, plot.stop + shift);
    });
    $("zoom-reset").addEventListener("click", () => {
      if (plot.initial) drawSequence(plot.initial.start, plot.initial.stop);
    });
    $("plot-form").addEventListener("submit", (event) => {
      event.preventDefault();
      plot.initial = null;
      replotFromForm();
    });
  }

  // ---- Wythoff's table as a heat map ---------------------------------------------------------

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
        const answer = await api("/v1/values:batch", {}, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ game: "wythoff", positions: positions.slice(from, from + BATCH) }),
        });
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
      if (state.game !== "wythoff") setGame("wythoff");
      $("position").value = `${cell.a},${cell.b}`;
      startFrom(`${cell.a},${cell.b}`);
      $("play").scrollIntoView({ behavior: "smooth" });
    });
  }

  // ---- stats ---------------------------------------------------------------------------------

  const STAT_ORDER = [
    "source",
    "period",
    "computed_upto",
    "max_value",
    "max_value_at",
    "rare_mask",
    "rare_count",
    "last_rare_at",
    "p_positions",
    "p_positions_count",
    "table_side",
    "live_side",
    "pending",
  ];

  function formatStat(key, value) {
    if (value === null || value === undefined) return "—";
    if (key === "period") return describePeriod(value);
    if (key === "rare_mask") return `${value} (binary ${BigInt(value).toString(2)})`;
    if (key === "pending") {
      if (value.length === 0) return "none";
      return value.map((job) => `job ${job.id} ${job.status} ${job.progress.done}/${job.progress.total}`).join("; ");
    }
    if (Array.isArray(value)) {
      const shown = value.slice(0, 60).join(", ");
      return value.length > 60 ? `${shown}, … (${value.length} in all)` : shown;
    }
    if (typeof value === "object") return JSON.stringify(value, (k, v) => (typeof v === "bigint" ? String(v) : v));
    return String(value);
  }

  async function loadStats(game) {
    $("stats-game").textContent = game;
    const list = $("stats");
    try {
      const asked = api("/v1/stats", { game });
      statsCache.set(game, asked.catch(() => null));
      const stats = await asked;
      if (game !== state.game) return;
      showError("stats-error", null);
      const keys = [...STAT_ORDER.filter((key) => key in stats), ...Object.keys(stats).filter((key) => key !== "game" && !STAT_ORDER.includes(key))];
      list.replaceChildren(
        ...keys.flatMap((key) => {
          const term = document.createElement("dt");
          term.textContent = key;
          const detail = document.createElement("dd");
          detail.textContent = formatStat(key, stats[key]);
          detail.dataset.key = key;
          return [term, detail];
        }),
      );
    } catch (error) {
      if (game !== state.game) return;
      list.replaceChildren();
      showError("stats-error", error);
    }
  }

  // ---- jobs, polled while one runs -----------------------------------------------------------

  let jobsTimer = null;

  function pollJobsSoon() {
    clearTimeout(jobsTimer);
    jobsTimer = setTimeout(pollJobs, 100);
  }

  async function pollJobs() {
    clearTimeout(jobsTimer);
    let active = false;
    if (!document.hidden) {
      try {
        const data = await api("/v1/jobs", { limit: 25 });
        active = data.jobs.some((job) => job.status === "queued" || job.status === "running");
        renderJobs(data.jobs);
        showError("jobs-error", null);
        $("jobs-updated").textContent = `updated ${new Date().toLocaleTimeString()}${active ? ", following progress" : ""}`;
      } catch (error) {
        showError("jobs-error", error);
      }
    }
    jobsTimer = setTimeout(pollJobs, active ? JOBS_ACTIVE_MS : JOBS_IDLE_MS);
  }

  function renderJobs(jobs) {
    const body = $("jobs").tBodies[0];
    if (jobs.length === 0) {
      const row = document.createElement("tr");
      const cell = document.createElement("td");
      cell.colSpan = 6;
      cell.className = "muted";
      cell.textContent = "No jobs yet.";
      row.appendChild(cell);
      body.replaceChildren(row);
      return;
    }
    body.replaceChildren(
      ...jobs.map((job) => {
        const row = document.createElement("tr");
        row.dataset.job = String(job.id);
        const id = document.createElement("td");
        id.textContent = String(job.id);
        const game = document.createElement("td");
        game.className = "mono";
        game.textContent = job.family && job.family !== "heap" ? `${job.game} ${job.family}` : job.game;
        const upto = document.createElement("td");
        upto.textContent = String(job.upto);
        const status = document.createElement("td");
        const badge = document.createElement("span");
        badge.className = `status ${job.status}`;
        badge.textContent = job.status;
        if (job.error) badge.title = job.error;
        status.appendChild(badge);
        const progress = document.createElement("td");
        const bar = document.createElement("progress");
        const total = Number(job.progress.total) || 1;
        bar.max = total;
        bar.value = Math.min(Number(job.progress.done), total);
        const percent = ((100 * Number(job.progress.done)) / total).toFixed(total > 1000 ? 1 : 0);
        progress.append(bar, ` ${percent}%`);
        progress.title = `${job.progress.done} of ${job.progress.total}`;
        const created = document.createElement("td");
        created.textContent = job.created_at ? new Date(job.created_at).toLocaleString() : "—";
        row.append(id, game, upto, status, progress, created);
        return row;
      }),
    );
  }

  async function checkHealth() {
    const badge = $("health");
    try {
      const health = await api("/healthz");
      badge.textContent = health.database ? "database ok" : "database unreachable";
      badge.className = `health ${health.database ? "ok" : "bad"}`;
    } catch {
      badge.textContent = "server unreachable";
      badge.className = "health bad";
    }
  }

  // ---- start ---------------------------------------------------------------------------------

  async function main() {
    $("position-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const game = $("game").value.trim();
      if (game !== state.game) setGame(game);
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
    $("chess-material-select").addEventListener("change", async () => {
      const game = $("chess-material-select").value;
      setGame(game);
      const examples = await examplesOf(game);
      if (game !== state.game || examples.length === 0) return;
      $("position").value = examples[0];
      startFrom(examples[0]);
    });
    $("graph-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const name = $("graph-name").value.trim();
      if (name === "") {
        $("graph-name").focus();
        return;
      }
      setGame(`graph:${name}`);
      window.history.replaceState(null, "", `#${new URLSearchParams({ game: state.game })}`);
    });
    $("lights-solution").addEventListener("change", () => state.value && renderLights());
    $("lights-random").addEventListener("click", randomSolvable);
    setUpPlot();
    setUpHeat();
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) pollJobsSoon();
    });
    checkHealth();
    setInterval(checkHealth, 30000);
    pollJobs();
    await loadGames();
    drawHeat();
    window.addEventListener("hashchange", fromHash);
    await fromHash();
    document.body.dataset.ready = "true";
  }

  /** The game and position a link names (`#game=nim&position=3+5+7`), else Nim's first example. */
  async function fromHash() {
    const hash = new URLSearchParams(window.location.hash.slice(1));
    const game = hash.get("game") || state.game || "nim";
    if (game !== state.game || state.value === null) setGame(game);
    if (isGraphTemplate(game)) return; // the page asks which graph
    const examples = await examplesOf(game);
    const position = hash.get("position") ?? (examples.length ? examples[0] : "");
    $("position").value = position;
    await startFrom(position);
  }

  main();
})();
