// The context inspector: a session's requests one by one, each request's body and where its
// tokens went, and what changes when the options do; the workspace panel is workspace.mjs. It
// uses the package's public API only, handed to `mountInspector` (the page passes the browser
// entry; the package's <contextview-inspector> element, inspector.mjs, its own). For tests and
// scripts: status.mjs says when the inspector is done, and the host's `data-walk` says when the
// timeline's figures are complete (`done`).
import {
  CONVERSATION_KEYS, el, figure, fmt, dollars, renderSources, renderGauge, jsonView, expand, drawTimeline, diffConversations, describeEntry, conversationOf,
} from './views.mjs';
import { statusOf } from './status.mjs';
import { workspacePanel } from './workspace.mjs';
import { whatIfPanels } from './whatif.mjs';

/**
 * Runs an inspector in `root` (a document or a shadow root holding MARKUP, markup.mjs), with
 * `host` (the page's body, or the element) carrying its state and taking drops. `cv` is the
 * package, initialised; `exampleUrl`, when given, is the session the "example" button loads.
 * Returns what a host drives it with.
 */
export function mountInspector({ root, host, cv, exampleUrl = null }) {
  const status = statusOf(root, host);
  const { $, setState, fail } = status;
  const { openWorkspace, showPathRules, entryFiles, renderDiagnostics, workspaceHeads, whenOpened, whenBudgetChanged } = workspacePanel(cv, status);

  const LOG_FORMAT = 'contextview.session-log';

  const state = {
    session: null, // { name, log, report } (report: the import's, for another agent's file)
    timeline: null,
    index: 0,
    requests: [], // the walk's figures per request: { bytes, sources, shared }
    walk: null, // the walk under way (a generator), and its token: slices of a stopped walk end
    walkToken: 0,
    body: null, // the selected request's body text
  };

  // ---------------------------------------------------------------------------------------------
  // Options

  // The pruning choices are the package's policies known by name (`policies()`), the ones the
  // CLI's `simulate --policy` takes: each lays its build options over the controls' own.
  const POLICIES = cv.policies();
  $('pruning').replaceChildren(...POLICIES.map((p) => el('option', { value: p.name, title: p.summary, text: p.name })));

  /** The controls' build options before the pruning choice: provider, model, window. */
  function baseOptions() {
    const o = { provider: $('provider').value };
    const model = $('model').value.trim();
    if (model) o.model = model;
    const window = Number($('window').value);
    if (Number.isInteger(window) && window > 0) o.contextWindow = window;
    return o;
  }

  function options() {
    return { ...baseOptions(), ...cv.policy($('pruning').value).options };
  }

  const { priceOptions, prepareCompaction } = whatIfPanels(cv, status, () => ({
    session: state.session, timeline: state.timeline, index: state.index, base: baseOptions(), options: options(), text: sessionText,
  }));

  // ---------------------------------------------------------------------------------------------
  // Session

  /** Our log: its header, or (a log that lost it) a first line that is one of our records. */
  function isOurLog(text) {
    const first = text.split('\n', 8).find((l) => l.trim() !== '');
    try {
      const value = JSON.parse(first);
      return value?.format === LOG_FORMAT || (Number.isInteger(value?.seq) && (value.update !== undefined || value.event !== undefined));
    } catch {
      return false;
    }
  }

  /**
   * Loads a session, with its subagents' logs or files when given (`children`: texts, ours or
   * the other agent's): another agent's session is imported with them (`importTree`), each
   * child linked to the call it answered.
   */
  async function loadSession(name, text, t0 = performance.now(), children = []) {
    setState('busy', `reading ${name}…`);
    try {
      let log = text;
      let report = null;
      let childLogs = [];
      performance.mark('contextview:read');
      if (!isOurLog(text)) {
        const tree = await cv.importTree(text, children.filter((c) => !isOurLog(c)));
        ({ log, report } = tree.parent);
        childLogs = [...tree.children.map((c) => c.log), ...children.filter(isOurLog)];
      } else {
        childLogs = await Promise.all(children.map(async (c) => (isOurLog(c) ? c : (await cv.importSession(c)).log)));
      }
      performance.mark('contextview:imported');
      resetSession();
      const byId = new Map();
      for (const child of childLogs) {
        const sessionId = JSON.parse(child.slice(0, child.indexOf('\n') === -1 ? undefined : child.indexOf('\n'))).sessionId;
        byId.set(sessionId, child);
      }
      state.session = { name, log, report, children: byId };
      state.timeline = new cv.Timeline(sessionText());
      performance.mark('contextview:timeline');
      renderSession();
      $('answer-input').disabled = false;
      if (state.timeline.length === 0) {
        setState('ready', `${name}: no request to show (the session never waited for the model)`);
        return;
      }
      showTimelineAt(state.timeline.length - 1);
      // From the file's pick to the first frame that shows its last request (`make bench`).
      requestAnimationFrame(() => {
        performance.measure('contextview:first-request', { start: t0 });
        startWalk();
      });
    } catch (e) {
      fail(`session ${name}`, e);
    }
  }

  /**
   * A provider's answer to the session's last request (an answer file, JSON or a stream, from the
   * provider selected): recorded after the log as the package records it, then the request the
   * session would send next with it — the tools it asked for answered by repair until the host
   * runs them, or the paused turn continued.
   */
  async function recordAnswer(name, text) {
    if (!state.session) return fail('answer', new Error('load a session first'));
    setState('busy', `recording ${name}…`);
    const session = cv.Session.fromLog(state.session.log);
    try {
      const processed = session.dispatch({ type: 'providerAnswer', provider: $('provider').value, body: text }, new Date().toISOString());
      if (processed.error) throw Object.assign(new Error(processed.error.message), { code: processed.error.code });
      const lines = processed.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])).filter((l) => JSON.parse(l).seq !== undefined);
      const { answer } = processed.reply;
      const log = state.session.log.replace(/\n*$/, '\n') + lines.map((l) => l + '\n').join('');
      const { report } = state.session;
      await loadSession(`${state.session.name} + ${name}`, log);
      state.session.report = report;
      const recorded = { status: answer.status, stopReason: answer.stopReason ?? null, records: lines.length, toolCalls: answer.toolCalls.map((c) => c.name), error: answer.error?.kind ?? null };
      host.dataset.answer = JSON.stringify(recorded);
      showNext(recorded);
    } catch (e) {
      fail(`answer ${name}`, e);
    } finally {
      session.free();
    }
  }

  /** The request the session would send now, after the answer. */
  function showNext(recorded) {
    const said = `answer: ${recorded.status}${recorded.stopReason ? `, stop ${recorded.stopReason}` : ''}, ${recorded.records} records` +
      `${recorded.toolCalls.length ? `, asks for ${recorded.toolCalls.join(', ')}` : ''}${recorded.error ? `, provider error ${recorded.error}` : ''}`;
    try {
      const built = cv.buildRequestString({ log: sessionText(), ...options() });
      stopWalk();
      state.body = built.body;
      const payload = JSON.parse(built.body);
      renderRequest({ prompts: state.timeline.points.at(-1)?.prompts ?? 0, step: state.timeline.points.at(-1)?.step ?? 0, next: true }, built.report, payload);
      $('request-title').textContent = `— the next request, after the answer (${built.report.provider} ${built.report.model})`;
      setState('ready', `${said}; the next request: ${fmt(built.report.bytes)} bytes`);
    } catch (e) {
      // A final answer ends the turn: the next request waits for the person's next message.
      setState('ready', `${said}; no next request yet (${e.code ?? 'error'}: ${e.message})`);
    }
  }

  /**
   * The session's log as the page builds from it: as read, or — when "start the session with the
   * workspace's prompt" is on — with a `prompt_head_snapshot` record put before its first record,
   * as an agent in this workspace would have recorded when the session began (a log that records
   * heads of its own later still uses those from there on).
   */
  function sessionText() {
    const { log } = state.session;
    const heads = $('use-heads').checked ? workspaceHeads() : null;
    if (!heads) return log;
    const lines = log.split('\n');
    const headerAt = lines.findIndex((l) => l.trim() !== '');
    let firstRecord = null;
    for (const l of lines.slice(headerAt + 1)) {
      if (l.trim() === '') continue;
      try {
        firstRecord = JSON.parse(l);
      } catch {
        // a bad line: the parser reports it
      }
      break;
    }
    const header = JSON.parse(lines[headerAt] ?? '{}');
    if (header.format !== LOG_FORMAT) return log; // a headerless log has nowhere to start from
    const ts = firstRecord?.ts ?? header.createdAt ?? new Date(0).toISOString();
    const cuts = heads.allocation.sections.flatMap((s) => s.cuts ?? []);
    const event = { kind: 'prompt_head_snapshot', system: heads.system, firstUserPrefix: heads.firstUserPrefix, ...(cuts.length ? { cuts } : {}) };
    const record = JSON.stringify({ seq: 0, ts, event });
    return [...lines.slice(0, headerAt + 1), record, ...lines.slice(headerAt + 1)].join('\n');
  }

  /** Sets the slider over the timeline's requests, selects request `index` and shows it. */
  function showTimelineAt(index) {
    const slider = $('slider');
    slider.max = String(state.timeline.length - 1);
    slider.disabled = false;
    $('compact').disabled = false;
    $('price').disabled = false;
    state.index = index;
    slider.value = String(index);
    showRequest();
  }

  /** Rebuilds the timeline from the session's text (the heads switched, a workspace opened). */
  function reloadTimeline() {
    if (!state.session) return;
    stopWalk();
    try {
      state.timeline = new cv.Timeline(sessionText());
    } catch (e) {
      return fail(`session ${state.session.name}`, e);
    }
    if (state.timeline.length === 0) return;
    showTimelineAt(Math.min(state.index, state.timeline.length - 1));
    startWalk();
  }

  /** Forgets the last session: its walk stops, its request and pictures are cleared. */
  function resetSession() {
    stopWalk();
    state.timeline = null;
    state.session = null;
    state.requests = [];
    state.body = null;
    state.index = 0;
    const slider = $('slider');
    slider.max = '0';
    slider.value = '0';
    slider.disabled = true;
    $('compact').disabled = true;
    $('price').disabled = true;
    $('prices').tBodies[0].replaceChildren();
    $('prices-note').textContent = '';
    $('slider-out').textContent = '–';
    $('request-title').textContent = '';
    for (const id of ['figures', 'by-source', 'pipeline', 'body', 'prefix', 'diff', 'compaction-body', 'gauge']) $(id).replaceChildren();
    $('sources').tBodies[0].replaceChildren();
    for (const id of ['gauge-text', 'body-size', 'compaction-summary']) $(id).textContent = '';
    delete $('prefix').dataset.shared;
    delete host.dataset.walk;
    delete $('timeline-chart').dataset.columns;
    drawTimeline($('timeline-chart'), [], -1);
  }

  function renderSession() {
    const { name, report } = state.session;
    const t = state.timeline;
    const prompts = t.points.length ? t.points[t.points.length - 1].prompts : 0;
    $('session-summary').textContent = `${name}: ${report ? `imported from ${report.format}, ` : ''}${fmt(t.length)} requests over ${fmt(prompts)} prompts` +
      (t.points.at(-1)?.next ? ' (the last is the one it would send next)' : '');
    $('session-summary').dataset.requests = String(t.length);
    const dl = $('import-report');
    dl.replaceChildren();
    if (report) {
      const add = (k, v, key) => dl.append(el('dt', { text: k }), el('dd', { text: v, 'data-key': key }));
      add('format', report.format, 'format');
      add('lines read → records', `${fmt(report.lines)} → ${fmt(report.records)}`, 'records');
      add('written', Object.entries(report.written).map(([k, v]) => `${k} ${v}`).join(', '), 'written');
      add('not mapped', Object.entries(report.unmapped).map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing', 'unmapped');
      if (report.audience) add('audience', report.audience, 'audience');
      const f = report.fidelity;
      if (f) {
        const c = (x) => `${x.prompts} prompts, ${x.assistantTexts} texts, ${x.reasoning} reasoning, ${x.toolCalls} tool calls, ${x.images} images`;
        add("the source's model saw", c(f.source), 'fidelity-source');
        add('our view holds', c(f.view), 'fidelity-view');
        add('missing', String(f.missing?.length ?? 0), 'fidelity-missing');
      }
    }
    renderDiagnostics($('session-diagnostics'), $('session-diag-count'), [...(report?.diagnostics ?? []), ...t.diagnostics]);
    renderSubagents();
  }

  /** The subagents table: each call a subagent answered, where, and what its own requests cost. */
  function renderSubagents() {
    const links = state.timeline.subagents();
    $('subagents-box').hidden = links.length === 0;
    const opts = options();
    $('subagents').tBodies[0].replaceChildren(...links.map((link) => {
      const log = state.session.children?.get(link.sessionId);
      let requests = null;
      let cost = null;
      const steps = [];
      if (log) {
        const child = new cv.Timeline(log);
        requests = child.length;
        cost = 0;
        for (const { index, report } of child.walk(opts)) {
          const d = report.forecast?.inputDollars ?? 0;
          cost += d;
          steps.push(el('li', { 'data-index': String(index), 'data-tokens': String(report.tokens.request), 'data-dollars': String(d),
            text: `request ${index}: ${fmt(report.tokens.request)} tokens, ${dollars(d)}` }));
        }
      }
      const at = link.request >= 0
        ? el('a', { href: '#', text: String(link.request), onclick: (ev) => { ev.preventDefault(); showTimelineAt(link.request); } })
        : '—';
      return el('tr', { 'data-call': link.callId, 'data-session': link.sessionId, 'data-request': String(link.request), 'data-status': link.status,
        'data-requests': requests === null ? '' : String(requests), 'data-dollars': cost === null ? '' : String(cost) },
        el('td', { text: link.callId }), el('td', {}, at), el('td', { text: link.task, title: link.sessionId }), el('td', { text: link.status }),
        el('td', { class: 'num' }, requests === null ? 'log not loaded'
          : el('details', {}, el('summary', { text: fmt(requests) }), el('ol', { class: 'plain child-requests' }, ...steps))),
        el('td', { class: 'num', text: cost === null ? '—' : dollars(cost) }));
    }));
  }

  /** What the whole session's input cost, summed over the walk's requests, with the cache's share. */
  function showSessionCost() {
    const box = $('session-cost');
    const total = state.requests.reduce((n, r) => n + r.inputDollars, 0);
    const read = state.requests.reduce((n, r) => n + r.cacheRead, 0);
    box.dataset.dollars = String(total);
    box.dataset.cacheRead = String(read);
    box.textContent = state.requests.length ? `input cost of the ${fmt(state.requests.length)} requests: ${dollars(total)}, ${fmt(read)} tokens served by the cache` : '';
  }

  // ---------------------------------------------------------------------------------------------
  // The selected request

  function showRequest() {
    const t = state.timeline;
    if (!t || t.length === 0) return;
    setState('busy', `building request ${state.index + 1}…`);
    try {
      const point = t.points[state.index];
      const built = t.buildAt(state.index, options());
      performance.mark('contextview:built');
      state.body = built.body;
      const payload = JSON.parse(built.body);
      renderRequest(point, built.report, payload);
      renderPrefix(built.report);
      renderDiff(compareWith(built), payload);
      $('slider-out').textContent = `${state.index + 1} of ${t.length}`;
      $('compaction-summary').textContent = '';
      $('compaction-body').replaceChildren();
      delete $('compaction-body').dataset.bytes;
      drawTimeline($('timeline-chart'), state.requests, state.index);
      const diags = built.diagnostics.length ? ` · ${built.diagnostics.length} diagnostics` : '';
      setState('ready', `request ${state.index + 1} of ${t.length}: ${fmt(built.report.bytes)} bytes, ${fmt(built.report.tokens.request)} tokens${diags}`);
    } catch (e) {
      fail(`request ${state.index + 1}`, e);
    }
  }

  function renderRequest(point, report, payload) {
    $('request-title').textContent = `— ${state.index + 1} of ${state.timeline.length}, prompt ${point.prompts}, step ${point.step}${point.next ? ' (next)' : ''}, ${report.provider} ${report.model}`;
    const figs = $('figures');
    figs.replaceChildren(
      figure('bytes', report.bytes, 'bytes'),
      figure('tokens', report.tokens.request, 'estimated tokens'),
      figure('items', report.items, 'items'),
      figure('entries', conversationOf(payload).length, 'entries sent'),
      figure('context', report.tokens.context.used, 'context tokens (ledger)'),
      ...(report.forecast ? [
        figure('cache-read', report.forecast.cacheRead, 'tokens the provider\'s cache should serve'),
        figure('input-cost', report.forecast.inputDollars, `input cost at ${report.forecast.pricedAs} prices (${report.forecast.pricesAsOf})`, dollars(report.forecast.inputDollars)),
      ] : []),
    );
    renderSources($('by-source'), $('sources').tBodies[0], report.tokens.bySource, report.sources);
    renderGauge($('gauge'), $('gauge-text'), report.tokens.context);
    const p = report.pruning;
    const lines = [];
    for (const r of report.repairs) lines.push(el('li', { 'data-kind': 'repair', text: `repair: ${r.kind}${r.callId ? ` (${r.callId})` : ''}` }));
    lines.push(el('li', { 'data-kind': 'pruning', 'data-cleared': String(p.cleared), 'data-trimmed': String(p.trimmed),
      text: p.active ? `pruning: ${fmt(p.cleared)} results cleared, ${fmt(p.trimmed)} trimmed (results before step ${p.boundaryStep ?? 0} of ${p.steps ?? 0}, turn ${p.boundaryTurn} of ${p.turns})` : 'pruning: inactive (below its trigger)' }));
    // The report names the results this request prunes that the one before did not.
    for (const [what, ids] of [['cleared', p.newlyCleared], ['trimmed', p.newlyTrimmed]]) {
      if (ids.length === 0) continue;
      const list = el('ul', { class: 'plain' });
      const box = el('details', { 'data-kind': `pruned-${what}` }, el('summary', { text: `${fmt(ids.length)} results newly ${what} by this request` }), list);
      box.addEventListener('toggle', () => {
        if (!box.open || list.childElementCount > 0) return;
        list.append(...ids.slice(0, 500).map((id) => el('li', {}, el('code', { text: id }))));
        if (ids.length > 500) list.append(el('li', { text: `… and ${fmt(ids.length - 500)} more` }));
      });
      lines.push(el('li', {}, box));
    }
    const im = report.images;
    lines.push(el('li', { 'data-kind': 'images', 'data-evicted': String(im.evicted.length),
      text: `images: ${im.images}, ${fmt(im.bytesAfter)} bytes${im.bytesAfter !== im.bytesBefore ? ` (of ${fmt(im.bytesBefore)})` : ''}` +
        `${im.evicted.length ? `; ${im.evicted.length} evicted: ${im.evicted.slice(0, 5).join(', ')}${im.evicted.length > 5 ? '…' : ''}` : ''}${im.stripped ? '; all stripped' : ''}` }));
    const rc = report.reasoning;
    lines.push(el('li', { 'data-kind': 'reasoning', text: `reasoning: ${rc.kept} kept, ${rc.downgraded} downgraded, ${rc.dropped} dropped` }));
    if (Object.keys(report.idMap).length) lines.push(el('li', { text: `tool-call ids rewritten: ${Object.keys(report.idMap).length}` }));
    $('pipeline').replaceChildren(...lines);
    $('body-size').textContent = `(${fmt(report.bytes)} bytes)`;
    jsonView($('body'), payload);
  }

  function renderPrefix(report) {
    const pr = report.prefix;
    const box = $('prefix');
    if (!pr) {
      box.replaceChildren(el('p', { class: 'muted', text: 'The first request: nothing before it to share.' }));
      box.dataset.shared = '0';
      return;
    }
    box.dataset.shared = String(pr.sharedBytes);
    const share = (100 * pr.sharedBytes) / Math.max(report.bytes, 1);
    box.replaceChildren(
      figure('shared', pr.sharedBytes, 'bytes shared with the request before (cacheable)'),
      figure('share', Math.round(share * 10) / 10, 'per cent of this request', `${share.toFixed(1)}%`),
      figure('previous', pr.previousBytes, 'bytes in the request before'),
      figure('rewritten', pr.rewrittenBytes, pr.extendsPrevious ? 'bytes rewritten: it extends the one before' : `bytes rewritten${pr.cause ? ` by ${pr.cause}` : ''}`),
    );
  }

  /**
   * The request to compare the selected one with: the one before it, or the request numbered in
   * #compare (1-based), built on its own from the log as it stood then.
   */
  function compareWith(built) {
    const n = Number($('compare').value); // 0 when empty
    const t = state.timeline;
    // Request n (1-based) is request n - 1; the one before the selected is state.index - 1.
    if (!Number.isInteger(n) || n < 1 || n > t.length || n === state.index) {
      $('diff').dataset.against = built.previous === null ? '' : String(state.index);
      return built.previous === null ? null : JSON.parse(built.previous);
    }
    $('diff').dataset.against = String(n);
    if (n - 1 === state.index) return JSON.parse(built.body);
    return JSON.parse(cv.buildRequestString({ ...options(), log: t.logAt(n - 1) }).body);
  }

  function renderDiff(before, after) {
    const list = $('diff');
    if (!before) {
      list.replaceChildren(el('li', { class: 'muted', text: 'The first request.' }));
      return;
    }
    const { common, changes, top } = diffConversations(before, after);
    list.dataset.common = String(common);
    const items = [
      el('li', { class: 'muted', text: `${common} conversation entries unchanged${top.length ? `; top-level fields changed: ${top.join(', ')}` : ''}` }),
      ...changes.slice(0, 200).map((c) => el('li', { class: c.kind, 'data-kind': c.kind, text: `#${c.index} ${describeEntry(c.entry)}` })),
    ];
    if (changes.length > 200) items.push(el('li', { class: 'muted', text: `… and ${changes.length - 200} more` }));
    list.replaceChildren(...items);
  }

  // ---------------------------------------------------------------------------------------------
  // The whole timeline, walked in slices so the page stays responsive

  /** Stops the walk under way (its session is freed at once). */
  function stopWalk() {
    state.walkToken++;
    state.walk?.return();
    state.walk = null;
  }

  function startWalk() {
    stopWalk();
    const token = state.walkToken;
    const t = state.timeline;
    state.requests = [];
    delete $('timeline-chart').dataset.columns;
    $('session-cost').textContent = '';
    delete $('session-cost').dataset.dollars;
    host.dataset.walk = 'running';
    const walk = t.walk(options());
    state.walk = walk;
    const slice = () => {
      if (token !== state.walkToken) return;
      const until = performance.now() + 30;
      try {
        for (;;) {
          const { value, done } = walk.next();
          if (done) {
            state.walk = null;
            // Each column's figures, as data for whoever reads the page (tests, tools).
            $('timeline-chart').dataset.columns = JSON.stringify(state.requests);
            showSessionCost();
            host.dataset.walk = 'done';
            drawTimeline($('timeline-chart'), state.requests, state.index);
            renderSession(); // lines the walk could not append are in the diagnostics now
            return;
          }
          const r = value.report;
          state.requests.push({ bytes: r.bytes, sources: r.sources, shared: r.prefix?.sharedBytes ?? 0, cacheRead: r.forecast?.cacheRead ?? 0, inputDollars: r.forecast?.inputDollars ?? 0 });
          if (performance.now() > until) break;
        }
      } catch (e) {
        host.dataset.walk = 'error';
        return fail('timeline', e);
      }
      drawTimeline($('timeline-chart'), state.requests, state.index);
      setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  }

  // ---------------------------------------------------------------------------------------------
  // Inputs

  function wire() {
    $('folder-input').addEventListener('change', (ev) => {
      const files = [...ev.target.files];
      if (files.length === 0) return;
      const top = files[0].webkitRelativePath.split('/')[0] || files[0].name;
      const inside = files.map((f) => f.webkitRelativePath.slice(top.length + 1)).filter(Boolean);
      openWorkspace(cv.fileListFs(files), `/${top}`, top, inside);
    });
    if (typeof window.showDirectoryPicker === 'function') {
      $('folder-open').hidden = false;
      $('folder-open').addEventListener('click', async () => {
        try {
          const handle = await window.showDirectoryPicker();
          openWorkspace(cv.browserFs(handle, { mount: `/${handle.name}` }), `/${handle.name}`, handle.name);
        } catch (e) {
          if (e?.name !== 'AbortError') fail('open folder', e);
        }
      });
    }
    $('session-input').addEventListener('change', async (ev) => {
      const t0 = performance.now();
      const [file, ...children] = ev.target.files;
      if (file) loadSession(file.name, await file.text(), t0, await Promise.all(children.map((c) => c.text())));
    });
    $('answer-input').addEventListener('change', async (ev) => {
      const file = ev.target.files[0];
      if (file) recordAnswer(file.name, await file.text());
    });
    $('example').hidden = !exampleUrl;
    $('example').addEventListener('click', async () => {
      try {
        const res = await fetch(exampleUrl);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        loadSession(String(exampleUrl).split('/').slice(-2).join('/'), await res.text());
      } catch (e) {
        fail('example session', e);
      }
    });
    $('path-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const q = $('path-query').value.trim();
      if (q) showPathRules(q);
    });
    $('slider').addEventListener('input', () => {
      state.index = Number($('slider').value);
      showRequest();
    });
    $('compare').addEventListener('change', () => state.timeline?.length && showRequest());
    $('use-heads').addEventListener('change', reloadTimeline);
    whenOpened(() => $('use-heads').checked && reloadTimeline());
    whenBudgetChanged(() => $('use-heads').checked && reloadTimeline());
    for (const id of ['provider', 'model', 'window', 'pruning']) {
      $(id).addEventListener('change', () => {
        if (!state.timeline || state.timeline.length === 0) return;
        showRequest();
        renderSubagents();
        startWalk();
      });
    }
    $('compact').addEventListener('click', prepareCompaction);
    $('price').addEventListener('click', priceOptions);
    $('copy-body').addEventListener('click', () => state.body && navigator.clipboard?.writeText(state.body));
    $('expand-all').addEventListener('click', () => {
      const top = $('body').querySelector('details');
      for (const d of top?.querySelectorAll(':scope > details') ?? []) {
        if (CONVERSATION_KEYS.some((k) => d.querySelector(':scope > summary > .k')?.textContent === JSON.stringify(k))) {
          expand(d);
          for (const m of d.querySelectorAll(':scope > details')) expand(m);
        }
      }
    });
    window.addEventListener('resize', redraw);

    // Drops: a folder opens as the workspace, a file as the session.
    const drop = host;
    drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('dragging'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
    drop.addEventListener('drop', async (ev) => {
      ev.preventDefault();
      drop.classList.remove('dragging');
      // The list empties once this handler returns: take everything from it before awaiting.
      const dropped = [...ev.dataTransfer.items].filter((item) => item.kind === 'file').map((item) => {
        const entry = item.webkitGetAsEntry?.();
        return entry?.isDirectory ? { entry } : { file: item.getAsFile() };
      });
      for (const { entry, file } of dropped) {
        if (entry) {
          try {
            const pairs = await entryFiles(entry);
            await openWorkspace(cv.fileListFs(pairs), `/${entry.name}`, entry.name, pairs.map((p) => p.path.slice(entry.name.length + 1)));
          } catch (e) {
            fail('dropped folder', e);
          }
        } else if (file) {
          loadSession(file.name, await file.text());
        }
      }
    });
  }

  const redraw = () => drawTimeline($('timeline-chart'), state.requests, state.index);
  wire();

  /**
   * Sets the what-if controls from build options (`provider`, `model`, `contextWindow`, `pruning`:
   * a policy known by name). An unknown policy is refused before anything changes, with the
   * package's ContextviewError, which names the policies there are.
   */
  function setOptions(o = {}) {
    if (o.pruning !== undefined) cv.policy(o.pruning);
    if (o.provider !== undefined) $('provider').value = o.provider;
    if (o.model !== undefined) $('model').value = o.model ?? '';
    if (o.contextWindow !== undefined) $('window').value = String(o.contextWindow ?? '');
    if (o.pruning !== undefined) $('pruning').value = o.pruning;
    if (!state.timeline || state.timeline.length === 0) return;
    showRequest();
    renderSubagents();
    startWalk();
  }

  return {
    loadSession: (text, name = 'session', children = []) => {
      if (!Array.isArray(children) || children.some((c) => typeof c !== 'string')) {
        throw new cv.ContextviewTypeError('children', '`children` must be an array of the subagents\' logs or files, as strings');
      }
      return loadSession(name, text, performance.now(), children);
    },
    recordAnswer: (text, name = 'answer') => recordAnswer(name, text),
    openWorkspace: (fs, cwd, label = cwd, files = []) => openWorkspace(fs, cwd, label, files),
    setOptions,
    options,
    priceOptions,
    ready: (message) => setState('ready', message),
    fail,
    destroy() {
      stopWalk();
      window.removeEventListener('resize', redraw);
    },
  };
}
