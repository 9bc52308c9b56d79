// Uploaded graphs (GetGraph), fetched once each and shared by the kinds played on them (a game graph, a
// Lights Out graph); their names are remembered, since the API has no route listing graphs.

import { api } from "./api.js";

/** Graph names opened on this page before, offered by the name field (the API lists no graphs). */
const GRAPHS_KEY = "nimbase.graphs";
const GRAPHS_REMEMBERED = 20;
/** Per name: a promise of the graph, or of null when it could not be read. */
const fetched = new Map();

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

/** The names worth offering: those remembered, and those asked for on this page. */
export const knownGraphNames = () => [...new Set([...rememberedGraphs(), ...fetched.keys()])];

/** An uploaded graph (GetGraph), fetched once (its name then remembered); null when it cannot be read
 * (asked again next time). */
export function graphOf(name) {
  if (!fetched.has(name)) {
    const asked = api(`/v1/graphs/${encodeURIComponent(name)}`).then(
      (graph) => {
        rememberGraph(name);
        return graph;
      },
      () => {
        fetched.delete(name);
        return null;
      },
    );
    fetched.set(name, asked);
  }
  return fetched.get(name);
}
