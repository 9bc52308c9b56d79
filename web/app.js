// nimbase's web page: plain JavaScript modules over the public REST API (v1), no build step, no library.
// Sections: a position with its value and ranked moves, played against the service and drawn by its
// kind's view (views/<family>.js: a Wythoff board, Bicolor Nim's heaps, a Lights Out board, a chess
// board, a game graph); a Grundy sequence plot (SVG); Wythoff's table as a heat map (canvas); GetStats;
// and the job list. This module starts them.

import { api } from "./api.js";
import { $ } from "./dom.js";
import { drawHeat, setUpHeat } from "./heatmap.js";
import { setUpJobs } from "./jobs.js";
import { fromHash, loadGames, playFrom, setUpPanel } from "./panel.js";
import { setUpPlot } from "./plot.js";

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

async function main() {
  setUpPanel();
  setUpPlot();
  setUpHeat(playFrom);
  checkHealth();
  setInterval(checkHealth, 30000);
  setUpJobs();
  await loadGames();
  drawHeat();
  window.addEventListener("hashchange", fromHash);
  await fromHash();
  document.body.dataset.ready = "true";
}

main();
