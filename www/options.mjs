// The view's options: what the controls say, as the timeline and the builds take them — as
// recorded (each request at the provider and model its log recorded, without our pruning) or the
// what-if (provider, model, window and a pruning policy known by name) — and the controls shown
// as the view has them. Nothing here builds.
import { el } from './views.mjs';

/** The options of the view over `state` (the inspector's), read from and shown in the controls `$`. */
export function viewOptions({ cv, $, state }) {
  // The pruning choices are the package's policies known by name (`policies()`), the ones the
  // CLI's `simulate --policy` takes: each lays its build options over the controls' own.
  const POLICIES = cv.policies();
  $('pruning').replaceChildren(...POLICIES.map((p) => el('option', { value: p.name, title: p.summary, text: p.name })));

  function windowOption() {
    const window = Number($('window').value);
    return Number.isInteger(window) && window > 0 ? { contextWindow: window } : {};
  }

  /** The controls' build options before the pruning choice: provider, model, window. */
  function baseOptions() {
    const o = { provider: $('provider').value };
    const model = $('model').value.trim();
    if (model) o.model = model;
    return { ...o, ...windowOption() };
  }

  /**
   * The view's options, as the timeline takes them: as recorded (the provider control only for
   * requests the log names none for), or the what-if controls with the pruning choice.
   */
  function options() {
    if (state.asRecorded) return { asRecorded: true, provider: $('provider').value, ...windowOption() };
    return { ...baseOptions(), ...cv.policy($('pruning').value).options };
  }

  /** The build options request `index` is built with under the view's options. */
  const optionsAt = (index) => state.timeline.optionsAt(index, options());

  /** Whether the log shown records where some request went (what "as recorded" needs). */
  const recordsProvider = () => Boolean(state.timeline?.points.some((p) => p.provider !== undefined));

  /** Shows the controls as the view has them: as recorded, the selected request's own. */
  function showMode() {
    const t = state.timeline;
    const recorded = recordsProvider();
    $('as-recorded').disabled = !recorded;
    $('as-recorded').checked = state.asRecorded;
    $('as-recorded').parentElement.title = recorded ? 'each request at the provider and model the session recorded, without pruning of ours' : 'this log records no provider or model';
    for (const id of ['model', 'pruning']) $(id).disabled = state.asRecorded;
    const label = $('mode-label');
    label.hidden = !t;
    label.textContent = state.asRecorded ? 'as recorded' : 'what if';
    label.className = state.asRecorded ? 'badge' : 'badge whatif';
    if (state.asRecorded && t?.length) {
      // The what-if controls as they were, for a later session that records no provider.
      state.saved ??= { provider: $('provider').value, model: $('model').value, pruning: $('pruning').value };
      const point = t.points[state.index];
      if (point?.provider) $('provider').value = point.provider;
      $('model').value = point?.model ?? '';
      $('pruning').value = 'off';
    }
  }


  return { windowOption, baseOptions, options, optionsAt, recordsProvider, showMode };
}
