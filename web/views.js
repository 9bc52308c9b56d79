// Which view shows a game: the view ListGames names for it (`view`, such as "grid": any game declaring a
// grid is drawn by views/grid.js, whoever wrote it), else the module views/<family>.js, the family being
// the game id's part before its first ':' (`lights-out:5x5` -> views/lights-out.js), so that a kind's view
// is one file added there and this page names none. A family without a module gets the generic view: the
// value, the ranked moves, and play by clicking a move.

import { generic } from "./views/generic.js";

/** Family and view names as the service spells them (anything else names no module, and asks for none). */
const FAMILY = /^[a-z][a-z0-9-]*$/;
/** Per module: a promise of its view, asked for once; and the view itself once it has come, so that a
 * game of a loaded kind is chosen at once (the page loads the listed games' views before it is ready). */
const loaded = new Map();
const ready = new Map();
/** Views whose controls are set up: a view several families share (the heap games') is set up once. */
const wired = new WeakSet();
/** Per family: the view ListGames names for its games. */
const declared = new Map();

const familyOf = (game) => game.split(":")[0];
/** The module showing `game`: its declared view's, else its family's. */
const moduleOf = (game) => declared.get(familyOf(game)) ?? familyOf(game);

export function viewOf(game) {
  const module = moduleOf(game);
  if (!FAMILY.test(module)) return Promise.resolve(generic);
  if (!loaded.has(module)) loaded.set(module, load(module));
  return loaded.get(module);
}

/** The view of `game` if it has come already, else undefined. */
export const loadedView = (game) => (FAMILY.test(moduleOf(game)) ? ready.get(moduleOf(game)) : generic);

/** Loads the views of `games` (ListGames' entries), noting the views they declare. */
export function loadViews(games) {
  for (const game of games) if (game.view && FAMILY.test(game.view)) declared.set(familyOf(game.id), game.view);
  return Promise.all(games.map((game) => viewOf(game.id)));
}

async function load(family) {
  let view;
  try {
    view = (await import(`./views/${family}.js`)).default;
  } catch (error) {
    // A family without a view is expected (its module's fetch fails: a TypeError); a view that fails to
    // run is a bug, reported, and the game is still shown by the generic view.
    if (!(error instanceof TypeError)) console.error(`the view of ${family} did not load:`, error);
    view = generic;
  }
  if (!wired.has(view)) {
    view.setUp(); // outside the try: a view whose controls fail is a bug to see, not a missing view
    wired.add(view);
  }
  ready.set(family, view);
  return view;
}
