// Our payloads against the official SDKs' request types (@anthropic-ai/sdk, openai,
// @google/genai), checked by tsc: generate.mjs writes each payload as a typed object literal under
// target/sdk-types/, then `tsc -p target/sdk-types` must pass, and `tsc -p
// target/sdk-types/negative` (deliberately broken payloads) must fail in every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import * as cv from '../../pkg/node.mjs';
import { REFUSED, SETTINGS } from './generate.mjs';

const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
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
  // The check has its inputs whether or not the shared corpus is there: the SDKs (tsc fails on a
  // missing module), our example, reasoning, server-tool and settings payloads, the inputs file.
  const project = JSON.parse(readFileSync(join(root, 'target/sdk-types/tsconfig.json'), 'utf8')).files;
  for (const file of ['inputs.ts', 'types.ts', 'answer-natives.anthropic.ts', 'answer-natives.openai-responses.ts', 'answer-natives-unstored.openai-responses.ts',
    ...PROVIDERS.flatMap((p) => [`example.${p}.ts`, `settings.${p}.ts`])]) {
    assert.ok(project.includes(file), `target/sdk-types has no ${file}`);
  }

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

  await t.test('every server and hosted tool block of the answers goes back', () => {
    const read = (file) => readFileSync(join(root, 'target/sdk-types', file), 'utf8');
    const anthropic = read('answer-natives.anthropic.ts');
    for (const kind of ['server_tool_use', 'web_fetch_tool_result', 'code_execution_tool_result', 'bash_code_execution_tool_result',
      'text_editor_code_execution_tool_result', 'tool_search_tool_result', 'container_upload']) {
      assert.ok(anthropic.includes(`"type": "${kind}"`), `answer-natives.anthropic.ts has no ${kind}`);
    }
    for (const file of ['answer-natives.openai-responses.ts', 'answer-natives-unstored.openai-responses.ts']) {
      const text = read(file);
      for (const kind of ['file_search_call', 'code_interpreter_call', 'image_generation_call', 'mcp_list_tools', 'mcp_call', 'shell_call', 'shell_call_output', 'apply_patch_call', 'web_search_call']) {
        assert.ok(text.includes(`"type": "${kind}"`), `${file} has no ${kind}`);
      }
      assert.ok(!text.includes('created_by'), `${file}: created_by is an answer's, not a request's`);
    }
    assert.ok(read('answer-natives.openai-responses.ts').includes('"id": "fs_H1"'));
    assert.ok(!read('answer-natives-unstored.openai-responses.ts').includes('"id": "fs_H1"'), 'not stored, no id goes back');
  });

  await t.test('every setting of the SDKs is taken and sent, in the body or as a header', () => {
    const built = JSON.parse(readFileSync(join(root, 'target/sdk-types/settings-built.json'), 'utf8'));
    for (const [provider, given] of Object.entries(SETTINGS)) {
      given.forEach((section, i) => {
        const payload = built[provider][i];
        const body = provider === 'gemini' ? { ...payload, ...payload.generationConfig } : payload;
        const keys = Object.entries(provider === 'gemini' ? { ...section, ...section.generationConfig } : section)
          .filter(([, v]) => v !== null).map(([k]) => k);
        for (const key of keys) {
          if (key === 'user_profile_id' || key === 'workspace_id') {
            assert.ok(!(key in body), `${provider}: ${key} is a header, not a body field`);
          } else {
            assert.ok(key in body, `${provider} settings ${i}: ${key} given, not sent`);
          }
        }
      });
    }
    // The header settings go where the endpoint says.
    const { headers } = cv.endpoint({ provider: 'anthropic', providerOptions: { anthropic: SETTINGS.anthropic[0] } });
    assert.deepEqual([headers['anthropic-user-profile-id'], headers['anthropic-workspace-id']], ['up_01', 'wrkspc_01']);
  });

  await t.test('null is as good as absent, wherever a setting may be left out', () => {
    const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8') +
      JSON.stringify({ seq: 99, ts: '2026-01-01T00:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'x', content: { type: 'text', text: 'go on' } } }) + '\n';
    // What each build writes whatever the settings say.
    // (OpenAI's `prompt_cache_key` is then the build's own `cache.key`.)
    const always = { anthropic: ['max_tokens'], 'openai-chat': ['prompt_cache_key'], 'openai-responses': ['prompt_cache_key'], gemini: [] };
    for (const [provider, given] of Object.entries(SETTINGS)) {
      const nulls = Object.fromEntries(given.flatMap((g) => Object.keys(g)).map((k) => [k, null]));
      const { payload } = cv.buildRequest({ log, provider, providerOptions: { [provider]: nulls } });
      const sent = Object.keys(nulls).filter((k) => k in payload && !always[provider].includes(k));
      assert.deepEqual(sent, [], `${provider}: nulls sent`);
    }
  });

  await t.test("what a section refuses is refused with the reason", () => {
    const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8');
    for (const [provider, keys] of Object.entries(REFUSED)) {
      for (const key of keys) {
        assert.throws(() => cv.buildRequest({ log, provider, providerOptions: { [provider]: { [key]: 'x' } } }),
          (e) => e.code === 'invalid_options' && e.message.includes(`${provider}.${key} cannot be set here: `), `${provider}.${key}`);
      }
    }
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
