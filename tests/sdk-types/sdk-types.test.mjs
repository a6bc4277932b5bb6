// Our payloads against the official SDKs' request types (@anthropic-ai/sdk, openai,
// @google/genai), checked by tsc: generate.mjs writes each payload as a typed object literal under
// target/sdk-types/, then `tsc -p target/sdk-types` must pass, and `tsc -p
// target/sdk-types/negative` (deliberately broken payloads) must fail in every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules/.bin/tsc');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { code: r.status, out: (r.stdout + r.stderr).trim() };
}

test('payloads type-check against the provider SDKs', async (t) => {
  const gen = run(process.execPath, [join(root, 'tests/sdk-types/generate.mjs')]);
  assert.equal(gen.code, 0, `generate.mjs failed:\n${gen.out}`);
  t.diagnostic(gen.out);

  await t.test('the native payloads hold what they are there to check', () => {
    const read = (file) => readFileSync(join(root, 'target/sdk-types', file), 'utf8');
    const anthropic = read('native.anthropic.ts');
    for (const kind of ['char_location', 'page_location', 'content_block_location', 'web_search_result_location', 'search_result_location', 'redacted_thinking', '"signature"']) {
      assert.ok(anthropic.includes(kind), `native.anthropic.ts has no ${kind}`);
    }
    for (const file of ['native.openai-responses.ts', 'native-unstored.openai-responses.ts']) {
      const text = read(file);
      for (const kind of ['url_citation', 'file_citation', 'container_file_citation', 'file_path', '"encrypted_content"']) {
        assert.ok(text.includes(kind), `${file} has no ${kind}`);
      }
    }
    assert.ok(read('native.openai-responses.ts').includes('"id": "msg_0002"'));
    assert.ok(!read('native-unstored.openai-responses.ts').includes('"id"'));
  });

  await t.test('tsc -p target/sdk-types passes', () => {
    const r = run(tsc, ['-p', 'target/sdk-types']);
    assert.ok(r.code === 0 && r.out === '', `tsc reports mismatches with the SDK types (exit ${r.code}):\n${r.out}`);
  });

  await t.test('tsc -p target/sdk-types/negative fails on every broken payload', () => {
    const r = run(tsc, ['-p', 'target/sdk-types/negative']);
    assert.notEqual(r.code, 0, `tsc accepted the deliberately broken payloads:\n${r.out}`);
    const files = JSON.parse(run(process.execPath, ['-p', "JSON.stringify(require('./target/sdk-types/negative/tsconfig.json').files)"]).out);
    assert.ok(files.length > 0);
    for (const file of files) {
      assert.match(r.out, new RegExp(`negative/${file.replace(/[.]/g, '\\.')}\\(\\d+,\\d+\\): error TS`), `no tsc error for ${file}:\n${r.out}`);
    }
    // Only type errors: a missing module or bad config would also fail, but prove nothing.
    assert.doesNotMatch(r.out, /error TS(2307|5\d{3}|6\d{3})/, `tsc failed for the wrong reason:\n${r.out}`);
  });
});
