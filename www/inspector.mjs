// The context inspector: a session's requests on a timeline, the selected request's figures,
// where its tokens went and its body, and what changes when the options do. An imported session
// opens as recorded (each request at the provider and model it went to, with none of our
// pruning); our policies, other providers and windows are the what-if. Every figure comes from
// one walk of the session, so the panel, the timeline and the totals agree. It uses the
// package's public API only, handed to `mountInspector` (the page passes the browser entry; the
// package's <contextview-inspector> element, inspector.mjs, its own).
//
// For hosts and tests: status.mjs says when the inspector is done (`data-state`), the host's
// `data-walk` when the timeline's figures are complete, and `data-view` holds what the page
// shows as JSON (see `viewState`). Reading inputs is load.mjs, the request's panels request.mjs,
// the chart chart.mjs, the subagents list subagents.mjs, the workspace workspace.mjs.
import { CONVERSATION_KEYS, fmt, dollars, expand, conversationOf } from './views.mjs';
import { statusOf } from './status.mjs';
import { workspacePanel } from './workspace.mjs';
import { whatIfPanels } from './whatif.mjs';
import { timelineChart, chartLegend } from './chart.mjs';
import { assemble, readingOf, readingSaid } from './load.mjs';
import { wireInputs } from './inputs.mjs';
import { withHeads } from './heads.mjs';
import { renderImportReport } from './imported.mjs';
import { renderFigures, renderShares, renderPipeline, renderBody, renderAgainstRecorded, renderPrefix, renderDiff } from './request.mjs';
import { renderSubagents, renderCrumbs } from './subagents.mjs';
import { walkInSlices } from './walk.mjs';
import { recordAnswerInLog, describeAnswer } from './answer.mjs';
import { totalsOf, viewOf } from './view-state.mjs';
import { followControls } from './follow.mjs';
import { viewOptions } from './options.mjs';

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

  const state = {
    stack: [], // the sessions opened: the one loaded first, then each subagent opened from it
    session: null, // { name, text, log, report, children: Map(sessionId → log), reading }
    timeline: null,
    index: 0,
    asRecorded: false,
    requests: [], // the walk's figures per request (the chart's columns, the totals)
    stopWalk: null, // stops the walk under way
    body: null, // the selected request's body text
    report: null, // the selected request's report
    pending: null, // files that await a format (`{files}`)
    children: new Map(), // child timelines by session id
    links: [], // the subagents the session started (`Timeline.subagents()`)
    saved: null, // the what-if controls while they show a recorded model
    following: null, // the file followed while its agent writes it: { name, stop() }
  };

  // ---------------------------------------------------------------------------------------------
  // Options (options.mjs)

  const { windowOption, baseOptions, options, optionsAt, recordsProvider, showMode } = viewOptions({ cv, $, state });

  const { priceOptions, prepareCompaction } = whatIfPanels(cv, status, () => {
    const t = state.timeline;
    const last = t && t.length ? optionsAt(t.length - 1) : baseOptions();
    const { pruning, ...base } = last;
    return { session: state.session, timeline: t, index: state.index, base: state.asRecorded ? base : baseOptions(), options: t && t.length ? optionsAt(state.index) : options(), text: sessionText };
  });

  // ---------------------------------------------------------------------------------------------
  // Loading

  /**
   * Loads a session from files given together (`[{name, text}]`, any order: the parent and its
   * subagents' files), read as `format` when given. A file that fails clears what it would
   * have replaced and says why; one whose format is not recognised offers the format chooser.
   */
  async function loadFiles(files, format = null, t0 = performance.now(), { parentFirst = false } = {}) {
    unfollow();
    const name = files.length === 1 ? files[0].name : `${files.length} files`;
    setState('busy', `reading ${name}…`);
    $('format-box').hidden = true;
    try {
      performance.mark('contextview:read');
      const loaded = await assemble(cv, files, format, { parentFirst });
      performance.mark('contextview:imported');
      resetSession();
      state.stack = [];
      open({ ...loaded, label: loaded.name }, t0);
    } catch (e) {
      resetSession();
      $('session-summary').textContent = `${name}: not loaded`;
      if (e?.code === 'unknown_format') {
        state.pending = { files };
        $('format-box').hidden = false;
        showAlert(`${name}: the format was not recognised from its first lines. Choose one beside “read it as” to read it anyway.`);
      } else {
        showAlert(`${name}: ${e?.code ? `${e.code}: ` : ''}${e?.message ?? e}`);
      }
      fail(`session ${name}`, e);
    }
  }

  // Following a file while its agent writes it (follow.mjs): it opens as a session, then grows.
  const { follow, unfollow } = followControls({
    cv,
    $,
    state,
    setState,
    fail,
    publish: () => publish(),
    opened: (name, log, report) => {
      const following = state.following;
      resetSession();
      state.stack = [];
      state.following = following;
      open({ name, label: name, text: '', log, report, children: new Map(), unlinked: [], files: 1 });
    },
    grew: (log, report) => grow(log, report),
  });

  /** The followed file gained lines: the session's log is `log` now. */
  function grow(log, report) {
    const newest = state.timeline && state.index === state.timeline.length - 1;
    state.session = { ...state.session, log, report };
    state.stack[state.stack.length - 1].session = state.session;
    stopWalk();
    state.timeline?.free();
    state.timeline = new cv.Timeline(sessionText());
    state.links = state.timeline.subagents();
    renderSession();
    if (state.timeline.length === 0) return publish();
    select(newest ? state.timeline.length - 1 : Math.min(state.index, state.timeline.length - 1), { walk: true });
  }

  /** Shows a session (loaded, or a subagent's opened from its parent) and selects its last request. */
  function open(session, t0 = performance.now()) {
    stopWalk();
    state.session = session;
    state.timeline = new cv.Timeline(sessionText());
    state.links = state.timeline.subagents();
    state.children = new Map();
    state.stack.push({ label: session.label, session });
    state.asRecorded = recordsProvider();
    if (!state.asRecorded && state.saved) {
      // The controls showed another session's recorded model: the what-if's own come back.
      $('provider').value = state.saved.provider;
      $('model').value = state.saved.model;
      $('pruning').value = state.saved.pruning;
    }
    if (!state.asRecorded) state.saved = null;
    performance.mark('contextview:timeline');
    $('answer-input').disabled = false;
    $('answer-label').setAttribute('aria-disabled', 'false');
    showReading();
    renderSession();
    if (state.timeline.length === 0) {
      setState('ready', `${session.name}: no request to show (the session never waited for the model)`);
      publish();
      return;
    }
    select(state.timeline.length - 1, { walk: true });
    // From the file's pick to the first frame that shows its last request (`make bench`).
    requestAnimationFrame(() => performance.measure('contextview:first-request', { start: t0 }));
  }

  /** The banner at the top: what was not read of the session, and files it could not place. */
  function showReading() {
    const s = state.session;
    s.reading = readingOf(s.report ? s.text : s.log, s.report ? s.report.diagnostics : state.timeline.diagnostics);
    const said = readingSaid(s.name, s.reading, s.unlinked ?? []);
    showAlert(said, 'warn');
    if (said) $('alert').parentElement.scrollIntoView?.({ block: 'nearest' }); // seen with its header, wherever the page was
  }

  function showAlert(message, kind = '') {
    const box = $('alert');
    box.hidden = !message;
    box.textContent = message ?? '';
    box.className = kind;
    if (message) box.dataset.kind = kind || 'error';
    else delete box.dataset.kind;
  }

  /** A provider's answer to the session's last request (answer.mjs): recorded, then the request after it. */
  async function recordAnswer(name, text) {
    if (!state.session) return fail('answer', new Error('load a session first'));
    unfollow();
    setState('busy', `recording ${name}…`);
    try {
      const t = state.timeline;
      const provider = t.length ? optionsAt(t.length - 1).provider : $('provider').value;
      const { log, recorded } = recordAnswerInLog(cv, state.session.log, provider, text);
      const previous = state.session;
      resetSession();
      state.stack = [];
      open({ ...previous, name: `${previous.name} + ${name}`, label: `${previous.name} + ${name}`, log });
      host.dataset.answer = JSON.stringify(recorded);
      showNext(describeAnswer(recorded));
    } catch (e) {
      fail(`answer ${name}`, e);
    }
  }

  /** The request the session would send now, after the answer. */
  function showNext(said) {
    try {
      const t = state.timeline;
      const { asRecorded, ...rest } = options();
      const built = cv.buildRequestString({ log: sessionText(), ...(asRecorded && t.length ? optionsAt(t.length - 1) : rest) });
      state.body = built.body;
      renderRequest(built.report, JSON.parse(built.body));
      $('request-title').textContent = `— the next request, after the answer (${built.report.provider} ${built.report.model})`;
      setState('ready', `${said}; the next request: ${fmt(built.report.bytes)} bytes`);
    } catch (e) {
      // A final answer ends the turn: the next request waits for the person's next message.
      setState('ready', `${said}; no next request yet (${e.code ?? 'error'}: ${e.message})`);
    }
  }

  /** The session's log as the page builds from it (heads.mjs): with the workspace's prompt when asked. */
  const sessionText = () => withHeads(state.session.log, $('use-heads').checked ? workspaceHeads() : null);

  /** Rebuilds the timeline from the session's text (the heads switched, a workspace opened). */
  function reloadTimeline() {
    if (!state.session) return;
    stopWalk();
    try {
      state.timeline?.free();
      state.timeline = new cv.Timeline(sessionText());
    } catch (e) {
      return fail(`session ${state.session.name}`, e);
    }
    if (state.timeline.length === 0) return;
    select(Math.min(state.index, state.timeline.length - 1), { walk: true });
  }

  /** Forgets the session shown: its walk stops, its request and pictures are cleared. */
  function resetSession() {
    stopWalk();
    state.timeline?.free();
    for (const child of state.children.values()) child?.free();
    state.children = new Map();
    state.timeline = null;
    state.links = [];
    state.session = null;
    state.requests = [];
    state.body = null;
    state.report = null;
    state.index = 0;
    const slider = $('slider');
    slider.max = '0';
    slider.value = '0';
    slider.disabled = true;
    $('compact').disabled = true;
    $('price').disabled = true;
    $('answer-input').disabled = true;
    $('answer-label').setAttribute('aria-disabled', 'true');
    $('prices').tBodies[0].replaceChildren();
    $('prices-note').textContent = '';
    $('slider-out').textContent = '–';
    $('request-title').textContent = '';
    $('session-summary').textContent = 'No session loaded.';
    for (const id of ['figures', 'token-notes', 'by-source', 'pipeline', 'body', 'prefix', 'diff', 'compaction-body', 'gauge', 'import-report', 'subagents', 'session-cost']) $(id).replaceChildren();
    $('sources').tBodies[0].replaceChildren();
    for (const id of ['gauge-text', 'body-size', 'compaction-summary']) $(id).textContent = '';
    for (const id of ['recorded-note', 'against-recorded', 'subagents-box']) $(id).hidden = true;
    renderDiagnostics($('session-diagnostics'), $('session-diag-count'), []);
    delete $('prefix').dataset.shared;
    delete host.dataset.walk;
    delete $('timeline-chart').dataset.columns;
    showAlert(null);
    chart.draw([], -1, 0);
    publish();
  }

  function renderSession() {
    const { name, report } = state.session;
    const t = state.timeline;
    const prompts = t.points.length ? t.points[t.points.length - 1].prompts : 0;
    $('session-summary').textContent = `${name}: ${report ? `imported from ${report.format}, ` : ''}${fmt(t.length)} requests over ${fmt(prompts)} prompts` +
      (t.points.at(-1)?.next ? ' (the last is the one it would send next)' : '');
    $('session-summary').dataset.requests = String(t.length);
    renderCrumbs($('crumbs'), state.stack, back);
    renderImportReport($('import-report'), report);
    renderDiagnostics($('session-diagnostics'), $('session-diag-count'), [...(report?.diagnostics ?? []), ...t.diagnostics]);
    showSubagents();
  }

  /** The child's Timeline (kept while its parent is shown), or null when its log was not given. */
  function childTimeline(sessionId) {
    if (!state.children.has(sessionId)) {
      const log = state.session.children?.get(sessionId);
      state.children.set(sessionId, log ? new cv.Timeline(log) : null);
    }
    return state.children.get(sessionId);
  }

  function showSubagents() {
    const links = state.links;
    $('subagents-box').hidden = links.length === 0;
    $('subagent-count').textContent = String(links.length);
    renderSubagents($('subagents'), links, { timelineOf: childTimeline, options: options(), onAt: (i) => select(i), onOpen: openChild });
  }

  /** Opens a subagent's own session: its requests, its own subagents, a breadcrumb back. */
  function openChild(link) {
    const log = state.session.children?.get(link.sessionId);
    if (!log) return;
    state.stack[state.stack.length - 1].index = state.index;
    const parent = state.session;
    const firstLine = (link.task ?? '').split('\n').find((l) => l.trim() !== '') ?? link.sessionId;
    const label = firstLine.length > 40 ? `${firstLine.slice(0, 40)}…` : firstLine;
    const stack = state.stack;
    resetSession();
    state.stack = stack;
    open({ name: link.sessionId, label, log, report: null, children: parent.children, unlinked: [] });
    $('overview').scrollIntoView?.({ block: 'start' }); // the child's first screen, not the list it was opened from
  }

  /** Goes back to session `depth` of the breadcrumb, at the request it showed. */
  function back(depth) {
    const stack = state.stack.slice(0, depth + 1);
    const { session, index } = stack[depth];
    resetSession();
    state.stack = stack.slice(0, depth);
    open(session);
    if (index !== undefined && index < state.timeline.length) select(index);
    $('overview').scrollIntoView?.({ block: 'start' });
  }

  // ---------------------------------------------------------------------------------------------
  // The selected request

  /**
   * Selects request `index` and shows it; with `walk`, (re)starts the walk that gives every
   * request's figures.
   */
  function select(index, { walk = false } = {}) {
    const t = state.timeline;
    if (!t || t.length === 0) return;
    if (!Number.isInteger(index) || index < 0 || index >= t.length) {
      throw new cv.ContextviewError('invalid_argument', `request ${index} is not in 0..${t.length - 1}`);
    }
    state.index = index;
    const slider = $('slider');
    slider.max = String(t.length - 1);
    slider.disabled = false;
    slider.value = String(index);
    $('compact').disabled = false;
    $('price').disabled = false;
    showMode();
    if (walk) startWalk();
    showRequest();
  }

  function showRequest() {
    const t = state.timeline;
    setState('busy', `building request ${state.index + 1}…`);
    try {
      const built = t.buildAt(state.index, options());
      performance.mark('contextview:built');
      state.body = built.body;
      state.report = built.report;
      const payload = JSON.parse(built.body);
      renderRequest(built.report, payload);
      renderPrefix($, built.report);
      renderDiff($, compareWith(built), payload);
      $('slider-out').textContent = `${state.index + 1} of ${t.length}`;
      $('compaction-summary').textContent = '';
      $('compaction-body').replaceChildren();
      delete $('compaction-body').dataset.bytes;
      chart.draw(state.requests, state.index, t.length);
      const diags = built.diagnostics.length ? ` · ${built.diagnostics.length} diagnostics` : '';
      setState('ready', `request ${state.index + 1} of ${t.length}: ${fmt(built.report.bytes)} bytes, ${fmt(built.report.tokens.request)} tokens${diags}`);
    } catch (e) {
      fail(`request ${state.index + 1}`, e);
    }
    publish();
  }

  function renderRequest(report, payload) {
    const t = state.timeline;
    const point = t.points[state.index] ?? { prompts: 0, step: 0 };
    const mode = state.asRecorded ? 'as recorded' : 'what if';
    $('request-title').textContent = `— ${state.index + 1} of ${t.length}, prompt ${point.prompts}, step ${point.step}${point.next ? ' (next)' : ''}, ${mode}: ${report.provider} ${report.model}`;
    const headTokens = state.session.report?.headTokens ?? null;
    const note = $('recorded-note');
    note.hidden = !(state.asRecorded && state.session.report);
    note.textContent = state.asRecorded && state.session.report
      ? `As recorded: the conversation ${state.session.report.format} sent to ${point.model ?? report.model}. Its own system prompt and tool definitions are not in its file${headTokens ? ` (about ${fmt(headTokens)} tokens by its usage)` : ''}, so this body holds none; everything else is as the file records it.`
      : '';
    renderFigures($, report, payload, { headTokens, asRecorded: state.asRecorded });
    renderShares($, report);
    const pruningOff = state.asRecorded || cv.policy($('pruning').value).options?.pruning?.enabled === false;
    renderPipeline($, report, { pruningOff });
    renderBody($, report, payload);
    let recorded = null;
    if (!state.asRecorded && t.points[state.index]?.provider !== undefined) {
      try {
        recorded = t.buildAt(state.index, { asRecorded: true, ...windowOption() }).report;
      } catch {
        recorded = null; // the recorded request is not buildable: nothing to compare with
      }
    }
    renderAgainstRecorded($, report, recorded);
  }

  /**
   * The request to compare the selected one with: the one before it, or the request numbered in
   * #compare (1-based), built on its own from the log as it stood then.
   */
  function compareWith(built) {
    const n = Number($('compare').value); // 0 when empty
    const t = state.timeline;
    if (!Number.isInteger(n) || n < 1 || n > t.length || n === state.index) {
      $('diff').dataset.against = built.previous === null ? '' : String(state.index);
      return built.previous === null ? null : JSON.parse(built.previous);
    }
    $('diff').dataset.against = String(n);
    if (n - 1 === state.index) return JSON.parse(built.body);
    return JSON.parse(cv.buildRequestString({ ...optionsAt(n - 1), log: t.logAt(n - 1) }).body);
  }

  // ---------------------------------------------------------------------------------------------
  // What the page shows, as data

  const totals = () => totalsOf(state.requests);
  const viewState = () => viewOf(state, host.dataset.walk);

  function publish() {
    host.dataset.view = JSON.stringify(viewState());
  }

  // ---------------------------------------------------------------------------------------------
  // The whole timeline, walked in slices so the page stays responsive

  function stopWalk() {
    state.stopWalk?.();
    state.stopWalk = null;
  }

  function showSessionCost() {
    const box = $('session-cost');
    const { cost, cacheRead } = totals();
    box.dataset.dollars = String(cost);
    box.dataset.cacheRead = String(cacheRead);
    box.textContent = state.requests.length
      ? `${state.asRecorded ? 'As recorded' : 'What if'}: input cost of the ${fmt(state.requests.length)} requests ${dollars(cost)}, ${fmt(cacheRead)} tokens served by the cache`
      : '';
  }

  /** Walks every request under the view's options: the chart's columns and the totals. */
  function startWalk() {
    stopWalk();
    const t = state.timeline;
    state.requests = [];
    delete $('timeline-chart').dataset.columns;
    $('session-cost').textContent = 'walking the requests…';
    delete $('session-cost').dataset.dollars;
    host.dataset.walk = 'running';
    state.stopWalk = walkInSlices(t, options(), {
      onSlice: (figures) => {
        state.requests.push(...figures);
        chart.draw(state.requests, state.index, t.length);
      },
      onDone: () => {
        state.stopWalk = null;
        $('timeline-chart').dataset.columns = JSON.stringify(state.requests);
        host.dataset.walk = 'done';
        showSessionCost();
        renderDiagnostics($('session-diagnostics'), $('session-diag-count'), [...(state.session.report?.diagnostics ?? []), ...t.diagnostics]);
        publish();
      },
      onError: (e) => {
        state.stopWalk = null;
        host.dataset.walk = 'error';
        fail('timeline', e);
      },
    });
  }

  const chart = timelineChart($('timeline-chart'), $('chart-readout'), (i) => select(i));
  chartLegend($('timeline-legend'));

  // ---------------------------------------------------------------------------------------------
  // Inputs

  function wire() {
    wireInputs({ $, host, cv, exampleUrl, fail, loadFiles, openWorkspace, entryFiles, showPathRules,
      noSession: (folder) => {
        resetSession();
        showAlert(`${folder}: no session file in this folder (.jsonl)`);
        fail('session folder', new Error('no session file in this folder'));
      } });
    $('format-load').addEventListener('click', () => state.pending && loadFiles(state.pending.files, $('format').value));
    if (typeof window.showOpenFilePicker === 'function') {
      $('follow-open').hidden = false;
      $('follow-open').addEventListener('click', async () => {
        try {
          const [handle] = await window.showOpenFilePicker();
          await follow(handle);
        } catch (e) {
          if (e?.name !== 'AbortError') fail('follow', e);
        }
      });
    }
    $('follow-stop').addEventListener('click', () => {
      unfollow();
      setState('ready', `${state.session?.name ?? 'the file'}: no longer followed`);
    });
    $('answer-input').addEventListener('change', async (ev) => {
      const file = ev.target.files[0];
      if (file) recordAnswer(file.name, await file.text());
    });
    $('slider').addEventListener('input', () => select(Number($('slider').value)));
    $('compare').addEventListener('change', () => state.timeline?.length && showRequest());
    $('use-heads').addEventListener('change', reloadTimeline);
    whenOpened(() => {
      $('workspace-panel').open = true;
      if ($('use-heads').checked) reloadTimeline();
    });
    whenBudgetChanged(() => $('use-heads').checked && reloadTimeline());
    $('as-recorded').addEventListener('change', () => {
      state.asRecorded = $('as-recorded').checked;
      // Unchecked, the what-if starts from the request as recorded.
      if (!state.asRecorded) state.saved = null;
      optionsChanged();
    });
    for (const id of ['provider', 'model', 'window', 'pruning']) {
      $(id).addEventListener('change', () => {
        // A provider chosen is a what-if; the window is one in either view.
        if (id === 'provider' && state.asRecorded) {
          state.asRecorded = false;
          state.saved = null;
        }
        optionsChanged();
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
  }

  /** The view's options changed: the selected request again, the subagents and the walk. */
  function optionsChanged() {
    if (!state.timeline || state.timeline.length === 0) return showMode();
    select(state.index, { walk: true });
    showSubagents();
  }

  const redraw = () => chart.draw(state.requests, state.index, state.timeline?.length ?? 0);
  wire();
  publish();

  /**
   * Sets the view from options: `asRecorded`, or the what-if's `provider`, `model`,
   * `contextWindow` and `pruning` (a policy known by name; an unknown one is refused before
   * anything changes, with the package's ContextviewError naming the policies there are).
   * Giving `provider`, `model` or `pruning` without `asRecorded` is a what-if.
   */
  function setOptions(o = {}) {
    if (o.pruning !== undefined) cv.policy(o.pruning);
    if (o.provider !== undefined) $('provider').value = o.provider;
    if (o.model !== undefined) $('model').value = o.model ?? '';
    if (o.contextWindow !== undefined) $('window').value = String(o.contextWindow ?? '');
    if (o.pruning !== undefined) $('pruning').value = o.pruning;
    // As recorded only where the log records a provider (else the controls say where it goes).
    if (o.asRecorded !== undefined) state.asRecorded = Boolean(o.asRecorded) && (!state.timeline || recordsProvider());
    else if (o.provider !== undefined || o.model !== undefined || o.pruning !== undefined) state.asRecorded = false;
    if (!state.asRecorded) state.saved = null;
    optionsChanged();
  }

  return {
    loadSession: (text, name = 'session', children = []) => {
      if (typeof text !== 'string') throw new cv.ContextviewTypeError('text', '`text` must be the session\'s log or file, as a string');
      if (!Array.isArray(children) || children.some((c) => typeof c !== 'string')) {
        throw new cv.ContextviewTypeError('children', '`children` must be an array of the subagents\' logs or files, as strings');
      }
      return loadFiles([{ name, text }, ...children.map((c, i) => ({ name: `${name} (subagent ${i + 1})`, text: c }))], null, performance.now(), { parentFirst: true });
    },
    recordAnswer: (text, name = 'answer') => recordAnswer(name, text),
    follow: (handle, options) => follow(handle, options),
    unfollow: () => unfollow(),
    openWorkspace: (fs, cwd, label = cwd, files = []) => openWorkspace(fs, cwd, label, files),
    select: (index) => select(index),
    get view() {
      return viewState();
    },
    setOptions,
    options,
    priceOptions,
    ready: (message) => setState('ready', message),
    fail,
    destroy() {
      unfollow();
      stopWalk();
      window.removeEventListener('resize', redraw);
    },
  };
}
