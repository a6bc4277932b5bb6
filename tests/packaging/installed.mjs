// The package as a consumer gets it: pkg/ packed by `npm pack` (so only what package.json's
// `files` lists) and the tarball unpacked as node_modules/contextview of a consumer project —
// never a symlink to pkg/, which would also hold what the tarball leaves out.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
let cached = null;

/** The tarball `npm pack` makes of pkg/ (once per process), and what npm says of it. */
export function packed() {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'cv-pack-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const [info] = JSON.parse(execFileSync('npm', ['pack', join(root, 'pkg'), '--pack-destination', dir, '--json', '--silent'], { encoding: 'utf8' }));
  cached = { tarball: join(dir, info.filename), info };
  return cached;
}

/** Unpacks the tarball as `project`/node_modules/contextview; returns that directory. */
export function installInto(project) {
  const modules = join(project, 'node_modules');
  mkdirSync(modules, { recursive: true });
  const unpack = mkdtempSync(join(modules, '.unpack-'));
  execFileSync('tar', ['xzf', packed().tarball, '-C', unpack]);
  const installed = join(modules, 'contextview');
  rmSync(installed, { recursive: true, force: true });
  renameSync(join(unpack, 'package'), installed);
  rmSync(unpack, { recursive: true, force: true });
  return installed;
}
