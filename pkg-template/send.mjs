// One model turn that survives the provider: build the request, send it with the host's
// `fetch`, receive the answer — and when it did not come whole, do what the session decided:
// wait and send again after a retryable failure (a 429, an overload, a 5xx, a dropped
// connection: the session says how long), build again after a recovery (the images stripped
// after a 413, old tool results pruned after a context-length refusal — or the context compacted,
// through the same fetcher, when pruning cannot make room), and ask the model to go on after an
// answer the output limit cut short or Anthropic paused. An answer that does not end the turn —
// a refusal, a blocked prompt, an answer still cut after the last continuation — is thrown, never
// returned as the model being done. Every attempt is recorded in the log as it went; the package
// still never opens a connection itself.
//
// A storage that does not take what the turn wrote stops it with a StorageError before anything
// more is sent; `done()` called again once storage is back stores what is pending and goes on
// from there (a request that was sent is never sent twice for it).

import { ContextviewError, ContextviewTypeError, ProviderError } from './errors.mjs';
import { AnswerStream } from './receive.mjs';
import { StorageError } from './storage.mjs';

const encoder = new TextEncoder();

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

/** Context-length recoveries one turn makes at most; each must send a smaller request. */
const MAX_RECOVERIES = 3;

/**
 * The compaction a DurableSession's effects asked for and no turn ran yet: durable.mjs notes
 * each `compactionDue` effect it performs here, and a turn takes it.
 * @type {WeakMap<object, object>}
 */
const compactionsDue = new WeakMap();

/** Notes that `durable`'s session asked for a compaction (`effect`), for its next turn. */
export function noteCompactionDue(durable, effect) {
  compactionsDue.set(durable, effect);
}

function check(fetcher, options) {
  if (typeof fetcher !== 'function') throw new ContextviewTypeError('fetcher', '`fetcher` must be a function (body, {signal, attempt}) => Promise<Response>');
  if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
  for (const key of ['maxRetries', 'maxContinuations']) {
    const n = options[key];
    if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new ContextviewTypeError(`options.${key}`, `\`options.${key}\` must be a whole number, not ${n}`);
  }
  for (const key of ['onRetry', 'onUpdate', 'sleep']) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new ContextviewTypeError(`options.${key}`, `\`options.${key}\` must be a function`);
  }
  if (options.compaction !== undefined && options.compaction !== 'auto' && options.compaction !== 'off') {
    throw new ContextviewTypeError('options.compaction', `\`options.compaction\` must be 'auto' or 'off', not ${JSON.stringify(options.compaction)}`);
  }
  if (options.build !== undefined && (options.build === null || typeof options.build !== 'object' || Array.isArray(options.build))) {
    throw new ContextviewTypeError('options.build', '`options.build` must be an object of build options');
  }
}

/** A Response's status and headers (names in lower case), when it is one. */
function headOf(response) {
  if (response === null || typeof response !== 'object' || typeof response.status !== 'number') return {};
  const headers = {};
  response.headers?.forEach?.((value, name) => (headers[String(name).toLowerCase()] = String(value)));
  return { status: response.status, headers };
}

/**
 * A turn being sent: iterate it for the ACP updates of every attempt as they decode; `done()`
 * runs it to the end and resolves to `{answer, answers, toolCalls, text, attempts, errors,
 * compactions}`, or throws the error that ended it — iterating and `done()` the same way. A
 * ProviderError when the provider did not let the turn end (not retryable, retries spent, a
 * refusal, the output limit after the last continuation, a prompt over the window); a
 * StorageError when storage did not take what the turn wrote (call `done()` again once it is
 * back).
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
  /** Where the turn stands, kept between runs: a storage failure stops it, done() goes on. */
  #state = {
    answers: [],
    errors: [],
    retries: 0,
    continuations: 0,
    attempts: 0,
    compactions: 0,
    recoveries: 0,
    stripped: false,
    /** The bytes of the last request refused as too long: the next must be smaller. */
    refusedBytes: null,
    /** The answer storage did not take (its AnswerStream), to go on from. */
    stalled: null,
  };

  constructor(target, fetcher, options) {
    this.#target = target;
    this.#fetcher = fetcher;
    this.#options = options;
  }

  async *#run() {
    const { build = {}, maxRetries = 2, maxContinuations = 3, signal, onRetry, onUpdate, now, provider, model, compaction = 'auto' } = this.#options;
    const wait = this.#options.sleep ?? sleep;
    const st = this.#state;
    for (;;) {
      let stream = st.stalled;
      st.stalled = null;
      let sent = null;
      if (!stream) {
        signal?.throwIfAborted();
        // The session asked for a compaction (its context is over the threshold): first that.
        if (compaction === 'auto' && this.#target.takeCompactionDue()) await this.#compact(null);
        const { body } = await this.#target.build(build);
        // After a context-length refusal, the request must be smaller than the refused one:
        // when pruning did not make it so, the context is compacted; when nothing does, the
        // refusal stands.
        if (st.refusedBytes !== null && body.byteLength >= st.refusedBytes) {
          const refusal = st.errors.at(-1);
          if (compaction === 'auto' && st.recoveries < MAX_RECOVERIES) {
            st.recoveries += 1;
            await this.#compact(refusal);
            continue;
          }
          throw refusal;
        }
        sent = body.byteLength;
        st.attempts += 1;
        try {
          const response = await this.#fetcher(body, { signal, attempt: st.retries });
          stream = this.#target.receive(response, { now, provider, model, attempt: st.retries });
        } catch (e) {
          if (signal?.aborted) throw e;
          // No response at all (refused, reset, DNS): a dropped connection, recorded as one.
          stream = this.#target.receive(failedFetch(e), { now, provider, model, attempt: st.retries });
        }
      }
      let processed;
      try {
        if (!stream.stalled) {
          for await (const update of stream) {
            onUpdate?.(update);
            yield update;
          }
        }
        processed = await stream.done();
      } catch (e) {
        // Storage did not take the answer: stopped here; done() again goes on from it.
        if (e instanceof StorageError) {
          if (stream.stalled) st.stalled = stream;
          throw e;
        }
        if (!(e instanceof ProviderError)) throw e;
        st.errors.push(e);
        if (e.code === 'context_length_exceeded' && st.recoveries < MAX_RECOVERIES) {
          // The session made room (pruned, or asks for a compaction): the next request is built
          // at once, and must be smaller than this one.
          st.recoveries += 1;
          st.refusedBytes = sent ?? st.refusedBytes;
          onRetry?.(e, { attempt: st.retries, delayMs: 0 });
          if (e.recovery === 'compact') {
            if (compaction !== 'auto') throw e;
            await this.#compact(e);
          }
          continue;
        }
        if (e.recovery === 'strip_images' && !st.stripped) {
          // The session changed what the next build sends: send that at once.
          st.stripped = true;
          onRetry?.(e, { attempt: st.retries, delayMs: 0 });
          continue;
        }
        if (e.retryable && st.retries < maxRetries) {
          onRetry?.(e, { attempt: st.retries, delayMs: e.retryAfterMs });
          await wait(e.retryAfterMs, signal);
          st.retries += 1;
          continue;
        }
        throw e;
      }
      st.refusedBytes = null;
      const answer = processed.reply.answer;
      st.answers.push(answer);
      // A refusal or a blocked prompt is not the model being done: the same request would be
      // refused again (the session's next build says so until the input changes).
      if (answer.ending === 'refused') throw new ProviderError(processed);
      // Cut by the output limit, or paused by the provider: the next build asks to go on.
      if (ENDINGS_TO_CONTINUE.has(answer.ending) && answer.toolCalls.length === 0) {
        if (st.continuations < maxContinuations) {
          st.continuations += 1;
          st.retries = 0;
          continue;
        }
        throw new ProviderError(processed, { code: 'turn_unfinished' });
      }
      return {
        answer,
        answers: st.answers,
        toolCalls: answer.toolCalls,
        text: st.answers.map((a) => a.text).join(''),
        attempts: st.attempts,
        errors: st.errors,
        compactions: st.compactions,
      };
    }
  }

  /**
   * Compacts the session's context through the host's fetcher: the summary request the session
   * prepares, sent (and sent again after a retryable failure, as any request), its answer read
   * — not recorded as the conversation's — and the summary applied. `refusal` is the
   * context-length refusal that asked for it, thrown when nothing is left to compact.
   */
  async #compact(refusal) {
    const { build = {}, maxRetries = 2, signal, onRetry, now } = this.#options;
    const wait = this.#options.sleep ?? sleep;
    const job = await this.#target.dispatch({ type: 'prepareCompaction', options: { build } }, now);
    if (job.error) {
      // Everything is recent already: a refusal stands; a threshold crossed is left to pruning.
      if (job.error.code === 'nothing_to_compact') {
        if (refusal) throw refusal;
        return;
      }
      throw new ContextviewError(job.error.code, `the context could not be compacted: ${job.error.message}`);
    }
    const body = encoder.encode(job.reply.body);
    let answer;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let read = { body: '', attempt };
      try {
        const response = await this.#fetcher(body, { signal, attempt, purpose: 'compaction' });
        read = { ...headOf(response), body: '', attempt };
        read.body = typeof response?.text === 'function' ? await response.text() : String(response ?? '');
      } catch (e) {
        if (signal?.aborted) throw e;
        // No answer, or one cut short: read as what arrived (an answer that did not end).
      }
      answer = this.#target.readAnswer(read, now);
      if (answer.status === 'complete') break;
      const error = new ProviderError({ reply: { type: 'answered', answer } });
      if (answer.retry?.retryable && attempt < maxRetries) {
        onRetry?.(error, { attempt, delayMs: answer.retry.afterMs });
        await wait(answer.retry.afterMs, signal);
        continue;
      }
      throw error;
    }
    const applied = await this.#target.dispatch({ type: 'applyCompaction', summary: answer.text }, now);
    if (applied.error) throw new ContextviewError(applied.error.code, `the summary the model wrote could not be applied: ${applied.error.message}`);
    this.#state.compactions += 1;
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

  /**
   * Runs the turn to its end: its answer, or the error that ended it. After a StorageError,
   * called again once storage is back, it stores what is pending and goes on from there.
   */
  async done() {
    if (this.#failure instanceof StorageError) {
      // Go on from where storage stopped the turn (nothing sent is sent twice for it).
      this.#failure = null;
      this.#iterator = null;
    }
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
 * What `send` needs of a session: build, receive, dispatch, read an answer without recording
 * it, and whether a compaction was asked for. A DurableSession stores what each writes; a plain
 * Session leaves its effects to the host, as its other commands do.
 */
function target(session, effects) {
  if (typeof session.settle === 'function') {
    return {
      build: (options) => session.buildBytes(options),
      receive: (source, options) => session.receive(source, options),
      dispatch: (command, now) => session.dispatch(command, now),
      readAnswer: (answer, now) => session.session.readAnswer(answer, now),
      takeCompactionDue() {
        const due = compactionsDue.get(session);
        compactionsDue.delete(session);
        return due ?? null;
      },
    };
  }
  let scanned = 0;
  const dispatch = (command, now) => {
    const processed = session.dispatch(command, now);
    effects.push(...processed.effects);
    return processed;
  };
  return {
    // The `buildRequest` command: the session's model unless the options name another, and
    // its tools recorded when they change — as a DurableSession builds.
    build(options) {
      const processed = dispatch({ type: 'buildRequest', options });
      if (processed.error) {
        const { code, message, violations } = processed.error;
        throw new ContextviewError(code, message, violations?.length ? { details: { violations } } : {});
      }
      return { body: encoder.encode(processed.reply.body), report: processed.reply.report };
    },
    receive: (source, options) => new AnswerStream(session, dispatch, source, options),
    dispatch,
    readAnswer: (answer, now) => session.readAnswer(answer, now),
    takeCompactionDue() {
      const due = effects.slice(scanned).find((e) => e.type === 'compactionDue') ?? null;
      scanned = effects.length;
      return due;
    },
  };
}

/**
 * Sends one turn of `session` (a plain Session, or a DurableSession, whose effects it performs)
 * with `fetcher(body, {signal, attempt, purpose?})`, the host's call to the provider (`purpose`
 * is `'compaction'` for a summary request). `options.build` are the build options (tools,
 * providerOptions, …); `maxRetries` (2, as the official SDKs), `maxContinuations` (3),
 * `compaction` (`'auto'`: the turn compacts when the session asks; `'off'`: the host does),
 * `signal`, `onUpdate(update)` (each ACP update as it decodes, for a host that only awaits
 * `done()`), `onRetry(error, {attempt, delayMs})`, `sleep(ms, signal)`.
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
