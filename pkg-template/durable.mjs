// A session kept in storage: drives a contextview Session over any SessionStorage (storage.mjs).
//
// The Session is a state machine that never does I/O: each command returns effects as data.
// This driver performs them — `persist` becomes storage.append() followed by session.ack() with
// what happened (committed, not_committed when the write surely failed, indeterminate when the
// answer was lost or did not come within the deadline) — and hands `notify` and `compactionDue`
// to the host's callbacks. After a crash or a lost answer, `reconcile()` converges memory to what
// storage really holds. The same code runs in Node, browsers and workerd; each entry point binds
// its own Session class.
//
// The session never runs ahead of its storage: a call whose records storage did not take rejects
// with a StorageError (nothing it wrote is reported stored), and the next call stores what is
// pending before it does anything else — so no request is built, and none sent, ahead of the
// records it follows. The same call made again once storage is back (the same command; a turn's
// `done()`) stores what is pending and returns what the first one did, without running it twice.

import { ContextviewError, ContextviewTypeError } from './errors.mjs';
import { AnswerStream, checkOptions } from './receive.mjs';
import { noteCompactionDue, send } from './send.mjs';
import { StorageError } from './storage.mjs';

/** Bytes of records between checkpoints a session that lets go writes besides its compactions'. */
const CHECKPOINT_EVERY = 4 << 20;

/** How long a storage may take to answer one call before it counts as failed (ms). */
const STORAGE_TIMEOUT = 30_000;

/** Errors after which storage surely holds nothing of the batch. */
const REFUSED = new Set(['write_failed', 'seq_gap', 'seq_conflict', 'header_conflict', 'missing_header', 'invalid_line']);

/** Refusals that say storage holds something else than memory thinks: read it before going on. */
const OUT_OF_STEP = new Set(['seq_gap', 'seq_conflict', 'header_conflict', 'missing_header']);

/** What identifies a command made again (its JSON), or null when it has none. */
function commandKey(command) {
  try {
    return JSON.stringify(command) ?? null;
  } catch {
    return null;
  }
}

export class DurableSession {
  /** @type {any} the wasm Session */
  session;
  /** @type {import('./index').SessionStorage} */
  storage;
  /** What load() left out when the session was opened (e.g. a torn tail). */
  loadDiagnostics = [];
  /** The last storage failure, or null once storage took everything again. */
  lastStorageError = null;
  #onNotify;
  #onCompactionDue;
  #reconcileNeeded = false;
  /** How long storage may take to answer a call (ms), or null: as long as it takes. */
  #timeoutMs;
  /** Storage failures of the effects being performed: the first, or null. */
  #failure = null;
  /** The last command whose records storage did not take: `{key, processed}` (its retry returns it). */
  #unstoredCommand = null;

  constructor(session, storage, { onNotify, onCompactionDue, releaseStored, checkpointEvery, storageTimeoutMs } = {}) {
    if (releaseStored !== undefined && typeof releaseStored !== 'boolean') {
      throw new ContextviewTypeError('options.releaseStored', '`options.releaseStored` must be a boolean');
    }
    if (checkpointEvery !== undefined && checkpointEvery !== null && !(Number.isSafeInteger(checkpointEvery) && checkpointEvery > 0)) {
      throw new ContextviewTypeError('options.checkpointEvery', '`options.checkpointEvery` must be a number of bytes, or null');
    }
    const timeout = timeoutOf(storageTimeoutMs);
    for (const [name, f] of [['onNotify', onNotify], ['onCompactionDue', onCompactionDue]]) {
      if (f !== undefined && typeof f !== 'function') throw new ContextviewTypeError(`options.${name}`, `\`options.${name}\` must be a function`);
    }
    this.session = session;
    this.storage = storage;
    // Records storage confirmed leave memory when storage can read them back (loadHistory): a
    // long session holds its replay and its view, not its log. Its checkpoints then hold what
    // its requests reach, so it writes one every few MB too: a session that prunes and never
    // compacts still reopens from near its end.
    const release = releaseStored !== false && typeof storage?.loadHistory === 'function';
    if (release) session.setReleaseStored?.(true);
    const every = checkpointEvery !== undefined ? checkpointEvery : release ? CHECKPOINT_EVERY : undefined;
    if (every !== undefined) session.setCheckpointEvery?.(every);
    this.#onNotify = onNotify;
    this.#onCompactionDue = onCompactionDue;
    this.#timeoutMs = timeout;
  }

  /**
   * Opens the session `storage` holds, or a new one named `sessionId` when it holds nothing.
   * @param {any} Session the wasm Session class
   */
  static async open(Session, storage, options = {}) {
    checkStorage(storage);
    if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
    const timeout = timeoutOf(options.storageTimeoutMs);
    // From the last checkpoint, when the storage can read the tail alone.
    if (typeof storage.loadTail === 'function' && typeof storage.loadHistory === 'function') {
      const tail = await answered(storage.loadTail(), timeout, 'read_failed', 'loadTail()');
      const session = tail && Session.fromTail(tail.head, tail.tail);
      if (session) return new DurableSession(session, storage, options);
    }
    const { text, diagnostics } = await answered(storage.load(), timeout, 'read_failed', 'load()');
    let session;
    if (text === '') {
      if (typeof options.sessionId !== 'string' || options.sessionId === '') {
        throw new ContextviewTypeError('options.sessionId', 'storage is empty: give options.sessionId for a new session');
      }
      session = Session.create(options.sessionId);
    } else {
      session = Session.fromLog(text);
    }
    const durable = new DurableSession(session, storage, options);
    durable.loadDiagnostics = diagnostics;
    return durable;
  }

  /**
   * A subagent's session in `storage`, as the parent's `startSubagent` reply describes it
   * (`reply.child`): made and stored when `storage` is empty, opened as stored otherwise (a host
   * that restarts finds the child where it left it). Rejects with a StorageError when storage
   * does not take the child's first records.
   * @param {any} Session the wasm Session class
   */
  static async forSubagent(Session, start, storage, options = {}) {
    if (start === null || typeof start !== 'object' || typeof start.header !== 'object' || start.header === null) {
      throw new ContextviewTypeError('start', '`start` must be the `child` of a `startSubagent` reply');
    }
    checkStorage(storage);
    if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
    const timeout = timeoutOf(options.storageTimeoutMs);
    const { text } = await answered(storage.load(), timeout, 'read_failed', 'load()');
    if (text !== '') return DurableSession.open(Session, storage, options);
    const durable = new DurableSession(Session.forSubagent(start), storage, options);
    await durable.settle();
    return durable;
  }

  /** The text of the model's last turn: what a subagent reports (`endSubagent`'s `report`). */
  finalAnswer() {
    return this.session.finalAnswer();
  }

  /**
   * Processes one command and performs its effects; resolves to the processed command
   * (`{id, command, reply?, error?, effects}`) once storage took what it wrote. A command's own
   * failure is data, not a throw. When storage did not take its records, rejects with a
   * StorageError (`processed`: what the command did in memory; `unstored`: the records storage
   * has not confirmed): the same command dispatched again stores them and resolves to that
   * `processed` without running it twice, and any other call stores them first.
   */
  async dispatch(command, now) {
    const key = this.#unstoredCommand ? commandKey(command) : null;
    if (this.#unstored()) await this.#store(now);
    if (this.#unstoredCommand && command?.type !== 'flush') {
      const { key: failed, processed } = this.#unstoredCommand;
      this.#unstoredCommand = null;
      // The same command again: it ran, and what it wrote is stored now.
      if (key !== null && key === failed) return processed;
    }
    // A command that needs records storage keeps (a rewind, a snapshot, a request that sends
    // whole what the session let go) waits for them: its read effect is answered with them, and
    // it runs then, once.
    const processed = await this.#run(this.session.dispatch(command, now));
    await this.#reconcileIfNeeded(processed);
    // A command given up for want of its records ran nothing to return again.
    this.#throwIfUnstored(processed, processed.error?.code === 'records_unavailable' ? undefined : command);
    return processed;
  }

  /**
   * The session's snapshot (`Session.restore` gives it back). A session opened from its log's
   * last checkpoint, or one that let go of what storage holds, reads the records it lacks from
   * storage first (the `snapshot` command asks for them).
   */
  async snapshot() {
    const processed = await this.dispatch({ type: 'snapshot' });
    if (processed.error) throw new ContextviewError(processed.error.code, processed.error.message);
    const { type: _, ...snapshot } = processed.reply;
    return snapshot;
  }

  /**
   * Stores whatever storage has not confirmed; rejects with a StorageError when it still
   * cannot.
   */
  flush(now) {
    return this.dispatch({ type: 'flush' }, now);
  }

  /**
   * Reads storage and converges memory to it; what memory held beyond it is stored again, and
   * memory's records that storage holds otherwise come back in `dropped`.
   */
  async reconcile() {
    const result = await this.#reconcile();
    this.#throwIfUnstored(null);
    return result;
  }

  /** reconcile() without the check that storage took what it sent again. */
  async #reconcile() {
    this.#reconcileNeeded = false;
    const { text } = await this.#read(this.storage.load(), 'load()');
    const result = this.session.reconcile(text);
    await this.#perform(result.effects);
    return result;
  }

  /**
   * Builds the next request as the `buildRequest` command does (the session's model unless the
   * options name another; its tools recorded when they change) and stores what the build wrote
   * (reminders drained into the log, the tools) before resolving. A refusal throws with its
   * code; a storage that did not take the records rejects with a StorageError, and no request
   * is returned.
   */
  async buildString(options = {}) {
    const processed = await this.dispatch({ type: 'buildRequest', options });
    if (processed.error) throw new ContextviewError(processed.error.code, processed.error.message, processed.error.violations?.length ? { details: { violations: processed.error.violations } } : {});
    return { body: processed.reply.body, report: processed.reply.report, diagnostics: [] };
  }

  /** As buildString(), with the payload as an object. */
  async build(options = {}) {
    const { body, report, diagnostics } = await this.buildString(options);
    return { payload: JSON.parse(body), report, diagnostics };
  }

  /** As buildString(), with the body as UTF-8 bytes (what `fetch` takes as it is). */
  async buildBytes(options = {}) {
    const { body, report, diagnostics } = await this.buildString(options);
    return { body: new TextEncoder().encode(body), report, diagnostics };
  }

  /**
   * Receives a provider's answer (a Response, a ReadableStream, chunks, text or bytes): iterate
   * for the updates as they decode; the answer is stored when the body ends (see AnswerStream).
   */
  receive(source, options = {}) {
    checkOptions(options);
    return new AnswerStream(this.session, (command, now) => this.dispatch(command, now), source, options, (now) => this.flush(now));
  }

  /**
   * Sends one turn with `fetcher(body, {signal, attempt})` (the host's call to the provider):
   * built, sent, received and stored, retried after a retryable failure, built again after a
   * recovery, and continued after an answer the output limit cut short (see send.mjs).
   */
  send(fetcher, options = {}) {
    return send(this, fetcher, options);
  }

  /**
   * Performs every effect the session has queued: its one queue holds what any input left
   * (a direct call on `session`, such as session.buildString(), included). Rejects with a
   * StorageError when storage does not take what is pending.
   */
  async settle() {
    if (this.#unstored()) await this.#store();
    await this.#perform(this.session.takeEffects());
    await this.#reconcileIfNeeded(null);
    this.#throwIfUnstored(null);
  }

  /** Whether records the session wrote are not confirmed stored. */
  #unstored() {
    return this.session.persistence().pending.length > 0;
  }

  /** Stores what is pending (the `flush` command's batch); a StorageError when storage does not take it. */
  async #store(now) {
    const processed = this.session.dispatch({ type: 'flush' }, now);
    await this.#perform(processed.effects);
    await this.#reconcileIfNeeded(null);
    this.#throwIfUnstored(null);
  }

  /**
   * After a batch storage refused as out of step: reads storage and converges to it. A failure
   * to read is reported as the storage error it is.
   */
  async #reconcileIfNeeded(processed) {
    if (!this.#reconcileNeeded) return;
    try {
      const reconciled = await this.#reconcile();
      if (processed) processed.reconciled = reconciled;
      // Memory's own records that storage holds otherwise are gone from the session: the
      // command's writes were not stored, and the call says so.
      if (reconciled.dropped.length > 0) {
        const cause = this.#failure ?? this.lastStorageError;
        this.#failure = null;
        this.lastStorageError = cause;
        throw storageError(cause, { processed, reconciled, unstored: [] },
          `storage holds other records than this session wrote (another writer?): ${reconciled.dropped.length} of its lines were dropped for storage's (\`reconciled.dropped\`)`);
      }
    } catch (e) {
      if (e instanceof StorageError && e.reconciled) throw e;
      this.#reconcileNeeded = true;
      this.#failure ??= e;
      this.lastStorageError = e;
    }
  }

  /** Throws the StorageError of the effects just performed when anything is left unstored. */
  #throwIfUnstored(processed, command) {
    const failure = this.#failure;
    this.#failure = null;
    const unstored = this.session.persistence().pending.map((p) => p.seq);
    if (unstored.length === 0) {
      this.lastStorageError = null;
      return;
    }
    if (processed && command) this.#unstoredCommand = { key: commandKey(command), processed };
    throw storageError(failure ?? this.lastStorageError, { processed, unstored });
  }

  /**
   * Performs a processed command's effects, in order. A read effect is answered from storage,
   * which runs the command that waited: what it did then takes the place of the wait, its
   * effects performed in turn, every effect kept in `effects`.
   */
  async #run(processed) {
    let effects = processed.effects;
    for (;;) {
      const ran = await this.#perform(effects);
      if (!ran) return processed;
      effects = ran.effects;
      processed = { ...ran, effects: [...processed.effects, ...ran.effects] };
    }
  }

  /**
   * Answers a command's read effect: the records that set the tool results the session let go
   * (loadRecords), else the history it let go or opened without (loadHistory, which holds
   * them too). Resolves to what the command did once answered. When what the command wrote was
   * not stored, or storage cannot read, the command is given up (`records_unavailable`); a
   * failed read rejects with its StorageError.
   */
  async #answer(effect) {
    if (this.#failure) return this.session.abandon();
    try {
      if (effect.type === 'readRecords' && typeof this.storage.loadRecords === 'function') {
        return this.session.provideRecords(await this.#read(this.storage.loadRecords(effect.seqs), 'loadRecords()'));
      }
      if (typeof this.storage.loadHistory !== 'function') {
        throw new StorageError('read_failed', `command ${effect.command} waits for records this storage cannot read back (it has no loadHistory())`);
      }
      // Records asked for are among the history (storage without loadRecords reads that).
      const through = effect.type === 'readHistory' ? effect.through : this.session.historyThrough() ?? undefined;
      return this.session.provideHistory(await this.#read(this.storage.loadHistory(through), 'loadHistory()'));
    } catch (e) {
      this.session.abandon();
      throw e;
    }
  }

  /** A storage read, within the deadline. */
  #read(promise, what) {
    return answered(promise, this.#timeoutMs, 'read_failed', what);
  }

  /** Performs `effects` in order; resolves to what a command that waited did once answered, or null. */
  async #perform(effects) {
    let ran = null;
    for (const effect of effects) {
      switch (effect.type) {
        case 'readHistory':
        case 'readRecords':
          ran = await this.#answer(effect);
          break;
        case 'persist':
          await this.#persist(effect);
          break;
        case 'notify':
          this.#onNotify?.(effect.notification);
          break;
        case 'retryAfter':
          // The wait before sending again: the turn that sent the request waits on it (send.mjs
          // reads it from the processed answer's effects, as its ProviderError's retryAfterMs).
          break;
        case 'compactionDue':
          // The next turn `send` runs compacts first (unless told not to), and the host hears it.
          noteCompactionDue(this, effect);
          this.#onCompactionDue?.(effect);
          break;
        default:
          throw new ContextviewError('internal', `unknown effect ${effect.type}`);
      }
    }
    return ran;
  }

  async #persist({ ticket, lines }) {
    // After a failed batch, the later ones of the same round would only be refused as a gap:
    // they wait, with it, for the next call.
    if (this.#failure) {
      this.session.ack(ticket, 'not_committed');
      return;
    }
    let outcome = 'committed';
    try {
      await answered(this.storage.append(lines), this.#timeoutMs, null, 'append()');
    } catch (e) {
      this.#failure = e;
      this.lastStorageError = e;
      outcome = REFUSED.has(e?.code) ? 'not_committed' : 'indeterminate';
      // Storage holds something else than memory thinks: read it before going on.
      if (OUT_OF_STEP.has(e?.code)) this.#reconcileNeeded = true;
    }
    this.session.ack(ticket, outcome);
  }
}

/** A storage, checked: load() and append(lines) at least. */
function checkStorage(storage) {
  if (storage === null || typeof storage !== 'object' || typeof storage.load !== 'function' || typeof storage.append !== 'function') {
    throw new ContextviewTypeError('storage', '`storage` must be a SessionStorage (load() and append(lines))');
  }
}

/** `options.storageTimeoutMs`, checked: the default when absent, null for none. */
function timeoutOf(ms) {
  if (ms !== undefined && ms !== null && !(Number.isFinite(ms) && ms > 0)) {
    throw new ContextviewTypeError('options.storageTimeoutMs', '`options.storageTimeoutMs` must be a number of milliseconds above 0, or null');
  }
  return ms === undefined ? STORAGE_TIMEOUT : ms;
}

/**
 * `promise` (a storage call), or a StorageError `timeout` when it does not settle within `ms`.
 * With `code`, a rejection that is not a StorageError becomes one (its `cause` the error); without,
 * it is passed on as it came (a write's failure is wrapped once, where the call rejects).
 */
async function answered(promise, ms, code, what) {
  let timer;
  const deadline = ms === null ? null : new Promise((_, reject) => {
    timer = setTimeout(() => reject(new StorageError('timeout', `storage did not answer ${what} within ${ms} ms`)), ms);
  });
  try {
    return await (deadline ? Promise.race([promise, deadline]) : promise);
  } catch (e) {
    if (e instanceof StorageError || code === null) throw e;
    throw new StorageError(code, `storage failed in ${what}: ${e?.message ?? e}`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The StorageError a call rejects with when storage did not take what it wrote: the storage's
 * own code (`write_failed`, `timeout`, `seq_conflict`, …), its error as `cause`, what the call did
 * in memory (`processed`) and the records storage has not confirmed (`unstored`).
 */
function storageError(failure, { processed = null, unstored, reconciled }, said) {
  const code = failure?.code && STORAGE_CODES.has(failure.code) ? failure.code : 'write_failed';
  const records = unstored.length === 0 ? '' : unstored.length === 1 ? `record ${unstored[0]}` : `records ${unstored[0]}–${unstored.at(-1)}`;
  const message = said ?? `storage did not take ${records}: ${failure?.message ?? 'no answer'} — nothing after it is sent; call again (the same command, or flush()) once storage is back`;
  const error = new StorageError(code, message, { cause: failure });
  error.processed = processed;
  error.unstored = unstored;
  if (reconciled) error.reconciled = reconciled;
  return error;
}

const STORAGE_CODES = new Set(['invalid_line', 'missing_header', 'header_conflict', 'seq_conflict', 'seq_gap', 'write_failed', 'read_failed', 'timeout']);
