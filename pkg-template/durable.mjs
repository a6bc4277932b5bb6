// A session kept in storage: drives a contextview Session over any SessionStorage (storage.mjs).
//
// The Session is a state machine that never does I/O: each command returns effects as data.
// This driver performs them — `persist` becomes storage.append() followed by session.ack() with
// what happened (committed, not_committed when the write surely failed, indeterminate when the
// answer was lost) — and hands `notify` and `compactionDue` to the host's callbacks. After a
// crash or a lost answer, `reconcile()` converges memory to what storage really holds. The same
// code runs in Node, browsers and workerd; each entry point binds its own Session class.

import { ContextviewError, ContextviewTypeError } from './errors.mjs';
import { AnswerStream, checkOptions } from './receive.mjs';
import { send } from './send.mjs';

/** Bytes of records between checkpoints a session that lets go writes besides its compactions'. */
const CHECKPOINT_EVERY = 4 << 20;

/** Errors after which storage surely holds nothing of the batch. */
const REFUSED = new Set(['write_failed', 'seq_gap', 'seq_conflict', 'header_conflict', 'missing_header', 'invalid_line']);

export class DurableSession {
  /** @type {any} the wasm Session */
  session;
  /** @type {import('./index').SessionStorage} */
  storage;
  /** What load() left out when the session was opened (e.g. a torn tail). */
  loadDiagnostics = [];
  /** The last storage failure, or null. */
  lastStorageError = null;
  #onNotify;
  #onCompactionDue;
  #reconcileNeeded = false;

  constructor(session, storage, { onNotify, onCompactionDue, releaseStored, checkpointEvery } = {}) {
    if (releaseStored !== undefined && typeof releaseStored !== 'boolean') {
      throw new ContextviewTypeError('options.releaseStored', '`options.releaseStored` must be a boolean');
    }
    if (checkpointEvery !== undefined && checkpointEvery !== null && !(Number.isSafeInteger(checkpointEvery) && checkpointEvery > 0)) {
      throw new ContextviewTypeError('options.checkpointEvery', '`options.checkpointEvery` must be a number of bytes, or null');
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
  }

  /**
   * Opens the session `storage` holds, or a new one named `sessionId` when it holds nothing.
   * @param {any} Session the wasm Session class
   */
  static async open(Session, storage, options = {}) {
    if (storage === null || typeof storage !== 'object' || typeof storage.load !== 'function' || typeof storage.append !== 'function') {
      throw new ContextviewTypeError('storage', '`storage` must be a SessionStorage (load() and append(lines))');
    }
    if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
    // From the last checkpoint, when the storage can read the tail alone.
    if (typeof storage.loadTail === 'function' && typeof storage.loadHistory === 'function') {
      const tail = await storage.loadTail();
      const session = tail && Session.fromTail(tail.head, tail.tail);
      if (session) return new DurableSession(session, storage, options);
    }
    const { text, diagnostics } = await storage.load();
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
   * that restarts finds the child where it left it).
   * @param {any} Session the wasm Session class
   */
  static async forSubagent(Session, start, storage, options = {}) {
    if (start === null || typeof start !== 'object' || typeof start.header !== 'object' || start.header === null) {
      throw new ContextviewTypeError('start', '`start` must be the `child` of a `startSubagent` reply');
    }
    if (storage === null || typeof storage !== 'object' || typeof storage.load !== 'function' || typeof storage.append !== 'function') {
      throw new ContextviewTypeError('storage', '`storage` must be a SessionStorage (load() and append(lines))');
    }
    const { text } = await storage.load();
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
   * (`{id, command, reply?, error?, effects}`). A command's own failure is data, not a throw.
   */
  async dispatch(command, now) {
    // A session opened from its tail reads the rest of the log before what needs all of it.
    if (command?.type === 'rewind' || command?.type === 'snapshot') await this.#giveHistory();
    let processed = this.session.dispatch(command, now);
    // A request that sends whole again what the session let go: what the attempt wrote goes to
    // storage, what it asked for is read back, and the command runs again (a few times at most:
    // a compaction may need more than one read).
    for (let tries = 0; tries < 4 && processed.error?.code === 'history_needed'; tries++) {
      await this.#perform(processed.effects);
      processed.effects = [];
      if (!(await this.#readBack())) break;
      processed = this.session.dispatch(command, now);
    }
    await this.#perform(processed.effects);
    if (this.#reconcileNeeded) {
      // The command itself is done: a failure to read storage now is reported, not thrown (a
      // caller retrying the command would write it twice). What storage made memory give up
      // comes back in `reconciled.dropped`.
      try {
        processed.reconciled = await this.reconcile();
      } catch (e) {
        this.lastStorageError = e;
        this.#reconcileNeeded = true;
      }
    }
    return processed;
  }

  /**
   * The session's snapshot (`Session.restore` gives it back). A session opened from its log's
   * last checkpoint reads the history before it from storage first.
   */
  async snapshot() {
    await this.#giveHistory();
    return this.session.snapshot();
  }

  /** Sends again whatever storage has not confirmed. */
  flush(now) {
    return this.dispatch({ type: 'flush' }, now);
  }

  /**
   * Reads storage and converges memory to it; what memory held beyond it is stored again, and
   * memory's records that storage holds otherwise come back in `dropped`.
   */
  async reconcile() {
    this.#reconcileNeeded = false;
    const { text } = await this.storage.load();
    const result = this.session.reconcile(text);
    await this.#perform(result.effects);
    return result;
  }

  /**
   * Builds the next request as the `buildRequest` command does (the session's model unless the
   * options name another; its tools recorded when they change) and stores what the build wrote
   * (reminders drained into the log, the tools) before resolving. A refusal throws with its code.
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
    return new AnswerStream(this.session, (command, now) => this.dispatch(command, now), source, options);
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
   * (a direct call on `session`, such as session.buildString(), included).
   */
  async settle() {
    await this.#perform(this.session.takeEffects());
  }

  /**
   * Reads back what the session asked for: the records that set the tool results it let go
   * (loadRecords), else the history it let go or opened without. False when it asked for none.
   */
  async #readBack() {
    const seqs = this.session.neededRecords?.() ?? [];
    if (seqs.length > 0 && typeof this.storage.loadRecords === 'function') {
      this.session.provideRecords(await this.storage.loadRecords(seqs));
      return true;
    }
    if (!this.session.needsHistory?.()) return false;
    await this.#giveHistory();
    return true;
  }

  /** Reads the records the session let go, or opened without, when it wants them. */
  async #giveHistory() {
    if (this.session.needsHistory?.()) this.session.provideHistory(await this.storage.loadHistory(this.session.historyThrough?.() ?? undefined));
  }

  async #perform(effects) {
    for (const effect of effects) {
      switch (effect.type) {
        case 'persist':
          await this.#persist(effect);
          break;
        case 'notify':
          this.#onNotify?.(effect.notification);
          break;
        case 'compactionDue':
          this.#onCompactionDue?.(effect);
          break;
        default:
          throw new ContextviewError('internal', `unknown effect ${effect.type}`);
      }
    }
  }

  async #persist({ ticket, lines }) {
    let outcome = 'committed';
    try {
      await this.storage.append(lines);
      this.lastStorageError = null;
    } catch (e) {
      this.lastStorageError = e;
      outcome = REFUSED.has(e?.code) ? 'not_committed' : 'indeterminate';
      // Storage holds something else than memory thinks: read it before going on.
      if (['seq_gap', 'seq_conflict', 'header_conflict', 'missing_header'].includes(e?.code)) this.#reconcileNeeded = true;
    }
    this.session.ack(ticket, outcome);
  }
}
