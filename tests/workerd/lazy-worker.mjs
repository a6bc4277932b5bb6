// The Worker of lazy.test.mjs: the package's workerd entry, told where its lazy module (the
// importers and the discovery engine) comes from by a function that counts its calls and fails
// on demand — the Worker's way of fetching it. Routes:
//   POST /loop    the README's loop against the stand-in (every unhappy case)
//   POST /fail    an import and a discovery while the module cannot be had, then a build
//   POST /import  body: another agent's session file -> {report, log}
//   POST /follow  body: a session file, pushed as it would grow (a third at a time, cut inside a
//                 line), then settled -> {log, pushes}
//   POST /opencode-storage  body: {parent, children}, each an OpenCode session's storage files
//                 -> the importOpenCodeStorage tree
// Each answers with `loaded` (lazyModuleLoaded()) and `calls` (how often the source was asked).
import * as cv from '../../pkg/workerd.mjs';
import { unhappyCases, runUnhappy } from '../js/unhappy-conformance.mjs';

let calls = 0;
let failing = false;
await cv.init({
  lazy: async () => {
    calls++;
    if (failing) throw new Error('the module store is unreachable');
    return (await import('../../pkg/web/contextview_lazy_bg.wasm')).default;
  },
});

const LOG = [
  { format: 'contextview.session-log', version: 1, sessionId: 'lazy', createdAt: '2026-12-05T10:00:00Z' },
  { seq: 1, ts: '2026-12-05T10:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'm1', content: { type: 'text', text: 'hi' } } },
].map((l) => JSON.stringify(l)).join('\n') + '\n';

async function outcome(promise) {
  try {
    await promise;
    return { ok: true };
  } catch (e) {
    return { name: e.name, code: e.code, ours: e instanceof cv.ContextviewError, cause: e.cause?.message, message: e.message };
  }
}

const json = (value) => new Response(JSON.stringify({ ...value, loaded: cv.lazyModuleLoaded(), calls }), { headers: { 'content-type': 'application/json' } });

export default {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === '/loop') {
      const results = await runUnhappy(unhappyCases, cv);
      return json({ cases: results.length, failed: results.filter((r) => !r.ok) });
    }
    if (pathname === '/fail') {
      // A source that is none is refused (and the one given at start kept).
      const wrongSource = await outcome(cv.init({ lazy: 5 }));
      failing = true;
      const importSession = await outcome(cv.importSession('{"hello":1}\n'));
      const discover = await outcome(cv.discover({ cwd: '/w' }, cv.memoryFs({ '/w/AGENTS.md': 'Use tabs.' })));
      failing = false;
      const build = cv.buildRequest({ log: LOG, provider: 'anthropic' }).payload.messages.length;
      return json({ wrongSource, importSession, discover, build });
    }
    if (pathname === '/import') {
      const { log, report } = await cv.importSession(await request.text());
      return json({ log, report });
    }
    if (pathname === '/follow') {
      const text = await request.text();
      const { IncrementalImport } = await cv.loadLazyModule();
      const follower = new IncrementalImport();
      let log = '';
      const cuts = [0, Math.floor(text.length / 3), Math.floor((2 * text.length) / 3), text.length];
      try {
        for (let i = 1; i < cuts.length; i++) log += follower.push(text.slice(cuts[i - 1], cuts[i])).log;
        log += follower.settle().log;
      } finally {
        follower.free();
      }
      return json({ log, pushes: cuts.length - 1 });
    }
    if (pathname === '/opencode-storage') {
      const { parent, children } = await request.json();
      return json({ tree: await cv.importOpenCodeStorage(parent, children) });
    }
    return new Response('not found', { status: 404 });
  },
};
