// Test Worker: one Durable Object per session (name from ?session=, default "default") holding
// the session log as JSON Lines in storage, plus an in-memory contextview Session rebuilt from it.
//   POST /append          body: one JSONL line       -> {lines, items, added}
//   GET  /build?provider=X[&mode=stateless]           -> {payload, report}
//   GET  /build?provider=X&mode=bytes                   -> the body itself, from Session.buildBytes
//   GET  /info                                         -> {version, lines, items}
//   POST /discover        body: {files, cwd, home, rulesFor} -> {environment, attached, stats}
//                         (discovery over memoryFs, in the Worker itself; no Durable Object)
//   POST /receive?provider=P&model=M  body: a provider's answer, streamed in
//                         -> {updates, lines, answer} (a fresh session asked one question takes
//                         the answer through receive(), as a Worker relays a provider's stream)
//   GET  /unhappy         -> {results: [{name, ok, error?}]} (the unhappy-path conformance
//                         suite, tests/js/unhappy-conformance.mjs, with this runtime's entry)
//   POST /tree            body: the Claude Code fixture's texts -> {results: [{name, ok, error?}]}
//                         (the subagent and head budget cases, tests/js/tree-conformance.mjs)
//   POST /open-bench      body: a session log -> {log, records} (stored through durableObjectStorage)
//   GET  /open-bench?log=L&how=checkpoint|replay -> {body} (opened as an object opens on a cold start,
//                         openSession from the last checkpoint, or as it did before, every row read and
//                         the log without its checkpoints replayed; built once; benches/open.bench.mjs)
//   GET  /storage-conformance  -> {results: [{name, ok, error?}], logs, exports}
//                         (the session-log storage conformance suite against durableObjectStorage
//                         in this object's SQLite storage, one log per key; logs = distinct logs
//                         in its cv_log table; exports = typeof the entry's storage exports)
//   GET  /storage-faults  -> {results: [{name, ok, error?}]} (the storage fault suite,
//                         tests/js/storage-faults.mjs, against durableObjectStorage over this
//                         object's storage, whose SQL writes throw as a full database does while
//                         a log is broken)
// Library errors come back as 400 {error: {code, message}}.
import { DurableObject } from 'cloudflare:workers';
import {
  Session, buildRequest, version, init, discover, memoryFs, durableObjectStorage, StorageError, faultyStorage,
} from '../../pkg/workerd.mjs';
import { storageCases, runCases } from '../js/storage-conformance.mjs';
import { sessionCases } from '../js/session-conformance.mjs';
import * as cv from '../../pkg/workerd.mjs';
import { receiveAnswer } from './receive-answer.mjs';
import { unhappyCases, runUnhappy } from '../js/unhappy-conformance.mjs';
import { treeCases, runTree } from '../js/tree-conformance.mjs';
import { faultCases } from '../js/storage-faults.mjs';

const LINE_PREFIX = 'line:';
const key = (n) => LINE_PREFIX + String(n).padStart(10, '0');

function errorResponse(e, status = 400) {
  if (e && typeof e.code === 'string') {
    return Response.json({ error: { code: e.code, message: String(e.message) } }, { status });
  }
  return Response.json({ error: { code: 'internal', message: String(e?.stack ?? e) } }, { status: 500 });
}

export class SessionObject extends DurableObject {
  #lines = null; // string[] mirror of storage
  #session = null; // contextview Session, or null before the header line

  async #load() {
    if (this.#lines) return;
    const stored = await this.ctx.storage.list({ prefix: LINE_PREFIX });
    this.#lines = [...stored.values()];
    this.#session = this.#lines.length ? Session.fromLog(this.#lines.join('\n')) : null;
  }

  async fetch(request) {
    const url = new URL(request.url);
    try {
      if (request.method === 'GET' && url.pathname === '/storage-conformance') return await this.#storageConformance();
      if (request.method === 'GET' && url.pathname === '/storage-faults') return await this.#storageFaults();
      if (url.pathname === '/open-bench') return await this.#openBench(request);
      await this.#load();
      if (request.method === 'POST' && url.pathname === '/append') return await this.#append(request);
      if (request.method === 'GET' && url.pathname === '/build') return this.#build(url);
      if (request.method === 'GET' && url.pathname === '/info') return this.#info();
      return new Response('not found', { status: 404 });
    } catch (e) {
      return errorResponse(e);
    }
  }

  async #append(request) {
    const line = (await request.text()).replace(/\r?\n$/, '');
    if (line.includes('\n')) {
      return Response.json({ error: { code: 'invalid_argument', message: 'one line per append' } }, { status: 400 });
    }
    // The header goes in through fromLog; records through append, which throws (with a code)
    // on a line it cannot use and returns false for a record it already holds. Only accepted
    // lines are persisted.
    let added = true;
    if (this.#session) added = this.#session.append(line);
    else this.#session = Session.fromLog(line + '\n');
    if (added) {
      await this.ctx.storage.put(key(this.#lines.length), line);
      this.#lines.push(line);
    }
    return this.#info(added);
  }

  async #openBench(request) {
    const url = new URL(request.url);
    if (request.method === 'POST') {
      const lines = (await request.text()).split('\n').filter((l) => l !== '');
      const log = `bench-${Date.now()}`;
      const storage = durableObjectStorage(this.ctx.storage, { log });
      for (let i = 0; i < lines.length; i += 500) await storage.append(lines.slice(i, i + 500));
      return Response.json({ log, records: lines.length - 1 });
    }
    const storage = durableObjectStorage(this.ctx.storage, { log: url.searchParams.get('log') });
    const build = (session) => session.buildString({ provider: 'anthropic' }).body;
    if (url.searchParams.get('how') === 'checkpoint') {
      const durable = await cv.openSession(storage);
      return Response.json({ body: build(durable.session), historyInStorage: durable.session.needsHistory() });
    }
    const { text } = await storage.load();
    return Response.json({ body: build(Session.fromLog(text.split('\n').filter((l) => !l.includes('"kind":"checkpoint"')).join('\n'))) });
  }

  async #storageConformance() {
    const storage = this.ctx.storage;
    const results = await runCases(storageCases, (key) => durableObjectStorage(storage, { log: key }));
    const logs = storage.sql.exec('SELECT COUNT(DISTINCT log) AS n FROM cv_log').one().n;
    // The durable session (openSession over this storage) with faults injected.
    const sessionResults = await runCases(sessionCases, (key) => durableObjectStorage(storage, { log: `session-${key}` }), { context: cv });
    const exports = Object.fromEntries(Object.entries({ durableObjectStorage, StorageError, faultyStorage })
      .map(([name, value]) => [name, typeof value]));
    return Response.json({ results, sessionResults, logs, exports });
  }

  /**
   * The fault suite: each log over this object's storage, its writes refused while it is broken
   * as SQLite refuses them when the object's database is full (the exception the storage API
   * throws from `sql.exec`).
   */
  async #storageFaults() {
    const real = this.ctx.storage;
    const harness = (key) => {
      const state = { broken: false };
      const storage = {
        sql: {
          exec: (query, ...bindings) => {
            if (state.broken && /^\s*(INSERT|UPDATE|DELETE)/i.test(query)) throw new Error('SQLITE_FULL: database or disk is full: SQLITE_FULL');
            return real.sql.exec(query, ...bindings);
          },
        },
        transactionSync: (fn) => real.transactionSync(fn),
      };
      const log = `faults-${key}`;
      return {
        storage: durableObjectStorage(storage, { log }),
        breakWrites: () => void (state.broken = true),
        heal: () => void (state.broken = false),
        reopen: () => durableObjectStorage(real, { log }),
      };
    };
    return Response.json({ results: await runCases(faultCases, harness, { context: cv }) });
  }

  #build(url) {
    const provider = url.searchParams.get('provider');
    const opts = { provider };
    if (url.searchParams.has('model')) opts.model = url.searchParams.get('model');
    if (url.searchParams.get('mode') === 'stateless') {
      return Response.json(buildRequest({ log: this.#lines.join('\n') + '\n', ...opts }));
    }
    if (!this.#session) {
      return Response.json({ error: { code: 'invalid_log', message: 'empty session' } }, { status: 400 });
    }
    if (url.searchParams.get('mode') === 'bytes') {
      // The body's bytes go out as the response body as they are (what a Worker hands fetch).
      const { body, report } = this.#session.buildBytes(opts);
      return new Response(body, { headers: { 'content-type': 'application/json', 'x-report-bytes': String(report.bytes), 'x-body-type': Object.prototype.toString.call(body) } });
    }
    return Response.json(this.#session.build(opts));
  }

  #info(added) {
    const items = this.#session ? this.#session.itemCount() : 0;
    return Response.json({ version: version(), lines: this.#lines.length, items, ...(added === undefined ? {} : { added }) });
  }
}

async function discoverResponse(request) {
  try {
    const { files, cwd, home, rulesFor } = await request.json();
    const ws = await discover({ cwd, home }, memoryFs(files));
    try {
      const attached = await ws.rulesForPath(rulesFor);
      return Response.json({ environment: ws.environment, attached, stats: ws.stats() });
    } finally {
      ws.free();
    }
  } catch (e) {
    return errorResponse(e);
  }
}

export default {
  async fetch(request, env) {
    await init(); // a no-op on workerd; shows the entry's API symmetry
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/discover') return discoverResponse(request);
    if (request.method === 'POST' && url.pathname === '/receive') {
      return Response.json(await receiveAnswer(cv, request, url.searchParams.get('provider'), url.searchParams.get('model')));
    }
    if (request.method === 'GET' && url.pathname === '/unhappy') {
      return Response.json({ results: await runUnhappy(unhappyCases, cv) });
    }
    if (request.method === 'POST' && url.pathname === '/tree') {
      return Response.json({ results: await runTree(treeCases, cv, await request.json()) });
    }
    const name = url.searchParams.get('session') ?? 'default';
    return env.SESSIONS.get(env.SESSIONS.idFromName(name)).fetch(request);
  },
};
