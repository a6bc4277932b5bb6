// TypeScript consumers of the package as `npm pack` packs it (installed.mjs): a temporary project
// whose node_modules/contextview is the tarball's contents, type-checked by tsc with
// `moduleResolution: "bundler"` and with `"node16"` (ESM). A consumer that misuses the API must
// fail to type-check, so the check cannot pass by typing everything as `any`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installInto } from './installed.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules/.bin/tsc');

const CONSUMER = `import { Session, buildRequestString, openSession, nodeFileStorage, StorageError, Timeline, type BuildInput } from 'contextview';

const options: BuildInput = { provider: 'anthropic', model: 'claude-sonnet-4-5', system: 'Be brief.', tools: [] };
const log = '{"format":"contextview.session-log","version":1,"sessionId":"s"}\\n';
const session: Session = Session.fromLog(log);
const bytes: Uint8Array = session.buildBytes(options).body;
const text: string = session.buildString(options).body;
const reused: boolean | undefined = session.buildString(options).report.reuse?.appendedOnly;
const fromText: string = buildRequestString({ ...options, log }).body;
const cleared: number = session.buildString(options).report.pruning.cleared;
const newlyCleared: string[] = session.buildString(options).report.pruning.newlyCleared;
const durable = openSession(nodeFileStorage('s.jsonl'), { sessionId: 's' }).then(async (s) => {
  const p = await s.dispatch({ type: 'buildRequest', options: { provider: 'gemini' } });
  return p.error ? p.error.code : p.reply.body;
});
const storageCode: string = new StorageError('seq_gap', 'gap').code;
const points: number = new Timeline(log).length;
export { bytes, text, reused, fromText, cleared, newlyCleared, durable, storageCode, points };
`;

// Each line breaks the API's types.
const MISUSE = `import { Session } from 'contextview';
const session = Session.fromLog('');
const a: string = session.buildBytes({ provider: 'anthropic' }).body;
const b = session.buildString({ provider: 'not-a-provider' });
const c: string[] = session.buildString({ provider: 'anthropic' }).report.pruning.cleared;
export { a, b, c };
`;

// The inspector element, as a web IDE types it (ESM resolutions: the element is a browser module).
const INSPECTOR = `import { memoryFs } from 'contextview';
import { defineInspector, type InspectorOptions, type InspectorView } from 'contextview/inspector';

const Inspector = defineInspector();
const element = document.createElement('contextview-inspector');
const ready: Promise<InstanceType<typeof Inspector>> = element.ready;
const options: InspectorOptions = { provider: 'gemini', contextWindow: 100000, pruning: 'off' };
element.addEventListener('contextview-state', (e) => console.log(e.detail.state, e.detail.message));
const opened = ready.then((el) => {
  el.options = options;
  el.options = { asRecorded: true, contextWindow: 60000 };
  const shown: InspectorView = el.view;
  const cost: number | undefined = shown.figures?.cost;
  if (shown.selected !== null && cost !== undefined) el.select(shown.selected);
  el.loadSession('{"format":"contextview.session-log","version":1,"sessionId":"s"}\\n', 'log');
  return el.openWorkspace(memoryFs({ '/w/AGENTS.md': 'Use tabs.' }), '/w');
});
export { opened };
`;

const INSPECTOR_MISUSE = `import { defineInspector } from 'contextview/inspector';
const element = new (defineInspector())();
element.options = { pruning: 'sometimes' };
const n: number = element.loadSession('log');
export { n };
`;

function project(resolution) {
  const dir = mkdtempSync(join(tmpdir(), `cv-ts-${resolution}-`));
  installInto(dir);
  // `commonjs`: a CommonJS project (node16 resolution), whose imports become require() and
  // resolve to the package's CommonJS entry and its index.d.cts.
  const type = resolution === 'commonjs' ? 'commonjs' : 'module';
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
  const module = resolution === 'bundler' ? 'esnext' : 'node16';
  if (resolution === 'commonjs') resolution = 'node16';
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module, moduleResolution: resolution, lib: ['es2022', 'dom'], skipLibCheck: false, types: [] }, files: ['consumer.ts'] }),
  );
  return dir;
}

function check(dir, source) {
  writeFileSync(join(dir, 'consumer.ts'), source);
  const r = spawnSync(tsc, ['-p', dir], { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { code: r.status, out: (r.stdout + r.stderr).trim() };
}

/** `good` type-checks under each resolution; `bad` does not, with an error on each of `lines`. */
function typeChecks(what, resolutions, good, bad, lines) {
  for (const resolution of resolutions) {
    test(`TypeScript (${resolution} resolution) type-checks ${what} and refuses misuse`, () => {
      const dir = project(resolution);
      try {
        const ok = check(dir, good);
        assert.equal(ok.code, 0, ok.out);
        const refused = check(dir, bad);
        assert.notEqual(refused.code, 0, 'misuse type-checked');
        for (const line of lines) assert.match(refused.out, new RegExp(`consumer\\.ts\\(${line},`), refused.out);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}

typeChecks('a consumer', ['bundler', 'node16', 'commonjs'], CONSUMER, MISUSE, [3, 4, 5]);
typeChecks('the inspector element', ['bundler', 'node16'], INSPECTOR, INSPECTOR_MISUSE, [3, 4]);
