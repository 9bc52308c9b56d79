// Bicolor Nim: heaps of white and black stones, drawn stone by stone; pointing at a move in the move
// table marks the stones it takes. A value has two Grundy numbers (G with a white heap, G- with a black
// one), and the plot offers the two-heap families.

import { $, kindSection, kindStyle, show, svg, svgMessage } from "../dom.js";
import { state } from "../state.js";
import { column, field, generic } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="bicolor-heaps" class="heaps">
    <h3>Heaps <span class="muted">(point at a move to see the stones it takes)</span></h3>
    <svg id="heaps" role="img" aria-label="Bicolor Nim heaps"></svg>
    <p class="legend">
      <span class="swatch stone-w"></span> white stone
      <span class="swatch stone-b"></span> black stone
      <span class="swatch taken"></span> taken by the move pointed at
    </p>
  </div>
`;

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
  if (state.value === null) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const drawing = $("heaps");
  drawing.replaceChildren();
  const list = parseHeaps(state.value.position);
  drawing.dataset.position = state.value.position;
  if (list.length === 0) {
    svgMessage(drawing, 300, "No stones left: the board is empty.");
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

export default {
  ...generic,
  setUp() {
    kindStyle(new URL("./bicolor-nim.css", import.meta.url));
    kindSection(SECTION);
  },
  sequences: {
    families: ["f_3", "f_6", "g_1", "g_2", "h_2", "h'_2", "f'_1", "g'_1", "f^(2)_4", "G[3w2b;b]", "G-[3w2b;w]"],
    first: "f_3", // there is no single-heap sequence
  },
  clear() {
    $("bicolor-heaps").hidden = true;
    heaps.highlight = null;
  },
  render: renderHeaps,
  grundyLabel: "G (grundy)",
  /** G-, the value with a black heap, after G. */
  valueFields(value) {
    if (value.grundy_black === undefined) return [];
    const title = "grundy_black: the value with a black heap";
    return [field("grundy_black", show(value.grundy_black), { label: "G-", title, after: "grundy" })];
  },
  meaning(value, outcome) {
    if (value.grundy_black === undefined) return outcome;
    return (
      `${outcome}. G = ${value.grundy}: adding a white heap of ${value.grundy} stones makes a P-position; ` +
      `G- = ${value.grundy_black}: so does a black heap of ${value.grundy_black}.`
    );
  },
  moveColumns() {
    return [
      column("outcome", (move) => move.outcome),
      column("G", (move) => show(move.grundy)),
      column("G-", (move) => show(move.grundy_black)),
      column("remoteness", (move) => show(move.remoteness)),
    ];
  },
  decorateMoveRow(row, move) {
    if (!move.colored_heap) return;
    row.addEventListener("mouseenter", () => highlightHeap(move));
    row.addEventListener("mouseleave", () => highlightHeap(null));
  },
};
