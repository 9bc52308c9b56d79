// Wythoff's table as a heat map (canvas): g(a, b) of a square of pairs, valued in batches; a click on a
// cell plays from it in the position panel. The section is always on the page, whatever game is chosen.

import { ApiError, BATCH, valuesBatch } from "./api.js";
import { $, parseCount, show, showError } from "./dom.js";

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

export async function drawHeat() {
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

/** The form and the pointer; a click on a cell plays Wythoff from it (`playFrom(game, position)`). */
export function setUpHeat(playFrom) {
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
