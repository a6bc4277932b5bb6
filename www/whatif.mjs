// What would happen, at the selected point, with other choices: the session priced under each
// pruning choice (the package's simulator), and the summary request a compaction would send
// (nothing applied). Part of the inspector (inspector.mjs), which hands it what is selected.
import { el, fmt, jsonView, dollars } from './views.mjs';

/**
 * The what-if panels of one inspector: `current()` says what is selected now — `{session,
 * timeline, index, base, options, text()}` (`base`: the build options before the pruning choice,
 * `options`: with it, `text()`: the log as the inspector builds from it).
 */
export function whatIfPanels(cv, { $, setState, fail }, current) {
  /**
   * What the session would cost (its input, and the answers it got) under each pruning choice
   * (the package's policies known by name), at the selected provider, model and window: the
   * package's simulator, each request priced with the cache the requests before it filled. The
   * selected choice is marked.
   */
  function priceOptions() {
    const now = current();
    if (!now.session) return fail('pricing', new Error('load a session first'));
    setState('busy', 'pricing the pruning options…');
    try {
      const policies = cv.policies().map((p) => p.name);
      const sim = cv.simulate({ log: now.text(), options: now.base, policies });
      const selected = $('pruning').value;
      $('prices').tBodies[0].replaceChildren(...sim.policies.map((p) => el('tr', {
        'data-policy': p.name, 'data-dollars': String(p.totals.dollars), 'data-read': String(p.totals.read), 'data-over': String(p.totals.overWindow),
        class: p.name === selected ? 'selected' : '',
      },
      el('td', { text: `${$('pruning').querySelector(`option[value="${p.name}"]`)?.textContent ?? p.name}${p.name === selected ? ' (selected)' : ''}` }),
      el('td', { class: 'num', text: dollars(p.totals.dollars) }),
      el('td', { class: 'num', text: fmt(p.totals.read) }),
      el('td', { class: 'num', text: `${(100 * p.totals.maxWindowShare).toFixed(1)}%` }),
      el('td', { class: 'num', text: `${fmt(p.totals.overWindow)} of ${fmt(p.totals.requests)}` }))));
      $('prices-note').textContent = `${sim.provider} ${sim.model}, window ${fmt(sim.window)}, at ${sim.costModel.modelPrefix} prices of ${sim.costModel.asOf}`;
      setState('ready', `priced ${sim.policies.length} pruning options`);
    } catch (e) {
      fail('pricing', e);
    }
  }

  /** What the summarising request would be at the selected point. */
  function prepareCompaction() {
    const now = current();
    const t = now.timeline;
    if (!t || t.length === 0) return;
    setState('busy', 'preparing a compaction…');
    let session = null;
    try {
      session = cv.Session.fromLog(t.logAt(now.index));
      const build = now.options;
      // The last request, whose cache the summary request reuses; its window is the one the
      // summary request must fit.
      const window = session.buildBytes(build).report.tokens.context.size;
      const compaction = { build };
      const keep = $('keep-recent').value.trim();
      if (keep !== '') compaction.keepRecentTokens = Number(keep);
      const done = session.dispatch({ type: 'prepareCompaction', options: compaction });
      if (done.error) {
        // Refusals are answers here ("nothing to compact"), not failures of the page.
        $('compaction-summary').textContent = `No compaction: ${done.error.message} (${done.error.code})`;
        $('compaction-summary').dataset.summarised = '0';
        $('compaction-body').replaceChildren();
        delete $('compaction-body').dataset.bytes;
        setState('ready', `no compaction: ${done.error.code}`);
        return;
      }
      const c = done.reply;
      const over = window > 0 && c.inputTokens > window;
      $('compaction-summary').replaceChildren(
        ...(over ? [el('strong', { class: 'over', text: `Over the window: this summary request holds ${fmt(c.inputTokens)} tokens, more than the ${fmt(window)}-token window; the provider would refuse it (keep fewer tokens verbatim, or compact earlier). ` })] : []),
        `${c.summarised} messages summarised, ${c.kept} kept verbatim, ${c.trimmed} trimmed, ${c.omitted} left out ` +
        `(ladder: ${c.ladder}); ${fmt(c.tokensBefore)} tokens before; the request: ${fmt(c.inputTokens)} tokens, ${fmt(c.body.length)} characters, ` +
        `${fmt(c.cachedBytes)} bytes (${(100 * c.cachedShare).toFixed(1)}%) served by the cache of the last request`);
      $('compaction-summary').dataset.summarised = String(c.summarised);
      $('compaction-summary').dataset.overWindow = String(over);
      $('compaction-summary').dataset.inputTokens = String(c.inputTokens);
      $('compaction-summary').dataset.window = String(window);
      jsonView($('compaction-body'), JSON.parse(c.body));
      $('compaction-body').dataset.bytes = String(new TextEncoder().encode(c.body).length);
      setState('ready', 'compaction prepared (nothing applied)');
    } catch (e) {
      fail('compaction', e);
    } finally {
      session?.free();
    }
  }

  return { priceOptions, prepareCompaction };
}
