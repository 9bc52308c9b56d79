// tic-tac-toe (and its misère form) is a grid game: shown by the grid view.
export { default } from "./grid.js";
