// The session service (examples/worker) as it deploys: bundled by `wrangler deploy --dry-run`,
// then run in workerd through Miniflare with its SQLite-backed Durable Objects, persisted to a
// directory so a test can restart the runtime and find what was stored.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, startMiniflare, wranglerEnv } from './worker-host.mjs';

export { root, wranglerEnv };

export const SECRET = 'test-secret-of-the-session-service';

/**
 * The example's wrangler.toml with its paths made absolute, written into `dir`: wrangler keeps
 * its scratch files (.wrangler/) beside the config, so they land there, not in the repository.
 * Returns the config's path.
 */
export function exampleConfig(dir) {
  const example = join(root, 'examples/worker');
  const config = readFileSync(join(example, 'wrangler.toml'), 'utf8')
    .replace(/^main = "(.*)"$/m, (_, p) => `main = ${JSON.stringify(join(example, p))}`)
    .replace(/^"contextview" = "(.*)"$/m, (_, p) => `"contextview" = ${JSON.stringify(join(example, p))}`);
  if (!config.includes(join(example, 'src/index.mjs')) || !config.includes(join(root, 'pkg/workerd.mjs'))) {
    throw new Error(`examples/worker/wrangler.toml changed shape; update exampleConfig:\n${config}`);
  }
  writeFileSync(join(dir, 'wrangler.toml'), config);
  return join(dir, 'wrangler.toml');
}

/** Bundles the example with wrangler; returns `{dir, stdout, files, cleanup}`. */
export function bundleService() {
  const dir = mkdtempSync(join(tmpdir(), 'cv-service-'));
  const out = join(dir, 'dist');
  const r = spawnSync(join(root, 'node_modules/.bin/wrangler'),
    ['deploy', '--dry-run', '--outdir', out, '-c', exampleConfig(dir)],
    { cwd: dir, encoding: 'utf8', env: wranglerEnv(dir) });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stdout}\n${r.stderr}`);
  return { dir: out, stdout: r.stdout, files: readdirSync(out), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the bundled service. `persist`: a directory for the Durable Objects' storage (the same
 * one again after `dispose()` is a restart); `bindings` override the defaults.
 */
export function startService(bundleDir, { persist, bindings = {} } = {}) {
  return startMiniflare(join(bundleDir, 'index.js'), bundleDir, {
    durableObjectsPersist: persist ?? false,
    bindings: { AUTH_SECRET: SECRET, TEST_FAULTS: '1', MAX_COMMAND_BYTES: '65536', MAX_IMPORT_BYTES: '2097152', MAX_RESPONSE_BYTES: '65536', ...bindings },
  });
}
