// A provider's answer into a session, as it streams: the host's `fetch` brings the Response,
// this reads its status and headers first, then its body (any chunking), hands each chunk to the
// session's decoder, yields the ACP updates it completes (text and thought chunks, tool calls
// once whole) for the UI, and records the answer when the body ends — through `dispatch`, so a
// durable session stores it like any command. The package never opens a connection itself.
//
// What went wrong is the session's to decide (a status that is not 2xx makes the body an error;
// a dropped connection or a body that stopped early leaves a partial answer): this module only
// turns the recorded outcome into a ProviderError, after it is recorded.

import { ContextviewError, ContextviewTypeError, ProviderError } from './errors.mjs';
import { StorageError } from './storage.mjs';

export { ProviderError };

const encoder = new TextEncoder();
const asBytes = (value) => (typeof value === 'string' ? encoder.encode(value) : value instanceof Uint8Array ? value : new Uint8Array(value));

/** The body's chunks as Uint8Arrays: a Response or Request, a ReadableStream, an (async) iterable, text or bytes. */
async function* chunks(source) {
  if (typeof source === 'string' || source instanceof Uint8Array) {
    yield asBytes(source);
    return;
  }
  if (source instanceof ArrayBuffer) {
    yield new Uint8Array(source);
    return;
  }
  // A Response (what fetch gave) or a Request (a Worker relaying a streamed request body).
  const hasBody = source !== null && typeof source === 'object' && 'body' in source && typeof source.getReader !== 'function';
  const stream = hasBody ? source.body : source;
  if (stream === null || stream === undefined) return;
  if (typeof stream.getReader === 'function') {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield asBytes(value);
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof stream === 'string' || stream instanceof Uint8Array) {
    yield asBytes(stream);
    return;
  }
  if (typeof stream[Symbol.asyncIterator] === 'function' || typeof stream[Symbol.iterator] === 'function') {
    for await (const value of stream) yield asBytes(value);
    return;
  }
  throw new ContextviewTypeError('source', 'an answer is a Response, a ReadableStream, an iterable of chunks, a string or bytes');
}

/** A Response's status and headers (names in lower case), when the source is one. */
function headOf(source) {
  if (source === null || typeof source !== 'object' || typeof source.status !== 'number') return null;
  const headers = {};
  const h = source.headers;
  if (h && typeof h.forEach === 'function') h.forEach((value, name) => (headers[String(name).toLowerCase()] = String(value)));
  else if (h && typeof h === 'object') for (const [name, value] of Object.entries(h)) headers[name.toLowerCase()] = String(value);
  return { status: source.status, headers };
}

/** Whether an error is the host's own abort (not the provider's failure). */
const isAbort = (e) => e?.name === 'AbortError' || e?.name === 'TimeoutError';

/**
 * An answer being received: iterate it for the updates as they decode; `done()` reads what is
 * left and resolves to the processed `endAnswer` (`reply.answer` says what the model said and
 * which tools to run). When the answer is not whole — the provider answered with an error, the
 * connection dropped, the body stopped before the provider finished — both throw the same
 * ProviderError, once what arrived is recorded. When storage does not take the answer, both
 * throw a StorageError; `done()` called again once storage is back stores it and goes on.
 */
export class AnswerStream {
  #session;
  #dispatch;
  #source;
  #options;
  #flush;
  #iterator = null;
  #processed = null;
  #failure = null;
  /** The answer recorded in memory that storage did not take: `{dropped, head}` for its outcome. */
  #stalled = null;

  /**
   * @param {(now?: string) => Promise<unknown>} [flush] stores what is pending (a durable
   *   session's), so that done() can go on after a storage failure
   */
  constructor(session, dispatch, source, options = {}, flush = undefined) {
    this.#session = session;
    this.#dispatch = dispatch;
    this.#source = source;
    this.#options = options;
    this.#flush = flush;
  }

  async *#run() {
    const { provider, model, now, attempt } = this.#options;
    const head = headOf(this.#source);
    const begin = { type: 'beginAnswer', ...(provider ? { provider } : {}), ...(model ? { model } : {}), ...(head ?? {}), ...(attempt ? { attempt } : {}) };
    let begun;
    try {
      begun = await this.#dispatch(begin, now);
    } catch (e) {
      throw this.#fail(e);
    }
    if (begun.error) throw this.#fail(new ContextviewError(begun.error.code, begun.error.message));
    let dropped = null;
    let ended = false;
    try {
      for await (const chunk of chunks(this.#source)) {
        for (const update of this.#session.answerBytes(chunk)) yield update;
      }
      ended = true;
    } catch (e) {
      // A wrong source is the host's mistake, not the provider's: nothing is recorded.
      if (e instanceof ContextviewTypeError) {
        await this.#dispatch({ type: 'endAnswer', discard: true }, now);
        throw this.#fail(e);
      }
      dropped = e;
    } finally {
      // Whatever happened to the body, what arrived is recorded (marked partial if cut short);
      // a consumer that stops iterating early stopped reading it.
      const reason = dropped ? `${dropped?.name ?? 'Error'}: ${dropped?.message ?? dropped}` : ended ? undefined : 'the host stopped reading the answer';
      try {
        this.#processed = await this.#dispatch({ type: 'endAnswer', ...(reason ? { dropped: reason } : {}) }, now);
      } catch (e) {
        // Recorded in memory, not stored: done() again stores it and goes on from here.
        if (e instanceof StorageError && e.processed) {
          this.#processed = e.processed;
          this.#stalled = { dropped, head };
        }
        throw this.#fail(e);
      }
    }
    // What only the end completed (a whole body's blocks, calls closed by the end).
    for (const update of this.#processed.reply?.updates ?? []) yield update;
    this.#outcome(dropped, head);
  }

  /** What the recorded end means for the caller: nothing (a whole answer), or the error to throw. */
  #outcome(dropped, head) {
    if (this.#processed.error) throw this.#fail(new ContextviewError(this.#processed.error.code, this.#processed.error.message));
    // The host's own abort is the host's: rethrown as it was, after what arrived is recorded.
    if (dropped && isAbort(dropped)) throw this.#fail(dropped);
    const answer = this.#processed.reply?.answer;
    if (answer && answer.status !== 'complete') {
      const error = new ProviderError(this.#processed, dropped ? { cause: dropped } : {});
      error.headers = head?.headers ?? {};
      throw this.#fail(error);
    }
  }

  #fail(error) {
    this.#failure = error;
    return error;
  }

  [Symbol.asyncIterator]() {
    this.#iterator ??= this.#run();
    return this.#iterator;
  }

  /**
   * Reads the rest; resolves to the processed `endAnswer`, or throws what the iteration threw.
   * After a StorageError, stores what is pending first and then resolves (or throws) as the
   * answer's end says.
   */
  async done() {
    if (this.#failure) {
      if (!(this.#stalled && this.#flush)) throw this.#failure;
      const { dropped, head } = this.#stalled;
      await this.#flush(this.#options.now).catch((e) => {
        throw this.#fail(e);
      });
      this.#stalled = null;
      this.#failure = null;
      this.#outcome(dropped, head);
      return this.#processed;
    }
    const iterator = this[Symbol.asyncIterator]();
    for (;;) {
      const { done } = await iterator.next();
      if (done) break;
    }
    if (this.#failure) throw this.#failure;
    return this.#processed;
  }

  /** True after a StorageError that done() can go on from once storage is back. */
  get stalled() {
    return this.#stalled !== null && this.#flush !== undefined;
  }
}

/** Receives `source` into a plain Session (records are handed to the host as persist effects). */
export function receive(session, source, options = {}) {
  if (session === null || typeof session !== 'object' || typeof session.dispatch !== 'function' || typeof session.answerBytes !== 'function') {
    throw new ContextviewTypeError('session', '`session` must be a Session');
  }
  checkOptions(options);
  return new AnswerStream(session, (command, now) => session.dispatch(command, now), source, options);
}

/** Receive options: an object, its `attempt` a whole number. */
export function checkOptions(options) {
  if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
  const { attempt } = options;
  if (attempt !== undefined && !(Number.isInteger(attempt) && attempt >= 0)) throw new ContextviewTypeError('options.attempt', `\`options.attempt\` must be a whole number, not ${typeof attempt === 'symbol' ? 'a symbol' : String(attempt)}`);
}
