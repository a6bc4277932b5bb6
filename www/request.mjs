// The selected request's panels: its figures, each token count with what it is, tokens by
// source, the context gauge, what the view pipeline did (repeated repairs grouped), what it
// shares with the request before and what changed since. Each function fills elements from a
// build's report and body; none of them builds.
import { el, fmt, figure, dollars, renderSources, renderGauge, beforePruning, countParts, conversationOf, diffConversations, describeEntry, jsonView } from './views.mjs';

/**
 * The figures row and the lines under it that say what each token count is and why they
 * differ. `headTokens`: the source agent's own system prompt and tools as its usage counted
 * them, when an import knows (its file holds neither).
 */
export function renderFigures($, report, payload, { headTokens = null, asRecorded = false } = {}) {
  const c = report.tokens.context;
  const entries = conversationOf(payload).length;
  $('figures').replaceChildren(
    figure('tokens', report.tokens.request, 'tokens, estimated', fmt(report.tokens.request), 'our estimator\'s count of this body (see the token counts below)'),
    figure('context', c.used, 'in context', fmt(c.used), 'the session\'s count of its context: what the gauge shows (see the token counts below)'),
    ...(report.forecast ? [
      figure('cache-read', report.forecast.cacheRead, report.forecast.cacheRead > 0 ? 'cached' : `cached (${uncachedWhy(report)})`, fmt(report.forecast.cacheRead), 'tokens the provider\'s cache should serve, after every request before this one'),
      figure('input-cost', report.forecast.inputDollars, 'input cost', dollars(report.forecast.inputDollars), `at ${report.forecast.pricedAs} prices of ${report.forecast.pricesAsOf}`),
    ] : [figure('input-cost', 0, 'not priced', '—', `no price row for ${report.model}`)]),
    figure('bytes', report.bytes, 'bytes'),
    figure('items', report.items, 'items', fmt(report.items), 'conversation items the request holds'),
    figure('entries', entries, 'entries', fmt(entries), 'entries of the body\'s conversation list'),
  );
  const lines = [
    el('li', { 'data-count': 'tokens' }, el('b', { text: fmt(report.tokens.request) }),
      ` estimated tokens: our estimator's count of this body, by source below${asRecorded && headTokens ? ` — the agent's own system prompt and tools are not in its file, so not in this body` : ''}.`),
  ];
  if (!c.given && c.anchored) {
    lines.push(el('li', { 'data-count': 'reported' }, el('b', { text: fmt(c.anchorTokens) }),
      ' tokens the provider reported for the last answer before this request (its own tokenizer, with everything the agent sent).'));
  }
  lines.push(el('li', { 'data-count': 'context' }, el('b', { text: fmt(c.used) }), ` tokens in context, the count the gauge shows: ${countParts(c).join(', ')}.`));
  const gap = c.used - report.tokens.request;
  if (!c.given && Math.abs(gap) > Math.max(500, report.tokens.request * 0.05)) {
    const why = [];
    if (headTokens) why.push(`the agent's own system prompt and tools (about ${fmt(headTokens)} tokens by its usage) that its file does not hold`);
    if (c.anchored) why.push('the provider\'s tokenizer is not our estimator');
    lines.push(el('li', { 'data-count': 'gap', class: 'muted' }, `The two differ by ${fmt(Math.abs(gap))}: ${why.length ? why.join('; ') : 'the count includes what the body does not send'}.`));
  }
  $('token-notes').replaceChildren(...lines);
}

/** Why the cache serves nothing of a request, in a few words. */
function uncachedWhy(report) {
  const p = report.prefix;
  if (!p) return 'the first request';
  if (p.cause) return `prefix rewritten by ${p.cause}`;
  if (p.extendsPrevious) return 'below the cache minimum, or expired';
  return 'its prefix changed';
}

/** Tokens by source and the gauge, with what pruning took off shown against its marks. */
export function renderShares($, report) {
  renderSources($('by-source'), $('sources').tBodies[0], report.tokens.bySource, report.sources);
  renderGauge($('gauge'), $('gauge-text'), report.tokens.context);
}

/** What the view pipeline did: repairs (grouped by kind, with a count), pruning, images, reasoning. */
export function renderPipeline($, report, { pruningOff = false } = {}) {
  const p = report.pruning;
  const c = report.tokens.context;
  const lines = [];
  const repairs = new Map();
  for (const r of report.repairs) repairs.set(r.kind, [...(repairs.get(r.kind) ?? []), r]);
  for (const [kind, list] of repairs) {
    const ids = list.map((r) => r.callId).filter(Boolean);
    const text = `repair: ${kind}${list.length > 1 ? ` ×${list.length}` : ''}${ids.length ? ` (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? `, … ${ids.length - 3} more` : ''})` : ''}`;
    lines.push(el('li', { 'data-kind': 'repair', 'data-repair': kind, 'data-count': String(list.length), text }));
  }
  // Pruning runs on the count before it: said beside the count after, which the gauge shows.
  const before = beforePruning(c);
  const against = p.active && c.pruneAt ? ` — the context before pruning: ${fmt(before)} tokens (prune mark ${fmt(c.pruneAt)}), after: ${fmt(c.used)}` : '';
  lines.push(el('li', { 'data-kind': 'pruning', 'data-cleared': String(p.cleared), 'data-trimmed': String(p.trimmed), 'data-before': String(before),
    text: p.active ? `pruning: ${fmt(p.cleared)} results cleared, ${fmt(p.trimmed)} trimmed (results before step ${p.boundaryStep ?? 0} of ${p.steps ?? 0}, turn ${p.boundaryTurn} of ${p.turns})${against}`
      : pruningOff ? 'pruning: off (as recorded, or the policy chosen)' : 'pruning: inactive (below its trigger)' }));
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
}

/** The body, collapsible. */
export function renderBody($, report, payload) {
  $('body-size').textContent = `(${fmt(report.bytes)} bytes)`;
  jsonView($('body'), payload);
}

/**
 * What the what-if changes of the request as recorded (`recorded`: that build's report, or
 * null when the view is the recorded one or the log records no provider).
 */
export function renderAgainstRecorded($, report, recorded) {
  const box = $('against-recorded');
  if (!recorded) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const delta = (a, b, f = fmt) => `${f(a)} → ${f(b)}`;
  const cost = (r) => r.forecast?.inputDollars ?? 0;
  box.dataset.recordedCost = String(cost(recorded));
  box.replaceChildren(
    el('b', { text: 'What if, against the request as recorded: ' }),
    `${recorded.provider} ${recorded.model} → ${report.provider} ${report.model}; ` +
    `bytes ${delta(recorded.bytes, report.bytes)}, tokens ${delta(recorded.tokens.request, report.tokens.request)}, ` +
    `cached ${delta(recorded.forecast?.cacheRead ?? 0, report.forecast?.cacheRead ?? 0)}, input ${delta(cost(recorded), cost(report), dollars)}` +
    `${report.pruning.cleared ? `; pruning clears ${fmt(report.pruning.cleared)} results` : ''}`,
  );
}

export function renderPrefix($, report) {
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

export function renderDiff($, before, after) {
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
