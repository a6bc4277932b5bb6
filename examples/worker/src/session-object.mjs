// One Durable Object per session: the session's log in the object's SQLite storage, a contextview
// Session in memory driven over it (DurableSession performs its effects), and the service's own
// table of idempotency keys. Requests reach it only through the Worker (index.mjs), which has
// authenticated them, checked their size and parsed their JSON.
//
// - Commands run one at a time, in the order they arrived (a promise chain), each answered with
//   its own result.
// - An idempotency key is stored in the same transaction as the log lines its command wrote, with
//   the reply those lines make; the full reply replaces it when the command finishes. A retry
//   with the key gets the stored reply and writes nothing.
// - When storage fails (or its answer is lost) the object forgets its memory: the next request
//   loads what storage holds, so memory never claims what storage does not, and a client retrying
//   with its key gets either the stored reply (the write happened) or one application.
// - `notify` effects (ACP `usage_update`) and `compactionDue` go to every WebSocket connected to
//   /events (the hibernation API: an idle socket costs the object nothing).
import { DurableObject } from 'cloudflare:workers';
import { Session, DurableSession, StorageError, durableObjectStorage, faultyStorage, importSession } from 'contextview';
import { HttpError, errorResponse, json, jsonText } from './http.mjs';

/**
 * Commands whose only writes are records their reply names (`accepted` with the seqs): if the
 * object stops after storing them and before answering, the lines alone make the reply.
 * The others (`buildRequest`, `prepareCompaction`) are reads apart from the reminders a build
 * drains into the log: a retry of one whose reply was lost runs it again, which builds the same
 * request from what is stored.
 */
const WRITES = new Set([
  'userMessage', 'assistantResponse', 'toolResult', 'recordUsage', 'switchModel', 'rewind', 'setPromptContext',
  'applyCompaction', 'enqueueReminder', 'recordEditedPath', 'flush', 'endSubagent',
]);

/**
 * The commands a client may send (the session's own set, less snapshot and restore; a subagent
 * is started through `POST …/subagents`, which makes its session too).
 */
export const COMMANDS = new Set([
  'userMessage', 'assistantResponse', 'toolResult', 'recordUsage', 'switchModel', 'rewind', 'setPromptContext',
  'prepareCompaction', 'applyCompaction', 'enqueueReminder', 'recordEditedPath', 'buildRequest', 'flush', 'endSubagent',
]);

const IDEM_TABLE = `CREATE TABLE IF NOT EXISTS svc_idempotency (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, reply TEXT NOT NULL, at INTEGER NOT NULL)`;
const LOG = 'session';
const MAX_SOCKETS = 64;
const FORMATS = new Set(['claude-code', 'codex', 'pi', 'gemini-cli', 'copilot-cli', 'aider', 'cline', 'roo-code', 'kilo-code', 'opencode']);

export class SessionObject extends DurableObject {
  #durable = null;
  #queue = Promise.resolve();
  #pendingKey = null; // {key, fingerprint, command} while a keyed command runs

  constructor(ctx, env) {
    super(ctx, env);
    this.env = env;
    ctx.storage.sql.exec(IDEM_TABLE);
    this.log = durableObjectStorage(ctx.storage, { log: LOG });
  }

  fetch(request) {
    const url = new URL(request.url);
    const action = url.pathname.slice(1);
    // A WebSocket is not a command: it attaches beside the queue.
    if (action === 'events') return this.#events(request);
    const run = async () => {
      try {
        return await this.#handle(action, request, url);
      } catch (e) {
        if (e instanceof HttpError) return errorResponse(e);
        if (e instanceof StorageError || e?.name === 'StorageError') {
          this.#forget();
          return errorResponse(new HttpError(503, 'storage_unavailable', 'the session storage failed; retry (with the same Idempotency-Key for a command)', { storage: e.code }));
        }
        // The library refused the input (a command or options it cannot take): the client's
        // doing, with the library's own code. Memory is untouched by a refusal.
        if (e && typeof e.code === 'string' && e.status === undefined && e.code !== 'internal') {
          return errorResponse(new HttpError(422, e.code, String(e.message)));
        }
        // Anything else may have left memory ahead of storage: start again from storage.
        this.#forget();
        return errorResponse(e);
      }
    };
    const reply = this.#queue.then(run);
    this.#queue = reply.then(() => {}, () => {});
    return reply;
  }

  async #handle(action, request, url) {
    const id = request.headers.get('x-cv-session');
    switch (action) {
      case 'open': return this.#openOrCreate(id);
      case 'state': return this.#state();
      case 'command': return this.#command(request);
      case 'build': return this.#build(request);
      case 'usage': return this.#usage(url);
      case 'log': return this.#exportLog();
      case 'import': return this.#import(id, request, url);
      case 'responses': return this.#responses(request, url);
      case 'subagent-start': return this.#startSubagent(request);
      case 'subagent-init': return this.#initSubagent(id, request);
      default: throw new HttpError(404, 'not_found', `no action ${action}`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Opening

  /** The session in memory, loaded from storage when needed; null when storage holds none. */
  async #load() {
    if (this.#durable) return this.#durable;
    const options = this.#options();
    // From the log's last checkpoint: the rows after it alone are read (the rest when a rewind
    // or an export needs them).
    const tail = await this.log.loadTail();
    const session = tail && Session.fromTail(tail.head, tail.tail);
    if (session) return (this.#durable = new DurableSession(session, this.#storageFor(), options));
    const { text } = await this.log.load();
    if (text === '') return null;
    this.#durable = new DurableSession(Session.fromLog(text), this.#storageFor(), options);
    return this.#durable;
  }

  /** What a DurableSession of this object tells its clients. */
  #options() {
    return {
      onNotify: (notification) => this.#broadcast({ type: 'notification', notification }),
      onCompactionDue: (effect) => this.#broadcast({ type: 'compactionDue', reason: effect.reason, usage: effect.usage }),
    };
  }

  async #require() {
    const durable = await this.#load();
    if (!durable) throw new HttpError(404, 'no_session', 'no such session: create it with PUT first');
    return durable;
  }

  /** Forgets memory: the next request reads what storage holds. */
  #forget() {
    this.#durable?.session.free();
    this.#durable = null;
  }

  async #openOrCreate(id) {
    const existing = await this.#load();
    if (existing) return json({ id, created: false, ...this.#summary(existing) });
    // The header is stored now, so a created session exists even before its first command.
    const header = JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId: id, createdAt: new Date().toISOString() });
    await this.log.append([header]);
    const durable = await this.#load();
    return json({ id, created: true, ...this.#summary(durable) }, 201);
  }

  #summary(durable) {
    const persistence = durable.session.persistence();
    return { records: durable.session.recordCount(), items: durable.session.itemCount(), committedThrough: persistence.committedThrough };
  }

  async #state() {
    const durable = await this.#require();
    return json({ ...this.#summary(durable), state: durable.session.state(), diagnostics: durable.session.diagnostics() });
  }

  // -------------------------------------------------------------------------------------------
  // Commands

  /**
   * The log's storage as the session sees it: while a keyed command runs, each append also
   * stores the key, in one transaction with the lines; a test may inject one storage fault.
   */
  #storageFor(fault) {
    const inner = this.log;
    const keyed = {
      load: () => inner.load(),
      loadHistory: (through) => inner.loadHistory(through),
      loadRecords: (seqs) => inner.loadRecords(seqs),
      append: (lines) => {
        const pending = this.#pendingKey;
        if (!pending) return inner.append(lines);
        return this.ctx.storage.transaction(async () => {
          const result = await inner.append(lines);
          const seqs = lines.map((l) => JSON.parse(l).seq).filter((s) => s !== undefined);
          const stored = this.ctx.storage.sql.exec('SELECT reply FROM svc_idempotency WHERE key = ?', pending.key).toArray()[0];
          const before = stored ? JSON.parse(stored.reply).reply?.seqs ?? [] : [];
          // What these lines alone answer, should the object stop before the full reply is
          // stored (status 0: provisional; see WRITES).
          const reply = JSON.stringify({ command: pending.command, reply: { type: 'accepted', seqs: [...before, ...seqs] }, recovered: true });
          this.ctx.storage.sql.exec('INSERT OR REPLACE INTO svc_idempotency (key, fingerprint, status, reply, at) VALUES (?, ?, 0, ?, ?)',
            pending.key, pending.fingerprint, reply, Date.now());
          return result;
        });
      },
      _writeTorn: (lines, keep) => inner._writeTorn(lines, keep),
    };
    return fault ? faultyStorage(keyed, [fault]) : keyed;
  }

  async #command(request) {
    const key = request.headers.get('idempotency-key');
    const fault = this.env.TEST_FAULTS === '1' ? request.headers.get('x-test-fault') : null;
    const command = JSON.parse(await request.text()); // the Worker parsed it already
    if (typeof command.type !== 'string' || !COMMANDS.has(command.type)) {
      throw new HttpError(400, 'unknown_command', `unknown command type ${JSON.stringify(command.type)} (known: ${[...COMMANDS].join(', ')})`);
    }
    const fingerprint = await sha256(canonical(command));
    if (key) {
      const row = this.ctx.storage.sql.exec('SELECT fingerprint, status, reply FROM svc_idempotency WHERE key = ?', key).toArray()[0];
      if (row) {
        if (row.fingerprint !== fingerprint) {
          throw new HttpError(409, 'idempotency_conflict', 'this idempotency key was used for a different command');
        }
        if (row.status !== 0) return jsonText(row.reply, row.status, { 'idempotent-replayed': 'true' });
        // Stored lines, lost reply: a write's lines are its reply; a read runs again.
        if (WRITES.has(command.type)) return jsonText(row.reply, 200, { 'idempotent-replayed': 'true' });
      }
    }
    const durable = await this.#require();
    if (fault) durable.storage = this.#storageFor(fault);
    this.#pendingKey = key ? { key, fingerprint, command: command.type } : null;
    let processed;
    try {
      processed = await this.#dispatch(durable, command,
        'the session could not store this command; retry it with the same Idempotency-Key (nothing is applied twice)');
    } finally {
      this.#pendingKey = null;
      if (fault) durable.storage = this.#storageFor();
    }
    const status = processed.error ? 422 : 200;
    const reply = replyText(processed);
    if (key) {
      // A read's reply (a whole request body) is not kept: a retry runs it again (see WRITES).
      const kept = WRITES.has(command.type) || processed.error ? [status, reply] : [0, JSON.stringify({ command: command.type })];
      this.#keep(key, fingerprint, kept[0], kept[1]);
    }
    return jsonText(reply, status);
  }

  /** Keeps a keyed reply for a retry window (IDEMPOTENCY_TTL_SECONDS, a day by default), not forever. */
  #keep(key, fingerprint, status, reply) {
    const now = Date.now();
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO svc_idempotency (key, fingerprint, status, reply, at) VALUES (?, ?, ?, ?, ?)',
      key, fingerprint, status, reply, now);
    const ttl = Number(this.env.IDEMPOTENCY_TTL_SECONDS);
    this.ctx.storage.sql.exec('DELETE FROM svc_idempotency WHERE at < ?', now - 1000 * (Number.isFinite(ttl) && ttl > 0 ? ttl : 86400));
  }

  /**
   * Runs a command through the durable session, which rejects when storage did not take what
   * the command wrote: memory is then dropped (the next request reads storage) and the client
   * gets a 503 naming the store's failure.
   */
  async #dispatch(durable, command, unstored) {
    try {
      return await durable.dispatch(command, new Date().toISOString());
    } catch (e) {
      if (!(e instanceof StorageError)) throw e;
      this.#forget();
      throw new HttpError(503, 'storage_unavailable', unstored, { storage: e.cause?.code ?? e.code });
    }
  }

  /**
   * A provider's answer, streamed in: each chunk goes to the session's decoder as it arrives and
   * the updates it completes go to the WebSocket clients; the answer is stored when the body
   * ends, as one command (keyed like commands: the key is stored with its lines). A body over
   * the limit is refused and nothing of it is stored.
   */
  async #responses(request, url) {
    const key = request.headers.get('idempotency-key');
    const max = Number(request.headers.get('x-cv-max-bytes'));
    const provider = url.searchParams.get('provider');
    const model = url.searchParams.get('model');
    const fingerprintOf = (bytes) => {
      const head = new TextEncoder().encode(`providerAnswer\n${provider ?? ''}\n${model ?? ''}\n`);
      const all = new Uint8Array(head.length + bytes.length);
      all.set(head);
      all.set(bytes, head.length);
      return crypto.subtle.digest('SHA-256', all).then((d) => [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join(''));
    };
    const chunks = [];
    let size = 0;
    const whole = () => {
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.byteLength;
      }
      return bytes;
    };
    const reader = request.body?.getReader();
    const read = async () => {
      const { done, value } = reader ? await reader.read() : { done: true };
      if (done) return null;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw new HttpError(413, 'body_too_large', `the body is over the limit of ${max} bytes`);
      }
      chunks.push(value);
      return value;
    };
    if (key) {
      const row = this.ctx.storage.sql.exec('SELECT fingerprint, status, reply FROM svc_idempotency WHERE key = ?', key).toArray()[0];
      if (row) {
        while (await read());
        if (row.fingerprint !== await fingerprintOf(whole())) throw new HttpError(409, 'idempotency_conflict', 'this idempotency key was used for a different answer');
        return jsonText(row.reply, row.status === 0 ? 200 : row.status, { 'idempotent-replayed': 'true' });
      }
    }
    const durable = await this.#require();
    const now = new Date().toISOString();
    // The provider's status and headers, when the relay passed them: a status that is not 2xx
    // makes the body the provider's error, whatever it holds.
    const providerStatus = Number(request.headers.get('x-provider-status'));
    const head = Number.isInteger(providerStatus) && providerStatus >= 100
      ? { status: providerStatus, headers: JSON.parse(request.headers.get('x-provider-headers') ?? '{}') }
      : {};
    const begin = { type: 'beginAnswer', ...(provider ? { provider } : {}), ...(model ? { model } : {}), ...head };
    const begun = await this.#dispatch(durable, begin, 'the session could not begin the answer; retry');
    if (begun.error) return json({ error: begun.error }, 422);
    // The relay said its connection to the provider dropped; or the body broke while it arrived.
    let dropped = request.headers.get('x-provider-dropped');
    try {
      for (let chunk; (chunk = await read()) !== null;) {
        for (const update of durable.session.answerBytes(chunk)) {
          this.#broadcast({ type: 'notification', notification: { sessionId: durable.session.state().sessionId, update } });
        }
      }
    } catch (e) {
      // Over the limit: nothing of it is kept. A body that broke: what arrived is the answer so far.
      if (e instanceof HttpError) {
        await durable.dispatch({ type: 'endAnswer', discard: true }, now);
        throw e;
      }
      dropped = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
    }
    const fingerprint = key ? await fingerprintOf(whole()) : null;
    this.#pendingKey = key ? { key, fingerprint, command: 'providerAnswer' } : null;
    let processed;
    try {
      processed = await this.#dispatch(durable, { type: 'endAnswer', ...(dropped ? { dropped } : {}) }, 'the answer could not be stored; retry it with the same Idempotency-Key');
    } finally {
      this.#pendingKey = null;
    }
    for (const update of processed.reply?.updates ?? []) {
      this.#broadcast({ type: 'notification', notification: { sessionId: durable.session.state().sessionId, update } });
    }
    const { status, error, headers } = answerStatus(processed);
    const reply = error ? JSON.stringify({ error, ...JSON.parse(replyText(processed)) }) : replyText(processed);
    if (key) this.#keep(key, fingerprint, status, reply);
    return jsonText(reply, status, headers);
  }

  async #build(request) {
    const options = JSON.parse(await request.text());
    const durable = await this.#require();
    const processed = await this.#dispatch(durable, { type: 'buildRequest', options },
      'the reminders this build drained could not be stored; retry');
    if (processed.error) return json({ error: processed.error }, 422);
    return jsonText(replyText(processed), 200);
  }

  async #usage(url) {
    const durable = await this.#require();
    const options = { provider: url.searchParams.get('provider') ?? 'anthropic' };
    const model = url.searchParams.get('model');
    if (model) options.model = model;
    const window = Number(url.searchParams.get('contextWindow'));
    if (Number.isInteger(window) && window > 0) options.contextWindow = window;
    return json(durable.session.usage(options));
  }

  /** The log as stored, streamed as JSON Lines in chunks. */
  async #exportLog() {
    await this.#require();
    const { text } = await this.log.load();
    const bytes = new TextEncoder().encode(text);
    const CHUNK = 64 * 1024;
    let at = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(at, at + CHUNK));
        at += CHUNK;
      },
    });
    return new Response(stream, { headers: { 'content-type': 'application/x-ndjson; charset=utf-8' } });
  }

  /**
   * The parent's side of a subagent: `startSubagent`, as the Worker wrote it. With a key, the
   * reply is kept like a command's: a retry replays it (the child's description with it) rather
   * than being refused as a second start of the call.
   */
  async #startSubagent(request) {
    const key = request.headers.get('idempotency-key');
    const command = JSON.parse(await request.text());
    const fingerprint = await sha256(canonical(command));
    if (key) {
      const row = this.ctx.storage.sql.exec('SELECT fingerprint, status, reply FROM svc_idempotency WHERE key = ?', key).toArray()[0];
      if (row && row.fingerprint !== fingerprint) throw new HttpError(409, 'idempotency_conflict', 'this idempotency key was used for a different command');
      if (row) return jsonText(row.reply, row.status, { 'idempotent-replayed': 'true' });
    }
    const durable = await this.#require();
    const processed = await this.#dispatch(durable, command, 'the session could not store the subagent\'s start; start it again');
    const status = processed.error ? 422 : 200;
    const reply = replyText(processed);
    if (key) this.#keep(key, fingerprint, status, reply);
    return jsonText(reply, status);
  }

  /** The child's side: its session made and stored from what its parent described (again: the one made). */
  async #initSubagent(id, request) {
    const start = JSON.parse(await request.text());
    const existing = await this.#load();
    if (existing) {
      // A start sent again (its reply lost, or the child's storage failed after storing it):
      // the child this parent's call made already.
      const state = existing.session.state();
      if (state.parentSessionId !== start?.header?.parentSessionId || state.parentCallId !== start?.header?.parentCallId) {
        throw new HttpError(409, 'session_exists', `session ${id} exists already`);
      }
      return json({ id, created: false, ...this.#summary(existing), parentSessionId: state.parentSessionId, parentCallId: state.parentCallId });
    }
    if (start?.header?.sessionId !== id) throw new HttpError(400, 'invalid_subagent', 'the child\'s header names another session');
    const fault = this.env.TEST_FAULTS === '1' ? request.headers.get('x-test-fault') : null;
    let durable;
    try {
      durable = await DurableSession.forSubagent(Session, start, this.#storageFor(fault), this.#options());
    } catch (e) {
      if (!(e instanceof StorageError)) throw e;
      this.#forget();
      throw new HttpError(503, 'storage_unavailable', 'the subagent\'s session could not be stored', { storage: e.cause?.code ?? e.code });
    }
    this.#durable = durable;
    return json({ id, created: true, ...this.#summary(durable), parentSessionId: start.header.parentSessionId, parentCallId: start.header.parentCallId }, 201);
  }

  async #import(id, request, url) {
    if (await this.#load()) throw new HttpError(409, 'session_exists', 'a session can only be imported into a new id');
    const format = url.searchParams.get('format');
    if (format !== null && !FORMATS.has(format)) throw new HttpError(400, 'unknown_format', `unknown format ${format} (claude-code, codex, pi, gemini-cli, copilot-cli, aider, cline, roo-code, kilo-code, opencode)`);
    const { log, report } = await importSession(await request.text(), format ?? undefined);
    const lines = log.split('\n').filter((l) => l !== '');
    await this.log.append(lines);
    const durable = await this.#load();
    // An imported log has no checkpoint: it is given one, so a cold start reads its tail alone.
    if (durable.session.checkpoint() !== null) await durable.settle();
    return json({ id, ...this.#summary(durable), report }, 201);
  }

  // -------------------------------------------------------------------------------------------
  // Notifications

  #events(request) {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return json({ error: { code: 'upgrade_required', message: 'connect with a WebSocket' } }, 426);
    }
    if (this.ctx.getWebSockets().length >= MAX_SOCKETS) {
      return json({ error: { code: 'too_many_sockets', message: `at most ${MAX_SOCKETS} sockets per session` } }, 429);
    }
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    // The token's expiry goes with the socket (it survives hibernation): past it, no more messages.
    const expires = Number(request.headers.get('x-cv-expires'));
    pair[1].serializeAttachment({ expires: Number.isFinite(expires) && expires > 0 ? expires : null });
    // Keep-alive pings are answered by the runtime without waking the object.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  #broadcast(message) {
    const text = JSON.stringify(message);
    const now = Date.now() / 1000;
    for (const socket of this.ctx.getWebSockets()) {
      try {
        const expires = socket.deserializeAttachment()?.expires;
        if (expires && expires <= now) {
          socket.close(4001, 'token expired');
          continue;
        }
        socket.send(text);
      } catch {
        // A socket closing while we send: it gets no more messages.
      }
    }
  }

  webSocketMessage() {
    // Clients only listen; pings are answered by the runtime (setWebSocketAutoResponse).
  }

  webSocketClose(socket, code) {
    try {
      // 1005 and 1006 say no code was given or the connection dropped; neither may be sent.
      socket.close(code === 1005 || code === 1006 ? 1000 : code, 'closed');
    } catch {
      // already closed
    }
  }

  webSocketError(socket) {
    try {
      socket.close(1011, 'error');
    } catch {
      // already closed
    }
  }
}

/** A processed command as the API answers it (the built body stays raw JSON, not a string). */
/**
 * The reply's status for a recorded answer: 200 when it came whole; otherwise what happened,
 * never a 500 — the provider's failure is not the service's. 429 when the provider rate-limited,
 * 502 for a failure worth retrying (an overload, a 5xx, a dropped or cut-short stream), 422 when
 * the request itself must change (a context-length refusal, a request too large, a refusal no
 * retry mends); a `Retry-After` when a retry is worth it. The error says what the session did
 * (`recovery`) and when to retry (`retryAfterMs`).
 */
function answerStatus(processed) {
  if (processed.error) return { status: 422, error: null, headers: {} };
  const answer = processed.reply?.answer;
  if (!answer || (answer.status === 'complete' && answer.ending !== 'refused')) return { status: 200, error: null, headers: {} };
  const retry = answer.retry ?? { retryable: false, reason: answer.ending === 'refused' ? 'refused' : 'not_transient' };
  const code = answer.status === 'partial'
    ? (retry.reason === 'connection_dropped' ? 'connection_dropped' : 'answer_incomplete')
    : answer.status === 'complete' ? 'refused'
    : answer.context?.promptTokens !== undefined ? 'prompt_too_long'
    : answer.context ? 'context_length_exceeded' : answer.recovery === 'strip_images' ? 'request_too_large' : 'provider_error';
  const status = retry.reason === 'rate_limited' ? 429 : retry.retryable ? 502 : 422;
  const error = {
    code,
    message: answer.error ? `${answer.error.kind}: ${answer.error.message}`
      : code === 'refused' ? `the provider refused (${answer.blocked ?? answer.stopReason ?? 'refusal'}); the same request would be refused again: change the input`
      : 'the answer ended before the provider finished it; what arrived is recorded',
    ...(answer.error?.status ? { providerStatus: answer.error.status } : {}),
    ...(answer.error ? { kind: answer.error.kind } : {}),
    retryable: retry.retryable,
    retryAfterMs: retry.afterMs,
    reason: retry.reason,
    ...(answer.recovery ? { recovery: answer.recovery } : {}),
    ...(answer.requestId ? { requestId: answer.requestId } : {}),
  };
  const headers = retry.retryable ? { 'retry-after': String(Math.max(1, Math.ceil(retry.afterMs / 1000))) } : {};
  return { status, error, headers };
}

function replyText(processed) {
  const { effects, reply, ...rest } = processed;
  const summary = { ...rest, effects: effects.map((e) => e.type) };
  if (reply?.type === 'answered') {
    // The updates went to the WebSocket clients as they decoded.
    const { updates, ...answered } = reply;
    return JSON.stringify({ ...summary, reply: answered });
  }
  if (reply?.type === 'built') {
    const { body, ...built } = reply;
    return JSON.stringify({ ...summary, reply: built }).slice(0, -1) + `,"body":${body}}`;
  }
  return JSON.stringify(reply === undefined ? summary : { ...summary, reply });
}

/** JSON with object keys sorted: the same command whatever order a client wrote its fields in. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

async function sha256(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}
