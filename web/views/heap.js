// Heap games (Nim, subtraction and octal games, Grundy's game): the panel's value and ranked moves, and
// the plot following the game with its single heaps (GetSequence's default family). A misère game
// answered through its misère quotient (GetStats' `quotient`) also shows the quotient: its
// multiplication table, the products in the P-portion marked, and the heaps each element stands for.

import { $, kindSection, kindStyle } from "../dom.js";
import { statsOf } from "../stats.js";
import { state } from "../state.js";
import { generic } from "./generic.js";

/** The kind's section of the position panel, made once by `setUp` (`kindSection`). */
const SECTION = `
  <div id="misere-quotient" class="quotient">
    <h3>Misère quotient <span id="quotient-summary" class="muted"></span></h3>
    <p id="quotient-note" class="muted" hidden></p>
    <div class="quotient-scroll"><table id="quotient-table" class="quotient-table"></table></div>
    <p class="legend">
      <span class="swatch in-p"></span> in the P-portion (a sum whose heaps multiply to it is a P-position)
    </p>
    <p id="quotient-heaps" class="muted mono"></p>
  </div>
`;

/** Heaps listed under the table (the pretending function), at most. */
const HEAPS_SHOWN = 40;

const isMisere = (game) => game.endsWith(":misere");

/** An element's name in the presentation's generators ("1" for the identity), else its number. */
const nameOf = (quotient, x) => quotient.presentation?.elements?.[String(x)] ?? String(x);

function cell(tag, text, className = "") {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

/** The quotient of `stats` drawn into the section, or the section hidden when there is none. */
function renderQuotient(stats) {
  const section = $("misere-quotient");
  const quotient = stats?.quotient;
  if (!quotient) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const inP = new Set(quotient.p_portion);
  const certified = quotient.certified ? "certified for every heap" : `heaps up to ${quotient.heap_bound}`;
  $("quotient-summary").textContent =
    `(order ${quotient.order}, P-portion of ${inP.size}: ` +
    `{${quotient.p_portion.map((x) => nameOf(quotient, x)).join(", ")}}; ${certified})`;
  const note = $("quotient-note");
  note.hidden = !quotient.note;
  note.textContent = quotient.note ?? "";
  const table = $("quotient-table");
  table.replaceChildren();
  if (!quotient.table) {
    table.appendChild(cell("caption", `order ${quotient.order}: too large a table to draw`));
  } else {
    const elements = quotient.table.map((_, x) => x);
    const head = document.createElement("tr");
    head.appendChild(cell("th", "×", "corner"));
    for (const y of elements) head.appendChild(cell("th", nameOf(quotient, y), inP.has(y) ? "in-p" : ""));
    table.appendChild(head);
    for (const x of elements) {
      const row = document.createElement("tr");
      row.appendChild(cell("th", nameOf(quotient, x), inP.has(x) ? "in-p" : ""));
      for (const y of elements) {
        const product = quotient.table[x][y];
        const td = cell("td", nameOf(quotient, product), inP.has(product) ? "in-p" : "");
        td.dataset.element = String(product);
        td.title = `${nameOf(quotient, x)} · ${nameOf(quotient, y)} = ${nameOf(quotient, product)}` +
          (inP.has(product) ? " (P-portion)" : "");
        row.appendChild(td);
      }
      table.appendChild(row);
    }
  }
  const phi = quotient.pretending_function ?? [];
  const shown = phi.slice(1, HEAPS_SHOWN + 1).map((x, i) => `${i + 1}:${nameOf(quotient, x)}`);
  $("quotient-heaps").textContent =
    `heap → element: ${shown.join(" ")}${phi.length > HEAPS_SHOWN + 1 ? " …" : ""}` +
    (quotient.period ? ` (period ${quotient.period.period} from heap ${quotient.period.preperiod})` : "");
}

export default {
  ...generic,
  sequences: { families: ["heap"], first: "" },
  setUp() {
    kindStyle(new URL("./heap.css", import.meta.url));
    kindSection(SECTION);
  },
  open(game) {
    if (!isMisere(game)) return;
    statsOf(game).then((stats) => {
      if (game === state.game) renderQuotient(stats);
    });
  },
  clear() {
    $("misere-quotient").hidden = true;
  },
};
