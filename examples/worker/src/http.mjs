// Replies and request bodies: every refusal is JSON `{error: {code, message}}` with a 4xx status
// and a stable code; bodies are read with a byte limit, so an oversized one is refused before it
// is held in memory.

export class HttpError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function json(value, status = 200, headers = {}) {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** A reply made of JSON text already written (a stored reply, a body with its report). */
export function jsonText(text, status = 200, headers = {}) {
  return new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

export function errorResponse(e) {
  if (e instanceof HttpError || (e && Number.isInteger(e.status) && typeof e.code === 'string')) {
    return json({ error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } }, e.status);
  }
  // Not the client's doing: a bug or the platform. Logged, and answered without internals.
  console.error('internal error', e?.stack ?? e);
  return json({ error: { code: 'internal', message: 'the service failed; the request may be retried' } }, 500);
}

/** What is read and dropped of a body past its limit before the 413 is sent. */
const DRAIN_LIMIT = 1 << 20;

/** The body as text, refused with 413 past `limit` bytes (by Content-Length or as it streams). */
export async function readText(request, limit) {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, 'body_too_large', `the body is ${declared} bytes; the limit is ${limit}`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Read on (and drop) what is left up to a second limit, so a client still sending gets
      // the 413 rather than a connection closed under it; past that, stop reading.
      let drained = 0;
      for (;;) {
        const rest = drained < DRAIN_LIMIT ? await reader.read().catch(() => ({ done: true })) : { done: true };
        if (rest.done) break;
        drained += rest.value.byteLength;
      }
      await reader.cancel().catch(() => {});
      throw new HttpError(413, 'body_too_large', `the body is over the limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'invalid_utf8', 'the body is not UTF-8 text');
  }
}

/** The body as a JSON object, refused with 400 `invalid_json` when it is not one. */
export async function readJsonObject(request, limit) {
  const text = await readText(request, limit);
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'invalid_json', `the body is not JSON: ${e.message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'the body must be a JSON object');
  }
  return value;
}
