// Starts the test Worker (worker.mjs, importing the built pkg/workerd.mjs) in Miniflare with its
// SQLite-backed Durable Object, for the workerd test files.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const here = fileURLToPath(new URL('.', import.meta.url));
export const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A ready Miniflare running the module Worker at `scriptPath` (its imports resolved under
 * `modulesRoot`, `.wasm` imports compiled) with a SQLite-backed Durable Object class
 * `SessionObject` bound as SESSIONS; `options` adds to or overrides that. `dispose()` it when done.
 */
export async function startMiniflare(scriptPath, modulesRoot, options = {}) {
  const mf = new Miniflare({
    scriptPath,
    modulesRoot,
    modules: true,
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js', '**/*.mjs'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2026-04-01',
    durableObjects: { SESSIONS: { className: 'SessionObject', useSQLite: true } },
    ...options,
  });
  await mf.ready;
  return mf;
}

/** A ready Miniflare running worker.mjs; `dispose()` it when done. */
export function startWorker() {
  return startMiniflare(join(here, 'worker.mjs'), root);
}

/** Environment for wrangler offline and anonymous: a throwaway HOME, no metrics, no account. */
export function wranglerEnv(home) {
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), WRANGLER_SEND_METRICS: 'false', CI: 'true' };
  delete env.CLOUDFLARE_API_TOKEN;
  delete env.CLOUDFLARE_ACCOUNT_ID;
  return env;
}
