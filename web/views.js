// Which view shows a game: the module views/<family>.js, the family being the game id's part before its
// first ':' (`lights-out:5x5` -> views/lights-out.js), so that a kind's view is one file added there and
// this page names none. A family without a module gets the generic view: the value, the ranked moves,
// and play by clicking a move.

import { generic } from "./views/generic.js";

/** Family names as the service spells them (anything else names no module, and asks for none). */
const FAMILY = /^[a-z][a-z0-9-]*$/;
/** Per family: a promise of its view, asked for once; and the view itself once it has come, so that a
 * game of a loaded kind is chosen at once (the page loads the listed games' views before it is ready). */
const loaded = new Map();
const ready = new Map();
/** Views whose controls are set up: a view several families share (the heap games') is set up once. */
const wired = new WeakSet();

const familyOf = (game) => game.split(":")[0];

export function viewOf(game) {
  const family = familyOf(game);
  if (!FAMILY.test(family)) return Promise.resolve(generic);
  if (!loaded.has(family)) loaded.set(family, load(family));
  return loaded.get(family);
}

/** The view of `game` if it has come already, else undefined. */
export const loadedView = (game) => (FAMILY.test(familyOf(game)) ? ready.get(familyOf(game)) : generic);

/** Loads the views of `games` (ListGames' ids). */
export const loadViews = (games) => Promise.all(games.map(viewOf));

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
