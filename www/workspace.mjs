// The workspace panel: discovery over a picked, dropped or opened folder; the rules in load
// order, the skills with what they shadow, the diagnostics, and which rules a path attaches.
import { el, fmt } from './views.mjs';

/**
 * The workspace panel of one inspector: `cv` is the package, `status` its status functions
 * (status.mjs). Returns what the rest of the inspector calls.
 */
export function workspacePanel(cv, { $, setState, fail }) {
  const state = {
    workspace: null,
    token: 0, // the last folder opened wins
    root: null,
    // The what-if head budget: tokens (absent: the package's default share) and priorities by section.
    budget: { tokens: undefined, priorities: {} },
  };

  let onOpened = null;
  let onBudget = null;

  /** Calls `fn` each time the head budget or a section's priority is changed. */
  function whenBudgetChanged(fn) {
    onBudget = fn;
  }

  /** Calls `fn` each time a workspace has opened (the session may be rebuilt with its heads). */
  function whenOpened(fn) {
    onOpened = fn;
  }

  /** Offers the folder's files (those a picker handed over) as completions of the path box. */
  function offerFiles(paths) {
    const skip = /(^|\/)(\.git|node_modules|target|dist|build)\//;
    const options = [];
    for (const path of paths) {
      if (skip.test(path)) continue;
      options.push(el('option', { value: path }));
      if (options.length === 5000) break;
    }
    $('workspace-files').replaceChildren(...options);
  }

  async function openWorkspace(fs, cwd, label, files = []) {
    const token = ++state.token;
    setState('busy', `discovering ${label}…`);
    try {
      const workspace = await cv.discover({ cwd }, fs);
      // A folder opened after this one has won: this one is dropped.
      if (token !== state.token) return workspace.free();
      state.workspace?.free();
      state.workspace = workspace;
      state.root = cwd;
      offerFiles(files);
      $('use-heads').disabled = false;
      onOpened?.();
      renderWorkspace();
      setState('ready', `workspace ${label}: ${state.workspace.environment.rules.length} rules, ${state.workspace.environment.skills.length} skills`);
    } catch (e) {
      fail('discovery', e);
    }
  }

  function activationOf(rule) {
    const a = rule.activation ?? {};
    switch (a.kind) {
      case 'always': return 'always';
      case 'globs': return `globs: ${a.globs.join(', ')}`;
      case 'subdirectory': return 'when a file below its directory is read';
      case 'agent_requested': return `on request${rule.description ? `: ${rule.description}` : ''}`;
      case 'manual': return 'by name only';
      default: return String(a.kind ?? 'unknown');
    }
  }

  /**
   * The prompt heads an agent would start a session in this workspace with: the system prompt,
   * and the first-user prefix holding the rules loaded up front and the skills listing. Null
   * when no workspace is open.
   */
  function workspaceHeads() {
    if (!state.workspace) return null;
    const env = state.workspace.environment;
    const sections = Object.fromEntries(Object.entries(state.budget.priorities).map(([section, priority]) => [section, { priority }]));
    const window = Number($('window').value) || undefined;
    const headBudget = { ...(state.budget.tokens === undefined ? {} : { tokens: state.budget.tokens }), window, sections };
    return cv.renderHeads({ cwd: env.cwd, rules: env.rules, skills: env.skillListing, headBudget });
  }

  /** The allocation table: each section's priority (editable), need, grant, use and cuts. */
  function renderAllocation() {
    const heads = workspaceHeads();
    if (!heads) return;
    const { allocation } = heads;
    $('head-allocation').dataset.budget = String(allocation.budget);
    $('head-allocation').tBodies[0].replaceChildren(...allocation.sections.map((s) => {
      const priority = el('input', { type: 'number', step: '1', size: '4', value: String(s.priority), 'data-priority': s.section, 'aria-label': `priority of ${s.section}` });
      priority.addEventListener('change', () => {
        const value = Number(priority.value);
        if (!Number.isInteger(value) || value === (state.budget.priorities[s.section] ?? s.priority)) return;
        state.budget.priorities[s.section] = value;
        budgetChanged();
      });
      const cuts = s.cuts ?? [];
      return el('tr', { 'data-section': s.section, 'data-granted': String(s.granted), 'data-used': String(s.used), 'data-cuts': String(cuts.length) },
        el('td', { text: s.section }), el('td', {}, priority),
        el('td', { class: 'num', text: fmt(s.need) }), el('td', { class: 'num', text: fmt(s.granted) }), el('td', { class: 'num', text: fmt(s.used) }),
        el('td', { text: cuts.length ? cuts.map((c) => `${relative(c.what)} ${c.action.replace('_', ' ')}`).join(', ') : '—', title: cuts[0]?.reason ?? '' }));
    }));
  }

  function budgetChanged() {
    try {
      renderAllocation();
    } catch (e) {
      return fail('head budget', e);
    }
    const cut = Number($('head-allocation').tBodies[0].querySelectorAll('tr:not([data-cuts="0"])').length);
    setState('ready', `head budget ${fmt(Number($('head-allocation').dataset.budget))} tokens: ${cut} section${cut === 1 ? '' : 's'} cut`);
    onBudget?.();
  }

  $('head-budget').addEventListener('change', () => {
    const raw = $('head-budget').value.trim();
    const tokens = raw === '' ? undefined : Number(raw);
    // Not a budget, or the same one (a change event on leaving the box): nothing to redraw, so
    // the table being edited is not replaced under the hand.
    if ((tokens !== undefined && !(Number.isInteger(tokens) && tokens >= 0)) || tokens === state.budget.tokens) return;
    state.budget.tokens = tokens;
    budgetChanged();
  });
  $('window').addEventListener('change', () => state.workspace && renderAllocation());

  function relative(path) {
    const root = state.root;
    return root && path.startsWith(root + '/') ? path.slice(root.length + 1) : path;
  }

  function renderWorkspace() {
    const env = state.workspace.environment;
    const groups = [['loaded', env.rules], ['conditional', env.conditional], ['requestable', env.requestable]];
    const rows = [];
    let n = 0;
    for (const [group, rules] of groups) {
      for (const rule of rules) {
        n++;
        rows.push(el('tr', { 'data-path': rule.path, 'data-group': group, 'data-source': rule.source, 'data-bytes': String(rule.bytes) },
          el('td', { class: 'num', text: String(n) }),
          el('td', {}, el('a', { href: '#', text: relative(rule.path), onclick: (ev) => { ev.preventDefault(); showPathRules(rule.path); } }),
            rule.importedFrom ? el('span', { class: 'muted', text: ` (imported by ${relative(rule.importedFrom)})` }) : null,
            rule.truncated ? el('span', { class: 'muted', text: ' ✂ cut to its budget' }) : null),
          el('td', { text: `${rule.source}${rule.home ? ' (home)' : ''}` }),
          el('td', { text: activationOf(rule) }),
          el('td', { class: 'num', text: fmt(rule.bytes) })));
      }
    }
    $('rules').tBodies[0].replaceChildren(...rows);
    const shadowed = new Set(env.diagnostics.filter((d) => d.code === 'skills.shadowed').map((d) => d.path));
    $('skills').tBodies[0].replaceChildren(
      ...env.skills.map((s) => el('tr', { 'data-name': s.name, 'data-source': s.source },
        el('td', { text: s.name + (s.userOnly ? ' (user only)' : '') }), el('td', { text: s.source }), el('td', { text: s.description }))),
      ...[...shadowed].map((path) => el('tr', { class: 'shadowed', 'data-shadowed': path },
        el('td', { text: relative(path) }), el('td', { text: 'shadowed' }), el('td', { text: env.diagnostics.find((d) => d.path === path && d.code === 'skills.shadowed').message }))),
    );
    $('ws-summary').textContent = `${env.cwd}${env.repoRoot ? ` (repository root ${env.repoRoot})` : ''}: ${env.rules.length} rules loaded, ` +
      `${env.conditional.length} conditional, ${env.requestable.length} on request, ${env.skills.length} skills`;
    renderDiagnostics($('ws-diagnostics'), $('ws-diag-count'), env.diagnostics);
    renderAllocation();
  }

  function renderDiagnostics(list, count, diagnostics) {
    count.textContent = String(diagnostics.length);
    list.replaceChildren(...diagnostics.map((d) => el('li', { 'data-code': d.code },
      el('code', { text: d.code }), ` ${d.severity}: ${d.message}`, d.path ? el('span', { class: 'muted', text: ` (${relative(d.path)})` }) : null,
      d.line ? el('span', { class: 'muted', text: ` (line ${d.line})` }) : null)));
  }

  async function showPathRules(path) {
    if (!state.workspace) return fail('rules for a path', new Error('open a workspace folder first'));
    const abs = path.startsWith('/') ? path : `${state.root}/${path}`;
    $('path-query').value = relative(abs);
    setState('busy', `rules for ${relative(abs)}…`);
    try {
      const rules = await state.workspace.rulesMatching(abs);
      const always = state.workspace.environment.rules;
      $('path-rules').replaceChildren(
        el('li', { class: 'muted', text: `${relative(abs)}: the ${always.length} loaded rules, and these on top:` }),
        ...(rules.length ? rules.map((r) => el('li', { 'data-path': r.path, text: `${relative(r.path)} — ${activationOf(r)}` })) : [el('li', { text: 'none' })]),
      );
      setState('ready', `${rules.length} rule${rules.length === 1 ? '' : 's'} attach to ${relative(abs)}`);
    } catch (e) {
      fail('rules for a path', e);
    }
  }

  /** Walks a dropped directory entry (webkitGetAsEntry) into `{path, file}` pairs. */
  async function entryFiles(entry, prefix = '') {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) return [{ path, file: await new Promise((res, rej) => entry.file(res, rej)) }];
    const reader = entry.createReader();
    const out = [];
    for (;;) {
      const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) break;
      for (const child of batch) out.push(...(await entryFiles(child, path)));
    }
    return out;
  }

  return { openWorkspace, workspaceHeads, relative, renderDiagnostics, showPathRules, entryFiles, whenOpened, whenBudgetChanged };
}
