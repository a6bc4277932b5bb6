// Discovery benchmark, run by `make bench` after `make build`.
//
// One Node process, an in-memory monorepo (memoryFs): a repository whose cwd sits 12 directories
// below the root, files spread over many package directories hanging off every level of the cwd
// path, 30 rule files (some on the cwd path, some elsewhere) and 40 skills (repository and home
// skill roots). For each workload we count the host calls of one full discover (readDir,
// readFile, bytes, rounds) and time RUNS full discovers (fresh engine each time; median ms).
// Workloads: 50,000 files with cwd at depth 12; 5,000 files, depth 12; 50,000 files, depth 6 —
// host calls should follow the depth of cwd, not the number of files.
import { performance } from 'node:perf_hooks';
import * as cv from '../pkg/node.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const DEPTH = 12;
const FILES_PER_DIR = 10;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The monorepo as a memoryFs file map; `chain[d]` is the directory at depth d on the cwd path. */
export function monorepo(totalFiles) {
  const base = '/bench';
  const home = `${base}/home`;
  const root = `${base}/mono`;
  const chain = [root];
  for (let d = 1; d <= DEPTH; d++) chain.push(`${chain[d - 1]}/level${d}`);
  const files = new Map();
  const rules = [];
  const rule = (path, text) => { files.set(path, text); rules.push(path); };

  files.set(`${root}/.git/HEAD`, 'ref: refs/heads/main\n');
  files.set(`${root}/.gitignore`, 'node_modules/\ndist/\nCLAUDE.local.md\n');
  // Rules on the cwd path (13) ...
  rule(`${home}/.claude/CLAUDE.md`, 'Answer briefly.\n');
  rule(`${root}/AGENTS.md`, '# Monorepo\nRun `make check` before committing.\n'.repeat(20));
  rule(`${root}/CLAUDE.md`, 'See AGENTS.md.\n');
  rule(`${root}/CLAUDE.local.md`, 'Local sandbox at :8080.\n');
  rule(`${root}/.cursor/rules/always.mdc`, '---\ndescription: house style\nalwaysApply: true\n---\nNo default exports.\n');
  rule(`${root}/.cursor/rules/ts.mdc`, '---\ndescription: TypeScript\nglobs: **/*.ts\n---\nStrict mode.\n');
  rule(`${root}/.cursor/rules/rust.mdc`, '---\ndescription: Rust\nglobs: "**/*.rs"\n---\nNo unwrap.\n');
  rule(`${root}/.claude/rules/docs.md`, '---\npaths:\n  - "docs/**"\n---\nSentence case.\n');
  rule(`${root}/.claude/rules/tests.md`, '---\npaths:\n  - "**/*.test.ts"\n---\nOne assertion per behaviour.\n');
  for (const d of [2, 5, 8, 11]) rule(`${chain[d]}/CLAUDE.md`, `Level ${d}: follow the package README.\n`);
  rule(`${chain[DEPTH]}/AGENTS.md`, 'This package is generated.\n');
  // 40 skills: 25 in the repository, 15 at home.
  for (let i = 0; i < 40; i++) {
    const dir = i < 25 ? `${root}/.claude/skills/skill-${i}` : `${home}/.agents/skills/skill-${i}`;
    files.set(`${dir}/SKILL.md`, `---\nname: skill-${i}\ndescription: Does task number ${i} in this monorepo.\n---\n# Skill ${i}\n${'Step.\n'.repeat(50)}`);
  }
  // Package directories off the cwd path, round-robin over the levels, each with files and a src/.
  const pkgDirs = [];
  const target = totalFiles - (30 - rules.length); // leave room for the rules placed below
  for (let i = 0; files.size < target; i++) {
    const parent = chain[i % DEPTH];
    const dir = `${parent}/pkg${i}`;
    pkgDirs.push(dir);
    for (let f = 0; f < FILES_PER_DIR && files.size < target; f++) {
      const sub = f % 2 ? `${dir}/src` : dir;
      files.set(`${sub}/file${f}.ts`, `export const v${i}_${f} = ${f};\n`);
    }
  }
  // ... and the rest (to 30) elsewhere, in package directories not on the cwd path.
  for (let k = 0; rules.length < 30; k++) {
    const dir = pkgDirs[(k * 97) % pkgDirs.length];
    rule(`${dir}/${k % 2 ? 'CLAUDE.md' : 'AGENTS.md'}`, `Package rule ${k}.\n`);
  }
  return { files, home, chain, rules };
}

function measure(label, tree, depth) {
  const fs = cv.memoryFs(tree.files);
  const options = { cwd: tree.chain[depth], home: tree.home };
  const once = async () => {
    const t0 = performance.now();
    const ws = await cv.discover(options, fs);
    const ms = performance.now() - t0;
    const stats = ws.stats();
    const env = ws.environment;
    ws.free();
    return { ms, stats, env };
  };
  return (async () => {
    const first = await once(); // warm-up (JIT); its counts are every run's counts
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await once();
      if (JSON.stringify(r.stats) !== JSON.stringify(first.stats)) throw new Error(`${label}: host calls differ between runs`);
      times.push(r.ms);
    }
    const { calls, bytesRead, rounds } = first.stats;
    return {
      workload: label,
      files: tree.files.size,
      cwdDepth: depth,
      hostCalls: { readDir: calls.readDir, readFile: calls.readFile, total: calls.readDir + calls.readFile },
      bytesRead,
      rounds,
      found: { rules: first.env.rules.length, skills: first.env.skills.length, diagnostics: first.env.diagnostics.length },
      medianMs: +median(times).toFixed(2),
      minMs: +Math.min(...times).toFixed(2),
    };
  })();
}

async function main() {
  const big = monorepo(50_000);
  const small = monorepo(5_000);
  const results = [
    await measure('50k files, cwd depth 12', big, 12),
    await measure('5k files, cwd depth 12', small, 12),
    await measure('50k files, cwd depth 6', big, 6),
  ];
  const [a, b, c] = results;
  console.log(JSON.stringify({
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    runs: RUNS,
    ruleFiles: big.rules.length,
    skills: 40,
    results,
    callsRatio: {
      '50k/5k files at depth 12': +(a.hostCalls.total / b.hostCalls.total).toFixed(2),
      'depth 12/depth 6 at 50k files': +(a.hostCalls.total / c.hostCalls.total).toFixed(2),
    },
  }, null, 2));
}

await main();
