// The public REST API (v1) as the page calls it: JSON whose large integers stay exact, and errors that
// keep the service's code and the job it names.

/** Positions per POST /v1/values:batch (the server takes up to 10,000 by default). */
export const BATCH = 8192;

/** JSON with integers beyond 2^53 kept exact as BigInt (Nim's values reach 2^63-1). */
export function parseJson(text) {
  return JSON.parse(text, (key, value, context) =>
    typeof value === "number" && !Number.isSafeInteger(value) && context && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}

export class ApiError extends Error {
  constructor(status, error) {
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || `HTTP ${status}`;
    this.job = error.job || null;
  }
}

export async function api(path, params = {}, init = undefined) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value)); // "" is a position
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let body = null;
  try {
    body = text ? parseJson(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = body && body.error ? body.error : { message: text.slice(0, 300) };
    throw new ApiError(response.status, error);
  }
  return body;
}

/** One POST /v1/values:batch: the values of `positions` (at most BATCH) in request order. */
export function valuesBatch(game, positions) {
  return api("/v1/values:batch", {}, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, positions }),
  });
}

/** Called when an error names the job computing what a request needs (the job list then looks at once);
 * set by the job list, so that this module needs none of the page. */
let jobNamed = () => {};

export function onJobNamed(callback) {
  jobNamed = callback;
}

export function describeError(error) {
  if (!(error instanceof ApiError)) return String((error && error.message) || error);
  let text = `${error.code}: ${error.message}`;
  if (error.job) {
    text += `\nJob ${error.job.id} (${error.job.status}) is computing what this needs; it shows in the job list.`;
    jobNamed();
  }
  return text;
}
