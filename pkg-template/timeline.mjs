// The requests a session sent, one after another: where they were (`requestPoints`), the log as
// it stood at each, and each request rebuilt with the prefix it shares with the one before it.
// Plain JavaScript over the wasm API (`requestPoints`, `Session`); every entry point binds it.

import { codedError } from './discover.mjs';
import { ContextviewTypeError } from './errors.mjs';

/** The session id a log's header line names (its first line), or null. */
function sessionIdOf(text) {
  const first = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  try {
    const header = JSON.parse(first);
    return typeof header?.sessionId === 'string' ? header.sessionId : null;
  } catch {
    return null;
  }
}

/** Binds the Timeline class to one wasm instance's `requestPoints` and `Session`. */
export function bindTimeline(wasm) {
  /**
   * A log's request timeline. `points[i].line` is the line the model's answer to request `i`
   * starts on; the lines before it are the log that request was built from.
   */
  class Timeline {
    constructor(text) {
      if (typeof text !== 'string') throw new ContextviewTypeError('text', 'Timeline(text): text must be a string');
      const { points, diagnostics } = wasm.requestPoints(text);
      this.points = points;
      this.diagnostics = diagnostics;
      this.lines = text.split('\n');
      // Lines the log parser could not use (a bad line, a torn tail) are not appended.
      this.#refused = new Set(diagnostics.filter((d) => d.severity === 'error' || d.code === 'log.torn_tail').map((d) => d.line));
    }

    #refused;

    get length() {
      return this.points.length;
    }

    #check(index) {
      if (!Number.isInteger(index)) throw new ContextviewTypeError('index', `\`index\` must be a whole number, not ${typeof index === 'number' ? index : typeof index}`);
      if (index < 0 || index >= this.points.length) throw codedError('invalid_argument', `request ${index} is not in 0..${this.points.length - 1}`);
    }

    /**
     * The subagents the log started, each placed at the request whose answer made its call:
     * `[{callId, sessionId, task, status, request}]` in the order started (`status` as the log
     * last said; `request` is -1 for a call no request of this log made, as in an import's
     * first turn without a request point).
     */
    subagents() {
      const started = [];
      const calls = new Map();
      const status = new Map();
      for (const [i, line] of this.lines.entries()) {
        if (!line.includes('"tool_call"') && !line.includes('"subagent_')) continue;
        let record;
        try {
          record = JSON.parse(line);
        } catch {
          continue;
        }
        const update = record?.update;
        if (update?.sessionUpdate === 'tool_call' && typeof update.toolCallId === 'string' && !calls.has(update.toolCallId)) calls.set(update.toolCallId, i + 1);
        const event = record?.event;
        if (event?.kind === 'subagent_started') started.push(event);
        if (event?.kind === 'subagent_ended') status.set(`${event.callId}\u0000${event.sessionId}`, event.status);
      }
      return started.map((s) => {
        const line = calls.get(s.callId);
        let request = -1;
        if (line !== undefined) {
          for (const [index, point] of this.points.entries()) if (!point.next && point.line <= line) request = index;
        }
        return { callId: s.callId, sessionId: s.sessionId, task: s.task, status: status.get(`${s.callId}\u0000${s.sessionId}`) ?? 'running', request };
      });
    }

    /** The log's text as it stood when request `index` was sent. */
    logAt(index) {
      this.#check(index);
      // The next request is built from the whole text, as it is (a torn last line stays torn).
      if (this.points[index].next) return this.lines.join('\n');
      return this.lines.slice(0, this.points[index].line - 1).join('\n') + '\n';
    }

    /**
     * The build options request `index` is built with. With `asRecorded: true` each request
     * goes to the provider and model its log recorded (the point's `provider` and `model`,
     * else the options' own), with none of our pruning: the request as the agent sent it, as
     * far as the log holds it. Options without a provider take the recorded one (and its
     * model, unless they name one), as a session reopened from its log does.
     */
    optionsAt(index, options = {}) {
      this.#check(index);
      if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object of build options');
      const { asRecorded, ...rest } = options;
      if (asRecorded !== undefined && asRecorded !== true && asRecorded !== false) throw new ContextviewTypeError('options.asRecorded', '`asRecorded` must be true or false');
      const point = this.points[index];
      const recorded = point.provider === undefined ? {} : { provider: point.provider, ...(point.model === undefined ? {} : { model: point.model }) };
      if (asRecorded) return { ...rest, ...recorded, pruning: { enabled: false } };
      // Without a provider, the one the log recorded (with its model), as a session samples.
      if (rest.provider === undefined) return { ...recorded, ...rest };
      return rest;
    }

    /**
     * Builds request `index` as a session did: after request `index - 1` with the same options,
     * so `report.prefix` says what it shares with that one, and with the provider's cache as
     * every request before it left it (`report.forecast` is the one `walk` gives, the same
     * figures in every place). Returns `{body, report, diagnostics, previous}` (`previous`: the
     * body of request `index - 1`, or `null`).
     */
    buildAt(index, options = {}) {
      this.#check(index);
      const walked = this.#advance(this.#walkOf(options), options, index);
      let session = wasm.Session.fromLog(this.logAt(Math.max(index - 1, 0)));
      try {
        const previous = index === 0 ? null : session.buildString(this.optionsAt(index - 1, options)).body;
        if (index > 0 && !this.#appendUpTo(session, index)) {
          // A line the session refused: request `index` is built from its log on its own (what
          // a fresh load of that log holds), without a comparison with the one before.
          session.free();
          session = wasm.Session.fromLog(this.logAt(index));
        }
        const built = session.buildString(this.optionsAt(index, options));
        built.report.forecast = walked.report.forecast;
        return { ...built, previous };
      } finally {
        session.free();
      }
    }

    /**
     * Builds every request in order with one session (each after the one before, as the agent
     * sent them) and yields `{index, point, report, diagnostics}` for each. Bodies are not
     * kept: a long session's requests add up to far more than its log. The reports are kept
     * (for the last few option sets), so a second walk, or `buildAt`, reads them.
     */
    *walk(options = {}) {
      let walk = this.#walkOf(options);
      for (let index = 0; index < this.points.length; index++) {
        // Another option set walked meanwhile may have pushed this one out: walk on from a new one.
        if (walk.evicted) walk = this.#walkOf(options);
        const { report, diagnostics } = this.#advance(walk, options, index);
        yield { index, point: this.points[index], report, diagnostics };
      }
    }

    /** Walks of this log by option set: the session under way and the reports so far. */
    #walks = new Map();

    /**
     * The walk under `options` (made when there is none), the most recently used of the few
     * kept. As recorded, a provider given only fills requests the log names none for: with none
     * such, walks with and without it are one walk.
     */
    #walkOf(options) {
      const { asRecorded, provider, ...rest } = options ?? {};
      const allRecorded = asRecorded === true && this.points.every((p) => p.provider !== undefined);
      const key = JSON.stringify(allRecorded ? { asRecorded, ...rest } : options ?? {});
      let walk = this.#walks.get(key);
      if (walk) {
        this.#walks.delete(key); // most recently used last
      } else {
        walk = { key, reports: [], session: null, evicted: false };
        // A few option sets are kept: a page switching back and forth reads them again.
        while (this.#walks.size >= 4) {
          const [oldest, gone] = this.#walks.entries().next().value;
          gone.session?.free();
          gone.session = null;
          gone.evicted = true;
          this.#walks.delete(oldest);
        }
      }
      this.#walks.set(key, walk);
      return walk;
    }

    /** Request `index`'s report and diagnostics in `walk` (under `options`), walking on to it. */
    #advance(walk, options, index) {
      while (walk.reports.length <= index) {
        const at = walk.reports.length;
        try {
          if (at === 0) walk.session = wasm.Session.fromLog(this.logAt(0));
          else if (!this.#appendUpTo(walk.session, at)) {
            walk.session.free();
            walk.session = wasm.Session.fromLog(this.logAt(at));
          }
          const { report, diagnostics } = walk.session.buildBytes(this.optionsAt(at, options));
          walk.reports.push({ report, diagnostics });
        } catch (e) {
          walk.session?.free();
          walk.session = null;
          walk.evicted = true;
          this.#walks.delete(walk.key);
          throw e;
        }
        if (walk.reports.length === this.points.length) {
          walk.session.free();
          walk.session = null;
        }
      }
      return walk.reports[index];
    }

    /** Frees the sessions of walks under way (a Timeline no longer read). */
    free() {
      for (const walk of this.#walks.values()) {
        walk.session?.free();
        walk.session = null;
        walk.evicted = true;
      }
      this.#walks.clear();
    }

    /**
     * Walks this log's requests with its subagents' (`children`: their logs, by the session id
     * each header names): each child's requests come right after the request whose answer made
     * its call, its own children after theirs. Yields `{sessionId, depth, callId, index, point,
     * report, diagnostics}` (`callId`: the parent's call the session answers; absent at depth 0).
     * A child whose log is not given is not walked (`subagents()` still names it).
     */
    *walkTree(children, options) {
      if (!Array.isArray(children) || children.some((c) => typeof c !== 'string')) {
        throw new ContextviewTypeError('children', '`children` must be an array of the subagents\' logs (strings)');
      }
      const byId = new Map();
      for (const text of children) {
        const id = sessionIdOf(text);
        if (id !== null && !byId.has(id)) byId.set(id, text);
      }
      yield* this.#walkTree(byId, options, new Set([sessionIdOf(this.lines[0] ?? '')]), 0, undefined);
    }

    *#walkTree(byId, options, seen, depth, callId) {
      const sessionId = sessionIdOf(this.lines[0] ?? '');
      const links = this.subagents();
      for (const step of this.walk(options)) {
        yield { sessionId, depth, ...(callId === undefined ? {} : { callId }), ...step };
        for (const link of links.filter((l) => l.request === step.index)) {
          const text = byId.get(link.sessionId);
          if (text === undefined || seen.has(link.sessionId)) continue;
          seen.add(link.sessionId);
          yield* new Timeline(text).#walkTree(byId, options, seen, depth + 1, link.callId);
        }
      }
    }

    /**
     * Appends the lines between request `index - 1` and request `index`; false when the session
     * refused one the log parser kept (a record out of order), so the caller loads the log
     * afresh instead. Lines the parser refused are in `diagnostics` already and skipped.
     */
    #appendUpTo(session, index) {
      const from = this.points[index - 1].line - 1;
      const to = this.points[index].next ? this.lines.length : this.points[index].line - 1;
      for (let i = from; i < to; i++) {
        const line = this.lines[i];
        if (line.trim() === '' || this.#refused.has(i + 1)) continue;
        try {
          session.append(line);
        } catch (e) {
          if (!e || typeof e.code !== 'string') throw e;
          return false;
        }
      }
      return true;
    }
  }
  return { Timeline };
}
