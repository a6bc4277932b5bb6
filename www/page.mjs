// The inspector as a page over the built package (`make serve`): the markup and styles go into
// the document, and the inspector (inspector.mjs) runs on it with the browser entry. The
// package's <contextview-inspector> element runs the same modules in its own shadow root.
import * as cv from '../pkg/browser.mjs';
import { mountInspector } from './inspector.mjs';
import { MARKUP } from './markup.mjs';
import { CSS } from './style.mjs';
import { statusOf } from './status.mjs';
import { warmUp } from './warmup.mjs';

async function start() {
  document.head.append(Object.assign(document.createElement('style'), { textContent: CSS }));
  document.body.insertAdjacentHTML('afterbegin', MARKUP);
  try {
    await cv.init();
  } catch (e) {
    return statusOf(document, document.body).fail('loading the library', e);
  }
  const inspector = mountInspector({ root: document, host: document.body, cv, exampleUrl: new URL('../examples/session.jsonl', import.meta.url) });
  // What a host or a test drives the page with: `select(index)`, `view` (also `data-view`), …
  document.body.inspector = inspector;
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register('./sw.js').catch((e) => console.warn('offline cache unavailable:', e?.message ?? e));
  }
  inspector.ready(`contextview ${cv.version()} loaded: open a workspace folder and a session file`);
  // The engine's code warmed on a sample of each format, in the background once the page is
  // ready: the first file picked then builds at full speed. The samples are imported, so this is
  // where the page loads the lazy module, after its first paint.
  warmUp(cv).catch((e) => console.info('warm-up skipped:', e?.code ?? '', e?.message ?? e));
}

start();
