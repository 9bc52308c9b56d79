// GetStats: the stats section of the panel's game, and one cached answer per game for whoever needs it
// (the plot's rare/common split, Lights Out's shape).

import { api } from "./api.js";
import { $, showError, terms } from "./dom.js";
import { state } from "./state.js";

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

/** Per game: a promise of its stats, or of null when GetStats failed. */
const statsCache = new Map();

export function statsOf(game) {
  if (!statsCache.has(game)) statsCache.set(game, api("/v1/stats", { game }).catch(() => null));
  return statsCache.get(game);
}

export function describePeriod(period) {
  if (!period) return "no period known";
  const saltus = period.saltus ? `, saltus ${period.saltus}` : "";
  const kind = period.certified ? "certified" : "observed, not certified: not shaded";
  return `preperiod ${period.preperiod}, period ${period.period}${saltus} (${kind})`;
}

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

/** Asks GetStats afresh for `game` (the cache then holds this answer) and lists it, known keys first. */
export async function loadStats(game) {
  $("stats-game").textContent = game;
  const list = $("stats");
  try {
    const asked = api("/v1/stats", { game });
    statsCache.set(game, asked.catch(() => null));
    const stats = await asked;
    if (game !== state.game) return;
    showError("stats-error", null);
    const keys = [
      ...STAT_ORDER.filter((key) => key in stats),
      ...Object.keys(stats).filter((key) => key !== "game" && !STAT_ORDER.includes(key)),
    ];
    list.replaceChildren(...terms(keys.map((key) => [key, formatStat(key, stats[key])])));
  } catch (error) {
    if (game !== state.game) return;
    list.replaceChildren();
    showError("stats-error", error);
  }
}
