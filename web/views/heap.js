// Heap games (Nim, subtraction and octal games, Grundy's game): the panel's value and ranked moves, and
// the plot following the game with its single heaps (GetSequence's default family).

import { generic } from "./generic.js";

export default {
  ...generic,
  sequences: { families: ["heap"], first: "" },
};
