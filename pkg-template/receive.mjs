// A provider's answer into a session, as it streams: the host's `fetch` brings the Response,
// this reads its body (any chunking), hands each chunk to the session's decoder, yields the ACP
// updates it completes (text and thought chunks, tool calls once whole) for the UI, and records
// the answer when the body ends — through `dispatch`, so a durable session stores it like any
// command. The package never opens a connection itself.

/** The provider's error, after what arrived before it was recorded. */
export class ProviderError extends Error {
  constructor(processed) {
    const error = processed.reply?.answer?.error ?? {};
    super(`the provider answered with an error: ${error.kind ?? 'error'}: ${error.message ?? ''}`);
    this.name = 'ProviderError';
    this.code = 'provider_error';
    /** `{kind, message, status?}` as the provider sent it. */
    this.providerError = error;
    /** The processed `endAnswer` (what was recorded). */
    this.processed = processed;
  }
}

/** The body's chunks as Uint8Arrays: a Response or Request, a ReadableStream, an (async) iterable, text or bytes. */
async function* chunks(source) {
  const encoder = new TextEncoder();
  if (typeof source === 'string') {
    yield encoder.encode(source);
    return;
  }
  if (source instanceof Uint8Array) {
    yield source;
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
        yield typeof value === 'string' ? encoder.encode(value) : value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof stream[Symbol.asyncIterator] === 'function' || typeof stream[Symbol.iterator] === 'function') {
    for await (const value of stream) yield typeof value === 'string' ? encoder.encode(value) : value;
    return;
  }
  throw Object.assign(new TypeError('an answer is a Response, a ReadableStream, an iterable of chunks, a string or bytes'), {
    code: 'invalid_argument',
  });
}

/**
 * An answer being received: iterate it for the updates as they decode; `done()` reads what is
 * left and resolves to the processed `endAnswer` (`reply.answer` says what the model said and
 * which tools to run). When the provider answered with an error, both throw a ProviderError
 * once what arrived is recorded.
 */
export class AnswerStream {
  #session;
  #dispatch;
  #source;
  #options;
  #iterator = null;
  #processed = null;

  constructor(session, dispatch, source, options = {}) {
    this.#session = session;
    this.#dispatch = dispatch;
    this.#source = source;
    this.#options = options;
  }

  async *#run() {
    const { provider, model, now } = this.#options;
    const begun = await this.#dispatch({ type: 'beginAnswer', ...(provider ? { provider } : {}), ...(model ? { model } : {}) }, now);
    if (begun.error) throw Object.assign(new Error(begun.error.message), { code: begun.error.code });
    try {
      for await (const chunk of chunks(this.#source)) {
        for (const update of this.#session.answerBytes(chunk)) yield update;
      }
    } finally {
      // Whatever happened to the body, what arrived is recorded (marked partial if cut short).
      this.#processed = await this.#dispatch({ type: 'endAnswer' }, now);
    }
    // What only the end completed (a whole body's blocks, calls closed by the end).
    for (const update of this.#processed.reply?.updates ?? []) yield update;
    if (this.#processed.error) throw Object.assign(new Error(this.#processed.error.message), { code: this.#processed.error.code, processed: this.#processed });
    if (this.#processed.reply?.answer?.status === 'failed') throw new ProviderError(this.#processed);
  }

  [Symbol.asyncIterator]() {
    this.#iterator ??= this.#run();
    return this.#iterator;
  }

  async done() {
    const iterator = this[Symbol.asyncIterator]();
    for (;;) {
      const { done } = await iterator.next();
      if (done) break;
    }
    return this.#processed;
  }
}

/** Receives `source` into a plain Session (records are handed to the host as persist effects). */
export function receive(session, source, options = {}) {
  return new AnswerStream(session, (command, now) => session.dispatch(command, now), source, options);
}
