// The generic view: how the position panel shows a game whose kind has no view of its own (the value, the
// ranked moves, play by clicking a move), and the defaults a kind's view starts from. A view is a plain
// object; a kind's module exports `{ ...generic, ...what differs }` as its default. The panel calls these
// members, and the kind's section (a board, the heaps) is the view's alone to make (`kindSection`, in
// `setUp`), draw and hide.

import { show } from "../dom.js";

/** Moves asked for per position: BestMove ranks them all, but a huge heap has millions. */
export const MOVE_LIMIT = 500;

/** The value's fields the panel shows itself; any other is the kind's (`valueFields`). */
export const PANEL_FIELDS = new Set(["game", "position", "outcome", "grundy", "remoteness", "source", "note"]);

/** A kind's field of the value as text: a list joined by spaces, a record as JSON. */
export const fieldText = (value) =>
  Array.isArray(value) ? value.join(" ") : value !== null && typeof value === "object" ? JSON.stringify(value) : show(value);

/** A value field the panel lists: its name (the item's id is `value-NAME`, `_` as `-`), its heading
 * (`label`, else the name) and tooltip, its text and class, and the panel's field it follows (`after`:
 * "outcome", "grundy" or "remoteness"). */
export const field = (name, text, { label = name, title = "", className = "", after = "remoteness" } = {}) => ({
  name,
  text,
  label,
  title,
  className,
  after,
});

/** A column of the move table: its heading, its text for a move, and its cell's class for that text
 * (used for the first column after "leads to", which is coloured). */
export const column = (name, of, classOf = (text) => `outcome-${text}`) => ({ name, of, classOf });

export const generic = {
  /** "nimbase answers my moves" starts unticked: games explored more than played. */
  analysis: false,
  /** A one-player puzzle: nobody answers a move. */
  puzzle: false,
  /** The plot's families for the game ({families, first}: offered, and drawn first), or null for a game
   * without one-parameter sequences (the plot keeps what it shows). */
  sequences: null,
  /** Whether the value's Grundy number is shown, its heading, and what its remoteness counts. */
  showsGrundy: true,
  grundyLabel: "grundy",
  remotenessLabel: "remoteness",
  /** The move table's heading for the move, and the class of the "leads to" cells. */
  moveHead: "move",
  positionClass: "mono",
  /** Whether a lookup answered in another game id (`value.game`, a capture's table) switches to it. */
  followsAnswer: false,

  /** Once, when the view is first loaded: its section's own controls. */
  setUp() {},
  /** The line describing `game` (ListGames' `entry` is its own, or its family's when not `exact`), or
   * null for the panel's. */
  describe(game, entry, exact) {
    return null;
  },
  /** The ListGames entry the game chooser shows for an id the list does not hold, or null. */
  listedAs(game, games) {
    return null;
  },
  /** A promise of the example positions offered for `game`, from ListGames' `listed`. */
  examples(game, listed) {
    return Promise.resolve(listed);
  },
  /** Why no position of `game` can be looked up yet (its id leaves something open), else null; then
   * `prompt()` points the person at what to fill in. */
  pending(game) {
    return null;
  },
  prompt() {},
  /** The game id `position` is looked up in, and how many moves are asked for. */
  gameOf(game, position) {
    return game;
  },
  moveLimit(game, position) {
    return MOVE_LIMIT;
  },
  /** The game chosen (the panel cleared): show the kind's section. */
  open(game) {},
  /** The game left or cleared: hide the kind's section and forget what was picked on it. */
  clear() {},
  /** A new start from a position; a move the person plays. */
  started() {},
  played(move) {},
  /** A lookup's answer is in `state` (value and moves), before its turn is settled; then settled. */
  looked() {},
  render() {},
  /** The kind's own fields of the value (`field`s) the panel lists beside its own: by default every field
   * the panel does not show itself, by name, so a kind without a view shows all it answers. */
  valueFields(value) {
    return Object.keys(value)
      .filter((name) => !PANEL_FIELDS.has(name))
      .map((name) => field(name, fieldText(value[name])));
  },
  /** A move as a person reads it (the move table's buttons, the history), and its button's tooltip. */
  moveLabel(move) {
    return move.move;
  },
  moveTitle(move) {
    return `play ${this.moveLabel(move)}`;
  },
  /** The value in words, given the outcome's (`outcome`). */
  meaning(value, outcome) {
    return outcome;
  },
  /** Writes whose turn it is into `element` and says true, or says false for the panel's words. */
  turn(element) {
    return false;
  },
  /** The move table's columns after "leads to". */
  moveColumns() {
    return [
      column("outcome", (move) => move.outcome),
      column("grundy", (move) => show(move.grundy)),
      column("remoteness", (move) => show(move.remoteness)),
    ];
  },
  /** A row of the move table, made for `move` (Bicolor Nim points at the stones a move takes). */
  decorateMoveRow(row, move) {},
  /** The note beside "Moves" when some are listed, or null for the panel's. */
  movesNote() {
    return null;
  },
};

export default generic;
