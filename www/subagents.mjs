// The subagents list: one line per task the session delegated (its status, the request whose
// answer made the call, the task's first line, its own requests and their input cost), opened
// for the whole task and each of its requests; "open" shows the child's own session, at any
// depth, with a breadcrumb back.
import { el, fmt, dollars } from './views.mjs';

/**
 * Fills `list` with the subagents `links` (`Timeline.subagents()`); `timelineOf(sessionId)` is
 * the child's Timeline when its log was given (else null), walked with `options`. `onAt(index)`
 * selects the parent's request, `onOpen(link)` opens the child's session.
 */
export function renderSubagents(list, links, { timelineOf, options, onAt, onOpen }) {
  list.replaceChildren(...links.map((link) => {
    const child = timelineOf(link.sessionId);
    let cost = null;
    const steps = [];
    if (child) {
      cost = 0;
      for (const { index, report } of child.walk(options)) {
        const d = report.forecast?.inputDollars ?? 0;
        cost += d;
        steps.push(el('li', { 'data-index': String(index), 'data-tokens': String(report.tokens.request), 'data-dollars': String(d),
          text: `request ${index + 1}: ${fmt(report.tokens.request)} tokens, ${dollars(d)}` }));
      }
    }
    const firstLine = (link.task ?? '').split('\n').find((l) => l.trim() !== '') ?? '(no task text)';
    const at = link.request >= 0
      ? el('a', { href: '#', class: 'at', text: `at ${link.request + 1}`, title: `the request whose answer made the call ${link.callId}`,
        onclick: (ev) => { ev.preventDefault(); onAt(link.request); } })
      : el('span', { class: 'at muted', text: 'at —' });
    const open = child
      ? el('button', { type: 'button', class: 'open', text: 'open', title: `show ${link.sessionId}'s own requests`, onclick: () => onOpen(link) })
      : el('span', { class: 'muted', text: 'log not loaded' });
    const summary = el('summary', {},
      el('span', { class: `status ${link.status}`, text: link.status, title: `status: ${link.status}` }), ' ',
      at, ' ',
      el('span', { class: 'task', text: firstLine, title: firstLine }), ' ',
      el('span', { class: 'num', text: child ? `${fmt(child.length)} req · ${dollars(cost)}` : '' }));
    return el('li', { 'data-call': link.callId, 'data-session': link.sessionId, 'data-request': String(link.request), 'data-status': link.status,
      'data-requests': child ? String(child.length) : '', 'data-dollars': cost === null ? '' : String(cost) },
      el('div', { class: 'subagent-line' }, el('details', {}, summary,
        el('p', { class: 'task-full', text: link.task }),
        el('p', { class: 'muted', text: `call ${link.callId} · session ${link.sessionId}` }),
        steps.length ? el('ol', { class: 'plain child-requests' }, ...steps) : ''), open));
  }));
}

/** The breadcrumb: the sessions opened, the first the one loaded; a click goes back to one. */
export function renderCrumbs(nav, stack, onBack) {
  nav.hidden = stack.length < 2;
  nav.replaceChildren(...stack.flatMap((entry, i) => {
    const last = i === stack.length - 1;
    const label = entry.label;
    const item = last ? el('span', { 'aria-current': 'page', text: label }) : el('a', { href: '#', text: label, onclick: (ev) => { ev.preventDefault(); onBack(i); } });
    return i === 0 ? [item] : [' › ', item];
  }));
  nav.dataset.depth = String(stack.length - 1);
}
