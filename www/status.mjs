// An inspector's status line and the state tests wait on: the host element's `data-state` (the
// page's body, or a <contextview-inspector>) is `busy` while it works and `ready` or `error: …`
// when it is done, and each action that ends counts `data-done` up by one. The host also gets a
// `contextview-state` event with `{state, message}` each time.

/** The status functions of one inspector: `$` finds an element of its own by id. */
export function statusOf(root, host) {
  const $ = (id) => root.getElementById(id);
  function setState(s, message = s) {
    host.dataset.state = s;
    if (s !== 'busy') host.dataset.done = String(Number(host.dataset.done ?? 0) + 1);
    $('status').textContent = message;
    host.dispatchEvent(new CustomEvent('contextview-state', { detail: { state: s, message } }));
  }
  function fail(what, e) {
    const msg = `${what}: ${e?.code ? e.code + ': ' : ''}${e?.message ?? e}`;
    setState('error: ' + msg, msg);
    console.warn(msg);
  }
  return { $, setState, fail };
}
