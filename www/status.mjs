// The page's status line and the state tests wait on: `document.body.dataset.state` is `busy`
// while the page works and `ready` or `error: …` when it is done, and each action that ends
// counts `data-done` up by one.

export const $ = (id) => document.getElementById(id);

/** `busy` while working; `ready` or `error: …` when done, and then `data-done` counts up. */
export function setState(s, message = s) {
  document.body.dataset.state = s;
  if (s !== 'busy') document.body.dataset.done = String(Number(document.body.dataset.done ?? 0) + 1);
  $('status').textContent = message;
}

export function fail(what, e) {
  const msg = `${what}: ${e?.code ? e.code + ': ' : ''}${e?.message ?? e}`;
  setState('error: ' + msg, msg);
  console.warn(msg);
}
