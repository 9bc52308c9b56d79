// octal is a heap game: shown by the heap games' view.
export { default } from "./heap.js";
