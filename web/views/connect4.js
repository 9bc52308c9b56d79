// Connect Four is a grid game: shown by the grid view (a click in a column drops a piece there).
export { default } from "./grid.js";
