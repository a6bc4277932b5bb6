// The inspector's pictures and lists: plain DOM and one canvas, no framework. Each function
// takes data and an element and fills the element; none of them knows about the library.

/** Where a request's content comes from, in the order the pictures stack it. */
export const SOURCES = [
  ['tools', 'tools', '#8e6bbf'],
  ['system', 'system', '#5b6673'],
  ['prefix', 'first-user prefix', '#9aa5b1'],
  ['user', 'user', '#2f7fd1'],
  ['assistant', 'assistant', '#29a36a'],
  ['reasoning', 'reasoning', '#9fd3b6'],
  ['toolCalls', 'tool calls', '#e0a33a'],
  ['toolResults', 'tool results', '#d9653b'],
  ['reminders', 'reminders', '#c94f9b'],
  ['images', 'images', '#3bb3c9'],
  ['summaries', 'summaries', '#7a5230'],
];

export const fmt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : '–');

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('data-') || k === 'title' || k === 'role' || k.startsWith('aria-') || k === 'style') node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** A figure: a big number and what it is. `id` goes to data-figure, `value` to data-value. */
export function figure(id, value, label, shown = fmt(value), title = undefined) {
  return el('div', { class: 'figure', 'data-figure': id, 'data-value': String(value), title }, el('b', { text: shown }), el('span', { text: label }));
}

/** Tokens by source as one stacked bar and a table (tokens and bytes). */
export function renderSources(bar, tbody, tokens, bytes) {
  const total = SOURCES.reduce((n, [key]) => n + (tokens[key] ?? 0), 0) || 1;
  bar.replaceChildren(...SOURCES.filter(([key]) => tokens[key] > 0).map(([key, label, color]) =>
    el('div', { style: `flex: ${tokens[key] / total} 0 0; background: ${color}`, title: `${label}: ${fmt(tokens[key])} tokens`, 'data-source': key })));
  tbody.replaceChildren(...SOURCES.map(([key, label, color]) => el('tr', { 'data-source': key, 'data-tokens': String(tokens[key] ?? 0), 'data-bytes': String(bytes[key] ?? 0) },
    el('td', {}, el('span', { class: 'swatch', style: `background: ${color}` }), label),
    el('td', { class: 'num', text: fmt(tokens[key] ?? 0) }),
    el('td', { class: 'num', text: fmt(bytes[key] ?? 0) }))));
}

/** The context count before this view's pruning and image eviction took their part off. */
export const beforePruning = (context) => context.used - Math.min(context.adjustedTokens ?? 0, 0);

/**
 * What a context count is made of, part by part: the provider's figure, the estimate after it,
 * what a compaction carried over, what the view left out (pruning, evicted images) that the log
 * still holds, and what a context-length refusal corrected.
 */
export function countParts(context) {
  if (context.given) return ['the count the host gave'];
  const signed = (n) => `${n < 0 ? '−' : '+'}${fmt(Math.abs(n))}`;
  return [
    ...(context.anchored ? [`${fmt(context.anchorTokens)} reported by the provider`] : []),
    `${fmt(context.estimatedTokens)} estimated`,
    ...(context.inheritedOverhead ? [`${signed(context.inheritedOverhead)} carried over a compaction`] : []),
    ...(context.adjustedTokens ? [`${signed(context.adjustedTokens)} ${context.adjustedTokens < 0 ? 'left out by this view' : 'the last request had left out'}`] : []),
    ...(context.correctedTokens ? [`${signed(context.correctedTokens)} corrected by a context-length refusal`] : []),
  ];
}

/** The context against the window, with the prune and compact thresholds marked. */
export function renderGauge(gauge, text, context) {
  const { used, size, pruneAt, compactAt, threshold } = context;
  const before = beforePruning(context);
  const scale = Math.max(size || 0, before, compactAt ?? 0) || 1;
  const cls = threshold === 'compact' ? 'used over-compact' : threshold === 'prune' ? 'used over-prune' : 'used';
  const marks = [];
  if (pruneAt) marks.push(el('div', { class: 'mark', style: `left: ${(100 * pruneAt) / scale}%`, 'data-label': 'prune', title: `pruning starts at ${fmt(pruneAt)}` }));
  if (compactAt) marks.push(el('div', { class: 'mark', style: `left: ${(100 * compactAt) / scale}%`, 'data-label': 'compact', title: `compaction is due at ${fmt(compactAt)}` }));
  // What pruning took off: the count before it, drawn faint behind the count after.
  const ghost = before > used ? [el('div', { class: 'before', style: `width: ${(100 * before) / scale}%`, title: `${fmt(before)} tokens before this view's pruning` })] : [];
  gauge.replaceChildren(...ghost, el('div', { class: cls, style: `width: ${(100 * used) / scale}%` }), ...marks);
  gauge.dataset.before = String(before);
  gauge.dataset.used = String(used);
  gauge.dataset.size = String(size);
  gauge.dataset.adjusted = String(context.adjustedTokens ?? 0);
  text.textContent = `${fmt(used)} of ${size ? fmt(size) : 'an unknown window'} tokens` +
    (size ? ` (${((100 * used) / size).toFixed(1)}%)` : '') +
    (pruneAt ? ` · pruning from ${fmt(pruneAt)}` : '') + (compactAt ? ` · compaction due at ${fmt(compactAt)}` : '') +
    ` · ${countParts(context).join(', ')} · threshold: ${threshold}`;
}

/**
 * A collapsible JSON view that stays fast on large bodies: a container's children are made
 * only when it is opened, and long arrays and strings are shown in pages.
 */
export function jsonView(container, value, { open = 1 } = {}) {
  container.replaceChildren(node(null, value, open));
}

const PAGE = 100;
const LONG_STRING = 2000;

function node(key, value, open) {
  const label = key === null ? [] : [el('span', { class: 'k', text: JSON.stringify(key) }), ': '];
  if (value === null || typeof value !== 'object') return el('div', { class: 'leaf' }, ...label, scalar(value));
  const isArray = Array.isArray(value);
  const keys = isArray ? null : Object.keys(value);
  const count = isArray ? value.length : keys.length;
  const summary = el('summary', {}, ...label, isArray ? `[${count}]` : `{${count}}`, preview(value));
  const details = el('details', {}, summary);
  let shown = 0;
  const more = () => {
    const end = Math.min(count, shown + PAGE);
    const frag = document.createDocumentFragment();
    for (let i = shown; i < end; i++) frag.append(isArray ? node(i, value[i], 0) : node(keys[i], value[keys[i]], 0));
    shown = end;
    details.querySelector(':scope > button.more')?.remove();
    details.append(frag);
    if (shown < count) {
      details.append(el('button', { type: 'button', class: 'more', text: `show ${Math.min(PAGE, count - shown)} more of ${fmt(count - shown)}`, onclick: more }));
    }
  };
  details.addEventListener('toggle', () => { if (details.open && shown === 0) more(); });
  details.expandNow = () => { if (shown === 0) more(); details.open = true; };
  if (open > 0) details.expandNow();
  return details;
}

/** Opens a node of a JSON view with its children made now (not on the toggle event). */
export function expand(details) {
  if (typeof details.expandNow === 'function') details.expandNow();
  else details.open = true;
}

function scalar(v) {
  if (typeof v !== 'string') return el('span', { class: 'n', text: JSON.stringify(v) });
  if (v.length <= LONG_STRING) return el('span', { class: 's', text: JSON.stringify(v) });
  const span = el('span', { class: 's', text: JSON.stringify(v.slice(0, LONG_STRING)).slice(0, -1) + '…' });
  const btn = el('button', { type: 'button', class: 'more', text: `all ${fmt(v.length)} characters`, onclick: () => { span.textContent = JSON.stringify(v); btn.remove(); } });
  return el('span', {}, span, btn);
}

/** A hint beside a closed container: a message's role and type, or its first text. */
function preview(value) {
  if (Array.isArray(value)) return '';
  const bits = [value.role, value.type].filter((x) => typeof x === 'string');
  const text = typeof value.content === 'string' ? value.content : typeof value.text === 'string' ? value.text : null;
  if (text) bits.push(JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text));
  return bits.length ? el('span', { class: 'hint muted', text: '  ' + bits.join(' · ') }) : '';
}

/** What each provider calls the conversation list of a payload. */
export const CONVERSATION_KEYS = ['messages', 'input', 'contents'];

/** The conversation list of a payload, whatever the provider calls it. */
export function conversationOf(payload) {
  const key = CONVERSATION_KEYS.find((k) => Array.isArray(payload?.[k]));
  return key === undefined ? [] : payload[key];
}

/**
 * What changed between two requests' conversations: entries kept as they were, then every
 * entry removed, changed or added after the first difference (index, role, a short text).
 */
export function diffConversations(before, after) {
  const a = conversationOf(before);
  const b = conversationOf(after);
  const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);
  let common = 0;
  while (common < a.length && common < b.length && same(a[common], b[common])) common++;
  const changes = [];
  for (let i = common; i < Math.max(a.length, b.length); i++) {
    if (i >= b.length) changes.push({ kind: 'removed', index: i, entry: a[i] });
    else if (i >= a.length) changes.push({ kind: 'added', index: i, entry: b[i] });
    else changes.push({ kind: 'changed', index: i, entry: b[i] });
  }
  const top = [];
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    if (CONVERSATION_KEYS.includes(key)) continue;
    if (!same(before?.[key], after?.[key])) top.push(key);
  }
  return { common, changes, top };
}

export function describeEntry(entry) {
  const role = entry?.role ?? entry?.type ?? 'entry';
  const parts = Array.isArray(entry?.content) ? entry.content : Array.isArray(entry?.parts) ? entry.parts : null;
  let text = typeof entry?.content === 'string' ? entry.content : '';
  const kinds = [];
  if (parts) {
    for (const p of parts) {
      kinds.push(p.type ?? Object.keys(p)[0]);
      if (!text) text = p.text ?? p.content ?? p.output ?? p.functionResponse?.name ?? p.name ?? '';
      if (typeof text !== 'string') text = JSON.stringify(text);
    }
  } else if (!text) {
    text = entry?.output ?? entry?.name ?? entry?.summary?.[0]?.text ?? '';
    if (typeof text !== 'string') text = JSON.stringify(text);
  }
  text = text.replace(/\s+/g, ' ').trim();
  const short = text.length > 90 ? text.slice(0, 90) + '…' : text;
  return `${role}${kinds.length ? ` [${kinds.join(', ')}]` : ''}${short ? ': ' + short : ''}`;
}

/**
 * Dollars, to the cent above one, to a hundredth of a cent below, and to two significant
 * digits below a cent (a small request's cost is never shown as $0.0000).
 */
export function dollars(d) {
  if (d > 0 && d < 0.01) return `$${d.toFixed(Math.min(20, 1 - Math.floor(Math.log10(d))))}`;
  return `$${d.toFixed(d < 1 ? 4 : 2)}`;
}
