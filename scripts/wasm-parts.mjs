#!/usr/bin/env node
// Where a module's bytes go, by part: `node scripts/wasm-parts.mjs FILE.wasm…` runs
// `twiggy top` on each module as cargo writes it (with its names, before wasm-bindgen and
// wasm-opt) and sums each function's and data item's shallow bytes by the part its name
// belongs to — a module of this crate, a dependency, serde's generic machinery, the runtime.
// Custom sections (names, wasm-bindgen's descriptors), which the shipped module does not carry,
// are left out. BENCHMARKS.md's tables of parts are made with it.
import { spawnSync } from 'node:child_process';

const PARTS = [
  [/describe/, () => "wasm-bindgen's describe shims (the CLI strips them)"],
  // Our crates: the core by module (the first path segment after `contextview::`), the others whole.
  [/contextview_(js|import|discovery|first|lazy)::/, (m) => `contextview-${m[1]}`],
  [/contextview::([a-z_]+)/, (m) => m[1]],
  [/granit|saphyr/, () => 'YAML (granit-parser)'],
  [/glob_match|gix_|bstr/, () => 'globs and ignore files (glob-match, gix, bstr)'],
  [/serde_json|serde::|serde_core|_serde::|serde_wasm_bindgen|tsify/, () => "serde's generic (de)serializers"],
  [/wasm_bindgen|js_sys|__wbg|__wbindgen/, () => 'wasm-bindgen and js-sys glue'],
  [/base64|imagesize|rustc_hash|strsim/, () => 'small dependencies (base64, imagesize, rustc-hash, strsim)'],
  [/data segment/, () => 'data segments'],
  [/(^|[<(&\s])(core|alloc|std|hashbrown|dlmalloc)::/, () => 'std, core, alloc, hashbrown, the allocator'],
];

function parts(file) {
  const r = spawnSync('twiggy', ['top', '-n', '1000000', '--format', 'csv', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`twiggy failed on ${file}: ${r.stderr}`);
  const sums = new Map();
  let total = 0;
  for (const line of r.stdout.split('\n').slice(1)) {
    if (!line) continue;
    const m = line.match(/^(?:"((?:[^"]|"")*)"|([^,]*)),(\d+),/);
    if (!m) continue;
    const name = (m[1] ?? m[2]).replace(/""/g, '"');
    if (/^custom section|subsection/.test(name)) continue;
    const bytes = Number(m[3]);
    const found = PARTS.map(([re, label]) => [name.match(re), label]).find(([hit]) => hit);
    const part = found ? found[1](found[0]) : 'other (unnamed functions, tables, shims)';
    sums.set(part, (sums.get(part) ?? 0) + bytes);
    total += bytes;
  }
  return { total, sums: [...sums].sort((a, b) => b[1] - a[1]) };
}

for (const file of process.argv.slice(2)) {
  const { total, sums } = parts(file);
  console.log(`\n${file}: ${(total / 1e3).toFixed(0)} KB of code and data (names and custom sections left out)\n`);
  console.log('| part | bytes | share |');
  console.log('|---|---|---|');
  for (const [part, bytes] of sums) console.log(`| ${part} | ${(bytes / 1e3).toFixed(0)} KB | ${((100 * bytes) / total).toFixed(1)}% |`);
}
