// One model turn that survives the provider: build the request, send it with the host's
// `fetch`, receive the answer — and when it did not come whole, do what the session decided:
// wait and send again after a retryable failure (a 429, an overload, a 5xx, a dropped
// connection: the session says how long), build again after a recovery (the images stripped
// after a 413, old tool results pruned after a context-length refusal), and ask the model to go
// on after an answer the output limit cut short or Anthropic paused. Every attempt is recorded
// in the log as it went; the package still never opens a connection itself.

import { ContextviewError, ContextviewTypeError, ProviderError } from './errors.mjs';

const encoder = new TextEncoder();
import { AnswerStream } from './receive.mjs';

/** Sleeps `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const ENDINGS_TO_CONTINUE = new Set(['output_limit', 'paused']);

function check(fetcher, options) {
  if (typeof fetcher !== 'function') throw new ContextviewTypeError('fetcher', '`fetcher` must be a function (body, {signal, attempt}) => Promise<Response>');
  if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
  for (const key of ['maxRetries', 'maxContinuations']) {
    const n = options[key];
    if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new ContextviewTypeError(key, `\`${key}\` must be a whole number, not ${n}`);
  }
  for (const key of ['onRetry', 'onUpdate', 'sleep']) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new ContextviewTypeError(key, `\`${key}\` must be a function`);
  }
}

/**
 * A turn being sent: iterate it for the ACP updates of every attempt as they decode; `done()`
 * runs it to the end and resolves to `{answer, answers, toolCalls, text, attempts, errors}`, or
 * throws the ProviderError that ended it (not retryable, or retries spent) — both the same way.
 */
export class Turn {
  /**
   * For a plain Session: the effects of every command the turn ran (persist, notify,
   * compactionDue), in order, for the host to perform. A DurableSession performs its own.
   */
  effects = [];
  #target;
  #fetcher;
  #options;
  #iterator = null;
  #result = null;
  #failure = null;

  constructor(target, fetcher, options) {
    this.#target = target;
    this.#fetcher = fetcher;
    this.#options = options;
  }

  async *#run() {
    const { build = {}, maxRetries = 2, maxContinuations = 3, signal, onRetry, onUpdate, now, provider, model } = this.#options;
    const wait = this.#options.sleep ?? sleep;
    const answers = [];
    const errors = [];
    const recovered = new Set();
    let retries = 0;
    let continuations = 0;
    let attempts = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { body } = await this.#target.build(build);
      attempts += 1;
      let stream;
      try {
        const response = await this.#fetcher(body, { signal, attempt: retries });
        stream = this.#target.receive(response, { now, provider, model, attempt: retries });
      } catch (e) {
        if (signal?.aborted) throw e;
        // No response at all (refused, reset, DNS): a dropped connection, recorded as one.
        stream = this.#target.receive(failedFetch(e), { now, provider, model, attempt: retries });
      }
      let processed;
      try {
        for await (const update of stream) {
          onUpdate?.(update);
          yield update;
        }
        processed = await stream.done();
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        errors.push(e);
        const recovery = e.recovery;
        if ((recovery === 'strip_images' || recovery === 'prune') && !recovered.has(recovery)) {
          // The session changed what the next build sends: send that at once.
          recovered.add(recovery);
          onRetry?.(e, { attempt: retries, delayMs: 0 });
          continue;
        }
        if (e.retryable && retries < maxRetries) {
          onRetry?.(e, { attempt: retries, delayMs: e.retryAfterMs });
          await wait(e.retryAfterMs, signal);
          retries += 1;
          continue;
        }
        throw e;
      }
      const answer = processed.reply.answer;
      answers.push(answer);
      // Cut by the output limit, or paused by the provider: the next build asks to go on.
      if (ENDINGS_TO_CONTINUE.has(answer.ending) && answer.toolCalls.length === 0 && continuations < maxContinuations) {
        continuations += 1;
        retries = 0;
        continue;
      }
      return { answer, answers, toolCalls: answer.toolCalls, text: answers.map((a) => a.text).join(''), attempts, errors };
    }
  }

  [Symbol.asyncIterator]() {
    this.#iterator ??= this.#wrap();
    return this.#iterator;
  }

  async *#wrap() {
    try {
      this.#result = yield* this.#run();
    } catch (e) {
      this.#failure = e;
      throw e;
    }
  }

  /** Runs the turn to its end: its answer, or the error that ended it. */
  async done() {
    if (this.#failure) throw this.#failure;
    const iterator = this[Symbol.asyncIterator]();
    for (;;) {
      const { done } = await iterator.next();
      if (done) break;
    }
    if (this.#failure) throw this.#failure;
    return this.#result;
  }
}

/** A response that never came: a body whose stream fails at once with `error`. */
function failedFetch(error) {
  return new ReadableStream({
    start(controller) {
      controller.error(error);
    },
  });
}

/**
 * What `send` needs of a session: build and receive. A DurableSession stores what both write; a
 * plain Session leaves its effects to the host, as its other commands do.
 */
function target(session, effects) {
  if (typeof session.settle === 'function') {
    return { build: (options) => session.buildBytes(options), receive: (source, options) => session.receive(source, options) };
  }
  return {
    // The `buildRequest` command: the session's model unless the options name another, and
    // its tools recorded when they change — as a DurableSession builds.
    build(options) {
      const processed = session.dispatch({ type: 'buildRequest', options });
      effects.push(...processed.effects);
      if (processed.error) {
        const { code, message, violations } = processed.error;
        throw new ContextviewError(code, message, violations?.length ? { details: { violations } } : {});
      }
      return { body: encoder.encode(processed.reply.body), report: processed.reply.report };
    },
    receive(source, options) {
      const dispatch = (command, now) => {
        const processed = session.dispatch(command, now);
        effects.push(...processed.effects);
        return processed;
      };
      return new AnswerStream(session, dispatch, source, options);
    },
  };
}

/**
 * Sends one turn of `session` (a plain Session, or a DurableSession, whose effects it performs)
 * with `fetcher(body, {signal, attempt})`, the host's call to the provider. `options.build` are
 * the build options (tools, providerOptions, …); `maxRetries` (2, as the official SDKs),
 * `maxContinuations` (3), `signal`, `onUpdate(update)` (each ACP update as it decodes, for a
 * host that only awaits `done()`), `onRetry(error, {attempt, delayMs})`, `sleep(ms, signal)`.
 */
export function send(session, fetcher, options = {}) {
  check(fetcher, options);
  if (session === null || typeof session !== 'object' || typeof session.buildBytes !== 'function') {
    throw new ContextviewTypeError('session', '`session` must be a Session or a DurableSession');
  }
  const effects = [];
  const turn = new Turn(target(session, effects), fetcher, options);
  turn.effects = effects;
  return turn;
}
