// The Grundy sequence plot (SVG): GetSequence's values of a one-parameter family, its certified period
// shaded, rare values marked, zoomed by dragging or by its buttons.

import { api } from "./api.js";
import { $, niceStep, parseCount, showError, svg } from "./dom.js";
import { describePeriod, statsOf } from "./stats.js";

/** Values in one GetSequence call (the server's default NIMBASE_LIMITS_SEQUENCE_VALUES). */
const MAX_SPAN = 1000000n;
/** What an empty plot shows when the page opens on a game without sequences: Kayles. */
const FIRST_PLOT = "octal:0.77";

/** What is plotted (`data`: GetSequence's answer; `initial`: the range "reset" goes back to); `token`
 * drops answers a newer request overtook; `drag`: where a drag across the plot started. */
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

export function setUpPlot() {
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

/** Follows the position panel's game: `sequences` ({families, first}) are its families offered for
 * the plot, the plot then drawn for it with the first; null, a game without one-parameter sequences,
 * leaves the plot as it is (an empty one shows Kayles). */
export function followGame(game, sequences) {
  $("plot-families").replaceChildren(...(sequences ? sequences.families : ["heap"]).map((family) => new Option(family)));
  if (!sequences) {
    if (plot.data === null && $("plot-game").value.trim() === "") {
      $("plot-game").value = FIRST_PLOT;
      replotFromForm();
    }
    return;
  }
  $("plot-game").value = game;
  $("plot-family").value = sequences.first || "";
  plot.initial = null;
  replotFromForm();
}
