// What the position panel shows and plays, shared by the panel, the sections that follow its game (stats)
// and the kinds' views (they draw the position and play its moves).

export const state = {
  /** ListGames' entries. */
  games: [],
  /** The game id, and the view of its kind (views/<family>.js, or the generic one). */
  game: "nim",
  view: null,
  position: "",
  /** GetValue's answer, and BestMove's moves (movesKnown: whether they could be listed). */
  value: null,
  moves: [],
  movesKnown: false,
  /** Whose move it is ("you" or "nimbase"), whether the game is over, whether a lookup is under way. */
  turn: "you",
  over: false,
  busy: false,
  /** Counters that make late answers harmless: a lookup's, and a game's (a new start drops a reply). */
  token: 0,
  session: 0,
  history: [],
  /** A puzzle's fewest presses at its start, said when it is solved. */
  fewestAtStart: null,
  /** Whether the person set "nimbase answers my moves" (else each kind chooses). */
  autoReplyChosen: false,
};

/** Whether a move may be played now (no lookup under way, the game not over, the person's turn). */
export const playable = () => !state.busy && !state.over && state.turn === "you";
