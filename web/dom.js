// Small helpers over the page's document, shared by every section and view.

import { describeError } from "./api.js";

const SVG_NS = "http://www.w3.org/2000/svg";

export const $ = (id) => document.getElementById(id);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shows `error` (or hides the message when null) in the error line `id`. */
export function showError(id, error) {
  const element = $(id);
  element.hidden = error === null;
  element.textContent = error === null ? "" : describeError(error);
}

/** A value as shown: a dash where the answer has none. */
export const show = (value) => (value === undefined || value === null ? "—" : String(value));

export function svg(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

/** A kind's own section of the position panel, made from its markup by its view (once, when the view is
 * set up) and added hidden where the panel keeps them (`#kind-sections`): the page names no kind. */
export function kindSection(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup.trim();
  const section = template.content.firstElementChild;
  section.hidden = true;
  $("kind-sections").appendChild(section);
  return section;
}

/** A kind's own card on the page (shown whatever game the panel plays), made by its view when set up and
 * added where the page keeps them (`#kind-cards`, between the plot and the stats). */
export function kindCard(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup.trim();
  const card = template.content.firstElementChild;
  $("kind-cards").appendChild(card);
  return card;
}

/** A kind's style sheet (`url`, beside its view's module), linked once when the view is set up. */
export function kindStyle(url) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = String(url);
  document.head.appendChild(link);
}

/** An SVG drawing replaced by one line of text (a board too large to draw, a graph that cannot be read). */
export function svgMessage(drawing, width, message) {
  drawing.replaceChildren();
  drawing.setAttribute("viewBox", `0 0 ${width} 30`);
  drawing.setAttribute("width", String(width));
  drawing.setAttribute("height", "30");
  svg("text", { x: 0, y: 18 }, drawing).textContent = message;
}

/** `<dt>key</dt><dd data-key=key>text</dd>` for each [key, text] pair, for a `<dl>`. */
export function terms(items) {
  return items.flatMap(([key, text]) => {
    const term = document.createElement("dt");
    term.textContent = key;
    const detail = document.createElement("dd");
    detail.textContent = text;
    detail.dataset.key = key;
    return [term, detail];
  });
}

/** Round, readable steps (1, 2, 5 times a power of ten) for about `count` ticks over `span`. */
export function niceStep(span, count) {
  const raw = Math.max(span / count, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
  return 10 * power;
}

/** A field's whole number as a BigInt, else an error naming the field and quoting its text. */
export function parseCount(text, name) {
  const trimmed = String(text).trim();
  if (!/^\d+$/.test(trimmed)) throw new Error(`${name} must be a whole number, got '${text}'`);
  return BigInt(trimmed);
}
