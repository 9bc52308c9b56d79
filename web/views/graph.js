// Game graphs (`graph:NAME`): an uploaded graph's vertices on a circle, its edges as arrows, each vertex
// coloured by its value; the chosen vertex's moves lead along its edges. `graph:NAME` itself, ListGames'
// entry for the family, names no graph: the page asks which uploaded graph to open.

import { api, BATCH, valuesBatch } from "../api.js";
import { $, kindSection, kindStyle, showError, svg } from "../dom.js";
import { graphOf, knownGraphNames } from "../graphs.js";
import { play, setGame, startAt } from "../panel.js";
import { playable, state } from "../state.js";
import { generic } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="graph-game" class="graph">
    <h3>Game graph <span id="graph-title" class="muted"></span></h3>
    <form id="graph-form" class="row wrap" autocomplete="off">
      <label for="graph-name">graph</label>
      <input id="graph-name" spellcheck="false" list="graph-names" placeholder="an uploaded graph's name">
      <datalist id="graph-names"></datalist>
      <button id="graph-open" type="submit">Open</button>
    </form>
    <p id="graph-error" class="error" hidden></p>
    <p id="graph-info" class="muted"></p>
    <p id="graph-vertex" class="graph-vertex"></p>
    <p id="graph-moves-note" class="muted"></p>
    <ul id="graph-moves" class="graph-moves"></ul>
    <svg id="graph-board" role="img" aria-label="the game graph" hidden></svg>
    <div id="graph-vertices" class="graph-vertices"></div>
    <p class="legend">
      <span class="swatch v-N"></span> win for the player to move
      <span class="swatch v-P"></span> loss
      <span class="swatch v-D"></span> draw
      <span class="swatch cur-vertex"></span> the chosen vertex (a click on a vertex one move away plays it)
    </p>
  </div>
`;

/** ListGames' entry for the family: its id names no graph, so the page asks which uploaded graph. */
const GRAPH_TEMPLATE = "graph:NAME";
const isGraphTemplate = (game) => game === GRAPH_TEMPLATE;
const graphNameOf = (game) => (isGraphTemplate(game) ? null : game.slice("graph:".length));

/** Graphs drawn up to this many vertices and edges, their vertices listed (and valued in batches) up
 * to GRAPH_LIST_MAX; a graph is fetched whole (GetGraph) only up to GRAPH_FETCH_MAX vertices and edges. */
const GRAPH_DRAW_VERTICES = 60;
const GRAPH_DRAW_EDGES = 400;
const GRAPH_LIST_MAX = 2000;
const GRAPH_FETCH_MAX = 200000;
/** Moves listed beside the graph (all of them are in the move table). */
const GRAPH_MOVES_SHOWN = 40;
const OUTCOME_WORDS = { N: "a win (N)", P: "a loss (P)", D: "a draw (D)" };
/** Per game: a promise of its graph's data, {stats, error, graph, values (vertex -> its value)};
 * `graphs.shown`, the current game's once it has come. */
const graphs = { loaded: new Map(), shown: null };

/** The game's graph: GetStats (counts, and whether the graph exists), the graph itself when small
 * enough, and each vertex's value (one batch per BATCH vertices). Asked again after an error. */
function graphData(game) {
  if (!graphs.loaded.has(game)) graphs.loaded.set(game, loadGraphData(game));
  return graphs.loaded.get(game);
}

async function loadGraphData(game) {
  const data = { game, stats: null, error: null, graph: null, values: new Map() };
  try {
    data.stats = await api("/v1/stats", { game });
  } catch (error) {
    data.error = error;
    graphs.loaded.delete(game);
    return data;
  }
  if (Number(data.stats.vertices) + Number(data.stats.edges) > GRAPH_FETCH_MAX) return data;
  data.graph = await graphOf(graphNameOf(game));
  if (!data.graph || data.graph.vertices.length > GRAPH_LIST_MAX) return data;
  try {
    for (let from = 0; from < data.graph.vertices.length; from += BATCH) {
      const positions = data.graph.vertices.slice(from, from + BATCH);
      const answer = await valuesBatch(game, positions);
      answer.values.forEach((item, index) => {
        if (!item.error) data.values.set(positions[index], item);
      });
    }
  } catch {
    // the vertices are shown without their outcomes
  }
  return data;
}

/** After choosing a graph game: the name field, then the graph once it has come. */
function openGraphGame(game) {
  graphs.shown = null;
  if (!isGraphTemplate(game)) $("graph-name").value = graphNameOf(game);
  renderGraph();
  if (isGraphTemplate(game)) return;
  graphData(game).then((data) => {
    if (game !== state.game) return;
    graphs.shown = data;
    renderGraph();
  });
}

const pickVertex = (name) => startAt(name);

function renderGraph() {
  $("graph-game").hidden = false;
  $("graph-names").replaceChildren(...knownGraphNames().map((name) => new Option(name)));
  const template = isGraphTemplate(state.game);
  const data = graphs.shown && graphs.shown.game === state.game ? graphs.shown : null;
  $("graph-title").textContent = template ? "" : graphNameOf(state.game);
  showError("graph-error", data && data.error ? data.error : null);
  $("graph-info").textContent = graphInfoText(template, data);
  renderGraphVertex();
  drawGraph(data);
  listVertices(data);
}

function graphInfoText(template, data) {
  if (template) {
    return `${GRAPH_TEMPLATE} stands for any graph uploaded with POST /v1/graphs: type its name and open it ` +
      "(the names offered are the graphs opened on this page before: the API has no route listing them).";
  }
  if (data === null) return "Reading the graph…";
  if (data.error) return "";
  const stats = data.stats;
  let text =
    `${stats.vertices} vertices, ${stats.edges} edges${stats.acyclic ? ", acyclic" : ", with cycles"}: ` +
    `${stats.wins} won, ${stats.losses} lost and ${stats.draws} drawn for the player to move; ` +
    `the longest win takes ${stats.longest_win} moves (source ${stats.source}).`;
  if (!data.graph) text += " Too large to fetch whole here: type a vertex name as the position.";
  else if (data.graph.vertices.length > GRAPH_LIST_MAX) {
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
  const canPlay = playable();
  const shown = state.moves.slice(0, GRAPH_MOVES_SHOWN);
  list.replaceChildren(
    ...shown.map((move, index) => {
      const item = document.createElement("li");
      if (index === 0) item.className = "best";
      const link = document.createElement("a");
      link.className = `graph-move${canPlay ? "" : " disabled"}`;
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
function drawGraph(data) {
  const board = $("graph-board");
  board.replaceChildren();
  const graph = data && data.graph;
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
  const canPlay = playable();
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
    const known = name === here ? state.value : data.values.get(name);
    const move = here !== null && name !== here ? moves.get(name) : undefined;
    let className = `vertex${known ? ` v-${known.outcome}` : ""}`;
    if (name === here) className += " cur";
    if (move) className += " next";
    const dot = svg("circle", { cx, cy, r: radius, class: className }, board);
    dot.dataset.vertex = name;
    const about = known ? `${OUTCOME_WORDS[known.outcome]}${known.remoteness === undefined ? "" : `, remoteness ${known.remoteness}`}` : "";
    svg("title", {}, dot).textContent = move && canPlay ? `move to ${name}: ${about}` : `${name}${about ? `: ${about}` : ""} (start from it)`;
    dot.addEventListener("click", () => (move && canPlay ? play(move) : pickVertex(name)));
    if (n <= 40) {
      const label = svg("text", {
        x: cx + Math.cos(angle) * (radius + 12), y: cy + Math.sin(angle) * (radius + 12) + 4, "text-anchor": "middle",
      }, board);
      label.textContent = name.length > 12 ? `${name.slice(0, 11)}…` : name;
    }
  });
}

/** Every vertex as a button (up to GRAPH_LIST_MAX), coloured by outcome: a click starts from it. */
function listVertices(data) {
  const list = $("graph-vertices");
  const graph = data && data.graph;
  if (!graph || graph.vertices.length > GRAPH_LIST_MAX) {
    list.replaceChildren();
    return;
  }
  const here = state.value ? state.value.position : null;
  list.replaceChildren(
    ...graph.vertices.map((name) => {
      const button = document.createElement("button");
      button.type = "button";
      const known = name === here ? state.value : data.values.get(name);
      button.className = `vertex${known ? ` v-${known.outcome}` : ""}${name === here ? " selected" : ""}`;
      button.textContent = name;
      button.dataset.vertex = name;
      button.title = known ? `${name}: ${OUTCOME_WORDS[known.outcome]} for the player to move` : name;
      button.addEventListener("click", () => pickVertex(name));
      return button;
    }),
  );
}

function describeGraphGame(game, entry) {
  if (isGraphTemplate(game)) {
    return `${entry.name}: ${entry.description} Name an uploaded graph under "Game graph" below.`;
  }
  return `Game graph ${graphNameOf(game)}: ${entry.description} Positions: ${entry.position_syntax}.`;
}

/** The first vertices of the graph, once it has come. */
async function firstVertices(game) {
  if (isGraphTemplate(game)) return [];
  const data = await graphData(game);
  return data.graph ? data.graph.vertices.slice(0, 3) : [];
}

/** The name field opens `graph:NAME`, and puts it in the page's link. */
async function openNamed(event) {
  event.preventDefault();
  const name = $("graph-name").value.trim();
  if (name === "") {
    $("graph-name").focus();
    return;
  }
  if (await setGame(`graph:${name}`)) {
    window.history.replaceState(null, "", `#${new URLSearchParams({ game: state.game })}`);
  }
}

export default {
  ...generic,
  analysis: true,
  setUp() {
    kindStyle(new URL("./graph.css", import.meta.url));
    kindSection(SECTION);
    $("graph-form").addEventListener("submit", openNamed);
  },
  describe: describeGraphGame,
  listedAs(game, games) {
    return games.some((listed) => listed.id === GRAPH_TEMPLATE) ? GRAPH_TEMPLATE : null;
  },
  examples: firstVertices,
  pending(game) {
    return isGraphTemplate(game)
      ? `${GRAPH_TEMPLATE} names no graph: name an uploaded graph under "Game graph" and open it.`
      : null;
  },
  prompt() {
    $("graph-name").focus();
  },
  open: openGraphGame,
  clear() {
    $("graph-game").hidden = true;
  },
  looked: renderGraph,
  render: renderGraph,
};
