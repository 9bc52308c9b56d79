// nimbase's web page: plain JavaScript modules over the public REST API (v1), no build step, no library.
// Sections: a position with its value and ranked moves, played against the service and drawn by its
// kind's view (views/<family>.js, which also brings the kind's section of the panel, its style sheet and
// any card of its own); a Grundy sequence plot (SVG); GetStats; and the job list. This module starts them.

import { api } from "./api.js";
import { $ } from "./dom.js";
import { setUpJobs } from "./jobs.js";
import { fromHash, loadGames, setUpPanel } from "./panel.js";
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
  checkHealth();
  setInterval(checkHealth, 30000);
  setUpJobs();
  await loadGames();
  window.addEventListener("hashchange", fromHash);
  await fromHash();
  document.body.dataset.ready = "true";
}

main();
