// The job list, polled often while a job is queued or running and now and then otherwise.

import { api, onJobNamed } from "./api.js";
import { $, showError } from "./dom.js";

/** Job polling: every 1.5 s while a job is queued or running, else now and then. */
const JOBS_ACTIVE_MS = 1500;
const JOBS_IDLE_MS = 10000;

let jobsTimer = null;

export function pollJobsSoon() {
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

function cellOf(text, className = "") {
  const cell = document.createElement("td");
  cell.textContent = text;
  if (className) cell.className = className;
  return cell;
}

function renderJobs(jobs) {
  const body = $("jobs").tBodies[0];
  if (jobs.length === 0) {
    const row = document.createElement("tr");
    const cell = cellOf("No jobs yet.", "muted");
    cell.colSpan = 6;
    row.appendChild(cell);
    body.replaceChildren(row);
    return;
  }
  body.replaceChildren(
    ...jobs.map((job) => {
      const row = document.createElement("tr");
      row.dataset.job = String(job.id);
      const game = job.family && job.family !== "heap" ? `${job.game} ${job.family}` : job.game;
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
      const created = job.created_at ? new Date(job.created_at).toLocaleString() : "—";
      row.append(cellOf(String(job.id)), cellOf(game, "mono"), cellOf(String(job.upto)), status, progress, cellOf(created));
      return row;
    }),
  );
}

/** Starts polling; an error naming a job, or the page shown again, looks at once. */
export function setUpJobs() {
  onJobNamed(pollJobsSoon);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) pollJobsSoon();
  });
  pollJobs();
}
