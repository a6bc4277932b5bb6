// Starts the test Worker (worker.mjs, importing the built pkg/workerd.mjs) in Miniflare with its
// SQLite-backed Durable Object, for the workerd test files.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const here = fileURLToPath(new URL('.', import.meta.url));
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** A ready Miniflare running worker.mjs; `dispose()` it when done. */
export async function startWorker() {
  const mf = new Miniflare({
    scriptPath: join(here, 'worker.mjs'),
    modulesRoot: root,
    modules: true,
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2026-04-01',
    durableObjects: { SESSIONS: { className: 'SessionObject', useSQLite: true } },
  });
  await mf.ready;
  return mf;
}
